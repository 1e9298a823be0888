"""Integer semantics the python backend shares with C (issue 24).

Signed integer overflow wraps around on every backend.

C leaves signed overflow undefined, and an optimising compiler uses that
(``x + 1 > x`` folds to true).  The kernel language defines it: the result
wraps (two's complement), as the python backend computes it.  Cython's C is
built with ``-fwrapv``; the OpenCL and CUDA printers compute in the unsigned
type of the same width.  The reference is NumPy's arithmetic on arrays of the
kernel's types (plain Python ints do not wrap).
"""
import numpy as np
import pytest

import pcompute as pc
from pcompute import Elementwise, annotate
from pcompute.types import cast
from pcompute.errors import KernelTypeError

# Undefined behaviour in C: the optimiser must see these kernels (-O3).
pytestmark = [pytest.mark.integer_data, pytest.mark.optimised_build]

I32_MIN, I32_MAX = -2 ** 31, 2 ** 31 - 1
I64_MIN, I64_MAX = -2 ** 63, 2 ** 63 - 1


def run(func, args):
    device = [pc.wrap(a.copy()) for a in args]
    Elementwise(func)(*device)
    out = []
    for d in device:
        d.pull()
        out.append(d.data)
    return out


def overflowing(i, x, m, l, e, out):
    t = x[i]
    # folded to 1 by an optimiser that assumes no signed overflow
    out[i, 0] = 1 if t + 1 > t else 0
    out[i, 1] = x[i] * x[i] + 7
    out[i, 2] = -(-(-x[i]))
    out[i, 3] = abs(x[i])
    out[i, 4] = x[i] // m[i]
    out[i, 5] = x[i] % m[i]
    out[i, 6] = x[i] ** e[i]
    s = x[i]
    s += x[i]
    out[i, 7] = s
    out[i, 8] = x[i] << 1
    out[i, 9] = 1 if l[i] + 1 > l[i] else 0
    out[i, 10] = l[i] * 3 - l[i]
    out[i, 11] = -l[i]


def test_signed_overflow_wraps(backend):
    x = np.array([I32_MAX, I32_MIN, 46341, -7, 3], np.int32)
    m = np.array([3, -1, -1, 2, -1], np.int32)
    l = np.array([I64_MAX, I64_MIN, 2 ** 62, -5, 1], np.int64)
    e = np.array([3, 2, 5, 1, 31], np.uint32)
    got = run(overflowing, [x, m, l, e, np.zeros((5, 12), np.int64)])[4]
    with np.errstate(over="ignore", divide="ignore"):
        want = np.stack([
            (x + np.int32(1) > x).astype(np.int64),
            (x * x + np.int32(7)).astype(np.int64),
            (-x).astype(np.int64),
            np.abs(x).astype(np.int64),
            np.array([a // b if (a, b) != (I32_MIN, -1) else I32_MIN
                      for a, b in zip(x.tolist(), m.tolist())], np.int64),
            np.array([a % b for a, b in zip(x.tolist(), m.tolist())], np.int64),
            # int32 ** uint32 is a long power (uint32 with a signed value)
            np.array([(a ** b + 2 ** 63) % 2 ** 64 - 2 ** 63
                      for a, b in zip(x.tolist(), e.tolist())], np.int64),
            (x + x).astype(np.int64),
            (x << np.int32(1)).astype(np.int64),
            (l + np.int64(1) > l).astype(np.int64),
            l * np.int64(3) - l,
            -l,
        ], axis=1)
    np.testing.assert_array_equal(got, want)
    assert got[0, 0] == 0 and got[1, 4] == I32_MIN and got[1, 3] == I32_MIN


@annotate(a="int", return_="int")
def narrowed(a):
    return a + 1


def c_typed(i, x, l, b, out):
    t = x[i]
    t = t * x[i]            # t is a long local (widened below): no int wrap
    t = t + l[i]
    out[i, 0] = t
    out[i, 1] = (x[i] > 0) + x[i]       # a bool operand is an int: wraps
    out[i, 2] = b[i] + x[i]
    out[i, 3] = narrowed(l[i])          # a long passed to an int parameter
    s = x[i] * 2
    s += x[i]                           # an int local: += wraps in int
    out[i, 4] = s
    k = x[i]
    k += l[i]                           # k is long: the sum does not wrap
    out[i, 5] = k


