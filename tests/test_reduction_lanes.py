"""The fast sum of the Cython backend (interleaved SIMD lanes) and its
order-preserving alternative (``Reduction(..., ordered=True)``).

Every backend is checked against numpy on float64, float32 and int32 sums,
both schemes, at lengths around the block and leaf sizes; the Cython-only
guarantees (float32 accumulates in float64; which scheme the generated code
uses) are checked on the generated source and on data that a float32
accumulator gets wrong.
"""
import math

import numpy as np
import pytest

from pcompute.array import wrap
from pcompute.backends.cython import reduce_operator
from pcompute.config import use_config
from pcompute.primitives.reduction import Reduction

# around the block (2048 items) and the stack of whole blocks: 7 and 8 blocks
# exercise the binary counter's carries, 40013 a split over threads.
LENGTHS = [1, 17, 2047, 2049, 7 * 2048 + 15, 8 * 2048, 40013]


@pytest.fixture(autouse=True)
def restore_config():
    with use_config():
        yield


def values(n, dtype, seed):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "i":
        return rng.integers(-10**6, 10**6, n).astype(dtype)
    return rng.random(n).astype(dtype)


@pytest.mark.parametrize("ordered", [False, True], ids=["fast", "ordered"])
@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32])
def test_sum_matches_numpy(backend, dtype, n, ordered):
    if np.dtype(dtype) == np.float64 and backend.dtype == np.float32:
        pytest.skip("float64 data in a single-precision run is an error by design")
    x = values(n, dtype, seed=n)
    got = Reduction("a+b", dtype_out=dtype, ordered=ordered)(wrap(x.copy()))
    assert got.dtype == np.dtype(dtype)
    if np.dtype(dtype).kind == "i":
        assert got == x.sum(dtype=np.int32)         # exact, wrapping like numpy
    else:
        exact = math.fsum(x.astype(np.float64))
        # float32: the Cython backend accumulates in float64 (only the final
        # rounding to float32 is left); the others accumulate in float32.
        rtol = 1e-13 if np.dtype(dtype) == np.float64 else \
            3e-7 if backend.name == "cython" else 1e-5
        assert abs(float(got) - exact) <= rtol * abs(exact)


@pytest.mark.parametrize("ordered", [False, True], ids=["fast", "ordered"])
@pytest.mark.parametrize("expr, neutral, numpy_op", [
    ("min(a, b)", "INFINITY", np.min), ("max(b, a)", "-INFINITY", np.max),
    ("a * b", "1", np.prod)])
def test_other_commuting_operators(backend, expr, neutral, numpy_op, ordered):
    x = values(30011, backend.dtype, seed=7)
    if expr == "a * b":
        x = (1.0 + (x - 0.5) * 1e-3).astype(backend.dtype)
    got = Reduction(expr, dtype_out=backend.dtype, neutral=neutral,
                    ordered=ordered)(wrap(x.copy()))
    np.testing.assert_allclose(float(got), float(numpy_op(x.astype(np.float64))),
                               rtol=backend.rtol)


def _cython_only(backend):
    if backend.name != "cython":
        pytest.skip("a guarantee of the Cython backend's generated code")


def test_float32_sum_accumulates_in_float64(backend):
    _cython_only(backend)
    # 2^24 then ones: a float32 accumulator drops every 1 added to 2^24.
    x = np.ones(100_000, np.float32)
    x[::4096] = 2.0 ** 24
    exact = math.fsum(x.astype(np.float64))
    for ordered in (False, True):
        got = Reduction("a+b", dtype_out=np.float32, ordered=ordered)(wrap(x.copy()))
        assert abs(float(got) - exact) / exact < 1e-7, (ordered, float(got), exact)


def test_generated_scheme(backend):
    _cython_only(backend)
    x = wrap(values(5000, backend.dtype, seed=1))
    fast = Reduction("a+b", dtype_out=backend.dtype)
    fast(x)
    assert "lane k takes items k,\n    # k + 16" in fast.source
    assert "pc_stack" in fast.source              # blocks combined without recursion
    ordered = Reduction("a+b", dtype_out=backend.dtype, ordered=True)
    ordered(x)
    assert "pc_stack" not in ordered.source
    assert "the order\n    # of the items is kept" in ordered.source
    assert "pc_start + pc_k * pc_len + pc_j" in ordered.source
    odd = Reduction("b if b != 0 else a", dtype_out=backend.dtype)
    odd(x)
    assert "pc_start + pc_k * pc_len + pc_j" in odd.source   # never interleaved


@pytest.mark.parametrize("expr, op", [
    ("a+b", "+"), ("a + b", "+"), ("b+a", "+"), ("a*b", "*"), ("min(a, b)", "min"),
    ("max(b,a)", "max"), ("a-b", None), ("b if b != 0 else a", None), ("a+b+1", None),
    ("a", None)])
def test_reduce_operator(expr, op):
    assert reduce_operator(expr) == op


@pytest.mark.parametrize("ordered", [False, True], ids=["fast", "ordered"])
def test_sum_is_pairwise_over_blocks(backend, ordered):
    """1.0 then 2^17 - 1 items of 1e-16: a running sum keeps 1.0 (each tiny
    item is under half an ulp of 1), a pairwise one loses at most the tiny
    items sharing a lane of a block with the 1.0 (the documented rule: a
    lane runs sequentially over 128 items, blocks and lanes combine pairwise)."""
    _cython_only(backend)
    if backend.dtype != np.float64:
        pytest.skip("a float64 rounding property")
    x = np.full(2**17, 1e-16)
    x[0] = 1.0
    exact = math.fsum(x)
    got = float(Reduction("a+b", dtype_out=np.float64, ordered=ordered)(wrap(x)))
    assert abs(got - exact) <= 130e-16, (got, exact)       # a running sum: 1.3e-11 off
