"""The Backend interface: a new backend is one module, with no edits elsewhere.

``ToyBackend`` below is a complete backend defined in this test: it
generates its own driver source (Python text, run in reverse item order so
that it cannot be mistaken for the python backend), builds it with
``compile()``, and runs Elementwise, Reduction and Scan through the same
primitives users call.  Nothing in pcompute knows its name.
"""
import numpy as np
import pytest

import pcompute as pc
from pcompute.backends.base import Backend
from pcompute.backends.pyexec import python_callable, python_source
from pcompute.backends.registry import (backend_names, get_backend, register_backend,
                                        unregister_backend)
from pcompute.errors import BackendUnavailableError, KernelValueError
from pcompute.records import BuiltKernel, GeneratedKernel

_EW = """def pc_run(n, args, f):
    for i in range(n - 1, -1, -1):
        f(i, *args)
"""

_RED = """def pc_run(n, args, map_, reduce_, acc):
    for i in range(n - 1, -1, -1):
        acc = reduce_(map_(i, *args), acc)
    return acc
"""


def _compiled(source):
    namespace = {}
    exec(compile(source, "<toy kernel>", "exec"), namespace)
    return namespace["pc_run"]


class ToyBackend(Backend):
    """Host memory (numpy), kernels as generated Python drivers."""

    name = "toy"
    dialect = "toy"
    launches = 0

    def _built(self, generated, launch):
        def counted(n, args):
            ToyBackend.launches += 1
            return launch(n, args)
        return BuiltKernel(generated, self.name, counted)

    def generate_elementwise(self, program, func, config):
        return GeneratedKernel("elementwise", func.__name__, "toy",
                               _EW + "\n\n" + python_source(func), ("pc_run",),
                               tuple(program.entry.args[1:]))

    def build_elementwise(self, program, func, config):
        generated = self.generate_elementwise(program, func, config)
        run, f = _compiled(generated.source.split("\n\n")[0]), python_callable(func)
        return self._built(generated, lambda n, args: run(n, args, f))

    def generate_reduction(self, spec, config):
        return GeneratedKernel("reduction", spec.name, "toy", _RED, ("pc_run",),
                               tuple(spec.map_program.entry.args[1:]))

    def build_reduction(self, spec, config):
        generated = self.generate_reduction(spec, config)
        run, dtype = _compiled(generated.source), spec.out_type.dtype
        map_ = python_callable(spec.map_func)
        return self._built(generated, lambda n, args: dtype.type(
            run(n, args, map_, spec.reduce_func, spec.neutral)))

    def generate_scan(self, spec, config):
        return GeneratedKernel("scan", spec.name, "toy", "serial scan", (),
                               tuple(zip(spec.arg_names, spec.arg_types)))

    def build_scan(self, spec, config):
        cast = spec.out_type.dtype.type

        def run(n, args):
            user = dict(zip(spec.arg_names, args))

            def call(function, **specials):
                return python_callable(function.func)(
                    *[specials[p] if p in specials else user[p] for p in function.params])
            values, acc = [], spec.neutral
            for i in range(n):
                if spec.segment is not None and call(spec.segment, i=i, N=n):
                    acc = spec.neutral
                prev, acc = acc, cast(spec.scan_func(acc, call(spec.input, i=i, N=n)))
                values.append((prev, acc))
            for i, (prev, item) in enumerate(values):
                call(spec.output, i=i, item=item, prev_item=prev, last_item=acc, N=n)
        return self._built(self.generate_scan(spec, config), run)


@pytest.fixture
def toy():
    register_backend(ToyBackend)
    ToyBackend.launches = 0
    yield get_backend("toy")
    unregister_backend("toy")


def axpb(i, y, x, a, b):
    y[i] = a * x[i] + b


def square(i, x):
    return x[i] * x[i]


def running_output(i, item, prev_item, out, before):
    out[i] = item
    before[i] = prev_item


def test_toy_backend_runs_the_primitives(toy):
    assert "toy" in backend_names()
    x = np.linspace(0.0, 1.0, 101)
    y = np.zeros_like(x)
    with pc.use_config(backend="toy"):
        xa, ya = pc.wrap(x, y)
        assert xa.backend == "toy"
        e = pc.Elementwise(axpb)
        assert e.elementwise is None
        e(ya, xa, 2.0, 0.5)
        assert e.elementwise.backend == "toy" and "range(n - 1, -1, -1)" in e.source
        np.testing.assert_allclose(ya.get(), 2.0 * x + 0.5)

        total = pc.Reduction("a + b", map_func=square)(xa)
        assert total == pytest.approx(float(np.sum(x * x)), rel=1e-12)
        assert pc.Reduction("max(a, b)")(xa) == 1.0

        k = np.arange(1, 21, dtype=np.int64)
        out, before = np.zeros_like(k), np.zeros_like(k)
        scan = pc.Scan(output=running_output, dtype=np.int64)
        scan(input=pc.wrap(k), out=pc.wrap(out), before=pc.wrap(before))
        np.testing.assert_array_equal(out, np.cumsum(k))
        np.testing.assert_array_equal(before, np.cumsum(k) - k)
        assert scan.scan.backend == "toy"
    assert ToyBackend.launches == 4


def test_toy_backend_by_argument_and_set_backend(toy):
    x = np.arange(10.0)
    y = np.zeros(10)
    e = pc.Elementwise(axpb, backend="toy")
    e(y, x, 1.0, 1.0)
    np.testing.assert_array_equal(y, x + 1.0)
    e.set_backend("python")
    e(y, x, 3.0, 0.0)
    np.testing.assert_array_equal(y, 3.0 * x)
    assert e.elementwise.backend == "python"
    assert ToyBackend.launches == 1


def test_toy_backend_without_sort_says_so(toy):
    keys = pc.wrap(np.array([3, 1, 2], dtype=np.int32), backend="toy")
    with pytest.raises(BackendUnavailableError, match="toy backend does not implement "
                                                      "sorting"):
        pc.sort_by_keys([keys])


def test_unknown_backend_name():
    with pytest.raises(KernelValueError, match="unknown backend 'toy'"):
        pc.Elementwise(axpb, backend="toy")


def test_toy_backend_without_functions_and_local_memory_says_so(toy):
    with pytest.raises(BackendUnavailableError, match="toy backend does not implement "
                       "compiled functions"):
        pc.Cython(axpb, backend="toy")(0, np.zeros(3), np.zeros(3), 1.0, 2.0)
    with pytest.raises(BackendUnavailableError, match="toy backend does not implement "
                       "LocalMem.get"):
        pc.LocalMem(1, backend="toy").get("double", 64)
