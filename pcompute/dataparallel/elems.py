"""Scalar element values of an element function being inlined: kernel
expression text with a *proto* (a NumPy scalar of its type, so types follow
the plain-Python oracle's rules)."""
import numpy as np

from ..numpy.dtypes import kernel_type_name
from .plan import value_of


class Elem:
    """A scalar element value: kernel expression text and its proto."""

    def __init__(self, text, proto):
        self.text, self.proto = text, proto


def proto_of(value):
    """The proto of a host scalar (weak Python scalars stay Python scalars)."""
    value = value_of(value)
    if isinstance(value, (bool, int, float)) and not isinstance(value, np.generic):
        return value
    return np.asarray(value).dtype.type(value)


def typed(e):
    """``e`` converted to the type of its proto (loop variables keep one type)."""
    return "cast(%s, '%s')" % (e.text, kernel_type_name(np.asarray(e.proto).dtype))


def typed_zero(proto, value=0):
    """A kernel expression of ``value`` in the type of ``proto``."""
    return "cast(%r, '%s')" % (value, kernel_type_name(np.asarray(proto).dtype))
