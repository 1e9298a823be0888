"""The python backend's fast paths give exactly what its general rules give.

The oracle (pcompute.backends.pyvalues, pyints) reads array elements, wraps
integer arithmetic, rounds to float32 and converts assignments through paths
specialised for the common types (1-D arrays read through a reader per dtype,
a value in its type's range not wrapped, float32 rounding through struct, one
converter per C type).  Each is checked here against the rule written out
(C's promotion and wrapping, NumPy's float32 rounding, ``read_value``,
``as_ctype``), on edge values, types and values both.  Nothing is built."""
import math
import operator
import random
import struct
import warnings

import numpy as np
import pytest

from pcompute.backends import pyints, pyvalues
from pcompute.backends.pyints import I32, I64, U32, U64
from pcompute.backends.pyvalues import F32, F64, Lit

RANK = {I32: 5, U32: 6, I64: 7, U64: 8}
WIDTH = {I32: (32, True), U32: (32, False), I64: (64, True), U64: (64, False)}


def wrap(value, cls):
    bits, signed = WIDTH[cls]
    value &= (1 << bits) - 1
    return value - (1 << bits) if signed and value >> (bits - 1) else value


def promoted(a, b):
    if {a, b} == {I32, U32}:
        return I64
    return a if RANK[a] >= RANK[b] else b


def literal_class(value, other):
    if not WIDTH[other][1] and 0 <= value < 2 ** 31:
        return other
    return I32 if -2 ** 31 <= value < 2 ** 31 else I64


def shift(op, a, b, bits):
    if 0 <= b < bits:
        return op(a, b)
    return 0 if op is operator.lshift else (-1 if a < 0 else 0)


OPS = [operator.add, operator.sub, operator.mul, operator.floordiv, operator.mod,
       operator.and_, operator.or_, operator.xor, operator.lshift, operator.rshift]


def expected(op, left, right, cls):
    a, b = wrap(int(left), cls), wrap(int(right), cls)
    if op in (operator.lshift, operator.rshift):
        return int.__new__(cls, wrap(shift(op, a, b, WIDTH[cls][0]), cls))
    return int.__new__(cls, wrap(op(a, b), cls))


def outcome(fn):
    try:
        value = fn()
    except ZeroDivisionError:
        return ZeroDivisionError
    return type(value), int(value)


EDGES = {I32: [-2 ** 31, -2 ** 31 + 1, -7, -1, 0, 1, 3, 31, 2 ** 31 - 1],
         U32: [0, 1, 5, 32, 2 ** 31, 2 ** 32 - 1],
         I64: [-2 ** 63, -2 ** 31 - 1, -1, 0, 2, 63, 2 ** 31, 2 ** 63 - 1],
         U64: [0, 1, 64, 2 ** 32, 2 ** 63, 2 ** 64 - 1]}
LITERALS = [-2 ** 40, -2 ** 31, -5, -1, 0, 1, 2, 33, 2 ** 31 - 1, 2 ** 31, 2 ** 40,
            2 ** 63 - 1, True, False]


def test_integer_operators_follow_c_promotion_and_wrapping():
    """Every operator on typed integers, with typed integers, bools and
    literals on either side: the promoted type, the operands converted to it,
    the result wrapped (the fast path skips the wrapping of values in range)."""
    checked = 0
    for cls, values in EDGES.items():
        for other_cls, others in EDGES.items():
            result_cls = promoted(cls, other_cls)
            for x in values:
                for y in others:
                    for op in OPS:
                        want = outcome(lambda: expected(op, x, y, result_cls))
                        got = outcome(lambda: op(cls(x), other_cls(y)))
                        assert got == want, (op, cls(x), other_cls(y))
                        checked += 1
        for x in values:
            for lit in LITERALS:
                lit_cls = I32 if type(lit) is bool else literal_class(lit, cls)
                result_cls = promoted(cls, lit_cls)
                for op in OPS:
                    assert outcome(lambda: op(cls(x), lit)) == \
                        outcome(lambda: expected(op, x, lit, result_cls)), (op, cls(x), lit)
                    if type(lit) is not bool:   # bool's own operators come first
                        assert outcome(lambda: op(lit, cls(x))) == \
                            outcome(lambda: expected(op, lit, x, result_cls)), (op, lit, cls(x))
                    checked += 2
    assert checked > 10000
    assert (I32(5) + 2.5, I32(3) * F64(0.5)) == (7.5, 1.5)


