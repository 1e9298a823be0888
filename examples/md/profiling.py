"""Timing the phases of a step with pcompute's profiler (``--profile``).

Kernels (Elementwise, Reduction) time themselves when
``get_config().profile`` is on, with their build times kept apart.  The
simulation wraps each phase of a step, and the operations pcompute does not
time itself, in :meth:`Phases.__call__`: the device is synchronised at both
ends so the time is the phase's own, and the kernels inside are recorded one
level deeper.  :func:`table` gives pcompute's table of all of it.
"""
import contextlib

from pcompute.backends.registry import get_backend
from pcompute.config import get_config
from pcompute.profile import format_profile, profile_ctx, reset_profile

__all__ = ["Phases", "table", "reset_profile"]


class _Untimed:
    """The phase of a step while profiling is off: enters and leaves doing
    nothing (a step passes through several; ``contextlib.nullcontext`` cost
    a third more)."""

    __slots__ = ()

    def __enter__(self):
        return None

    def __exit__(self, exc_type, exc, traceback):
        return None


_NOTHING = _Untimed()


class Phases:
    """``with phases('md: forces'): ...`` times a block when profiling is on."""

    def __init__(self, backend=None):
        self._backend = get_backend(backend)

    def __call__(self, name):
        if not get_config().profile:
            return _NOTHING
        return self._timed(name)

    def on(self):
        """True when profiling is on: a step loop asks once, then passes the
        answer to :meth:`run` at each phase of each step."""
        return get_config().profile

    def run(self, timed, name, fn):
        """``fn()`` in the phase ``name`` when ``timed`` (what :meth:`on`
        said), else just ``fn()``: one Python call more than ``fn()`` where
        ``with phases(name)`` costs four."""
        if not timed:
            return fn()
        with self._timed(name):
            return fn()

    @contextlib.contextmanager
    def _timed(self, name):
        self._backend.synchronize()
        with profile_ctx(name):
            yield
            self._backend.synchronize()


def table():
    """The profile table (phases, kernels, and compile times apart)."""
    return format_profile()
