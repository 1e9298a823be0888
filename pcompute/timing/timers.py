"""The timers primitives use: a no-op when profiling is off.

For primitive authors::

    from ..timing.timers import kernel_timer, compile_timer
    if config.profile:                      # the only cost when off
        with kernel_timer(name, backend):
            run(n, values)
    ...
    with compile_timer(name):               # no-op when profiling is off
        run = backend.build_scan(spec, config)
"""
from ..backends.registry import get_backend
from ..config import get_config
from .store import COMPILE_PREFIX, clock, record


class _NullTimer:
    """What the timers return when profiling is off: does nothing."""
    __slots__ = ()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


_NULL = _NullTimer()


def resolve_backend(backend):
    """A Backend object for a name, an object or None (the configured one)."""
    if backend is None or isinstance(backend, str):
        return get_backend(backend)
    return backend


class _Timer:
    """Times its block and records it on a clean exit."""
    __slots__ = ("name", "kind", "backend", "start")

    def __init__(self, name, kind, backend):
        self.name = name
        self.kind = kind
        self.backend = backend      # None: plain wall clock, no synchronisation

    def _now(self):
        return clock() if self.backend is None else self.backend.now()

    def __enter__(self):
        self.start = self._now()
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            record(self.name, self._now() - self.start, self.kind)
        return False


def kernel_timer(name, backend=None):
    """Context manager timing one kernel launch under ``name``.

    A no-op (a shared object, no allocation) when profiling is off.  When on,
    a device backend (``backend``: a name, a Backend object, or None for the
    configured one) is synchronised before and after the block, so the time
    is the launch's own.  Not recorded if the block raises.
    """
    if not get_config().profile:
        return _NULL
    be = resolve_backend(backend)
    return _Timer(name, "run", None if be.on_host else be)


def compile_timer(name):
    """Context manager timing the build of kernel ``name`` under
    ``compile:<name>`` (wall clock, no device synchronisation); a no-op when
    profiling is off."""
    if not get_config().profile:
        return _NULL
    return _Timer(COMPILE_PREFIX + name, "compile", None)


__all__ = ["kernel_timer", "compile_timer", "resolve_backend"]
