"""Backend lookup by name, and the backend the configuration selects."""
from ..config import get_config
from ..errors import KernelValueError

_CLASSES = {}
_INSTANCES = {}


def _classes():
    if not _CLASSES:
        from .cuda import CUDABackend
        from .cython import CythonBackend
        from .opencl import OpenCLBackend
        from .python import PythonBackend
        for cls in (PythonBackend, CythonBackend, OpenCLBackend, CUDABackend):
            _CLASSES[cls.name] = cls
    return _CLASSES


BACKEND_NAMES = ("python", "cython", "opencl", "cuda")


def get_backend(name=None):
    """The backend object for ``name`` (None: the configured backend).

    Raises :class:`KernelValueError` for an unknown name.  Availability is
    not checked here: call ``.require()`` before running.
    """
    if name is None:
        name = get_config().backend
    if isinstance(name, str) and name not in _INSTANCES:
        classes = _classes()
        if name not in classes:
            raise KernelValueError("unknown backend %r" % name,
                                   hint="choose one of: " + ", ".join(BACKEND_NAMES))
        _INSTANCES[name] = classes[name]()
    if not isinstance(name, str):
        return name
    return _INSTANCES[name]


def available_backends():
    """Map backend name -> None if it works here, else the reason it does not."""
    return {name: get_backend(name).why_unavailable() for name in BACKEND_NAMES}
