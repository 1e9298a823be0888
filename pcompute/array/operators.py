"""Arithmetic (``+``, ``-``) and comparisons of an
:class:`~pcompute.array.Array`, elementwise on the device.  A comparison
always gives an integer mask (int8 on device backends, numpy's bool on host
ones); an empty Array gives an empty result of numpy's dtype without a
launch.  See :mod:`pcompute.array`.
"""
import numbers
import operator

import numpy as np

from ..errors import KernelTypeError, KernelValueError
from .checks import _is_scalar
from .storage import ArrayStorage


class OperatorsMixin:
    """The operators of :class:`pcompute.array.Array` (a mixin of
    :class:`~.storage.ArrayStorage`)."""

    # Make numpy defer to our reflected operators (ndarray + Array).
    __array_priority__ = 1000

    def _operand(self, other, what):
        """The device-side operand for ``other``, or NotImplemented."""
        if isinstance(other, ArrayStorage):
            self._check_other(other, what)
            if other.length != self.length:
                raise KernelValueError("%s: lengths differ (%d and %d)"
                                       % (what, self.length, other.length))
            return other.dev
        if isinstance(other, np.ndarray) and other.ndim == 0:
            return other[()]
        if isinstance(other, (numbers.Number, np.generic)):
            return other
        if isinstance(other, np.ndarray):
            if not self._backend.on_host:
                raise KernelTypeError("%s: a numpy array with a %s Array"
                                      % (what, self.backend),
                                      hint="wrap it first: wrap(x)")
            if other.shape != (self.length,):
                raise KernelValueError("%s: shapes differ (%d,) and %s"
                                       % (what, self.length, other.shape))
            return other
        return NotImplemented

    def _binary(self, other, op, what, reflected=False, compare=False):
        b = self._operand(other, what)
        if b is NotImplemented:
            return NotImplemented
        if self.length == 0:
            # No launch for nothing (pycuda cannot pass an empty array's null
            # pointer): the result's dtype is what numpy gives for the operands.
            probe = np.zeros(0, self.dtype)
            other_probe = b if _is_scalar(b) else np.zeros(0, b.dtype)
            dtype = (op(other_probe, probe) if reflected else op(probe, other_probe)).dtype
            if compare and not self._backend.on_host:
                dtype = np.dtype(np.int8)
            return self._wrap_device(self._backend.empty(0, dtype), self._backend)
        result = op(b, self._dev) if reflected else op(self._dev, b)
        if compare and np.dtype(result.dtype).kind not in "biu":
            # pycuda's comparisons give 1.0/0.0 in the operands' dtype; pyopencl
            # gives int8, numpy bool: a comparison is always an integer mask.
            result = result.astype(np.int8)
        return self._wrap_device(result, self._backend)

    __hash__ = None


def _operator(name, op, what, reflected=False, compare=False):
    """The method ``name`` of :class:`OperatorsMixin`: ``op`` through ``_binary``."""
    def method(self, other):
        return self._binary(other, op, what, reflected, compare)
    method.__name__ = name
    method.__qualname__ = "OperatorsMixin." + name
    return method


# name -> (operator, symbol).  Arithmetic is also reflected (``1 - a``);
# comparisons give an integer mask and need no reflected form (Python turns
# ``1 < a`` into ``a > 1``).
_ARITHMETIC = {"add": (operator.add, "+"), "sub": (operator.sub, "-")}
_COMPARISONS = {"lt": (operator.lt, "<"), "le": (operator.le, "<="),
                "gt": (operator.gt, ">"), "ge": (operator.ge, ">="),
                "eq": (operator.eq, "=="), "ne": (operator.ne, "!=")}

for _name, (_op, _what) in _ARITHMETIC.items():
    for _method in (_operator("__%s__" % _name, _op, _what),
                    _operator("__r%s__" % _name, _op, _what, reflected=True)):
        setattr(OperatorsMixin, _method.__name__, _method)
for _name, (_op, _what) in _COMPARISONS.items():
    _method = _operator("__%s__" % _name, _op, _what, compare=True)
    setattr(OperatorsMixin, _method.__name__, _method)
del _name, _op, _what, _method
