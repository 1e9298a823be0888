"""Objects of user classes on the python backend.

A kernel argument that is an object is seen by the kernel as a
:class:`KernelObject`: its fields hold the values the compiled backends'
struct holds (an ``int`` field is a 32-bit integer value, a ``float`` field
a double), read from the record made for the call, so a change of the
object during the launch is not seen (as on the compiled backends); its
methods run as the python backend runs helpers (:func:`.pyexec.python_callable`:
the user's source with the oracle's meaning of literals, locals and
kernel-language names).  Fields are read-only, as in kernels.
"""
import inspect
import types

from .pyexec import python_callable
from .pyvalues import typed_value


class KernelObject:
    """An object argument as a python-backend kernel sees it."""

    __slots__ = ("_pc_fields", "_pc_class")

    def __init__(self, obj, record):
        object.__setattr__(self, "_pc_class", type(obj))
        object.__setattr__(self, "_pc_fields", {
            name: typed_value(record.dtype[name], record[name][0])
            for name in record.dtype.names if name != "pc_empty"})

    def __getattr__(self, name):
        fields = self._pc_fields
        if name in fields:
            return fields[name]
        raw = inspect.getattr_static(self._pc_class, name, None)
        if isinstance(raw, types.FunctionType):
            return types.MethodType(python_callable(raw), self)
        raise AttributeError("%s object has no field or method %r in kernels"
                             % (self._pc_class.__name__, name))

    def __setattr__(self, name, value):
        raise AttributeError("the fields of an object are read-only in kernels")

    def __repr__(self):
        return "<%s in a kernel: %s>" % (self._pc_class.__name__, ", ".join(
            "%s=%r" % item for item in self._pc_fields.items()))
