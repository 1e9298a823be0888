"""Kernels mean what Python means (issue 24): one regression test per class of
defect found by an independent random-kernel generator.

Each kernel runs on every backend through the ``backend`` fixture and is
compared with the *plain Python call* of the same function on Python numbers
(:mod:`plain_python`), not with the python backend.  Where the language rule
rejects a construct, every backend must raise the same located error.
"""
import math

import numpy as np
import pytest

from pcompute import annotate, declare
from pcompute.types import atomic_inc
from pcompute.backends.registry import get_backend
from pcompute.config import get_config
from pcompute.errors import KernelTypeError

from plain_check import check, run
from plain_python import plain_call

# The language's meaning: the optimiser must see these kernels (-O3), as it
# would exploit undefined behaviour in the generated C.
pytestmark = pytest.mark.optimised_build


# -- 1. int(x) keeps 64 bits ----------------------------------------------------
def int_of_wide(i, xl, x, out, out2):
    out[i] = int(xl[i]) - 7
    out2[i] = int(x[i] * 1e9) + int(-x[i])


def test_int_keeps_64_bits(backend):
    xl = np.array([3000000000, -3000000005, 5, -(2 ** 40)], np.int64)
    x = np.array([5.0, -2.5, 3.0, -0.75], backend.dtype)  # exact in float32 too
    got = check(int_of_wide, [xl, x, np.zeros(4, np.int64), np.zeros(4, np.int64)],
                backend)
    assert got[2][0] == 2999999993 and got[3][0] == 5000000000 - 5


# -- 2. integer powers with a run-time exponent ---------------------------------
def runtime_negative_power(i, e, out):
    out[i] = 2 ** e[i]


def runtime_power(i, a, e, out):
    out[i] = a[i] ** abs(e[i]) + 2 ** (e[i] % 5) + (-3) ** (i & 3)


def test_runtime_power_that_may_be_negative_is_a_located_error(backend):
    e = np.array([-2, 3], np.int64)
    with pytest.raises(KernelTypeError, match="may be negative") as info:
        run(runtime_negative_power, [e, np.zeros(2)])
    text = str(info.value)
    assert "test_python_meaning.py" in text and "2 ** e[i]" in text and "^" in text
    assert "abs(b)" in text


def test_runtime_power_with_a_non_negative_exponent(backend):
    a = np.array([3, -2, 7, 0, 1, -1], np.int64)
    e = np.array([-2, 3, 4, 0, -7, 5], np.int32)
    check(runtime_power, [a, e, np.zeros(6, np.int64)], backend)


# -- 3. floats stored into integer targets ---------------------------------------
def float_into_int(i, x, out, acc, flags):
    out[i] = x[i] * 1.5
    acc[i] += x[i] * 1.5
    acc[i] //= 2.0
    flags[i] = x[i] * 0.25


def test_float_into_integer_array_truncates(backend):
    x = np.array([3.0, -3.0, 0.5, -1.25, 7.75], backend.dtype)
    acc = np.array([1, 2, -3, 4, 5], np.int32)
    check(float_into_int, [x, np.zeros(5, np.int32), acc, np.zeros(5, np.bool_)],
          backend)


def float_into_declared_int(i, x, out):
    t = declare('int')
    t = x[i] * 1.5
    out[i] = t


def test_float_into_declared_int_is_a_located_error(backend):
    with pytest.raises(KernelTypeError, match="declared int but is assigned a") as info:
        run(float_into_declared_int, [np.ones(3), np.zeros(3, np.int32)])
    assert "t = x[i] * 1.5" in str(info.value) and "int(...)" in str(info.value)


# -- 4. helper arguments and the parameter's annotation ---------------------------
@annotate(a='int', return_='int')
def twice(a):
    return a * 2


def float_to_int_parameter(i, x, out):
    out[i] = twice(x[i])


def int_to_int_parameter(i, x, out):
    out[i] = twice(int(x[i])) + twice(i)


def test_float_to_int_parameter_is_a_located_error(backend):
    with pytest.raises(KernelTypeError, match="annotated int but a") as info:
        run(float_to_int_parameter, [np.array([2.5]), np.zeros(1)])
    assert "twice(x[i])" in str(info.value)


def test_int_argument_to_int_parameter(backend):
    x = np.array([2.5, -3.5, 7.0], backend.dtype)
    check(int_to_int_parameter, [x, np.zeros(3, backend.dtype)], backend)


# -- 7. floor / ceil never give -0.0 -------------------------------------
def rounding_signs(i, x, out):
    out[2 * i] = math.floor(x[i])
    out[2 * i + 1] = math.ceil(x[i])


def test_floor_ceil_have_no_negative_zero(backend):
    x = np.array([-0.5, -0.25, 0.5, -1.5, 2.5], backend.dtype)
    got = check(rounding_signs, [x, np.zeros(10, backend.dtype)], backend)
    assert not np.signbit(got[1][got[1] == 0]).any()


