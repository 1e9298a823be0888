"""Counters of what the lazy layer did: kernels run, operations fused, cache
misses, work done eagerly in NumPy and why.  Nothing falls back silently:
every host evaluation is counted with its reason, logged, and can be made an
error with ``set_options(fallback='error')``."""
import collections
import logging

logger = logging.getLogger("pcompute.numpy")


class FallbackError(RuntimeError):
    """Raised for a host (NumPy) evaluation when fallbacks are made errors."""


class Stats:
    """The counters (see :func:`pcompute.numpy.stats`)."""

    def __init__(self):
        self.reset()

    def reset(self):
        self.kernels = 0            # fused kernels launched
        self.fused_ops = 0          # operations inside those kernels
        self.compiles = 0           # kernel-cache misses (new structures)
        self.lowerings = 0          # regions lowered to kernel text (plan-cache misses)
        self.eager = 0              # small regions run by NumPy on purpose
        self.fallbacks = collections.Counter()   # reason -> count
        self.boundaries = collections.Counter()  # why fusion stopped -> count
        self.forced = 0             # evaluations requested

    def as_dict(self):
        return {"kernels": self.kernels, "fused_ops": self.fused_ops,
                "compiles": self.compiles, "lowerings": self.lowerings, "eager": self.eager,
                "fallbacks": dict(self.fallbacks), "boundaries": dict(self.boundaries),
                "forced": self.forced}


STATS = Stats()
