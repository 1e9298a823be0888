"""The python backend follows the compiled backends' C types in every entry
point (issue 24): Scan input/output functions, the map functions of tuple
Reductions, and the kernels pcompute.parallelize and pcompute.dataparallel
write.  Each kernel here gives a different answer when its values are
evaluated without the C types (a local declared ``uchar`` holding ``223 +
223``, an ``int32`` sum with a bool operand past ``2**31``), and is checked
on every backend against the answer computed here in plain Python with C's
types written out."""
import operator

import numpy as np
import pytest

import pcompute as pc
from pcompute import annotate, parallelize
from pcompute.dataparallel import dataparallel, map, scan
from pcompute.types import declare

pytestmark = pytest.mark.integer_data

I32_MAX = 2 ** 31 - 1

X = np.array([223, 0, 7, 200, 1], np.uint8)
W = np.array([I32_MAX, I32_MAX, -3, 5, I32_MAX - 1], np.int32)


def wrap(value, bits, signed=True):
    value &= (1 << bits) - 1
    return value - (1 << bits) if signed and value >> (bits - 1) else value


def small(x):
    """``c = declare('uchar'); c = x + x``: the sum wraps in the uchar local."""
    return wrap(2 * x, 8, signed=False)


def bool_sum(x, w):
    """``(x > 0) + w``: int arithmetic, wrapping past 2**31."""
    return wrap(int(x > 0) + w, 32)


@annotate(p0='long')
def negated(p0):
    return -p0


def sc_input(i, x, w, u):
    c = declare('uchar')
    c = x[i] + x[i]
    t = declare('int')
    t = 32767
    # a uint32 passed to a long parameter is widened, and a uint32 times an
    # int local is a long product (found by the independent generator, seeds
    # 34 and 77: the untyped Scan oracle computed both in uint32)
    return c + 1000 * ((x[i] > 0) + w[i] < 0) + negated(u[i]) + u[i] * t


def sc_output(i, item, x, w, u, y, z):
    y[i] = item
    z[i] = (x[i] > 0) + w[i]


def test_scan_functions_follow_c_types(backend):
    n = len(X)
    y, z = pc.wrap(np.zeros(n, np.int64)), pc.wrap(np.zeros(n, np.int64))
    u = np.array([3, 2 ** 32 - 1, 0, 7, 2 ** 31], np.uint32)
    sc = pc.Scan(input=sc_input, output=sc_output, scan_expr="a + b", dtype=np.int64)
    sc(x=pc.wrap(X.copy()), w=pc.wrap(W.copy()), u=pc.wrap(u), y=y, z=z)
    items = [small(int(a)) + 1000 * (bool_sum(int(a), int(b)) < 0) - int(v) + 32767 * int(v)
             for a, b, v in zip(X, W, u)]
    y.pull()
    z.pull()
    np.testing.assert_array_equal(y.data, np.cumsum(items))
    np.testing.assert_array_equal(z.data, [bool_sum(int(a), int(b)) for a, b in zip(X, W)])
    # without the C types: 446 and 2**31 (never negative)
    assert items[0] == 190 + 1000 - 3 + 3 * 32767


def tr_small(i, x, w):
    c = declare('uchar')
    c = x[i] + x[i]
    return c


def tr_bools(i, x, w):
    t = (x[i] > 0) + w[i]
    return t


def test_tuple_reduction_maps_follow_c_types(backend):
    red = pc.Reduction(("a0 + b0", "a1 if a1 < b1 else b1"), (tr_small, tr_bools),
                       dtype_out=(np.int64, np.int64), neutral=None)
    total, least = red(pc.wrap(X.copy()), pc.wrap(W.copy()))
    assert int(total) == sum(small(int(a)) for a in X)
    assert int(least) == min(bool_sum(int(a), int(b)) for a, b in zip(X, W)) == -2 ** 31


def autopar_kernel(x, w, out, n):
    for i in range(n):
        t = x[i] + x[i]
        out[i] = 1 if (x[i] > 0) + w[i] > 0 else 2 + t


def test_parallelize_kernels_follow_c_types(backend):
    out = np.zeros(len(X), np.int64)
    f = parallelize(autopar_kernel)
    f(X.copy(), W.copy(), out, len(X))
    assert [p.kind for p in f.last_plans] == ["launch"]
    want = [1 if bool_sum(int(a), int(b)) > 0 else 2 + 2 * int(a) for a, b in zip(X, W)]
    np.testing.assert_array_equal(out, want)


@dataparallel
def dp_kernel(x, w):
    return scan(operator.add, map(lambda a, b: 1 if (a > 0) + b > 0 else 2, x, w))


def test_dataparallel_kernels_follow_c_types(backend):
    got = dp_kernel(X.copy(), W.copy())
    got = got.get() if hasattr(got, "get") else np.asarray(got)
    want = np.cumsum([1 if bool_sum(int(a), int(b)) > 0 else 2 for a, b in zip(X, W)])
    np.testing.assert_array_equal(got, want)


def test_oracle_float_values_are_unhashable():
    """The oracle's float values compare as C does (an integer converted to
    the float's type, a literal meeting a float32 rounded to float32): an
    equality no hash agrees with (F32(16777216.0) equals two ints of
    different hashes), so they are unhashable rather than equal and hashed
    apart."""
    from pcompute.backends.pyvalues import F32, F64, Lit
    single = F32(16777216.0)
    assert single == 16777216 and single == 16777217 and hash(16777216) != hash(16777217)
    assert Lit(0.3) == F32(float(np.float32(0.3))) and F64(2.0 ** 53) == 2 ** 53 + 1
    for value in (single, F64(0.5), Lit(0.3)):
        with pytest.raises(TypeError, match="unhashable"):
            hash(value)
