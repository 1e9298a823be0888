"""Backend lookup by name, and the backend the configuration selects.

The names come from :mod:`pcompute.backends.names` (the only list of them);
each backend is one object, made on first use and kept, so memos keyed by
the Backend object stay valid.  :func:`register_backend` adds a backend
defined elsewhere (one module with a :class:`~pcompute.backends.base.Backend`
subclass): nothing else in pcompute needs to change.
"""
import importlib

from ..config import bump_generation, get_config
from ..errors import KernelValueError
from . import names
from .base import Backend

_INSTANCES = {}


def _class(name):
    target = names.entry(name)
    if isinstance(target, str):
        module, cls = target.split(":")
        target = getattr(importlib.import_module(module), cls)
    return target


def get_backend(name=None):
    """The backend object for ``name`` (None: the configured backend; a
    Backend object is returned as it is).

    Raises :class:`KernelValueError` for an unknown name.  Availability is
    not checked here: call ``.require()`` before running.
    """
    if isinstance(name, Backend):
        return name
    if name is None:
        name = get_config().backend
    backend = _INSTANCES.get(name)
    if backend is None:
        if name not in names.backend_names():
            raise KernelValueError("unknown backend %r" % (name,),
                                   hint="choose one of: " + ", ".join(names.backend_names()))
        backend = _INSTANCES[name] = _class(name)()
    return backend


def register_backend(cls):
    """Make the Backend subclass ``cls`` available under ``cls.name``
    (``get_backend(cls.name)``, ``use_config(backend=cls.name)``, the
    ``backend=`` argument of every primitive).  Returns ``cls``, so it can
    decorate the class."""
    if not (isinstance(cls, type) and issubclass(cls, Backend)) or not cls.name:
        raise KernelValueError("register_backend() takes a Backend subclass with a name, "
                               "got %r" % (cls,))
    names.add(cls.name, cls)
    _INSTANCES.pop(cls.name, None)
    bump_generation()
    return cls


def unregister_backend(name):
    """Forget a backend added with :func:`register_backend`."""
    names.remove(name)
    _INSTANCES.pop(name, None)
    bump_generation()


def backend_names():
    """The names of every known backend."""
    return names.backend_names()


def available_backends():
    """Map backend name -> None if it works here, else the reason it does not."""
    return {name: get_backend(name).why_unavailable() for name in backend_names()}
