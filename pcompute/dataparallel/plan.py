"""Plans: a call of a ``@dataparallel`` function recorded once, replayed after.

Walking a function's body (inlining element functions, printing kernel
source, finding the cached kernels) costs far more than launching the
kernels.  The first call with a given *signature* (the array arguments'
dtypes and lengths, the scalar arguments' types, any other argument itself)
is walked with a :class:`Tape`: every allocation, kernel launch and host
computation on scalars is recorded as a step whose operands are *slots*
(the arguments, the arrays it allocated, the scalars it computed).  Later
calls with the same signature replay the steps (:meth:`Plan.run`): new
output arrays, the same kernels, the new scalar values.

A scalar argument is a :class:`Dyn` while the body is walked: its value may
change between calls, so it can only flow into kernel arguments and host
arithmetic.  Where the walk needs the value itself (a length for
``replicate``, a shift, a tuple index), :meth:`Tape.static` records a
*guard*: a replay whose value differs stops and the call is walked again.
Such a value computed from a reduction's result (known only after a launch)
makes the call unplannable: every call is walked.
"""
import numpy as np

from ..array import Array
from ..errors import InternalError
from .replay import Replay, new_array


class Dyn:
    """A host scalar of the call being walked, held in slot ``slot``."""

    __slots__ = ("tape", "slot", "value")

    def __init__(self, tape, slot, value):
        self.tape, self.slot, self.value = tape, slot, value

    def __repr__(self):
        return "Dyn(slot %d = %r)" % (self.slot, self.value)


def value_of(v):
    """The value of ``v`` in the call being walked (a Dyn's current value)."""
    return v.value if isinstance(v, Dyn) else v


def is_number(v):
    """True for a host number (Python or NumPy scalar): a Dyn argument."""
    return isinstance(v, (bool, int, float, complex, np.number, np.bool_))


class Tape:
    """The steps of one call being walked; also its trace (``last_phases``)."""

    def __init__(self):
        self.steps = []
        self.values = []                  # slot -> value in this call
        self._array_slot = {}             # id(Array) -> slot
        self._after_launch = set()        # slots computed from kernel results
        self.plannable = True
        self.phases, self.launches = [], []

    def _slot(self, value, after_launch=False):
        self.values.append(value)
        slot = len(self.values) - 1
        if isinstance(value, (Array, np.ndarray)):
            self._array_slot[id(value)] = slot
        if after_launch:
            self._after_launch.add(slot)
        return slot

    # -- the call's inputs ---------------------------------------------------
    def argument(self, value):
        """A slot for an argument (an Array, or a number: then a Dyn)."""
        slot = self._slot(value)
        return Dyn(self, slot, value) if is_number(value) else value

    def constant(self, arr):
        """``arr`` is the same array in every replay (a read-only carrier)."""
        self.steps.append(("const", arr, None, self._slot(arr)))
        return arr

    # -- host scalars ---------------------------------------------------------
    def host(self, fn, *args):
        """``fn(*args)`` on host values; a Dyn when an argument is one."""
        if not any(isinstance(a, Dyn) for a in args):
            return fn(*args)
        out = fn(*[value_of(a) for a in args])
        late = any(isinstance(a, Dyn) and a.slot in self._after_launch for a in args)
        slot = self._slot(out, late)
        self.steps.append(("host", fn, [self._spec(a) for a in args], slot))
        return Dyn(self, slot, out)

    def static(self, v):
        """The value of ``v``, which the plan depends on (guarded)."""
        if not isinstance(v, Dyn):
            return v
        if v.slot in self._after_launch:
            self.plannable = False
        self.steps.append(("guard", v.value, v.slot, None))
        return v.value

    # -- arrays and launches -------------------------------------------------
    def empty(self, n, dtype):
        """A new Array of ``n`` items of ``dtype``, allocated again in each replay."""
        arr = new_array(n, dtype)
        self.steps.append(("alloc", (n, np.dtype(dtype)), None, self._slot(arr)))
        return arr

    def copy(self, arr):
        """A copy of ``arr`` (a slot), made again in each replay."""
        out = arr.copy()
        self.steps.append(("copy", None, self._spec(arr), self._slot(out)))
        return out

    def launch(self, kind, source, prim, args):
        """Run ``prim(*args)`` (one phase of ``kind``) and record it; gives
        a reduction's scalar (a Dyn) or a sort's new arrays (a list)."""
        specs = [self._spec(a) for a in args]
        values = [value_of(a) for a in args]
        self.phases.append((kind, source))
        self.launches.append((kind, prim, values))
        result = prim(*values)
        slots = None
        if kind == "sort":
            result = list(result)
            slots = [self._slot(a) for a in result]
        elif kind == "reduction":
            slots = self._slot(result, after_launch=True)
            result = Dyn(self, slots, result)
        self.steps.append(("launch", (kind, source, prim), specs, slots))
        return result

    def _spec(self, v):
        if isinstance(v, Dyn):
            return ("slot", v.slot)
        if isinstance(v, (Array, np.ndarray)):
            slot = self._array_slot.get(id(v))
            if slot is None:
                raise InternalError("pcompute.dataparallel: an array that the plan "
                                    "does not know reached a kernel")
            return ("slot", slot)
        return ("const", v)

    def spec(self, v):
        """How a result value is found in a replay."""
        if isinstance(v, tuple):
            return ("tuple", [self.spec(x) for x in v])
        return self._spec(v)


class Plan:
    """The recorded steps of one call, replayed for a call of the same
    signature (:meth:`run`)."""

    def __init__(self, tape, n_args, result):
        self.steps = list(tape.steps)
        self.n_slots = len(tape.values)
        self.n_args = n_args
        self.result = result
        self.phases = list(tape.phases)
        self.kernels = [what for op, what, _, _ in self.steps if op == "launch"]
        self.replay = Replay(self.steps, n_args, self.n_slots, result)

    def run(self, args):
        """The result for the flat argument values ``args``; also the
        arguments of each launch made, in order.  Raises :class:`Stale` when
        a guard fails (nothing the caller sees was written)."""
        return self.replay.run(*args)

    def launches(self, arguments):
        """``(kind, primitive, arguments)`` of each launch of a replay that
        passed ``arguments`` (what :meth:`run` returned)."""
        return [(what[0], what[2], list(args)) for what, args in zip(self.kernels, arguments)]
