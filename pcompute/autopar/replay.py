"""The quick path of repeated calls of a parallelised function.

A call of :class:`~pcompute.autopar.Parallelized` binds its arguments, looks
each nest's analysis up on what the nest reads (integer values, array ranks,
which arrays share memory), then launches its kernels.  When every
top-level statement of the function is a nest that ran as one launch (the
common case: ``gemm``, ``jacobi``, ``conv2d``), the call just made is kept as
a :class:`Replay`.  The next call launches the same kernels directly (each
through its Elementwise's compiled fast call) when it has

- the same number of positional arguments, none by name;
- the same Python type per argument, equal integers, arrays of the same
  rank: NumPy arrays C-contiguous, of a plain native dtype, on a host backend
  (passed as they are, as the full path does) or pcompute Arrays;
- no two arrays sharing memory (neither before);
- the same globals (the very objects) for the names the nests read;
- the configuration unchanged (:data:`pcompute.config.GENERATION`).

Anything else takes the full path, which keeps a new Replay.  Each kernel's
own fast call then checks dtypes and scalar types, as for any Elementwise.
"""
import numpy as np

from ..array import Array
from ..backends.registry import get_backend
from ..config import GENERATION
from ..errors import KernelIndexError
from .execute import launch_extent
from .residency import is_array, same_memory

#: What a parameter of a replayed call must be: any object of the recorded
#: type, an equal integer, an array of the recorded rank.
_ANY, _INT, _ARRAY = 0, 1, 2


def _kind(value):
    if is_array(value):
        return _ARRAY
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return _INT
    return _ANY


def _passed_as_is(value, on_host):
    """True when a launch takes ``value`` itself (Residency.launch_value)."""
    if type(value) is np.ndarray:
        return on_host and value.flags.c_contiguous and value.dtype.kind in "fiub" \
            and value.dtype.isnative
    return isinstance(value, Array)


class Replay:
    """The launches of one call, for later calls with the same signature
    (see the module docstring).  ``replay(args)`` returns True when it ran
    them, False when the call must take the full path."""

    def __init__(self, owner, args, scope, launches, stamp):
        self.owner = owner
        self.stamp = stamp
        self.on_host = get_backend().on_host
        self.types = tuple(type(a) for a in args)
        self.kinds = tuple(_kind(a) for a in args)
        self.ints = tuple(a if k == _INT else None for a, k in zip(args, self.kinds))
        self.ranks = tuple(np.ndim(a) if k == _ARRAY else None
                           for a, k in zip(args, self.kinds))
        self.arrays = tuple(k for k, kind in enumerate(self.kinds) if kind == _ARRAY)
        position = {name: k for k, name in enumerate(owner.params)}
        self.globals = owner.func.__globals__
        # every global a nest reads (a bound, a kernel argument), as it was
        self.global_values = {name: scope[name] for step, _ in launches
                              for name in step.loaded
                              if name not in position and name in self.globals}
        self.launches = []
        for step, plan in launches:
            ew, text = plan.kernel
            sources = [position.get(p, p) for p in text.params]
            tail, shape = launch_extent(plan)
            self.launches.append((step, ew, tuple(sources), tuple(tail), shape))
        self.plans = [plan for _, plan in launches]

    @classmethod
    def make(cls, owner, args, scope, launches, stamp):
        """A Replay of the call just made with ``args`` (``launches``: the
        (step, plan) of each top-level statement), or None when the call
        cannot be replayed so."""
        if len(launches) != len(owner.steps) or any(
                step.kind != "nest" or plan.kind != "launch" for step, plan in launches):
            return None
        on_host = get_backend().on_host
        arrays = [a for a in args if is_array(a)]
        for a in arrays:
            if not _passed_as_is(a, on_host):
                return None
        for x, a in enumerate(arrays):
            for b in arrays[x + 1:]:
                if same_memory(a, b):
                    return None
        for step, plan in launches:
            for p in plan.kernel[1].params:
                if p not in owner.params and is_array(scope[p]) and \
                        not _passed_as_is(scope[p], on_host):
                    return None
        return cls(owner, args, scope, launches, stamp)

    def matches(self, args):
        """True when a call with positional ``args`` may replay."""
        if GENERATION[0] != self.stamp or len(args) != len(self.types):
            return False
        for a, t, kind, value, rank in zip(args, self.types, self.kinds, self.ints,
                                           self.ranks):
            if type(a) is not t:
                return False
            if kind == _INT:
                if a != value:
                    return False
            elif kind == _ARRAY and (a.ndim != rank or not _passed_as_is(a, self.on_host)):
                return False
        arrays = self.arrays
        for x, k in enumerate(arrays):
            for m in arrays[x + 1:]:
                if args[k] is args[m] or same_memory(args[k], args[m]):
                    return False
        g = self.globals
        for name, value in self.global_values.items():
            if g.get(name, self) is not value:
                return False
        return True

    def __call__(self, args):
        if not self.matches(args):
            return False
        owner = self.owner
        owner.last_plans = list(self.plans)
        g = self.globals
        for step, ew, sources, tail, shape in self.launches:
            if shape is None:
                continue
            values = [args[s] if s.__class__ is int else g[s] for s in sources]
            try:
                ew(*values, *tail, shape=shape)
            except KernelIndexError as error:
                raise owner._user_index_error(error, step) from None
        return True
