"""align, take, diff, trapezoid/trapz, minimum/maximum and update_min_max on
every backend, against numpy."""
import numpy as np
import pytest

import pcompute as pc
from pcompute.errors import KernelTypeError, KernelValueError
from pcompute.array.sorting import (align, diff, maximum, minimum, take, trapezoid, trapz,
                                      update_min_max, update_minmax_gpu)


def rand(n, dtype, seed=0):
    return np.random.default_rng(seed).random(n).astype(dtype)


def test_align_several_arrays_in_one_kernel(backend):
    n = 5000
    rng = np.random.default_rng(1)
    arrays = [rand(n, backend.dtype, 2), rng.integers(-100, 100, n).astype(np.int32),
              rng.integers(0, 2**50, n).astype(np.uint64), rng.random(n) < 0.3,
              rng.integers(-5, 5, n).astype(np.int8)]
    order = rng.permutation(n).astype(np.int64)
    result = align(pc.wrap(*arrays), pc.wrap(order))
    for a, r in zip(arrays, result):
        assert r.dtype == a.dtype and r.backend == backend.name
        np.testing.assert_array_equal(r.get(), a[order])


def test_align_with_repeats_shorter_order_and_out_list(backend):
    x = rand(100, backend.dtype, 3)
    y = np.arange(100, dtype=np.int32)
    order = np.array([5, 5, 0, 99, 42], np.int32)
    outs = [pc.zeros(1, backend.dtype), pc.zeros(1, np.int32)]
    result = align(pc.wrap(x, y), pc.wrap(order), out_list=outs)
    assert result[0] is outs[0] and result[1] is outs[1]
    np.testing.assert_array_equal(outs[0].get(), x[order])
    np.testing.assert_array_equal(outs[1].get(), y[order])
    assert align([], pc.wrap(order)) == []
    empty = align([pc.wrap(x)], pc.wrap(np.zeros(0, np.int32)))
    assert len(empty[0]) == 0


def test_align_checks_its_arguments(backend):
    x = pc.wrap(rand(10, backend.dtype))
    with pytest.raises(KernelValueError, match=r"\[0, 10\)"):
        align([x], pc.wrap(np.array([1, 10], np.int32)))
    with pytest.raises(KernelValueError, match=r"\[0, 10\)"):
        align([x], pc.wrap(np.array([-1, 2], np.int64)))
    with pytest.raises(KernelTypeError, match="integers"):
        align([x], pc.wrap(np.array([1.0], backend.dtype)))
    with pytest.raises(KernelTypeError, match="dtype"):
        align([x], pc.wrap(np.array([1], np.int32)), out_list=[pc.zeros(1, np.int32)])


def test_take(backend):
    x = rand(1000, backend.dtype, 4)
    idx = np.random.default_rng(5).integers(0, 1000, 300).astype(np.int32)
    np.testing.assert_array_equal(take(pc.wrap(x), pc.wrap(idx)).get(), x[idx])
    out = pc.zeros(3, backend.dtype)
    assert take(pc.wrap(x), pc.wrap(idx), out=out) is out
    np.testing.assert_array_equal(out.get(), x[idx])


@pytest.mark.parametrize("n", [1, 2, 3])
def test_diff(backend, n):
    x = rand(1001, backend.dtype, 6)
    np.testing.assert_allclose(diff(pc.wrap(x), n).get(), np.diff(x, n), rtol=backend.rtol,
                               atol=1e-6 if backend.precision == "float32" else 0)
    k = np.random.default_rng(7).integers(-1000, 1000, 50).astype(np.int32)
    np.testing.assert_array_equal(diff(pc.wrap(k), n).get(), np.diff(k, n))


def test_diff_edge_cases(backend):
    x = pc.wrap(rand(4, backend.dtype))
    assert diff(x, 0).get().tolist() == x.get().tolist()
    assert len(diff(x, 3)) == 1
    # Compyle's rule (numpy would return an empty array): 0 <= n < len(a).
    for bad in (4, 6, -1):
        with pytest.raises(ValueError, match="diff"):
            diff(x, bad)
    with pytest.raises(ValueError, match="diff"):
        diff(pc.wrap(rand(1, backend.dtype)))


def test_trapezoid(backend):
    x = np.sort(rand(2001, backend.dtype, 8))
    y = np.sin(x * 3).astype(backend.dtype)
    ya, xa = pc.wrap(y, x)
    np.testing.assert_allclose(trapezoid(ya, xa), np.trapezoid(y, x), rtol=backend.rtol)
    np.testing.assert_allclose(trapz(ya, dx=0.25), np.trapezoid(y, dx=0.25),
                               rtol=backend.rtol)
    np.testing.assert_allclose(trapz(ya), np.trapezoid(y), rtol=backend.rtol)
    k = np.arange(10, dtype=np.int32)
    assert float(trapz(pc.wrap(k))) == pytest.approx(np.trapezoid(k))
    assert trapz(pc.wrap(y[:1])) == 0.0


@pytest.mark.parametrize("dtype", ["float", np.int32, np.int64, np.uint32, np.int16])
def test_minimum_maximum(backend, dtype):
    dtype = backend.dtype if dtype == "float" else np.dtype(dtype)
    rng = np.random.default_rng(9)
    if dtype.kind == "f":
        x = (rng.random(10001) - 0.5).astype(dtype)
    else:
        info = np.iinfo(dtype)
        x = rng.integers(info.min, info.max, 10001, dtype=dtype)
    a = pc.wrap(x)
    assert minimum(a) == x.min() and maximum(a) == x.max()
    one = pc.wrap(x[:1].copy())
    assert minimum(one) == maximum(one) == x[0]
    with pytest.raises(KernelValueError, match="empty"):
        minimum(pc.wrap(x[:0].copy()))


def test_update_min_max(backend):
    x = rand(3000, backend.dtype, 10) - 0.5
    k = np.random.default_rng(11).integers(-77, 77, 3000).astype(np.int64)
    xa, ka = pc.wrap(x.astype(backend.dtype), k)
    update_min_max([xa, ka])
    assert xa.minimum == x.astype(backend.dtype).min()
    assert xa.maximum == x.astype(backend.dtype).max()
    assert (ka.minimum, ka.maximum) == (k.min(), k.max())
    fresh = pc.wrap(k.copy())
    fresh.maximum = "untouched"
    update_minmax_gpu([fresh], only_min=True)
    assert fresh.minimum == k.min() and fresh.maximum == "untouched"
    with pytest.raises(KernelValueError, match="only one"):
        update_min_max([fresh], only_min=True, only_max=True)
