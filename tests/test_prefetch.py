"""The kernel builtin prefetch(a[k]): a hint that changes no result (on every
backend: tests/ew_kernels.count_atomic, run by test_elementwise's
test_atomics_count_exactly, prefetches, past the end too); the text each
dialect prints; the element it names is no access for
the race check, the dependence analysis or the bounds check; the chunked
speculative kernels of the cython backend prefetch their keyed accesses
ahead (their results: tests/test_autopar_speculate.py)."""
import warnings

import numpy as np
import pytest

from pcompute import Elementwise, parallelize, prefetch, use_config
from pcompute.errors import KernelSyntaxError, RaceWarning
from pcompute.generate import generate_source
from tests import autopar_spec_loops as loops


def scatter_ahead(i, x, y, p, n):
    if i + 4 < n:
        prefetch(x[p[i + 4]])
    prefetch(y[i + 2 * n])          # past the end: no fault, no bounds error
    x[p[i]] = y[i]


def next_one(i, x, n):
    if i + 1 < n:
        prefetch(x[i + 1])          # names the next item's element: no race
    x[i] = 2 * x[i]


def reads_next(i, x, y, n):
    if i + 1 < n:
        y[i] = x[i + 1]
    x[i] = 2 * x[i]


def not_an_element(i, x, n):
    prefetch(x)
    x[i] = 1


def _generated(backend_name, bounds_check=False):
    types = "x=double[:],y=double[:],p=int[:],n=int"
    return generate_source(scatter_ahead, backend_name, types=types, config={
        "use_double": True, "bounds_check": bounds_check})


def test_each_dialect_prints_its_prefetch():
    """Cython: the C compiler's prefetch for writing (GCC and Clang), OpenCL
    its prefetch of global memory, CUDA nothing; the CUDA text compiles."""
    cython = _generated("cython")
    assert "__builtin_prefetch(p, 1);" in cython
    assert "pc_prefetch_double(&x[p[(i + 4) * pc_s0_p] * pc_s0_x])" in cython
    assert "void pc_prefetch_double(double *p) nogil" in cython
    opencl = _generated("opencl")
    assert "void pc_prefetch_double(const __global double *p)" in opencl
    assert "    prefetch(p, 1);" in opencl
    cuda = _generated("cuda")
    assert "(void)p;" in cuda and "prefetch(" not in cuda.replace("pc_prefetch_", "")
    from pcompute.build import cuda_builder
    if cuda_builder.nvcc_path() is not None:
        cuda_builder.check_cuda_sources([cuda])


def test_the_prefetched_element_is_not_bounds_checked():
    """Under bounds_check the index reads inside a prefetch are checked (they
    happen), the element it names is not (it is not accessed)."""
    lines = [line for line in _generated("cython", bounds_check=True).splitlines()
             if "pc_prefetch_double(&" in line]
    assert len(lines) == 2
    ahead, past = lines
    assert ahead.count("pc_bound_long(") == 1 and "&x[pc_bound_long(" not in ahead
    assert "pc_bound_long(" not in past


def test_a_prefetch_is_no_access_for_the_race_check_and_the_analysis():
    with use_config(backend="python"), warnings.catch_warnings():
        warnings.simplefilter("error", RaceWarning)
        x = np.arange(8.0)
        Elementwise(next_one, strict=True)(x, 8)
        np.testing.assert_array_equal(x, 2 * np.arange(8.0))
        with pytest.raises(RaceWarning):     # the same with a read of x[i + 1]
            Elementwise(reads_next)(np.arange(8.0), np.zeros(8), 8)
        f = parallelize(_loop_with_prefetch, strict=True)
        a = np.arange(8.0)
        f(a, 8)
        assert f.last_plans[0].kind == "launch"
        np.testing.assert_array_equal(a, 2 * np.arange(8.0))


def _loop_with_prefetch(a, n):
    for i in range(n):
        if i + 1 < n:
            prefetch(a[i + 1])
        a[i] = 2.0 * a[i]


def test_prefetch_of_a_whole_array_is_a_located_error():
    with pytest.raises(KernelSyntaxError, match=r"prefetch\(\) takes an array element") \
            as info:
        generate_source(not_an_element, "cython", types="x=gdoublep,n=int")
    assert "prefetch(x)" in str(info.value) and "write prefetch(a[k])" in str(info.value)


@pytest.mark.parametrize("func, fetched", [
    (loops.scatter, ["x[p["]), (loops.cg_like, []),
    (loops.gather_scatter, ["a[r[", "a[w["]), (loops.histogram, ["h[keys["]),
    (loops.masked_scatter, []), (loops.spmv_transpose, []),
    (loops.is_like, [])], ids=lambda v: getattr(v, "__name__", str(v)))
def test_chunked_kernels_prefetch_their_keyed_accesses(func, fetched):
    """The chunk loop fetches array[q[i]] 32 iterations ahead for each
    unconditional access keyed by an element q[i] at the loop variable (not
    under an if, nor through a local: k = keys[i]) in a body without inner
    loops (cg_like's row sum: its own loads dominate), on the
    backends that ask for it (Backend.speculation_prefetch)."""
    from pcompute.autopar.specchunk import PREFETCH_AHEAD
    n = 6
    args = {"scatter": lambda: [np.zeros(n), np.ones(n), np.arange(n, dtype=np.int32), n],
            "cg_like": lambda: [np.zeros(3), np.arange(3, dtype=np.int32),
                                np.array([0, 1, 2, 3], np.int32),
                                np.zeros(3, np.int32), np.ones(3), np.ones(3), 3],
            "gather_scatter": lambda: [np.zeros(16), np.ones(2), np.array([3, 8], np.int32),
                                       np.array([4, 5], np.int32), 2],
            "histogram": lambda: [np.zeros(n, np.int32), np.arange(n, dtype=np.int32), n],
            "masked_scatter": lambda: [np.zeros(n), np.ones(n),
                                       np.arange(n, dtype=np.int32), n],
            "spmv_transpose": lambda: [np.zeros(3), np.array([0, 1, 2, 3], np.int32),
                                       np.arange(3, dtype=np.int32), np.ones(3),
                                       np.ones(3), 3],
            "is_like": lambda: [np.zeros(n, np.int32), np.arange(1, n + 1, dtype=np.int32),
                                np.arange(n, dtype=np.int32), n]}[func.__name__]()
    f = parallelize(func, speculate=True)
    with use_config(backend="python"):
        f(*args)
    (plan,) = [p for p in f.last_plans if p.kind == "speculate"]
    assert "prefetch(" not in plan.chunked[0][1].source     # OpenCL (PoCL gained nothing)
    source = plan.chunked_ahead[1].source                   # the cython backend's
    found = [line.strip() for line in source.splitlines() if "prefetch(" in line]
    assert len(found) == len(fetched)
    for line, access in zip(found, fetched):
        assert line.startswith("prefetch(" + access) and \
            "(autopar_t + %d)]])" % PREFETCH_AHEAD in line, line
    assert source.count("if autopar_t + %d < autopar_t2:" % PREFETCH_AHEAD) == len(fetched)
