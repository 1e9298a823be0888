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
from .errors import KernelTypeError

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
        import numpy as np
        if not self.vars:
            return None
        # align=True: C's padding, so the record's bytes are the struct's.
        dtype = np.dtype([(name, _DTYPE[kind]) for name, kind in self.vars.items()],
                         align=True)
        array = np.zeros(1, dtype)
        for name in self.vars:
            array[name][0] = getattr(self.obj, name)
        return array
