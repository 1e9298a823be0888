"""The differential test: every corpus kernel on every backend computes what the
python backend (the kernels run as plain Python) computes on the same inputs.

Integers must match exactly; floats within the backend's tolerance.  The
python reference runs once per kernel, size and precision in each process.
With OpenMP, enough items are used that the loop really runs in parallel
(below ``SERIAL_BELOW`` items the OpenMP module runs serially).

Three of the four Cython cases (cython-float32, cython-float64,
cython-openmp-float32) build the corpus as group modules (several kernels in
one module: :mod:`pcompute.build.cython_group`), ahead of their first test in
each process (``corpus_groups``); the fourth, cython-openmp-float64, builds
every kernel as a module of its own (the module test_codegen_compiles.py
compiles, so each corpus kernel is still compiled and run alone once).
"""
import numpy as np
import pytest

import pcompute as pc
from pcompute import Elementwise, use_config
from pcompute.backends.cython import SERIAL_BELOW
from pcompute.backends.registry import get_backend

from conftest import BackendCase, worker_rotation
from kernels.corpus import CORPUS
from kernels.nd_corpus import View

N = 203
N_OPENMP = SERIAL_BELOW + 5
SEED = 20240601

# The language's meaning: the optimiser must see these kernels (-O3), as it
# would exploit undefined behaviour in the generated C.
pytestmark = pytest.mark.optimised_build

_REFERENCE = {}


def items_for(backend):
    return N_OPENMP if backend.openmp else N


def reference(kernel, n, dtype):
    """The outputs of the python backend for ``kernel`` (memoised)."""
    key = (kernel.name, n, np.dtype(dtype).str)
    if key not in _REFERENCE:
        args = kernel.args(n, dtype, np.random.default_rng(SEED))
        with use_config(backend="python"):
            args = device_args(args)
            Elementwise(kernel.func)(*args)
        _REFERENCE[key] = [args[k].get() if isinstance(args[k], pc.Array) else args[k]
                           for k in kernel.output_positions()]
    return _REFERENCE[key]


def device_args(args):
    """The corpus arguments on the configured backend: arrays wrapped, views
    (kernels.nd_corpus.View) made on a wrapped copy of their base array."""
    return [a.make() if isinstance(a, View) else pc.wrap(a) if isinstance(a, np.ndarray)
            else a for a in args]


def compare(kernel, backend, got, want):
    for name, g, w in zip(kernel.outputs, got, want):
        message = "%s: output %r on %s differs from the python backend" % (
            kernel.name, name, backend.id)
        assert g.dtype == w.dtype and g.shape == w.shape, message
        if np.issubdtype(w.dtype, np.integer):
            np.testing.assert_array_equal(g, w, err_msg=message)
        else:
            np.testing.assert_allclose(g, w, rtol=backend.rtol, atol=backend.rtol,
                                       equal_nan=True, err_msg=message)


#: The cases whose corpus kernels are built as group modules, in chunks of
#: about ``CHUNK`` kernels (one group module each).
GROUPED = (("cython", False, "float32"), ("cython", False, "float64"),
           ("cython", True, "float32"))
CHUNK = 38
_grouped_here = []          # set once the groups were asked for in this process


def group_chunks():
    """``(case, kernel names)`` of every group module of the GROUPED cases."""
    names = [n for n in sorted(CORPUS) if not CORPUS[n].skip_reason("cython")]
    parts = max(1, round(len(names) / CHUNK))
    return [(BackendCase(*case), names[k::parts]) for case in GROUPED for k in range(parts)]


def build_chunk(case, names):
    """Build the kernels ``names`` of ``case`` as one group module (strict: a
    group that cannot be merged or built raises GroupBuildError), with the
    arguments their tests call them with, so each test finds its kernel."""
    cython = get_backend("cython")
    with case.config(), use_config(strict_groups=True) as config:
        items = []
        for name in names:
            kernel = CORPUS[name]
            args = device_args(kernel.args(items_for(case), case.dtype,
                                           np.random.default_rng(SEED)))
            item = Elementwise(kernel.func).program_for(cython, config, args)
            if item is not None:
                items.append(item)
        cython.prebuild_elementwise(items, config)


@pytest.fixture
def corpus_groups(backend):
    """On a GROUPED case, every GROUPED case's corpus built as group modules
    (once per process).  Under pytest-xdist each worker starts at its own
    place in the list of chunks, so that two workers build different chunks
    at the same time and then find each other's in the compile cache (a
    chunk being built by the other waits on the cache's lock)."""
    if (backend.name, backend.openmp, backend.precision) not in GROUPED or _grouped_here:
        return
    _grouped_here.append(True)     # once, also when a build fails (its error
                                   # is this test's; later tests build alone)
    for case, names in worker_rotation(group_chunks()):
        build_chunk(case, names)


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_kernel_matches_python_backend(name, backend, corpus_groups):
    kernel = CORPUS[name]
    reason = kernel.skip_reason(backend.name)
    if reason:
        pytest.skip(reason)
    n = items_for(backend)
    args = kernel.args(n, backend.dtype, np.random.default_rng(SEED))
    device = device_args(args)
    run = Elementwise(kernel.func)
    if backend.name == "opencl" and kernel.no_opencl:
        cls, pattern = kernel.opencl_error
        with pytest.raises(cls, match=pattern):
            run(*device)
        return
    run(*device)
    got = []
    for k in kernel.output_positions():
        device[k].pull()
        got.append(device[k].data)
    compare(kernel, backend, got, reference(kernel, n, backend.dtype))


def test_reference_is_not_trivial():
    """Each compared output of the python reference holds more than one value
    (a kernel that writes nothing would otherwise pass everywhere)."""
    for name, kernel in sorted(CORPUS.items()):
        if not kernel.run:
            continue
        for out_name, values in zip(kernel.outputs, reference(kernel, N, np.float64)):
            if values.size == 1:
                continue
            assert len(np.unique(values)) > 1, (name, out_name)