def test_integer_construction_wraps_only_out_of_range_values():
    for cls, values in EDGES.items():
        bits, _ = WIDTH[cls]
        for v in values + [v + (1 << bits) for v in values] + [v - (1 << bits) for v in values]:
            for given in (v, float(v) if abs(v) < 2 ** 53 else v, I64(wrap(v, I64))):
                got = cls(given)
                assert type(got) is cls and int(got) == wrap(int(given), cls), (cls, given)
    assert type(I32(True)) is I32 and I32(True) == 1 and I32(-2.9) == -2


def test_typed_range_values_have_the_loop_type():
    cases = [(3,), (I64(2 ** 31 - 2), I64(2 ** 31 + 1)), (U32(2 ** 32 - 2), U32(2 ** 32 - 1)),
             (2 ** 31 - 2, 2 ** 31 + 1), (5, -3, -2), (2 ** 63 - 2, 2 ** 63 + 1),
             (U64(2 ** 64 - 2), U64(2 ** 64 - 1)), (0,), (4, 1)]
    for args in cases:
        cls = I32
        for a in args:
            cls = promoted(cls, type(a) if type(a) in RANK else
                           (I32 if -2 ** 31 <= a < 2 ** 31 else I64))
        got = list(pyints.typed_range(*args))
        want = [wrap(v, cls) for v in range(*[int(a) for a in args])]
        assert [type(v) for v in got] == [cls] * len(want) and got == want, args


def bits(x):
    return struct.pack("d", x)


def test_float32_rounding_is_numpys_bit_for_bit():
    rng = random.Random(7)
    values = [0.0, -0.0, math.inf, -math.inf, math.nan, 0.1, 1e-45, 2.0 ** -150,
              2.0 ** -150 * (1 + 2 ** -40), 3.4028235e38, 3.4028235677973366e38,
              3.4028235677973367e38, 5e-324, 16777217.0, F64(0.1), Lit(0.3), F32(0.5)]
    values += [struct.unpack("d", struct.pack("Q", rng.getrandbits(64)))[0]
               for _ in range(3000)]
    values += [rng.uniform(-1, 1) * 2.0 ** rng.randint(-160, 140) for _ in range(3000)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for v in values:
            assert bits(pyvalues._f32(v)) == bits(float(np.float32(v))), repr(v)
    # an integer goes NumPy's way (2**60 + 2**36 + 1 ties to 2**60 through a double)
    for n in (2 ** 60 + 2 ** 36 + 1, 2 ** 24, 2 ** 24 + 1, -2 ** 24 - 1, 2 ** 25 + 3,
              -(2 ** 62) - 1, 2 ** 127, I64(-7), U32(2 ** 32 - 1), True, 0, -5):
        assert bits(pyvalues._f32(n)) == bits(float(np.float32(n)))
    with pytest.warns(RuntimeWarning, match="overflow"):
        assert pyvalues._f32(1e300) == math.inf


class _RaisingStruct:
    """struct.Struct("f") as CPython 3.13.3+ and 3.14 have it: a finite
    double beyond float32's range raises OverflowError (3.11 packs inf)."""

    def __init__(self):
        self._real = struct.Struct("f")

    def pack(self, x):
        if math.isfinite(x) and abs(x) > pyvalues._FMAX and \
                math.isinf(self._real.unpack(self._real.pack(x))[0]):
            raise OverflowError("float too large to pack with f format")
        return self._real.pack(x)

    def unpack(self, data):
        return self._real.unpack(data)


def test_float32_overflow_is_numpys_where_struct_raises(monkeypatch):
    monkeypatch.setattr(pyvalues, "_SINGLE", _RaisingStruct())
    for v in (1e300, -1e39, 3.4028235677973367e38):
        with pytest.warns(RuntimeWarning, match="overflow"):
            assert pyvalues._f32(v) == float(np.float32(v))
    assert pyvalues._f32(3.4028235e38) == float(np.float32(3.4028235e38))


DTYPES = ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
          "float32", "float64", "bool"]