def truncations(i, x, out):
    out[i] = math.trunc(x[i]) + 0.5


def test_trunc(backend):
    x = np.array([-0.5, -2.75, 0.5, 3.5], backend.dtype)
    check(truncations, [x, np.zeros(4, backend.dtype)], backend)


# -- 5. literals typed by their value ----------------------------------------------
def unsigned_plus_big_literal(i, u, out, small):
    out[i] = u[i] + 4294967295
    small[i] = u[i] + 1


def test_big_literal_with_unsigned_is_exact(backend):
    u = np.array([1, 2, 4294967295], np.uint32)
    got = check(unsigned_plus_big_literal,
                [u, np.zeros(3, np.int64), np.zeros(3, np.uint32)], backend)
    assert got[1][0] == 4294967296 and got[2][2] == 0   # u + 1 stays uint32


def int32_plus_big_literal(i, a, out):
    out[i] = a[i] + 3000000000 + (1 << 40) - 2 ** 33


def test_int32_plus_big_literal(backend):
    a = np.array([1, -7, 2147483647], np.int32)
    check(int32_plus_big_literal, [a, np.zeros(3, np.int64)], backend)


# -- 6. Python's scalar semantics: bools, small integer types, constants -----------
def bool_arithmetic(i, a, b, out):
    out[3 * i] = (a[i] > 0) + (b[i] > 0)
    out[3 * i + 1] = -(a[i] > 0) * 10 + (b[i] > 0) * (a[i] > 0)
    out[3 * i + 2] = ~(b[i] > 0)


def test_bool_arithmetic(backend):
    a = np.array([1.0, -1.0, 2.0], backend.dtype)
    b = np.array([1.0, 1.0, -3.0], backend.dtype)
    got = check(bool_arithmetic, [a, b, np.zeros(9, np.int32)], backend)
    assert got[2][0] == 2 and got[2][2] == -2


def small_ints(i, u8, i8, s16, out):
    out[3 * i] = u8[i] + u8[i]
    out[3 * i + 1] = s16[i] ** 2 - i8[i] * i8[i] * i8[i]
    out[3 * i + 2] = -u8[i] + (u8[i] << 4) + ~i8[i]


def test_small_integer_types_promote(backend):
    u8 = np.array([223, 255, 0], np.uint8)
    i8 = np.array([-128, 127, -3], np.int8)
    s16 = np.array([100, -181, 32767], np.int16)
    got = check(small_ints, [u8, i8, s16, np.zeros(9, np.int64)], backend)
    assert got[3][0] == 446 and got[3][1] == 10000 + 128 ** 3


def bool_store(i, x, flags, counts):
    flags[i] = x[i] * 0.25
    counts[i] += (x[i] > 0)


def test_bool_and_small_int_stores(backend):
    x = np.array([0.0, 1.0, -3.0, 2.0], backend.dtype)
    counts = np.array([250, 255, 0, 127], np.uint8)
    check(bool_store, [x, np.zeros(4, np.bool_), counts], backend)


def named_constants(i, x, out):
    out[i] = min(x[i], INFINITY) + max(x[i], -INFINITY) + M_PI  # noqa: F821


def test_named_constants(backend):
    x = np.array([1.0, -2.0, 3.5], backend.dtype)
    got = run(named_constants, [x, np.zeros(3, backend.dtype)])
    np.testing.assert_allclose(got[1], 2 * x.astype(np.float64) + math.pi,
                               rtol=backend.rtol)


def big_float_into_narrow_int(i, x, o32, o16):
    o32[i] = x[i] + 2.0 ** 33
    o16[i] = x[i] * 48.0


def test_float_beyond_the_element_wraps_like_numpy(backend):
    x = np.array([3072.0, -5120.0, 1024.0], backend.dtype)  # sums exact in float32
    check(big_float_into_narrow_int, [x, np.zeros(3, np.int32), np.zeros(3, np.int16)],
          backend)


# -- 8. float literals that meet no float are doubles (Python floats) ------------
def literal_precision(i, x, out, n):
    out[i] = x[i] * (1.0 / 3.0) + 0.7885 * 2.0 + i / 7 + float(n) * 0.1


def test_literals_alone_are_double(backend):
    """A literal-only expression, ``i / 7`` and ``float(n)`` are double whatever
    ``use_double`` says, as Python floats are; only a device computing in
    float32 (no ``use_double``: its data is float32 too) makes them float."""
    demotes = get_backend(backend.name).demote_double(get_config())
    dtype = np.float32 if demotes else np.float64
    x = np.array([1.0, 0.1, -7.25, 1e6], dtype)
    want = plain_call(literal_precision, 4, [x, np.zeros(4, dtype), 3])[1]
    got = run(literal_precision, [x, np.zeros(4, dtype), 3])[1]
    assert got.dtype == dtype
    # float32 literals would be off by ~3e-8 here; FMA may change the last bit.
    np.testing.assert_allclose(got, want, rtol=1e-6 if demotes else 1e-14)


