"""The kernels of one forcing built together, before the first of them compiles.

Forcing lazy arrays (``numpy.asarray(x)``, ``float(x)``,
:func:`pcompute.numpy.evaluate` of one or several arrays) runs their regions
one after the other, each fused kernel built at its first launch: one
compiled module per kernel.  On a backend that builds kernels together
(``Backend.builds_together``: the cython backend's group modules), the first
kernel of a forcing that must be compiled (none when every kernel is found
built: a warm cache costs nothing more) first runs a *dry evaluation* of the
forced arrays (``Backend.before_compile``): the same evaluation with each
kernel recorded instead of run (:func:`.dry.dry_evaluation`).  The
recorded kernels are then built as one group module per set of build flags
(``Backend.prebuild``), and each kernel's own build finds its group.

A kernel the dry evaluation does not meet is built at its launch, as without
it; an error in the dry evaluation stops it (the real evaluation reports the
error, located) and what was recorded before is built.  Correctness never
depends on it: every kernel is keyed by its own source and flags.
"""
import contextlib
import contextvars
import logging
import warnings

from ..config import get_config
from ..errors import GroupBuildError
from .devices import _precision, backend_now
from .dry import dry_evaluation

log = logging.getLogger("pcompute.numpy")

#: counters, for tests: dry evaluations run, group builds asked for.
stats = {"dry_runs": 0, "prebuilds": 0}


#: True within a forcing (one inside it, e.g. an array that
#: :func:`pcompute.numpy.evaluate` forces, is part of the outer one).
_ACTIVE = contextvars.ContextVar("pcompute_numpy_forcing", default=False)


@contextlib.contextmanager
def forcing(nodes):
    """Within: the evaluation of the graph ``nodes``; on a backend that
    builds together, its first compile builds the kernels of all of
    ``nodes`` first (see the module docstring)."""
    be = backend_now()
    if not be.builds_together or _ACTIVE.get():
        yield
        return
    token = _ACTIVE.set(True)
    try:
        with be.before_compile(lambda: build_ahead(nodes, be)):
            yield
    finally:
        _ACTIVE.reset(token)


def build_ahead(nodes, backend):
    """Dry-evaluate ``nodes`` and build the kernels recorded on ``backend``
    together; returns the number of group modules made."""
    stats["dry_runs"] += 1
    with dry_evaluation() as records:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")     # the real evaluation warns
                for node in nodes:
                    records.evaluate(node)
        except Exception as exc:        # the real evaluation raises it, located
            log.debug("dry evaluation stopped (%s: %s)", type(exc).__name__, exc)
    with _precision():                  # as the layer's launches run
        config = get_config()
        generated, seen = [], set()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for prim, args in records:
                    g = prim.generated_for(backend, config, args)
                    if g is not None and g.source not in seen:
                        seen.add(g.source)
                        generated.append(g)
        except GroupBuildError:
            raise
        except Exception as exc:        # the kernel's own build reports it
            log.debug("kernels not generated ahead (%s: %s)", type(exc).__name__, exc)
            return 0
        if len(generated) < 2:
            return 0
        stats["prebuilds"] += 1
        return backend.prebuild(generated, config)
