"""The one list of backend names, and where each backend's class lives.

The built-in backends are named here with the import path of their class;
:func:`pcompute.backends.registry.register_backend` adds others (a backend
package of a user or a test) at run time.  This module imports nothing, so
the configuration can validate names against it.
"""

#: name -> "module:Class" (built in, imported on first use) or a class.
_TABLE = {
    "python": "pcompute.backends.python:PythonBackend",
    "cython": "pcompute.backends.cython:CythonBackend",
    "opencl": "pcompute.backends.opencl:OpenCLBackend",
    "cuda": "pcompute.backends.cuda:CUDABackend",
}


def backend_names():
    """The names of the known backends, built-in ones first."""
    return tuple(_TABLE)


def entry(name):
    """The class (or its "module:Class" path) of backend ``name``; KeyError
    for an unknown name."""
    return _TABLE[name]


def add(name, cls):
    """Register class ``cls`` under ``name`` (replacing an earlier one)."""
    _TABLE[name] = cls


def remove(name):
    """Forget backend ``name`` (one added by :func:`add`)."""
    _TABLE.pop(name, None)
