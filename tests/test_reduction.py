"""Tests of Reduction and the reduction helpers (sum, dot, minimum, maximum).

Every cross-backend test uses the shared ``backend`` fixture (ids like
``opencl-float32``); numpy (in float64 where it matters) is the reference.
Integer tests are exact.
"""
import numpy as np
import pytest

from pcompute.array import wrap
from pcompute.config import use_config
from pcompute.errors import KernelSyntaxError, KernelTypeError, KernelValueError
from pcompute.array import algorithms
from pcompute.primitives.reduction import Reduction


@pytest.fixture(autouse=True)
def restore_config():
    with use_config():
        yield


def data(n, dtype, seed=0, low=0.0, high=1.0):
    rng = np.random.default_rng(seed)
    return (low + (high - low) * rng.random(n)).astype(dtype)


def assert_close(got, expected, case):
    np.testing.assert_allclose(float(got), float(expected), rtol=case.rtol)


# -- helpers used by map functions ------------------------------------------------

def square(v):
    return v * v


def weighted(i, x, y, w):
    return square(x[i]) + w * y[i]


# -- operators --------------------------------------------------------------------

def test_sum(backend):
    x = data(10007, backend.dtype)
    got = Reduction("a+b", dtype_out=backend.dtype)(wrap(x.copy()))
    assert got.dtype == backend.dtype
    assert_close(got, x.astype(np.float64).sum(), backend)


def test_product(backend):
    x = data(3001, backend.dtype, low=0.9995, high=1.0005)
    got = Reduction("a*b", dtype_out=backend.dtype, neutral="1")(wrap(x.copy()))
    assert_close(got, np.prod(x.astype(np.float64)), backend)


def test_min_max_with_infinite_neutrals(backend):
    x = data(5003, backend.dtype, low=-50, high=50)
    xa = wrap(x.copy())
    low = Reduction("min(a, b)", dtype_out=backend.dtype, neutral="INFINITY")(xa)
    high = Reduction("max(a, b)", dtype_out=backend.dtype, neutral="-INFINITY")(xa)
    assert low == x.min() and high == x.max()
    one = wrap(np.array([3.5], dtype=backend.dtype))
    assert Reduction("min(a, b)", dtype_out=backend.dtype, neutral="INFINITY")(one) == 3.5


def test_map_reduce_with_helper_calls_and_scalar(backend):
    x, y = data(4099, backend.dtype, 1), data(4099, backend.dtype, 2)
    red = Reduction("a+b", map_func=weighted, dtype_out=backend.dtype)
    got = red(wrap(x.copy()), wrap(y.copy()), 0.5)
    x64, y64 = x.astype(np.float64), y.astype(np.float64)
    assert_close(got, (x64 * x64 + 0.5 * y64).sum(), backend)


@pytest.mark.parametrize("expr,neutral,dtype_out,reference", [
    ("a+b", "0", np.int64, lambda v: v.astype(np.int64).sum()),
    ("a+b", "0", np.int32, lambda v: v.sum(dtype=np.int32)),
    ("min(a, b)", "INFINITY", np.int32, np.min),
    ("max(a, b)", "-INFINITY", np.int32, np.max),
    ("a ^ b", "0", np.int32, np.bitwise_xor.reduce),
])
def test_integers_exact(backend, expr, neutral, dtype_out, reference):
    rng = np.random.default_rng(3)
    x = rng.integers(-1000, 1000, 20011).astype(np.int32)
    got = Reduction(expr, dtype_out=dtype_out, neutral=neutral)(wrap(x.copy()))
    assert got.dtype == np.dtype(dtype_out)
    assert got == reference(x)


def test_float32_sum_of_millions_is_accurate(backend):
    if backend.name == "python":
        pytest.skip("too slow in pure Python")
    x = data(4_000_000, np.float32, seed=4)
    got = Reduction("a+b", dtype_out=np.float32)(wrap(x.copy()))
    exact = x.astype(np.float64).sum()
    assert got.dtype == np.float32
    assert abs(float(got) - exact) / exact < 1e-6


@pytest.mark.parametrize("n", [0, 1, 2, 7])
def test_tiny_lengths(backend, n):
    x = data(n, backend.dtype, low=1, high=2)
    xa = wrap(x.copy()) if n else wrap(np.zeros(0, backend.dtype))
    got = Reduction("a+b", dtype_out=backend.dtype)(xa)
    assert_close(got, x.astype(np.float64).sum() if n else 0.0, backend)
    low = Reduction("min(a, b)", dtype_out=backend.dtype, neutral="INFINITY")(xa)
    assert low == (x.min() if n else np.inf)