# -- 9. integer arithmetic wraps in its type, float32 meets integers as in C ------
# Python's ints do not wrap, so the reference here is NumPy's arithmetic on
# arrays of the kernel's types (NEP 50: a Python int takes the array's type).
def int_wraps(i, a, u, l, out, uout, mixed):
    out[i] = a[i] * a[i] + a[i] * 3
    uout[i] = u[i] - 1 + u[i] * u[i]
    mixed[i] = u[i] * l[i] + a[i] * i - u[i] // 3


def test_int32_and_unsigned_arithmetic_wraps(backend):
    a = np.array([100000, -3, 2147483647, 46341], np.int32)
    u = np.array([0, 5, 4294967295, 65536], np.uint32)
    l = np.array([-1, 2 ** 40, 3, -(2 ** 33)], np.int64)
    n = len(a)
    got = run(int_wraps, [a, u, l, np.zeros(n, np.int64), np.zeros(n, np.int64),
                          np.zeros(n, np.int64)])
    idx = np.arange(n, dtype=np.int64)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(got[3], (a * a + a * 3).astype(np.int64))
        np.testing.assert_array_equal(got[4], (u - 1 + u * u).astype(np.int64))
        # uint32 with int64 is int64; the index is an int64
        np.testing.assert_array_equal(got[5], u.astype(np.int64) * l + a * idx
                                      - (u // 3).astype(np.int64))
    assert got[3][0] == 1410065408 + 300000 and got[4][0] == 4294967295


def local_and_loop_wraps(i, a, out):
    t = 0
    for j in range(3):
        t += a[i] * 1000 + j
    out[i] = t * a[i]


def test_locals_and_loop_variables_keep_their_int_type(backend):
    a = np.array([70000, -3, 123456], np.int32)
    got = run(local_and_loop_wraps, [a, np.zeros(3, np.int64)])[1]
    t = np.zeros(3, np.int32)
    with np.errstate(over="ignore"):
        for j in range(3):
            t = t + a * 1000 + j
        np.testing.assert_array_equal(got, (t * a).astype(np.int64))


def float32_with_ints(i, x, k, out, out2, out3):
    out[i] = x[i] * 16777217
    out2[i] = x[i] + k[i]
    out3[i] = x[i] * 0.1


def test_float_arithmetic_with_integers_converts_them_first(backend):
    x = np.array([3.0, 1.0, -5.0], backend.dtype)
    k = np.array([16777217, 2 ** 40 + 1, -7], np.int64)
    got = run(float32_with_ints, [x, k] + [np.zeros(3, backend.dtype)] * 3)
    want = (x * 16777217, x + k.astype(backend.dtype), x * 0.1)
    for g, w in zip(got[2:], want):
        np.testing.assert_array_equal(g, w.astype(backend.dtype))


def literal_locals(i, a, x, out, fout):
    k = 100000
    h = 0.1
    out[i] = k * k + a[i]
    fout[i] = x[i] * h


def test_locals_assigned_literals_have_the_literals_type(backend):
    """``k = 100000`` is an int local, so ``k * k`` wraps in int32; ``h = 0.1``
    is a double local, so ``x * h`` is double arithmetic even for float32 x."""
    a = np.array([1, -2], np.int32)
    x = np.array([9.0, 13.0], backend.dtype)     # x * 0.1 != x * 0.1f in float32
    got = run(literal_locals, [a, x, np.zeros(2, np.int64), np.zeros(2, backend.dtype)])
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(got[2], (np.int32(100000) * np.int32(100000) + a)
                                      .astype(np.int64))
    demotes = get_backend(backend.name).demote_double(get_config())
    want = x * np.float32(0.1) if demotes else x.astype(np.float64) * 0.1
    np.testing.assert_array_equal(got[3], want.astype(backend.dtype))


# -- 10. a conditional expression has the joined type of its branches ------------
def mixed_sign_branches(i, s, us, a, u, out, out2):
    out[i] = (s[i] if i % 2 == 0 else us[i]) * (i - 3)
    out2[i] = (a[i] if i % 2 == 1 else u[i]) - 5


@pytest.mark.integer_data
def test_conditional_of_signed_and_unsigned_branches(backend):
    """``s if c else us`` for int16/uint16 branches is an ``int`` (Cython typed
    it ``unsigned short``: -2 became 65534), for int32/uint32 a ``long`` (C's
    ``?:`` gives ``unsigned int``); fuzz seed 2605037."""
    s = np.array([-2, 7, -32768, 5, -1, 3], np.int16)
    us = np.array([1, 65535, 2, 0, 9, 40000], np.uint16)
    a = np.array([-7, -2147483648, 3, -1, 8, 0], np.int32)
    u = np.array([0, 9, 4294967295, 2, 1, 3], np.uint32)
    check(mixed_sign_branches, [s, us, a, u, np.zeros(6, np.int64), np.zeros(6, np.int64)],
          backend)


# -- 11. float literals are weak in calls and comparisons too (NEP 50) ---------------
def weak_literal_calls(i, x, l, u, n, out, flags, wide):
    out[i, 0] = max(x[i], 0.3) * 3.0
    out[i, 1] = (x[i] if i > 1 else 0.1) * 3.0
    out[i, 2] = (x[i] if i > 2 else l[i]) * 0.001
    out[i, 3] = math.hypot(x[i], 0.5)
    out[i, 4] = math.fmod(x[i] * 20.0, 0.3)        # by 0.3f for a float32 x
    out[i, 5] = math.hypot(x[i], 16777217)         # 16777216.0f for a float32 x
    flags[i] = (x[i] == 0.3) + 2 * (x[i] > 0.1) + 4 * (-0.3 < x[i])
    # s2424517: an integer argument does not make the double erf() float32
    wide[i] = max(math.hypot(n + 830, math.erf(u[i] // 3)), x[i] * u[i])


def test_float_literals_take_the_precision_of_the_call(backend):
    """``max(x, 0.3)``, ``hypot(x, 0.5)``, ``x if c else 0.1`` and ``x == 0.3``
    meet a float32 ``x`` as float32 (NumPy 2 gives the same), a float64 one as
    double; a Python float computed from integers stays double."""
    dt = np.dtype(backend.dtype)
    x = np.array([0.3, 0.1, -0.3, 5.5, 0.1, -1.25], dt)
    l = np.array([3, -7, 16777217, 2 ** 40, 0, -1], np.int64)
    u = np.array([0, 7, 3, 65535, 1, 9], np.uint16)
    n = 2053
    got = run(weak_literal_calls, [x, l, u, n, np.zeros((6, 6), np.float64),
                                   np.zeros(6, np.int64), np.zeros(6, np.float64)])
    idx = np.arange(6)
    f = dt.type
    want = [np.maximum(x, 0.3) * 3.0, np.where(idx > 1, x, f(0.1)) * 3.0,
            np.where(idx > 2, x, l.astype(dt)) * 0.001, None,
            np.fmod(x * 20.0, 0.3)]
    for k, w in enumerate(want):
        if w is None:
            continue
        assert w.dtype == dt
        np.testing.assert_array_equal(got[4][:, k], w, err_msg="column %d" % k)
    for k, other in ((3, 0.5), (5, 16777217)):
        hyp = got[4][:, k]
        np.testing.assert_array_equal(hyp, hyp.astype(dt))     # computed in x's precision
        np.testing.assert_allclose(hyp, np.hypot(x, other), rtol=2e-7 if dt == np.float32
                                   else 1e-15)
    if dt == np.float32:
        np.testing.assert_array_equal(got[4][:, 5], np.float32(16777216))
    np.testing.assert_array_equal(got[5], (x == 0.3) + 2 * (x > 0.1) + 4 * (-0.3 < x))
    erf = np.array([math.erf(v // 3) for v in u.tolist()])
    # (a device computing in float32 stores float64 data as float32, and
    # computes Python floats in float32 too: see test_literals_alone_are_double)
    demotes = get_backend(backend.name).demote_double(get_config())
    np.testing.assert_allclose(got[6], np.maximum(np.hypot(n + 830, erf), x * u),
                               rtol=1e-6 if demotes else 1e-15)


# -- 12. the index of an augmented assignment is evaluated once --------------------
def indexed_updates(i, slot, a, b):
    # a wrapping int32 `+=` (printed `t = f(t, v)` on OpenCL/CUDA) and a float
    # added to an int64 element (printed so on every backend)
    a[atomic_inc(slot[i])] += 2147483647
    b[atomic_inc(slot[i])] += 2.5


@pytest.mark.integer_data
def test_augmented_assignment_evaluates_its_index_once(backend):
    n = 4
    slot = 2 * np.arange(n, dtype=np.int32)
    a = np.arange(2 * n, dtype=np.int32) + 1
    b = np.arange(2 * n, dtype=np.int64) * 10
    got = run(indexed_updates, [slot, a, b])
    want_a, want_b = a.copy(), b.copy()
    with np.errstate(over="ignore"):
        want_a[0::2] += np.int32(2147483647)
    want_b[1::2] = (want_b[1::2] + 2.5).astype(np.int64)
    np.testing.assert_array_equal(got[0], slot + 2)
    np.testing.assert_array_equal(got[1], want_a)
    np.testing.assert_array_equal(got[2], want_b)
