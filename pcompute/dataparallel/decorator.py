"""``@dataparallel``: a function of the data-parallel subset, run as fused phases."""
import contextlib
import functools
import logging

import numpy as np

from ..array import Array, wrap
from ..backends.registry import get_backend
from ..config import get_config
from ..errors import KernelTypeError
from . import dry
from .plan import Plan, Tape, is_number, value_of
from .replay import Stale
from .program import Program
from .source import closure_of
from .values import Segments, Seq, Stored, Tuples

log = logging.getLogger("pcompute.dataparallel")

#: Plans kept per function (signatures; the oldest is dropped first).
MAX_PLANS = 16
#: Quick keys (argument layouts, see :func:`_quick_key`) kept per function;
#: beyond, they are forgotten at once (each names a signature, not a plan).
MAX_QUICK = 4 * MAX_PLANS


class DataParallelFunction:
    """A function compiled into phases on the configured backend.

    The first call with a given signature (array dtypes and lengths, scalar
    types, the backend and bounds checks) walks the body and records a plan; later calls with
    that signature replay it: the same kernels (built on first use and cached
    by their source) on the new arguments.  ``f.py(...)`` runs the
    undecorated function in plain Python (the prelude: the oracle);
    ``f.last_phases`` lists the ``(kind, kernel source)`` of the last call's
    kernels (``f.last_launches``: their primitives and arguments);
    ``f.plan_stats`` counts ``planned``/``replayed``/``walked`` (no plan:
    a length computed from a reduction's result) calls.  Sequence results
    are :class:`pcompute.Array` (``.get()`` or ``numpy.asarray`` gives
    NumPy; segments, e.g. a segmented scan's, come back as their flat data);
    several results come as a tuple.
    """

    def __init__(self, func):
        functools.update_wrapper(self, func)
        self.py = func
        self._closure = None
        self._plans = {}
        self._quick = {}
        self.plan_stats = {"planned": 0, "replayed": 0, "walked": 0}
        self.last_phases = []
        self._last = ([], None)
        self._prebuilt = set()          # signatures whose phases were built ahead

    @property
    def closure(self):
        if self._closure is None:
            self._closure = closure_of(self.py)
        return self._closure

    @property
    def last_launches(self):
        """``(kind, primitive, arguments)`` of each launch of the last call."""
        launches, plan = self._last
        return launches if plan is None else plan.launches(launches)

    def __call__(self, *args):
        config = get_config()
        quick = _quick_key(config, args)
        key = self._quick.get(quick) if quick is not None else None
        if key is not None:                   # arguments as they come: no conversion
            flat = converted = args
        else:
            where = "%s()" % self.py.__qualname__
            on_host = get_backend(config.backend).on_host
            converted = [_convert(a, where, on_host) for a in args]
            flat = []
            key = (config.backend, config.bounds_check,
                   tuple(_signature(a, flat) for a in converted))
            try:
                hash(key)
            except TypeError:                  # an unhashable argument: no plan
                key = None
            if quick is not None and key is not None and all(
                    c is a for c, a in zip(converted, args)):
                if len(self._quick) >= MAX_QUICK:
                    self._quick.clear()
                self._quick[quick] = key
        for plan in self._plans.get(key, ()):
            try:
                out, launched = plan.run(flat)
            except Stale:
                continue
            self.plan_stats["replayed"] += 1
            self.last_phases, self._last = plan.phases, (launched, plan)
            return out
        return self._walk(key, list(converted), flat, "%s()" % self.py.__qualname__)

    def kernels_ahead(self, *args):
        """The generated kernels (:class:`~pcompute.records.GeneratedKernel`)
        of the phases a first call with ``args`` would build on the
        configured backend, as far as a dry walk knows them (:mod:`.dry`),
        those this process built already left out: for
        :meth:`~pcompute.backends.base.Backend.prebuild`, by a caller that
        builds the kernels of several calls together (the test suite's
        group modules).  Runs and builds nothing; a user error is left to
        the call."""
        config = get_config()
        backend = get_backend(config.backend)
        where = "%s()" % self.py.__qualname__
        args = [_convert(a, where, backend.on_host) for a in args]
        return dry.dry_generated(self._dry_walk(args, where), backend, config, where)

    def _dry_walk(self, args, where):
        def walk(tape):
            values = [_bind(a, tape) for a in args]
            prog = Program(self.closure, tape)
            _finish(prog, prog.call(self.closure, values), where)
        return walk

    def _prebuild(self, key, args, where):
        """A context for the walk of signature ``key``: where the backend
        builds kernels together, the first kernel the walk must compile
        (none when all are built) first dry-walks the call and builds its
        phases' kernels together (:mod:`.dry`), once per signature."""
        config = get_config()
        backend = get_backend(config.backend)
        if not backend.builds_together or key is None or key in self._prebuilt:
            return contextlib.nullcontext()

        def hook():
            if len(self._prebuilt) >= MAX_QUICK:
                self._prebuilt.clear()
            self._prebuilt.add(key)
            dry.prebuild(self._dry_walk(args, where), backend, config, where)
        return backend.before_compile(hook)

    def _walk(self, key, args, flat, where):
        tape = Tape()
        values = [_bind(a, tape) for a in args]
        prog = Program(self.closure, tape)
        with self._prebuild(key, args, where):
            result = prog.call(self.closure, values)
            out = _finish(prog, result, where)
        self.last_phases, self._last = tape.phases, (tape.launches, None)
        if tape.plannable and key is not None:
            self.plan_stats["planned"] += 1
            if key not in self._plans and len(self._plans) >= MAX_PLANS:
                self._plans.pop(next(iter(self._plans)))
            self._plans.setdefault(key, []).insert(0, Plan(tape, len(flat), tape.spec(out)))
        else:
            self.plan_stats["walked"] += 1
            log.debug("%s: not planned (a value computed from a kernel's result "
                      "decides the structure)", where)
        return _resolve(out)


