"""Integer values of the python backend: Python ints that wrap as C's do.

The compiled backends compute integer arithmetic in the type pcompute's type
inference gives it (:func:`pcompute.types.promote`: small integers and bools
become ``int``, an unsigned 32-bit value with a signed one gives ``long``, as
NumPy), and a result too wide for that type wraps around.  For the python
backend to be their oracle, an integer a kernel reads from an array or
receives as an argument carries its type: :class:`I32` (``int``), :class:`U32`
(``uint``), :class:`I64` (``long``) and :class:`U64` (``ulong``).  Arithmetic
on them gives the value of the promoted type, wrapped to its width.

A plain Python ``int`` in a kernel is a literal (or folded literals, or a bool
sum): it is typed by its value as in the compiled backends, ``int`` when it
fits in 32 bits, else ``long``, and a literal in ``[0, 2**31)`` met by an
unsigned value takes the unsigned type (``u - 1`` wraps as ``u - 1u``).
Loop variables of ``range``, ``int(...)`` and ``abs`` give typed values
(:func:`typed_range`, :func:`int_`; ``min``/``max``: :func:`joined`).
"""
import builtins
import operator
from functools import partial

INT32_MIN, INT32_MAX = -2 ** 31, 2 ** 31 - 1
INT64_MIN, INT64_MAX = -2 ** 63, 2 ** 63 - 1

# rank of each type in pcompute's promotion order, and its width/signedness
_RANK = {"int": 5, "uint": 6, "long": 7, "ulong": 8}


def _wrap(value, bits, signed):
    value &= (1 << bits) - 1
    if signed and value >> (bits - 1):
        value -= 1 << bits
    return value


_new = int.__new__


class CInt(int):
    """An integer value of a C integer type (the subclasses name the type;
    ``lo``/``hi``: its range, whose values need no wrapping)."""

    __slots__ = ()
    ctype = None
    bits = 0
    signed = True
    lo = hi = 0

    def __new__(cls, value=0):
        if type(value) is not int:
            value = int(value)
        if cls.lo <= value <= cls.hi:
            return _new(cls, value)
        return _new(cls, _wrap(value, cls.bits, cls.signed))

    def __repr__(self):
        return "%s(%d)" % (type(self).__name__, int(self))

    def __neg__(self):
        return type(self)(-int(self))

    def __pos__(self):
        return self

    def __invert__(self):
        return type(self)(~int(self))

    def __abs__(self):
        return type(self)(abs(int(self)))

    def __index__(self):
        return int(self)


class I32(CInt):
    """A C ``int``."""
    __slots__ = ()
    ctype, bits, signed = "int", 32, True
    lo, hi = INT32_MIN, INT32_MAX


class U32(CInt):
    """A C ``unsigned int``."""
    __slots__ = ()
    ctype, bits, signed = "uint", 32, False
    lo, hi = 0, 2 ** 32 - 1


class I64(CInt):
    """A C ``long long`` (pcompute's ``long``)."""
    __slots__ = ()
    ctype, bits, signed = "long", 64, True
    lo, hi = INT64_MIN, INT64_MAX


class U64(CInt):
    """A C ``unsigned long long`` (pcompute's ``ulong``)."""
    __slots__ = ()
    ctype, bits, signed = "ulong", 64, False
    lo, hi = 0, 2 ** 64 - 1


BY_TYPE = {"int": I32, "uint": U32, "long": I64, "ulong": U64}

#: ``cls(value)`` for a value known to be in ``cls``'s range (no wrapping)
MAKE = {cls: partial(_new, cls) for cls in BY_TYPE.values()}


def type_of(value, other=None):
    """The C type name of the integer ``value`` (``other``: the typed value it
    meets, for the unsigned rule of literals)."""
    if isinstance(value, CInt):
        return value.ctype
    if type(value) is bool:
        return "int"
    if other is not None and not other.signed and 0 <= value <= INT32_MAX:
        return other.ctype
    return "int" if INT32_MIN <= value <= INT32_MAX else "long"


def promoted(a, b):
    """pcompute's promotion of two integer type names (see types.promote)."""
    if "uint" in (a, b) and "int" in (a, b):
        return "long"
    return a if _RANK[a] >= _RANK[b] else b


