"""The binary operators that ``reduce`` and the scans compile to parallel
kernels: associative, with a neutral element per type.

``operator.add``/``mul``/``and_``/``or_``/``xor`` and ``min``/``max`` (the
builtins or the prelude's).  Other functions (lambdas, defs) are accepted
only where the reduction runs in order: over a segment inside an element
function (see ``inline.py``).
"""
import builtins
import operator

import numpy as np

from ..errors import KernelTypeError
from . import prelude
from .source import located

_MINS = (builtins.min, prelude.min)
_MAXS = (builtins.max, prelude.max)
_TEXT = {operator.add: "{a} + {b}", operator.mul: "{a} * {b}",
         operator.and_: "{a} & {b}", operator.or_: "{a} | {b}", operator.xor: "{a} ^ {b}"}
_TEXT.update({f: "min({a}, {b})" for f in _MINS})
_TEXT.update({f: "max({a}, {b})" for f in _MAXS})
_BITWISE = (operator.and_, operator.or_, operator.xor)


def known(op):
    """True for the operators with a kernel expression and a neutral element."""
    return op in _TEXT


def text(op, a, b):
    """The kernel expression of ``a op b``."""
    return "(%s)" % _TEXT[op].format(a=a, b=b)


def expression(op):
    """The reduce/scan expression of ``op`` in ``a`` and ``b``, written as
    users write it (``a + b``, ``min(a, b)``): backends recognise these."""
    return _TEXT[op].format(a="a", b="b")


def neutral(op, dtype):
    """The neutral element of ``op`` on ``dtype``, as kernel text."""
    dtype = np.dtype(dtype)
    if op in (operator.add, operator.or_, operator.xor):
        return "0"
    if op is operator.mul:
        return "1"
    if op is operator.and_:
        return "-1" if dtype.kind == "i" else str(np.iinfo(dtype).max)
    if dtype.kind == "f":
        return "INFINITY" if op in _MINS else "-INFINITY"
    info = np.iinfo(dtype)
    return str(info.max if op in _MINS else info.min)


def check(op, dtype, where, what):
    """A located error unless ``op`` reduces ``dtype`` in parallel."""
    if not known(op):
        raise located(KernelTypeError, "%s in a @dataparallel function takes "
                      "operator.add/mul/and_/or_/xor, min or max, got %s"
                      % (what, _name(op)), where,
                      "map the elements first (reduce(operator.add, map(f, x), init)); "
                      "any function reduces a segment inside a map, in order")
    if op in _BITWISE and np.dtype(dtype).kind not in "iub":
        raise located(KernelTypeError, "%s: %s needs integers, got %s"
                      % (what, op.__name__, np.dtype(dtype)), where, None)


def _name(op):
    """How the user wrote ``op`` (a Closure has ``name``, a function ``__name__``)."""
    return getattr(op, "name", None) or getattr(op, "__name__", None) or repr(op)
