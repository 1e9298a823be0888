"""Tuples in @dataparallel functions on every backend, against the prelude
(plain Python/NumPy): reductions of (value, index) pairs and of mapped
tuples in one Reduction phase, maps returning tuples unzipped into several
arrays by one kernel, located errors, and the CUDA sources compiled with
nvcc --ptx.  Three functions, one kernel each per backend case."""
import math
import operator

import numpy as np
import pytest

from pcompute.dataparallel import dataparallel, indices, map, reduce, sum, unzip, zip
from pcompute.errors import KernelTypeError


def kinds(f):
    return [kind for kind, _ in f.last_phases]


def host(x):
    return np.asarray(x.get() if hasattr(x, "get") else x)


@dataparallel
def argmin(x):
    # The first of equal minima: combined in order, as the oracle does.
    return reduce(lambda a, b: a if a[0] <= b[0] else b, zip(x, indices(x)), (math.inf, -1))


@dataparallel
def moments(x, c):
    def both(p, q):
        return (p[0] + q[0], p[1] + q[1], p[2] if p[2] >= q[2] else q[2])
    s, s2, top = reduce(both, map(lambda v: (v - c, (v - c) * (v - c), v), x),
                        (0.0, 0.0, -1.0))
    return s / len(x), s2 / len(x) - (s / len(x)) ** 2, top


@dataparallel
def polar(x, y):
    r2, d = unzip(map(lambda a, b: (a * a + b * b, a - b if a > b else b - a), x, y))
    return r2, d


def _data(backend, n, seed):
    # Small integers: many ties, and sums exact in float32 too.
    return np.random.default_rng(seed).integers(0, 30, n).astype(backend.dtype)


def test_argmin_of_value_index_pairs(backend):
    for n in (1, 5, 3001):
        x = _data(backend, n, n)
        got, want = argmin(x), argmin.py(x)
        assert got == want == (x.min(), np.argmin(x)), n
        assert type(got[1]) is type(want[1]) and np.asarray(got[0]).dtype == backend.dtype
        assert kinds(argmin) == ["reduction"]
    assert argmin(np.zeros(0, backend.dtype)) == (math.inf, -1) == argmin.py(np.zeros(0))


def test_several_moments_in_one_reduction(backend):
    for n in (2, 4000):
        x = _data(backend, n, 7)
        got, want = moments(x, 3), moments.py(x, 3)
        assert got == pytest.approx(want, rel=backend.rtol)
        assert got[2] == want[2] == x.max()
        assert kinds(moments) == ["reduction"]


def test_a_map_returning_tuples_fills_several_arrays_in_one_kernel(backend):
    x, y = _data(backend, 50, 1), _data(backend, 50, 2)
    got, want = polar(x, y), polar.py(x, y)
    assert len(got) == 2
    for g, w in zip(got, want):
        np.testing.assert_array_equal(host(g), w)
        assert host(g).dtype == w.dtype
    assert kinds(polar) == ["elementwise"]


@dataparallel
def plus_of_tuples(x):
    return reduce(operator.add, zip(x, x), (0, 0))


@dataparallel
def sum_of_pairs(x):
    return sum(zip(x, x))


@dataparallel
def pairs_returned(x):
    return map(lambda v: (v, v), x)


@dataparallel
def variable_component(x, k):
    return map(lambda v: (v, v)[k], x)


@dataparallel
def mixed_branches(x):
    return map(lambda v: (v, v) if v > 0 else v, x)


@dataparallel
def wrong_init(x):
    return reduce(lambda a, b: a, zip(x, x), 0)


def test_located_errors_for_unsupported_tuple_uses():
    x = np.arange(4.0)
    cases = [(plus_of_tuples, KernelTypeError, "function of two tuples"),
             (sum_of_pairs, KernelTypeError, "sequence of tuples"),
             (variable_component, KernelTypeError, "indexed by a constant"),
             (mixed_branches, KernelTypeError, "both branches"),
             (wrong_init, KernelTypeError, "init tuple of 2")]
    for f, error, text in cases:
        args = (x, 1) if f is variable_component else (x,)
        with pytest.raises(error, match=text) as info:
            f(*args)
        assert "test_dataparallel_tuples.py" in str(info.value), f
    with pytest.raises(TypeError, match="return unzip"):
        pairs_returned(x)


@pytest.mark.parametrize("precision", ["float32", "float64"])
def test_tuple_phases_compile_as_cuda(precision):
    from pcompute import use_config
    from pcompute.build import cuda_builder
    from pcompute.generate import generate_source
    from pcompute.types import dtype_to_ctype
    if cuda_builder.nvcc_path() is None:
        pytest.skip("nvcc not found: the CUDA sources cannot be compile-checked here")
    x = np.arange(6).astype(precision)
    sources = []
    with use_config(backend="python", use_double=precision == "float64"):
        for f, args in ((argmin, (x,)), (moments, (x, 2)), (polar, (x, x))):
            f(*args)
            (kind, prim, launch_args), = f.last_launches
            values = [np.asarray(a.get()) if hasattr(a, "get") else a for a in launch_args]
            if kind == "reduction":      # the whole two-stage reduction of records
                source = prim.generate("cuda", *values)
                assert "pc_tuple" in source
            else:
                names = prim.func.__code__.co_varnames[1:prim.func.__code__.co_argcount]
                types = {n: dtype_to_ctype(v.dtype).pointer_to("global")
                         for n, v in zip(names, values)}
                source = generate_source(prim.func, "cuda", types=dict(types))
            sources.append(source)
    cuda_builder.check_cuda_sources(sources)            # one nvcc run for all
