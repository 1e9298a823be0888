"""The phases of a call built together before the call runs them.

A ``@dataparallel`` function's phases are launched one by one while its body
is walked (:mod:`.plan`), each phase's kernel built at its launch: one Cython
module per phase.  Where the backend builds kernels together
(``Backend.builds_together``: the cython backend's group modules), the first
kernel that the first walk of a signature must compile (none when every
phase is found built: a warm cache costs nothing more) first runs a *dry
walk* (``Backend.before_compile``): the same walk on a :class:`DryTape`,
whose launches record the phase's primitive and arguments without running
it (a reduction gives a stand-in scalar, a sort new arrays of the same
lengths and dtypes).  The kernels of the recorded phases are then built as
one group module per set of build flags
(:meth:`~pcompute.backends.base.Backend.prebuild`), timed as the build of
the kernel that triggered it, and the walk finds each of them built.

The dry walk stops where the rest of the walk depends on a kernel's result
(a length or a shift computed from a reduction: :meth:`DryTape.static`), or
at any error (the real walk then reports it, located, as without the dry
walk); the phases recorded before are built together, the others at their
launch.  Correctness never depends on it: every kernel is keyed by its own
source and flags, and one not built ahead is built at its launch.
"""
import logging
import warnings

import numpy as np

from ..errors import GroupBuildError
from ..primitives.reduction import Reduction
from .plan import Dyn, Tape
from .replay import new_array

log = logging.getLogger("pcompute.dataparallel")

#: counters, for tests: dry walks run.
stats = {"dry_walks": 0}


#: The value of a host computation on a kernel's stand-in result that failed
#: (:meth:`DryTape.host`).
UNKNOWN = object()


class DryStop(Exception):
    """The dry walk cannot go on: the walk depends on a kernel's result."""


class DryTape(Tape):
    """A :class:`~.plan.Tape` whose launches record ``(primitive,
    arguments)`` in :attr:`recorded` and run nothing."""

    def __init__(self):
        super().__init__()
        self.recorded = []

    def launch(self, kind, source, prim, args):
        values = [a.value if isinstance(a, Dyn) else a for a in args]
        if any(v is UNKNOWN for v in values):
            raise DryStop("a kernel's argument depends on a kernel's result")
        self.recorded.append((prim, values))
        if kind == "sort":          # new arrays like the sorted ones
            return [self._placeholder(a) for a in values]
        if kind == "reduction":
            slot = self._slot(_stand_in(prim), after_launch=True)
            return Dyn(self, slot, self.values[slot])
        return None

    def host(self, fn, *args):
        """``fn`` on the values the dry walk has; where it raises on a
        stand-in of a kernel's result (a bounds check, such as ``split``'s
        or ``permute``'s, fails on stand-ins), the walk goes on with that
        value unknown, and stops where it is used (:meth:`static`, or as a
        kernel's argument)."""
        try:
            return super().host(fn, *args)
        except Exception:
            if not any(isinstance(a, Dyn) and a.slot in self._after_launch for a in args):
                raise
        return Dyn(self, self._slot(UNKNOWN, after_launch=True), UNKNOWN)

    def _placeholder(self, arr):
        out = new_array(len(arr), arr.dtype)
        self._slot(out)
        return out

    def static(self, v):
        if isinstance(v, Dyn) and v.slot in self._after_launch:
            raise DryStop("the walk depends on a kernel's result")
        return super().static(v)


def _stand_in(prim):
    """A value of a reduction's result type (one per component of a tuple
    reduction) that the walk can compute with."""
    dtypes = prim.dtype_out if isinstance(prim, Reduction) else np.float64
    if isinstance(dtypes, tuple):
        return tuple(np.dtype(d).type(1) for d in dtypes)
    return np.dtype(dtypes).type(1)


def generated_phases(recorded, backend, config):
    """The generated kernels of the recorded phases not built yet, with
    those of the bounds checks a phase runs first (a Scan's: its
    ``checks_generated_for``), each once; sorts and other launches without
    one are left out."""
    out, seen = [], set()
    for prim, values in recorded:
        generated_for = getattr(prim, "generated_for", None)
        if generated_for is None:
            continue
        checks = getattr(prim, "checks_generated_for", None)
        kernels = checks(backend, config, values) if checks is not None else []
        for generated in kernels + [generated_for(backend, config, values)]:
            if generated is not None and generated.source not in seen:
                seen.add(generated.source)
                out.append(generated)
    return out


def prebuild(walk, backend, config, where):
    """Dry-walk with ``walk(tape)`` (the walk of the call on a fresh tape)
    and build the recorded phases' kernels together on ``backend``.
    Returns the number of group modules made."""
    generated = dry_generated(walk, backend, config, where)
    if len(generated) < 2:
        return 0
    return backend.prebuild(generated, config)


def dry_generated(walk, backend, config, where):
    """The generated kernels, not built yet, of the phases a dry walk with
    ``walk(tape)`` records (none where the walk cannot be generated ahead)."""
    stats["dry_walks"] += 1
    tape = DryTape()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")         # the real walk warns
            walk(tape)
    except DryStop:
        pass
    except GroupBuildError:
        raise
    except Exception as exc:            # the real walk raises it, located
        log.debug("%s: dry walk stopped (%s: %s)", where, type(exc).__name__, exc)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            generated = generated_phases(tape.recorded, backend, config)
    except GroupBuildError:
        raise
    except Exception as exc:
        log.debug("%s: phases not generated ahead (%s: %s)", where, type(exc).__name__, exc)
        return []
    return generated
