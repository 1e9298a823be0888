"""The timing store: every recorded timing, by nesting level and name.

Primitives record through :mod:`.timers`; :func:`pcompute.profile.profile`
and friends raise the nesting level (:func:`enter`/:func:`leave`); the
reports (:mod:`.report`) and :func:`get_profile_info` read it.  Thread-safe.
"""
import threading
import time

COMPILE_PREFIX = "compile:"

_lock = threading.Lock()
_records = {}           # (level, name) -> _Record, in first-recorded order
_level = 0              # nesting depth of profile()/profile_ctx() (global, as in Compyle)

#: The wall clock of the timers.
clock = time.perf_counter


class _Record:
    __slots__ = ("calls", "total", "min", "max", "kind", "level")

    def __init__(self, kind, level):
        self.calls = 0
        self.total = 0.0
        self.min = float("inf")
        self.max = 0.0
        self.kind = kind
        self.level = level

    def add(self, seconds):
        self.calls += 1
        self.total += seconds
        if seconds < self.min:
            self.min = seconds
        if seconds > self.max:
            self.max = seconds

    def as_dict(self):
        mean = self.total / self.calls if self.calls else 0.0
        return {"calls": self.calls, "time": self.total, "total": self.total,
                "min": self.min if self.calls else 0.0, "mean": mean,
                "max": self.max, "kind": self.kind, "level": self.level}


def record(name, seconds, kind=None):
    """Add one call of ``seconds`` to the entry ``name``.

    ``kind`` is ``'run'`` or ``'compile'`` (default: ``'compile'`` for names
    starting with ``compile:``, else ``'run'``).  Records even when profiling
    is off: callers check ``get_config().profile`` (the helpers below do).
    """
    if kind is None:
        kind = "compile" if name.startswith(COMPILE_PREFIX) else "run"
    with _lock:
        key = (_level, name)
        rec = _records.get(key)
        if rec is None:
            rec = _records[key] = _Record(kind, _level)
        rec.add(float(seconds))


def reset_profile():
    """Forget every recorded timing."""
    with _lock:
        _records.clear()


def get_profile_info():
    """A snapshot of the timings in Compyle's layout: one dict per nesting
    level, ``{level: {name: {calls, time, total, min, mean, max, kind,
    level}}}`` with the levels in order (``info[0]['step']['calls']``;
    ``time`` is the total, as in Compyle; times in seconds; ``kind`` is
    ``'run'`` or ``'compile'``).  Empty when nothing was recorded."""
    with _lock:
        items = [(key, rec.as_dict()) for key, rec in _records.items()]
    info = {}
    for (level, name), stats in sorted(items, key=lambda kv: kv[0][0]):
        info.setdefault(level, {})[name] = stats
    return info


def rows(info):
    """``(name, stats)`` for every entry of a :func:`get_profile_info` result."""
    return [(name, stats) for level in info for name, stats in info[level].items()]


def enter():
    """Raise the nesting level (a ``profile`` block starts)."""
    global _level
    with _lock:
        _level += 1


def leave():
    """Lower the nesting level (a ``profile`` block ends)."""
    global _level
    with _lock:
        _level -= 1


__all__ = ["COMPILE_PREFIX", "clock", "record", "reset_profile", "get_profile_info",
           "rows", "enter", "leave"]
