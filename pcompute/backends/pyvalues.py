"""Values of the python backend: Python's numbers, arrays that store like C.

The python backend is the oracle of every other backend, so a kernel must see
in it the numbers Python gives it, not NumPy's scalars (whose ``True + True``
is ``True`` and whose ``uint8`` sums wrap at 256).  Arguments are converted
once per call:

* an array becomes a :class:`KernelArray`: reading an element gives a Python
  ``int`` (any integer dtype), ``bool`` or ``float`` (float64), and a NumPy
  ``float32`` for float32 arrays, so single precision stays single as on the
  compiled backends; storing converts as NumPy and the compiled backends do
  (a float into an integer element truncates towards zero, an integer too wide
  for its element wraps around, anything into a bool is its truth value);
* a scalar becomes the Python number of its value (float32 stays float32).

``declare``, ``cast`` and ``trunc`` get versions that give and take such
values; the named constants of the kernel language (``INFINITY``, ``NAN``,
``M_PI``, ...) are defined.  Nothing here changes the user's arrays' dtype or
identity: a :class:`KernelArray` is a view on the same memory.
"""
import math
import operator
import struct
import types as pytypes

import numpy as np

from ..types import parse_type
from . import pyints

_F32 = np.dtype(np.float32)
_SINGLE = struct.Struct("f")


_FMAX = float(np.finfo(np.float32).max)
_EXACT = 2 ** 24          # every integer up to this is a float32 value


def _f32(x):
    """``x`` rounded to float32 as NumPy rounds it.  A float goes through
    struct's native C conversion (the same rounding, 3x faster); an integer,
    and a result that is not finite (NumPy warns of an overflow), go through
    NumPy (an integer is rounded once there, not via a double).  A finite
    float beyond float32's range packs to inf on CPython 3.11 but raises
    OverflowError on later releases (gh-145633): NumPy's way too."""
    if isinstance(x, float):
        try:
            result = _SINGLE.unpack(_SINGLE.pack(x))[0]
        except OverflowError:
            return float(np.float32(x))
        if -_FMAX <= result <= _FMAX:
            return result
    elif isinstance(x, int) and -_EXACT <= x <= _EXACT:
        return float(x)             # exact in float32: nothing to round
    return float(np.float32(x))


def _f32_op(op):
    fop = getattr(float, op)

    def method(self, other):
        kind = type(other)
        if kind is F32:
            pass
        elif kind is Lit or isinstance(other, int):
            # a float literal meeting a float32 value is a float32 constant
            # (``0.1f``), an integer is converted to float, as in C
            other = _f32(other)
        elif kind is float or kind is F64 or (isinstance(other, np.floating)
                                              and other.dtype != _F32):
            # a double (an F64, or a Python float computed from literals and
            # integers) makes the operation double, as in C
            return getattr(F64(self), op)(other)
        result = fop(self, other)
        if result is NotImplemented:
            return result
        return F32(_f32(result))
    method.__name__ = op
    return method


def _f64_op(op):
    fop = getattr(float, op)

    def method(self, other):
        result = fop(self, other)
        if result is NotImplemented:
            return result
        return F64(result)
    method.__name__ = op
    return method


_FLOAT_OPS = ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__",
              "__truediv__", "__rtruediv__", "__floordiv__", "__rfloordiv__",
              "__mod__", "__rmod__", "__pow__", "__rpow__")


class F32(float):
    """A float32 value as a kernel sees it: arithmetic with integers (converted
    to float32 first), float literals (:class:`Lit`, rounded to float32 first)
    and other F32 is float32; with a double (an :class:`F64`, or a Python float
    computed from literals and integers) it is double, as in C; comparisons
    give Python bools."""

    __slots__ = ()

    def __neg__(self):
        return F32(-float(self))

    def __pos__(self):
        return self

    def __abs__(self):
        return F32(abs(float(self)))


class Lit(float):
    """A float literal of the kernel's source: NumPy's (and pcompute's) "weak"
    Python float, which takes the precision of a float32 value it meets
    (:class:`F32`); with anything else it is a Python float (a double)."""

    __slots__ = ()

    def __neg__(self):
        return Lit(-float(self))

    def __pos__(self):
        return self


