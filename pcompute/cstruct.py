"""Compyle's ``CStructHelper``: a C struct and a matching NumPy record for the
public number attributes of a Python object.

``CStructHelper(obj).get_code()`` is the ``typedef struct`` of ``obj``'s
class with one field per public attribute holding a number (``int``/``bool``:
``int``, ``float``: ``double``), in name order; ``get_array()`` is a one-element
NumPy structured array with the same fields, in the same order and types and
with C's alignment padding, so its bytes are the struct's (None when there is
no such attribute).  Compyle
made the array's floats float32 without ``use_double`` while the struct said
``double``, and packed its fields without C's padding, so the two did not
match; here both are double and the record is aligned as the struct.
"""
import inspect
import types as pytypes
from dataclasses import replace

import numpy as np

from .errors import KernelTypeError, KernelValueError
from .types import DOUBLE, FLOAT, INT, StructInfo

__all__ = ["CStructHelper"]

_C = {"int": "int", "double": "double"}
_DTYPE = {"int": "int32", "double": "float64"}


def _kind(value):
    if isinstance(value, (bool, int)):
        return "int"
    if isinstance(value, float):
        return "double"
    return None


class CStructHelper:
    """The C struct and NumPy record of an object's public number attributes."""

    def __init__(self, obj):
        self.parse(obj)

    def parse(self, obj):
        """Read the public (not ``_``-prefixed) attributes of ``obj`` holding
        numbers; others (strings, arrays, ...) are not struct fields."""
        if not hasattr(obj, "__dict__"):
            raise KernelTypeError("CStructHelper needs an object with attributes, "
                                  "got a %s" % type(obj).__name__,
                                  hint="pass an instance of your class")
        self.obj = obj
        self.name = type(obj).__name__
        self.vars = {name: _kind(value) for name, value in sorted(vars(obj).items())
                     if not name.startswith("_") and _kind(value) is not None}

    def get_code(self):
        """``typedef struct Name { ... } Name;`` with the fields in name order."""
        lines = ["typedef struct %s {" % self.name]
        lines += ["    %s %s;" % (_C[kind], name) for name, kind in self.vars.items()]
        lines.append("} %s;" % self.name)
        return "\n".join(lines) + "\n"

    def get_array(self):
        """A one-element structured array holding the values (None if the
        struct has no field)."""
        if not self.vars:
            return None
        # align=True: C's padding, so the record's bytes are the struct's.
        dtype = np.dtype([(name, _DTYPE[kind]) for name, kind in self.vars.items()],
                         align=True)
        array = np.zeros(1, dtype)
        for name in self.vars:
            array[name][0] = getattr(self.obj, name)
        return array


def class_location(cls):
    """``file:line: `` of a class's definition, or ``""`` when unknown."""
    try:
        return "%s:%d: " % (inspect.getsourcefile(cls), inspect.getsourcelines(cls)[1])
    except (OSError, TypeError):
        return ""


def check_class(cls):
    """Raise unless kernels can use the methods of ``cls``: a class of its
    own (no base class but ``object``), since methods are taken from the
    class's own body and its struct holds the instance's attributes only."""
    bases = [b for b in cls.__bases__ if b is not object]
    if bases:
        raise KernelTypeError(
            "%sclass %s(%s): kernels cannot use classes that inherit (the methods are "
            "taken from the class's own body)"
            % (class_location(cls), cls.__name__, ", ".join(b.__name__ for b in bases)),
            hint="define every method the kernel calls in %s itself, deriving from "
                 "object only" % cls.__name__)


def struct_info(obj):
    """The :class:`~pcompute.types.StructInfo` of an instance (its fields are
    the number attributes :class:`CStructHelper` finds) or of a class (its
    fields are then unknown: only methods that read none can be translated)."""
    cls = obj if isinstance(obj, type) else type(obj)
    check_class(cls)
    if isinstance(obj, type):
        return StructInfo(cls.__name__, (), cls, fields_known=False)
    kinds = CStructHelper(obj).vars
    fields = tuple((name, INT if kind == "int" else DOUBLE) for name, kind in kinds.items())
    return StructInfo(cls.__name__, fields, cls)


def is_object_argument(value):
    """True for a call argument that is an object of a user class (passed to
    kernels as a pointer to its struct): not a class, module or function,
    nor anything array-like (with a ``shape``)."""
    return (hasattr(value, "__dict__") and not hasattr(value, "shape")
            and not isinstance(value, (type, pytypes.ModuleType, pytypes.FunctionType,
                                       pytypes.MethodType, pytypes.BuiltinFunctionType)))


def single_precision(info):
    """``info`` with its double fields made float (a device computing in
    float32: use_double is False)."""
    return replace(info, fields=tuple((n, FLOAT if t.base == "double" else t)
                                      for n, t in info.fields))


def field_kinds(obj):
    """The field names and kinds of ``obj``'s struct (a cheap key that
    changes when the struct would)."""
    return tuple(CStructHelper(obj).vars.items())


def struct_record(obj, info):
    """A one-element NumPy record of ``obj``'s fields with the layout of the
    struct ``info`` (C's alignment: its bytes are the struct's)."""
    dtype = np.dtype([(n, t.dtype) for n, t in info.fields] or [("pc_empty", np.int32)],
                     align=True)
    record = np.zeros(1, dtype)
    for name, t in info.fields:
        value = getattr(obj, name)
        if t.is_int and not -2 ** 31 <= value < 2 ** 31:
            raise KernelValueError(
                "%s.%s is %d, which does not fit the C int field of the struct of "
                "class %s" % (type(obj).__name__, name, value, info.name),
                hint="keep integers of this size in an int64 array argument, or store "
                     "the attribute as a float")
        record[name][0] = value
    return record
