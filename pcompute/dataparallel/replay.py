"""A plan's steps as one Python function: the replay of later calls.

:class:`~.plan.Plan` records what the first call of a signature did as steps
over slots (see ``plan.py``).  Interpreting those steps on every call (a
dispatch per step, a lookup per operand, the array wrapping of each new
output) cost more than the kernels themselves at small n.  Here the steps
are printed once as straight-line Python source, one local variable per
slot, with the kernels, host functions and constants bound as globals, and
compiled with ``compile``/``exec``; a replay is then one call of that
function.  It returns the call's result and the arguments of each launch
(what ``f.last_launches`` shows), and raises :class:`Stale` where a
guard fails, before anything the caller sees was written.

Nothing of the user's source reaches this text: the names are slot numbers
and the values are bound objects.
"""
import numpy as np

from ..array import Array, empty, wrap
from ..array.checks import _storage_dtype
from ..backends import host_pool
from ..backends.registry import get_backend
from ..errors import InternalError


class Replay:
    """The compiled replay of one plan; ``run(*flat_arguments)`` gives
    ``(result, launch_arguments)``."""

    def __init__(self, steps, n_args, n_slots, result):
        self.bound = {}
        self._launch_args = []
        self._allocated = set()
        body = [self._statement(step) for step in steps]
        launched = ["(%s,)" % ", ".join(args) if args else "()"
                    for args in self._launch_args]
        params = ", ".join("s%d" % k for k in range(n_args))
        lines = ["def replay(%s):" % params] + ["    " + s for s in body]
        lines.append("    return %s, (%s)" % (self._result(result),
                                            "".join(a + ", " for a in launched)))
        self.source = "\n".join(lines) + "\n"
        namespace = dict(self.bound)
        exec(compile(self.source, "<pcompute.dataparallel plan replay>", "exec"), namespace)
        self.run = namespace["replay"]

    def _bind(self, value, prefix):
        name = "%s%d" % (prefix, len(self.bound))
        self.bound[name] = value
        return name

    def _operand(self, spec):
        if spec[0] == "slot":
            return "s%d" % spec[1]
        return self._bind(spec[1], "k")

    def _statement(self, step):
        op, what, operands, slot = step
        if op == "launch":
            args = [self._operand(a) for a in operands]
            self._launch_args.append(args)
            call = "%s(%s)" % (self._bind(what[2], "kernel"), ", ".join(args))
            if isinstance(slot, list):
                return "%s, = %s" % (", ".join("s%d" % s for s in slot), call)
            return call if slot is None else "s%d = %s" % (slot, call)
        if op == "host":
            args = ", ".join(self._operand(a) for a in operands)
            return "s%d = %s(%s)" % (slot, self._bind(what, "host"), args)
        if op == "alloc":
            self._allocated.add(slot)
            n, dtype = what
            return "s%d = %s(%d, %s)" % (slot, self._bind(allocator(dtype), "alloc"), n,
                                         self._bind(dtype, "dtype"))
        if op == "copy":
            return "s%d = %s.copy()" % (slot, self._operand(operands))
        if op == "const":
            return "s%d = %s" % (slot, self._bind(what, "const"))
        if op == "guard":
            return "if s%d != %s: raise %s()" % (operands, self._bind(what, "guard"),
                                                 self._bind(Stale, "Stale"))
        raise InternalError("pcompute.dataparallel: a plan step %r cannot be replayed" % op)

    def _result(self, spec):
        """The result as the caller sees it: new arrays as they are (Arrays
        from the allocator), other sequences (an argument returned, a copy)
        wrapped as Arrays, numbers as they are."""
        if spec[0] == "tuple":
            return "(%s)" % "".join(self._result(s) + ", " for s in spec[1])
        if spec[0] == "slot" and spec[1] in self._allocated:
            return "s%d" % spec[1]
        return "%s(%s)" % (self._bind(as_result, "result"), self._operand(spec))


def as_result(value):
    """A result value: a NumPy array wrapped (a NumPy argument returned or
    copied stays in its memory), anything else as it is."""
    return wrap(value) if type(value) is np.ndarray else value


class Stale(Exception):
    """A guard of a plan does not hold for this call: walk the body again."""


def new_array(n, dtype):
    """A new Array for a phase to write.  On a host backend its memory comes
    from :mod:`~pcompute.backends.host_pool` (buffers already touched, given
    back when no array uses them), so a loop that drops its previous results
    (an iterative solver) does not pay the zeroing of fresh pages on every
    call: an extra write pass over every large output."""
    if get_backend(None).on_host:
        return wrap(host_pool.empty(n, dtype))
    return empty(n, dtype)


def allocator(dtype):
    """``alloc(n, dtype)``: a new Array for a phase to write, on the backend
    configured now.  On a host backend whose storage keeps ``dtype`` it is
    the pool's memory (:mod:`~pcompute.backends.host_pool`) wrapped
    directly, without ``wrap``'s checks (it is 1-D, contiguous, of that dtype)."""
    backend = get_backend(None)
    if not backend.on_host or _storage_dtype(np.dtype(dtype), backend) != np.dtype(dtype):
        return new_array

    def alloc(n, dtype):
        return Array._wrap_view(host_pool.empty(n, dtype), backend)
    return alloc
