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
from pcompute.errors import KernelTypeError, KernelValueError

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


def shifted(i, x, n, l, u, b, k, c, out):
    out[i, 0] = x[i] << n[i]            # int
    out[i, 1] = x[i] >> n[i]
    out[i, 2] = l[i] << n[i]            # long
    out[i, 3] = l[i] >> n[i]
    out[i, 4] = u[i] >> n[i]            # uint with int: long
    out[i, 5] = u[i] << 40              # uint (the literal takes its type): 0
    out[i, 6] = (x[i] << 32) + (x[i] >> 40)     # literal counts past int's width
    out[i, 7] = b[i] << n[i]            # int8 is promoted to int
    out[i, 8] = x[i] << c[i]            # int by a long count: long (C: int)
    t = x[i]
    t <<= n[i]
    out[i, 9] = t
    s = l[i]
    s >>= n[i]
    out[i, 10] = s
    out[i, 11] = k[i] >> n[i]           # ulong
    out[i, 12] = 1 << n[i]
    out[i, 13] = x[i] << 3


def _shift(a, n, bits, signed, left):
    """Python's a << n / a >> n reduced to the type; a negative count (Python
    raises) gives what a count beyond the width gives (docs/semantics.rst)."""
    if n < 0 or n > bits:
        n = bits        # (Python's a << n for n >= bits has no bits left in the type)
    value = a << n if left else a >> n
    value &= (1 << bits) - 1
    return value - (1 << bits) if signed and value >> (bits - 1) else value


def test_shift_counts_beyond_the_width(backend):
    """Shifts give Python's answer in the type they compute in, for every count:
    C leaves counts of the width or more undefined (x86 masks them, as OpenCL
    does); a negative count gives 0 (>> of a negative value: -1), as NumPy."""
    counts = [0, 5, 31, 32, 33, 40, 63, 64, 100, -1, -33]
    m = len(counts)
    n = np.array(counts, np.int32)
    x = np.array([3, -7, 1, -1, 2 ** 30 + 1, I32_MIN, 5, -6, 9, -9, 123], np.int32)
    l = np.array([3, -7, 1, -1, 2 ** 62 + 1, I64_MIN, 5, -6, 9, -9, 123], np.int64)
    u = np.array([3, 2 ** 32 - 1, 1, 7, 2 ** 31, 9, 5, 6, 9, 9, 8], np.uint32)
    b = np.array([3, -7, 1, -1, 100, -128, 5, -6, 9, -9, 127], np.int8)
    k = np.array([3, 2 ** 64 - 1, 1, 2 ** 63, 5, 2 ** 63 + 9, 5, 6, 9, 9, 8], np.uint64)
    c = np.array([0, 5, 31, 32, 33, 40, 63, 64, 100, -1, 2 ** 40], np.int64)
    got = run(shifted, [x, n, l, u, b, k, c, np.zeros((m, 14), np.int64)])[7]
    want = []
    for j in range(m):
        xi, ni, li, ui, bi, ki, ci = (int(v[j]) for v in (x, n, l, u, b, k, c))
        t = _shift(xi, ni, 32, True, True)
        want.append([
            t, _shift(xi, ni, 32, True, False),
            _shift(li, ni, 64, True, True), _shift(li, ni, 64, True, False),
            _shift(ui, ni, 64, True, False), 0,
            _shift(xi >> 31, 0, 32, True, True),
            _shift(bi, ni, 32, True, True), _shift(xi, ci, 64, True, True),
            t, _shift(li, ni, 64, True, False),
            _shift(_shift(ki, ni, 64, False, False), 0, 64, True, True),
            _shift(1, ni, 32, True, True), _shift(xi, 3, 32, True, True)])
    np.testing.assert_array_equal(got, np.array(want, np.int64))


def negative_count(i, x):
    x[i] = x[i] >> -2


def test_negative_literal_shift_count_is_a_located_error(backend):
    with pytest.raises(KernelValueError, match="negative shift count -2") as info:
        run(negative_count, [np.ones(3, np.int32)])
    text = str(info.value)
    assert "test_integer_semantics.py" in text and "x[i] >> -2" in text and "^" in text
    assert "x << 2" in text


def counted_shift(i, x, n, out):
    t = x[i]
    t <<= n[i] & 7
    out[i] = t + (x[i] >> n[i])


def test_negative_shift_count_is_a_located_error_under_bounds_checks(backend):
    """Python raises ValueError for a negative count; a compiled kernel cannot,
    so with bounds checks the launch raises the located error afterwards (and
    without them the count is one beyond the width, as the test above checks)."""
    x = np.array([5, -6, 7], np.int32)
    n = np.array([1, 2, 3], np.int32)
    with pc.use_config(bounds_check=True):
        got = run(counted_shift, [x, n, np.zeros(3, np.int64)])[2]
        np.testing.assert_array_equal(got, [(v << (k & 7)) + (v >> k)
                                            for v, k in zip(x.tolist(), n.tolist())])
        n[1] = -3
        with pytest.raises(KernelValueError, match="negative shift count -3") as info:
            run(counted_shift, [x, n, np.zeros(3, np.int64)])
    text = str(info.value)
    assert "test_integer_semantics.py" in text and "x[i] >> n[i]" in text
    got = run(counted_shift, [x, n, np.zeros(3, np.int64)])[2]
    assert got[1] == (-6 << 5) - 1