class F64(float):
    """A float64 value of an array or argument: arithmetic with it is double
    even with an :class:`F32` (as in C), comparisons give Python bools."""

    __slots__ = ()

    def __neg__(self):
        return F64(-float(self))

    def __pos__(self):
        return self

    def __abs__(self):
        return F64(abs(float(self)))


def _cmp(op, single):
    # C compares a float with an integer (or a float32 with a float literal,
    # typed float32 as NEP 50 says) after converting it to the float's type:
    # `x == 0.3` is true for the float32 0.3, `x == 16777217` for 16777216.0
    fop = getattr(float, op)

    def method(self, other):
        kind = type(other)
        if kind is F64 or kind is float or kind is F32:
            return fop(self, other)
        if isinstance(other, int) or (single and kind is Lit):
            other = _f32(other) if single else float(other)
        return fop(self, other)
    method.__name__ = op
    return method


_CMP_OPS = ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__")

for _op in _FLOAT_OPS:
    setattr(F32, _op, _f32_op(_op))
    setattr(F64, _op, _f64_op(_op))


def _lit_cmp(op):
    fop = getattr(float, op)

    def method(self, other):
        if type(other) is F32:
            return fop(_f32(self), other)
        return fop(self, other)
    method.__name__ = op
    return method


for _op in _CMP_OPS:
    setattr(F32, _op, _cmp(_op, True))
    setattr(F64, _op, _cmp(_op, False))
    setattr(Lit, _op, _lit_cmp(_op))
# These comparisons are C's, not Python's: F32(16777216.0) equals both
# 16777216 and 16777217 (each converted to float32 first), two ints with
# different hashes, and Lit(0.3) equals F32(0.3) whose float hash is another.
# No hash agrees with such an equality, so a kernel value is unhashable: a set
# or dict of them raises at once instead of finding or missing entries by
# chance (float's hash with this equality broke Python's rule that equal
# values hash alike).
F32.__hash__ = F64.__hash__ = Lit.__hash__ = None


def store_value(dtype, value):
    """``value`` converted for a store into an element of ``dtype``."""
    kind = dtype.kind
    if kind == "b":
        return bool(value)
    if kind in "iu":
        value = int(value)          # truncation towards zero, as Python's int
        bits = 8 * dtype.itemsize
        value &= (1 << bits) - 1
        if kind == "i" and value >= 1 << (bits - 1):
            value -= 1 << bits
        return value
    return value


def read_value(dtype, value):
    """The kernel value of ``value`` read from an element of ``dtype``: float32
    and double as F32/F64, an integer typed (pyints: smaller integers are
    ``int``, as C promotes them), a bool as a bool."""
    kind = dtype.kind
    if kind == "f":
        return F32(value) if dtype == _F32 else F64(value)
    if kind in "iu":
        return _INT_READ[dtype.itemsize, kind](value)
    return value


_INT_READ = {(1, "i"): pyints.I32, (2, "i"): pyints.I32, (4, "i"): pyints.I32,
             (8, "i"): pyints.I64, (1, "u"): pyints.I32, (2, "u"): pyints.I32,
             (4, "u"): pyints.U32, (8, "u"): pyints.U64}


def typed_value(dtype, value):
    """``value`` as a variable of ``dtype`` holds it on the compiled backends,
    seen as a kernel value (a reduction's accumulator, a scan's item)."""
    if dtype == _F32:
        return F32(_f32(value))
    if dtype.kind == "f":
        return F64(value)
    return read_value(dtype, store_value(dtype, value))


def _index(index):
    """An index as C reads it: a bool is 0 or 1 (NumPy would take it for a
    mask), NumPy integers are plain ints."""
    if isinstance(index, tuple):
        return tuple(operator.index(k) for k in index)
    return operator.index(index)


class KernelArray:
    """An array argument (or ``declare('matrix')`` local) seen by a kernel."""

    __slots__ = ("data", "dtype", "_check")

    def __init__(self, data):
        self.data = data
        self.dtype = data.dtype
        # A bounds-checked argument (backends.pychecks) checks each index; called
        # from here, its error names the line of the kernel that made the access.
        self._check = getattr(data, "_check", None)

    def __getitem__(self, index):
        data = self.data
        if type(index) is not int:
            index = _index(index)
        if self._check is not None:
            self._check(index)
        if data.ndim > 1 and not isinstance(index, tuple):
            return kernel_array(data[index])    # m[j][k] on a 2-D local array
        return read_value(self.dtype, data.item(index))

    def __setitem__(self, index, value):
        if type(index) is not int:
            index = _index(index)
        if self._check is not None:
            self._check(index)
        self.data[index] = store_value(self.dtype, value)

    def __len__(self):
        return len(self.data)

    @property
    def shape(self):
        return self.data.shape

    @property
    def ndim(self):
        return self.data.ndim

    @property
    def size(self):
        return self.data.size

    def __repr__(self):
        return "KernelArray(%r)" % (self.data,)


