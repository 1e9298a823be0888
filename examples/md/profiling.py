"""Per-kernel wall-clock times (``--profile``).

Every launch of the simulation goes through :class:`Profiler`.  When it is
enabled it waits for the device before and after each launch and adds the
time to the kernel's row; the first call of each kernel (which includes
generating and compiling it) is kept apart from the others.
"""
import time

from pcompute.backends.registry import get_backend


class Profiler:
    """Calls ``func(*args)``; when enabled, times it under ``name``."""

    def __init__(self, enabled=False, backend=None):
        self.enabled = enabled
        self._backend = get_backend(backend)
        self.stats = {}     # name -> [calls after the first, their time, first call]

    def __call__(self, name, func, *args):
        if not self.enabled:
            return func(*args)
        backend = self._backend
        backend.synchronize()
        start = time.perf_counter()
        result = func(*args)
        backend.synchronize()
        elapsed = time.perf_counter() - start
        row = self.stats.get(name)
        if row is None:
            self.stats[name] = [0, 0.0, elapsed]
        else:
            row[0] += 1
            row[1] += elapsed
        return result

    def table(self):
        """The timings as a text table, slowest first."""
        rows = sorted(self.stats.items(), key=lambda kv: -kv[1][1])
        total = sum(r[1] for _, r in rows) or 1.0
        lines = ["%-24s %8s %11s %11s %6s %13s" % (
            "kernel", "calls", "total ms", "ms/call", "%", "first call ms")]
        for name, (calls, spent, first) in rows:
            per_call = 1e3 * spent / calls if calls else float("nan")
            lines.append("%-24s %8d %11.2f %11.4f %6.1f %13.1f" % (
                name, calls, 1e3 * spent, per_call, 100.0 * spent / total, 1e3 * first))
        lines.append("(times after the first call; the first call includes building the "
                     "kernel)")
        return "\n".join(lines)
