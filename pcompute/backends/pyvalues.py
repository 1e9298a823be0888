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
import types as pytypes

import numpy as np

from ..types import parse_type

_F32 = np.dtype(np.float32)


def _f32(x):
    return float(np.float32(x))


def _f32_op(op):
    def method(self, other):
        if type(other) is F64 or (isinstance(other, np.floating)
                                  and other.dtype != _F32):
            return getattr(F64(self), op)(other)
        result = getattr(float, op)(self, other)
        if result is NotImplemented:
            return result
        return F32(_f32(result))
    method.__name__ = op
    return method


def _f64_op(op):
    def method(self, other):
        result = getattr(float, op)(self, other)
        if result is NotImplemented:
            return result
        return F64(result)
    method.__name__ = op
    return method


_FLOAT_OPS = ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__",
              "__truediv__", "__rtruediv__", "__floordiv__", "__rfloordiv__",
              "__mod__", "__rmod__", "__pow__", "__rpow__")


class F32(float):
    """A float32 value as a kernel sees it: arithmetic with ints, Python floats
    (literals, NumPy's "weak" scalars) and other F32 is rounded to float32,
    with an :class:`F64` it is double; comparisons give Python bools."""

    __slots__ = ()

    def __neg__(self):
        return F32(-float(self))

    def __pos__(self):
        return self

    def __abs__(self):
        return F32(abs(float(self)))


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


for _op in _FLOAT_OPS:
    setattr(F32, _op, _f32_op(_op))
    setattr(F64, _op, _f64_op(_op))


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


def typed_value(dtype, value):
    """``value`` as a variable of ``dtype`` holds it on the compiled backends,
    seen as a kernel value (a reduction's accumulator, a scan's item)."""
    if dtype == _F32:
        return F32(_f32(value))
    if dtype.kind == "f":
        return F64(value)
    return store_value(dtype, value)


def _index(index):
    """An index as C reads it: a bool is 0 or 1 (NumPy would take it for a
    mask), NumPy integers are plain ints."""
    if isinstance(index, tuple):
        return tuple(operator.index(k) for k in index)
    return operator.index(index)


class KernelArray:
    """An array argument (or ``declare('matrix')`` local) seen by a kernel."""

    __slots__ = ("data", "dtype", "_single", "_float", "_check")

    def __init__(self, data):
        self.data = data
        self.dtype = data.dtype
        self._single = data.dtype == _F32
        self._float = data.dtype.kind == "f"
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
            return KernelArray(data[index])     # m[j][k] on a 2-D local array
        value = data.item(index)
        if self._float:
            return F32(value) if self._single else F64(value)
        return value

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


def kernel_value(value):
    """The value a kernel sees for the argument ``value``."""
    if isinstance(value, np.ndarray):
        return KernelArray(value)
    if isinstance(value, np.generic):
        if value.dtype.kind == "f":
            return typed_value(value.dtype, value)
        return value.item()
    if type(value) is float:
        return F64(value)
    return value


def kernel_values(args):
    return [kernel_value(a) for a in args]


def _declare_one(ctype):
    if ctype.shape:
        return KernelArray(np.zeros(ctype.shape, dtype=ctype.dtype))
    if ctype.pointer:
        return None
    if ctype.base == "float":
        return F32(0.0)
    return F64(0.0) if ctype.is_float else 0


def declare(type_str, num=1):
    """:func:`pcompute.types.declare` giving kernel values."""
    ctype = parse_type(type_str)
    if num == 1:
        return _declare_one(ctype)
    return tuple(_declare_one(ctype) for _ in range(num))


def cast(x, type_str):
    """:func:`pcompute.types.cast` giving kernel values: floats truncate
    towards zero into integers, integers wrap to the width of the type."""
    ctype = parse_type(type_str)
    if ctype.is_float:
        return typed_value(ctype.dtype, x)
    return store_value(ctype.dtype, x)


def trunc(x):
    """``math.trunc`` that also takes NumPy floats."""
    return math.trunc(float(x))


#: math with trunc() accepting NumPy floats (for ``math.trunc(x)`` in kernels).
math_module = pytypes.SimpleNamespace(**{k: v for k, v in vars(math).items()
                                         if not k.startswith("__")})
math_module.trunc = trunc