def test_python_backend_follows_c_types(backend):
    x = np.array([I32_MAX, -5, 70000], np.int32)
    l = np.array([2 ** 40 + 5, 3, -2 ** 33], np.int64)
    b = np.array([True, False, True])
    got = run(c_typed, [x, l, b, np.zeros((3, 6), np.int64)])[3]
    x64 = x.astype(np.int64)
    with np.errstate(over="ignore"):
        want = np.stack([
            x64 * x64 + l,
            (x + np.int32(1) * (x > 0)).astype(np.int64),
            (x + b.astype(np.int32)).astype(np.int64),
            (l.astype(np.int32) + np.int32(1)).astype(np.int64),
            (x * np.int32(2) + x).astype(np.int64),
            x64 + l,
        ], axis=1)
    np.testing.assert_array_equal(got, want)


def ulong_vs_signed(i, u, s, out):
    out[i] = 1 if u[i] > s[i] else 0


def ulong_vs_non_negative(i, u, s, out):
    out[i] = (1 if u[i] > abs(s[i]) else 0) + (2 if u[i] >= 0 else 0)


def test_ulong_compared_with_signed(backend):
    u = np.array([5, 2 ** 63 + 1], np.uint64)
    s = np.array([-1, 7], np.int64)
    with pytest.raises(KernelTypeError, match="compared with a signed integer") as info:
        run(ulong_vs_signed, [u, s, np.zeros(2, np.int64)])
    assert "u[i] > s[i]" in str(info.value) and "test_integer_semantics.py" in str(info.value)
    got = run(ulong_vs_non_negative, [u, s, np.zeros(2, np.int64)])[2]
    np.testing.assert_array_equal(got, [3, 3])


@annotate(k="int", x="gintp")
def add_k(i, x, k):
    x[i] = x[i] + k


@annotate(k="int", x="gintp")
def scaled(i, x, k):
    return x[i] * k


def scan_out(i, item, y):
    y[i] = item


def test_argument_beyond_its_type_is_a_located_error(backend):
    """2**40 passed for an int parameter: the error names the parameter's line
    (first call and the fast path of later calls, Elementwise/Reduction/Scan)."""
    x = pc.wrap(np.arange(4, dtype=np.int32))
    add = Elementwise(add_k)
    total = pc.Reduction("a + b", map_func=scaled, dtype_out=np.int64)
    scan = pc.Scan(input=scaled, output=scan_out, scan_expr="a + b", dtype=np.int64)
    y = pc.wrap(np.zeros(4, np.int64))
    for call in (lambda k: add(x, k), lambda k: total(x, k),
                 lambda k: scan(x=x, k=k, y=y)):
        call(3)             # a good call first: the next one takes the fast path
        for bad in (2 ** 40, -2 ** 31 - 1):
            with pytest.raises(pc.errors.KernelValueError, match="does not fit its type "
                               "int") as info:
                call(bad)
            text = str(info.value)
            assert "argument 'k'" in text and "test_integer_semantics.py" in text
    x.pull()
    y.pull()
    np.testing.assert_array_equal(x.data, np.arange(4) + 3)
    np.testing.assert_array_equal(y.data, np.cumsum((np.arange(4) + 3) * 3))


def wrap_h0(a):
    return cast(a * 1000003, 'int')


def wrap_h1(a):
    return wrap_h0(a) + 1


def shared_helper(i, x, out):
    out[i] = wrap_h0(x[i]) + wrap_h1(x[i])


def test_helper_called_from_two_functions_wraps_in_both(backend):
    # the python backend gave wrap_h1 the original wrap_h0 (not its oracle
    # copy): its cast() raised OverflowError instead of wrapping
    x = np.array([3000000, -7, 2 ** 40], np.int64)
    got = run(shared_helper, [x, np.zeros(3, np.int64)])[1]
    h0 = (x * np.int64(1000003)).astype(np.int32)
    with np.errstate(over="ignore"):
        want = (h0 + h0 + np.int32(1)).astype(np.int64)     # int + int wraps in int
    np.testing.assert_array_equal(got, want)