def _quick_key(config, args):
    """A key of what the plans depend on in ``args`` read without converting
    them (None when an argument is not a 1-D NumPy array, an Array or a
    number, or one array is passed twice: the full signature decides)."""
    parts = [config.backend, config.bounds_check]
    arrays = set()
    for a in args:
        t = type(a)
        if t in _NUMBERS:
            parts.append(t)
            continue
        if t is np.ndarray:
            parts.append((a.dtype, a.shape, a.strides))
        elif isinstance(a, Array):
            parts.append((t, a.backend, a.dtype, a.shape))
        else:
            return None
        arrays.add(id(a))
    if len(arrays) + sum(type(a) in _NUMBERS for a in args) != len(args):
        return None
    return tuple(parts)


_NUMBERS = frozenset((bool, int, float, complex, np.float64, np.float32, np.int64,
                      np.int32, np.bool_))


def _convert(x, where, on_host):
    """A call argument: Arrays as they are, 1-D NumPy arrays and lists of
    numbers wrapped (on a host backend a contiguous NumPy array is passed to
    the kernels as it is), tuples element by element."""
    if isinstance(x, Array):
        return x
    if isinstance(x, (np.ndarray, list)):
        arr = np.asarray(x)
        if arr.ndim != 1 or arr.dtype.kind not in "iuf":
            raise KernelTypeError("%s: a sequence argument must be a 1-D array of "
                                  "numbers, got %s %s" % (where, arr.dtype, arr.shape))
        arr = np.ascontiguousarray(arr)
        return arr if on_host else wrap(arr)
    if isinstance(x, tuple):
        return tuple(_convert(v, where, on_host) for v in x)
    return x


def _signature(x, flat):
    """What a plan depends on in ``x``; arrays and numbers are appended to
    ``flat`` (the plan's argument slots, in order)."""
    if isinstance(x, (Array, np.ndarray)):
        alias = next((k for k, a in enumerate(flat) if a is x), None)
        flat.append(x)
        return ("array", x.dtype.str, len(x), alias)      # f(x, x) is not f(x, y)
    if isinstance(x, tuple):
        return ("tuple",) + tuple(_signature(v, flat) for v in x)
    if is_number(x):
        flat.append(x)
        return ("number", type(x))
    return ("object", x)               # a function or other value (hashed)


def _bind(x, tape):
    """``x`` as a value of the walk (arguments get their slots in the
    order of :func:`_signature`)."""
    if isinstance(x, (Array, np.ndarray)):
        return Stored(tape.argument(x))
    if isinstance(x, tuple):
        return tuple(_bind(v, tape) for v in x)
    return tape.argument(x) if is_number(x) else x


def _finish(prog, result, where):
    """The result with its lazy sequences computed: Arrays, Dyns, numbers."""
    flat = list(result) if isinstance(result, tuple) else [result]
    if any(isinstance(v, tuple) for v in flat):
        raise TypeError("%s: return sequences and scalars (or a tuple of them), not "
                        "nested tuples" % where)
    if any(isinstance(v, Tuples) for v in flat):
        raise TypeError("%s: a sequence of tuples is not returned as such; return "
                        "unzip(...) (a tuple of sequences, computed by one kernel)" % where)
    flat = [v.data if isinstance(v, Segments) else v for v in flat]    # segments: flat
    stored = iter(prog.materialize([v for v in flat if isinstance(v, Seq)]))
    out = [next(stored).array if isinstance(v, Seq) else v for v in flat]
    return tuple(out) if isinstance(result, tuple) else out[0]


def _resolve(out):
    """Numbers of the call; sequences as Arrays (a NumPy argument returned
    or copied stays in its memory, wrapped)."""
    if isinstance(out, tuple):
        return tuple(_resolve(v) for v in out)
    return wrap(out) if isinstance(out, np.ndarray) else value_of(out)


def dataparallel(func):
    """Compile ``func`` (written with the prelude's primitives) into fused phases."""
    return DataParallelFunction(func)