_CINTS = frozenset(pyints.BY_TYPE.values())


class _Vector(KernelArray):
    """A 1-D array without bounds checks, of a dtype in :data:`_READERS`:
    an element read is ``data.item`` through the dtype's reader, which gives
    what :func:`read_value` gives (an integer array's values need no wrapping
    into their type).  An index ``item`` refuses (a bool, a float) takes
    :class:`KernelArray`'s way, which converts or rejects it as before."""

    __slots__ = ("_item", "_read", "_float")

    def __init__(self, data):
        KernelArray.__init__(self, data)
        self._item = data.item
        self._read = _READERS[data.dtype]
        self._float = data.dtype.kind == "f"

    def __getitem__(self, index):
        try:
            value = self._item(index)
        except TypeError:
            return KernelArray.__getitem__(self, index)
        return self._read(value)

    def __setitem__(self, index, value):
        kind = type(index)
        if kind is not int:
            index = int(index) if kind in _CINTS else _index(index)
        self.data[index] = value if self._float else store_value(self.dtype, value)


_READERS = {np.dtype(np.float64): F64, _F32: F32, np.dtype(np.bool_): bool}
_READERS.update({np.dtype("%s%d" % (kind, size)): pyints.MAKE[cls]
                 for (size, kind), cls in _INT_READ.items()})


def kernel_array(data):
    """The kernel's view of the NumPy array ``data`` (a :class:`KernelArray`)."""
    if data.ndim == 1 and data.dtype in _READERS and \
            getattr(data, "_check", None) is None:
        return _Vector(data)
    return KernelArray(data)


def kernel_value(value):
    """The value a kernel sees for the argument ``value``."""
    if isinstance(value, np.ndarray):
        return kernel_array(value)
    if isinstance(value, np.generic):
        return typed_value(value.dtype, value.item())
    if type(value) is float:
        return F64(value)
    if type(value) is int:
        return pyints.I64(value)      # a Python int argument is a long
    return value


def kernel_values(args):
    return [kernel_value(a) for a in args]


def _declare_one(ctype):
    if ctype.shape:
        return kernel_array(np.zeros(ctype.shape, dtype=ctype.dtype))
    if ctype.pointer:
        return None
    return typed_value(ctype.dtype, 0)


_PARSED = {}


def _parsed(type_str):
    """parse_type(type_str), kept per spelling (a CType is frozen): a kernel
    calls declare and cast with the same few strings once per item."""
    try:
        return _PARSED[type_str]
    except (KeyError, TypeError):     # TypeError: an unhashable spelling
        ctype = parse_type(type_str)
        if isinstance(type_str, str):
            _PARSED[type_str] = ctype
        return ctype


def declare(type_str, num=1):
    """:func:`pcompute.types.declare` giving kernel values."""
    ctype = _parsed(type_str)
    if num == 1:
        return _declare_one(ctype)
    return tuple(_declare_one(ctype) for _ in range(num))


def cast(x, type_str):
    """:func:`pcompute.types.cast` giving kernel values: floats truncate
    towards zero into integers, integers wrap to the width of the type
    (:func:`typed_value`, by the converter kept per spelling)."""
    try:
        convert = _CASTS[type_str]
    except (KeyError, TypeError):     # TypeError: an unhashable spelling
        convert = _caster(type_str)
    return convert(x)


_CASTS = {}


def _caster(type_str):
    """The function giving ``typed_value(dtype, x)`` for the dtype of
    ``type_str``: the class itself where it computes the same (``F64``; a
    32/64-bit integer class, which wraps as store_value then read_value
    do), float32's converter, else typed_value."""
    dtype = _parsed(type_str).dtype
    if dtype == _F32:
        convert = _as_float
    elif dtype == np.float64:
        convert = F64
    elif dtype.kind in "iu" and dtype.itemsize in (4, 8):
        convert = _INT_READ[dtype.itemsize, dtype.kind]
    else:
        def convert(x):
            return typed_value(dtype, x)
    if isinstance(type_str, str):
        _CASTS[type_str] = convert
    return convert