def edge_array(dtype):
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return np.array([True, False, True])
    if dtype.kind == "f":
        return np.array([0.1, -2.5, np.inf, 3e38], dtype)
    info = np.iinfo(dtype)
    return np.array([info.min, info.max, 0, 1], dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_array_reads_and_stores_are_the_general_ones(dtype):
    data = edge_array(dtype)
    array = pyvalues.kernel_value(data)
    for k in range(len(data)):
        want = pyvalues.read_value(data.dtype, data.item(k))
        for index in (k, I64(k), I32(k), U64(k), np.int64(k), (k,)):
            got = array[index]
            assert type(got) is type(want) and bits(float(got)) == bits(float(want)), index
    assert array[True] == pyvalues.read_value(data.dtype, data.item(1))   # C's 1
    assert array[-1] == pyvalues.read_value(data.dtype, data.item(len(data) - 1))
    with pytest.raises(TypeError):
        array[F64(1.0)]
    with pytest.raises(IndexError):
        array[len(data)]
    copy = data.copy()
    for index, value in ((I64(0), data[2]), (True, data[0]), (U32(2), data[1])):
        array[index] = value
        copy[int(index)] = pyvalues.store_value(data.dtype, value)
    assert np.array_equal(data, copy)


def test_matrix_rows_and_stores_convert_as_c():
    m = pyvalues.declare("matrix((2, 3), 'int')")
    m[I64(1), I32(2)] = 2 ** 31 + 5      # wraps into the int element
    row = m[1]
    assert type(row[2]) is I32 and row[2] == -2 ** 31 + 5
    v = pyvalues.declare("matrix(3)")
    v[0] = F32(0.5)
    v[I64(1)] += 2
    assert [type(x) for x in (v[0], v[1])] == [F64, F64] and (v[0], v[1]) == (0.5, 2.0)
    ints = pyvalues.kernel_value(np.zeros(2, np.int8))
    ints[0] = 300.7
    assert ints[0] == 44 and type(ints[0]) is I32


# an F32 holds a float32 value (made by rounding), as every F32 the oracle makes
CONVERTED = [I32(-1), U32(2 ** 32 - 1), I64(-2 ** 63), U64(2 ** 64 - 1), True, False, 7,
             2 ** 40, -2 ** 70, F64(2.7), F64(-1e10), F32(pyvalues._f32(0.1)), Lit(-2.5),
             0.5, 1e300]


def test_converters_are_as_ctype():
    for base, convert in pyvalues.AS_CTYPE.items():
        for value in CONVERTED:
            if base in ("float", "double") or not isinstance(value, float) or \
                    abs(value) < 2 ** 63:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    want = pyvalues.as_ctype(value, base)
                    got = convert(value)
                assert type(got) is type(want) and bits(float(got)) == bits(float(want)), \
                    (base, value)


def test_min_max_give_the_joined_type():
    def literal(v):
        return I32 if type(v) is bool or -2 ** 31 <= v < 2 ** 31 else I64
    cases = [(I32(3), 5), (U32(3), -1), (U64(5), True), (I32(1), 2 ** 40), (U32(7), I32(-2)),
             (I64(-1), U64(2 ** 64 - 1)), (U32(4), 2 ** 31), (I32(-5), I32(2), U32(9))]
    for values in cases:
        cls = I32
        for v in values:
            cls = promoted(cls, type(v) if type(v) in RANK else literal(v))
        for fn, pick in ((pyvalues.min_, min), (pyvalues.max_, max)):
            got = fn(*values)
            assert type(got) is cls and got == wrap(int(pick(*values)), cls), (fn, values)
    assert type(pyvalues.max_(2, 3)) is int and type(pyvalues.min_(F32(0.5), 1)) is F32


def test_cast_is_typed_value():
    """cast() keeps a converter per spelling; each gives typed_value's value
    and class (a float truncated, an integer wrapped to the width)."""
    values = [I32(-1), U64(2 ** 64 - 1), I64(-2 ** 63), 2 ** 40 + 7, -300, True, F64(-2.7),
              F32(pyvalues._f32(0.1)), Lit(1e10), 3.5, 1e300]
    for name in ("int", "uint", "long", "ulong", "char", "uchar", "short", "ushort",
                 "float", "double", "bool"):
        dtype = pyvalues.parse_type(name).dtype
        for value in values:
            if dtype.kind != "f" and isinstance(value, float) and abs(value) >= 2 ** 63:
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                want = pyvalues.typed_value(dtype, value)
                got = pyvalues.cast(value, name)
            assert type(got) is type(want) and bits(float(got)) == bits(float(want)), \
                (name, value)