@pytest.mark.parametrize("n", [1, 9, 3000, 70001])
def test_order_is_kept_for_non_commutative_operators(backend, n):
    # 'last non-zero' and 'first non-zero' are associative with neutral 0 but
    # not commutative: any reordering of the elements changes the result.
    # (Plain 'b' is no test: it has no neutral element, and backends that pad
    # blocks with the neutral value, like opencl, return 0 for it.)
    rng = np.random.default_rng(n)
    x = rng.integers(1, 100, n).astype(np.int32)
    x[rng.random(n) < 0.5] = 0
    x[0], x[-1] = (5, 0) if n > 1 else (5, 5)
    xa = wrap(x.copy())
    last = Reduction("b if b != 0 else a", dtype_out=np.int32)(xa)
    first = Reduction("a if a != 0 else b", dtype_out=np.int32)(xa)
    nz = x[x != 0]
    assert first == nz[0] and last == nz[-1]


def test_source_after_call(backend):
    red = Reduction("a+b", dtype_out=backend.dtype)
    with pytest.raises(KernelValueError):
        red.source
    red(wrap(data(10, backend.dtype)))
    if backend.name != "python":
        assert "pc_reduce" in red.source


# -- argument errors -------------------------------------------------------------

def test_argument_errors(backend):
    x = wrap(data(10, backend.dtype))
    red = Reduction("a+b", map_func=weighted, dtype_out=backend.dtype)
    with pytest.raises(KernelTypeError, match="takes 3 argument"):
        red(x, x)
    with pytest.raises(KernelTypeError):
        red(x, [1.0, 2.0], 1.0)
    with pytest.raises(KernelValueError, match="at least one array"):
        Reduction("a+b", map_func=lambda_free_map, dtype_out=backend.dtype)(1.0)
    if backend.name in ("opencl", "cuda"):
        with pytest.raises(KernelTypeError, match="numpy array"):
            Reduction("a+b", dtype_out=backend.dtype)(data(10, backend.dtype))


def lambda_free_map(i, s):
    return s


def test_construction_errors():
    with pytest.raises(KernelSyntaxError):
        Reduction("a +* b")
    with pytest.raises(KernelValueError):
        Reduction(3)
    with pytest.raises(KernelValueError):
        Reduction("a+b", neutral="undefined_name")
    with pytest.raises(KernelTypeError):
        Reduction("a+b", dtype_out=np.complex128)


# -- algorithms: sum, dot, minimum, maximum ---------------------------------------

def test_sum_dot_minimum_maximum(backend):
    x, y = data(6007, backend.dtype, 5, -1, 1), data(6007, backend.dtype, 6, -1, 1)
    xa, ya = wrap(x.copy(), y.copy())
    x64, y64 = x.astype(np.float64), y.astype(np.float64)
    atol = 1e-9 if backend.dtype == np.float64 else 1e-3
    np.testing.assert_allclose(algorithms.sum(xa), x64.sum(), rtol=backend.rtol, atol=atol)
    np.testing.assert_allclose(algorithms.dot(xa, ya), np.dot(x64, y64),
                               rtol=backend.rtol, atol=atol)
    assert algorithms.minimum(xa) == x.min()
    assert algorithms.maximum(xa) == x.max()


def test_integer_sum_uses_64_bits(backend):
    x = np.full(5000, 2 ** 30, dtype=np.int32)
    got = algorithms.sum(wrap(x.copy()))
    assert got.dtype == np.int64 and got == 5000 * 2 ** 30
    assert algorithms.minimum(wrap(x.copy())) == 2 ** 30


def test_minimum_of_empty_array_raises(backend):
    with pytest.raises(KernelValueError):
        algorithms.minimum(wrap(np.zeros(0, backend.dtype)))


def test_float64_device_array_in_single_precision_is_an_error(request):
    from conftest import require_backend
    require_backend(request, "opencl")
    import pcompute as pc
    from pcompute.errors import KernelTypeError
    with pc.use_config(backend="opencl", use_double=True):
        a = pc.wrap(np.arange(10.0))
    assert a.dtype == np.float64
    with pc.use_config(backend="opencl", use_double=False):
        with pytest.raises(KernelTypeError, match="float64 array"):
            pc.Reduction("a+b")(a)
        with pytest.raises(KernelTypeError, match="float64 array"):
            pc.Elementwise(_double_it)(a)


def _double_it(i, x):
    x[i] = 2 * x[i]