def _binary(op, own, reflected=False):
    """The operator ``op`` of the class ``own`` (reflected: ``other op self``),
    with ``own``'s promotions looked up by the other operand's class."""
    table = {kind: (cls, cls.lo, cls.hi, cls.bits, cls.signed)
             for (mine, kind), cls in _PROMOTED.items() if mine is own}
    # a literal: typed by its value, unsigned beside an unsigned one
    small = table[own if not own.signed else I32]
    signed_int, wide = table[I32], table[I64]
    shift = op in _SHIFTS

    def method(self, other):
        entry = table.get(type(other))
        if entry is None:
            if type(other) is int:
                if 0 <= other <= INT32_MAX:
                    entry = small
                elif INT32_MIN <= other < 0:
                    entry = signed_int
                else:
                    entry = wide
            elif isinstance(other, int):
                cls = BY_TYPE[promoted(own.ctype, type_of(other, self))]
                entry = (cls, cls.lo, cls.hi, cls.bits, cls.signed)
            else:
                return NotImplemented
        cls, lo, hi, bits, signed = entry
        # both operands converted to the result's type first, as C does (an
        # unsigned // or >> sees the unsigned value of a negative operand); a
        # value in the type's range is its own conversion
        a, b = int(self), int(other)
        if not lo <= a <= hi:
            a = _wrap(a, bits, signed)
        if not lo <= b <= hi:
            b = _wrap(b, bits, signed)
        if reflected:
            a, b = b, a
        result = op(a, b, bits) if shift else op(a, b)
        if lo <= result <= hi:
            return _new(cls, result)
        return _new(cls, _wrap(result, bits, signed))
    return method


def _lshift(a, b, bits):
    # Python's a << b reduced to the type (by the caller): 0 from a count of
    # the width on; a negative count (Python raises) counts as one beyond the
    # width, as in the compiled backends (docs/semantics.rst, Shifts)
    return a << b if 0 <= b < bits else 0


def _rshift(a, b, bits):
    # Python's a >> b; a count of the width or more (or negative) leaves the sign
    return a >> b if 0 <= b < bits else (-1 if a < 0 else 0)


_SHIFTS = (_lshift, _rshift)


def _floordiv(a, b):
    return a // b


def _pow(a, b):
    # the exponent is non-negative (type inference requires it); only the low
    # bits of the result are kept, as C's integer power keeps them
    return builtins.pow(a, b, 1 << 64) if b >= 0 else a ** b


_OPS = {"add": operator.add, "sub": operator.sub,
        "mul": operator.mul, "floordiv": _floordiv,
        "mod": operator.mod, "pow": _pow,
        "and": operator.and_, "or": operator.or_, "xor": operator.xor,
        "lshift": _lshift, "rshift": _rshift}

# the result class of two typed operands (a bool is an ``int``), precomputed
_PROMOTED = {(a, b): BY_TYPE[promoted(a.ctype, b.ctype)]
             for a in BY_TYPE.values() for b in BY_TYPE.values()}
_PROMOTED.update({(a, bool): BY_TYPE[promoted(a.ctype, "int")] for a in BY_TYPE.values()})

for _cls in BY_TYPE.values():
    for _name, _op in _OPS.items():
        setattr(_cls, "__%s__" % _name, _binary(_op, _cls))
        setattr(_cls, "__r%s__" % _name, _binary(_op, _cls, reflected=True))



def typed(type_name, value):
    """``value`` (an integer) as a value of the C integer type ``type_name``
    (small types and bool are ``int``, as C promotes them)."""
    cls = BY_TYPE.get(type_name, I32)
    return cls(value)


def _joined_class(values):
    """The class of the promotion of ``int`` and the types of the integers
    among ``values`` (:func:`type_of` each, by class where it is one)."""
    cls = I32
    for v in values:
        kind = type(v)
        if kind is int:
            cls = _PROMOTED[cls, I32 if INT32_MIN <= v <= INT32_MAX else I64]
        elif kind in MAKE or kind is bool:
            cls = _PROMOTED[cls, kind]
        elif isinstance(v, int):
            cls = BY_TYPE[promoted(cls.ctype, type_of(v))]
    return cls


def typed_range(*args):
    """``range`` whose values have the loop variable's C type (the promotion
    of ``int`` and the arguments' types), as the compiled backends type it."""
    cls = _joined_class(args)
    values = builtins.range(*[int(a) for a in args])
    if not values or (cls.lo <= values[0] <= cls.hi and cls.lo <= values[-1] <= cls.hi):
        # the values lie between the first and the last: none needs wrapping
        return map(MAKE[cls], values)
    return map(cls, values)


def int_(x=0):
    """``int(x)`` as kernels mean it: an integer keeps its type (at least
    ``int``), a float becomes a ``long`` truncated towards zero."""
    if isinstance(x, CInt):
        return x
    if isinstance(x, int):
        return I32(x) if type(x) is bool else x
    return I64(builtins.int(x))


def joined(values, result):
    """``result`` (one of the integers ``values``) in their joined type, as
    C's ``min``/``max`` give it; ``result`` itself if none is typed."""
    if not all(isinstance(v, int) for v in values) or \
            not any(isinstance(v, CInt) for v in values):
        return result
    return _joined_class(values)(result)