def _float_type(values):
    """The class of the float result of a function of ``values`` in C: double
    with any double (an :class:`F64`, or a Python float computed from literals
    and integers), else float32 with any float32, else a Python float."""
    kinds = {type(v) for v in values}
    if F64 in kinds or float in kinds:
        return F64
    if F32 in kinds:
        return F32
    return None


def typed_math(fn):
    """The math function ``fn`` as kernels mean it: its result is a float
    (C's ``floor`` is a float) of the precision of its arguments (float32
    only for float32 arguments, as C's float overloads, whose float literal
    and integer arguments are converted to float32 first: ``fmod(x, 0.3)``
    divides by ``0.3f``)."""
    def call(*args):
        cls = _float_type(args)
        if cls is F32:
            args = [_f32(a) if type(a) is Lit or (isinstance(a, int) and
                                                  not isinstance(a, bool)) else a
                    for a in args]
        result = fn(*[float(a) if isinstance(a, float) else a for a in args])
        if isinstance(result, bool) or not isinstance(result, (int, float)):
            return result
        if cls is F32:
            return F32(_f32(result))
        return cls(result) if cls is not None else float(result)
    call.__name__ = fn.__name__
    call.__doc__ = fn.__doc__
    return call


def _joined(values, pick):
    result = pick(*values)
    cls = _float_type(values)
    if cls is F32:
        return F32(_f32(result))
    if cls is not None:
        return cls(result)
    return pyints.joined(values, result)


def local_value(value):
    """``value`` as a local name holds it in C: a float literal is a double
    there (no longer weak), an integer literal an ``int`` or a ``long`` by its
    value; anything else is already typed."""
    kind = type(value)
    if kind is Lit:
        return float(value)
    if kind is int:
        return pyints.typed(pyints.type_of(value), value)
    return value


_SMALL_INTS = {"char": (8, True), "uchar": (8, False), "short": (16, True),
               "ushort": (16, False)}


def as_ctype(value, base):
    """``value`` converted as C converts it on assignment to a variable of the
    scalar type ``base`` (a local, a parameter, a return value): integers wrap
    to the width (smaller types are then held as ``int``, as C promotes them),
    floats round to the precision, a bool is the ``int`` 0 or 1."""
    cls = pyints.BY_TYPE.get(base)
    if cls is not None:
        return cls(value if isinstance(value, int) else int(value))
    if base == "double":
        return F64(value)
    if base == "float":
        return F32(_f32(value))
    if base == "bool":
        return pyints.I32(1 if value else 0)
    bits, signed = _SMALL_INTS[base]
    return pyints.I32(pyints._wrap(int(value), bits, signed))


def _as_cint(cls):
    def convert(value):
        if type(value) is cls:
            return value
        return cls(value if isinstance(value, int) else int(value))
    return convert


def _as_double(value):
    return value if type(value) is F64 else F64(value)


def _as_float(value):
    # an F32 holds a float32 value (every F32 is made from one), its own rounding
    return value if type(value) is F32 else F32(_f32(value))


#: as_ctype(value, base) for each base, as one-argument functions that return
#: a value already of the base's class as it is (the conversions on each
#: assignment to a typed local of the python backend, pyexec's ``pc_as_*``)
AS_CTYPE = {name: _as_cint(cls) for name, cls in pyints.BY_TYPE.items()}
AS_CTYPE.update({"double": _as_double, "float": _as_float})


def bool_as_int(value):
    """A bool operand of arithmetic as the ``int`` C computes with (``True +
    x`` for an ``int32`` ``x`` wraps as ``1 + x`` does); anything else as is."""
    return pyints.I32(value) if type(value) is bool else value


def min_(*values):
    """``min`` of kernel numbers, in the joined type of its arguments."""
    return _joined(values, min)


def max_(*values):
    """``max`` of kernel numbers, in the joined type of its arguments."""
    return _joined(values, max)


#: math as kernels mean it (for ``math.sqrt(x)`` in kernels), see typed_math.
math_module = pytypes.SimpleNamespace(**{
    k: typed_math(v) if callable(v) else v
    for k, v in vars(math).items() if not k.startswith("__")})
