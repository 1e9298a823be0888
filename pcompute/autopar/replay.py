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
  shape (the subscripts were checked against it, :mod:`.bounds`): NumPy arrays C-contiguous, of a plain native dtype, on a host backend
  (passed as they are, as the full path does) or pcompute Arrays;
- no two arrays sharing memory (neither before);
- the same globals (the very objects) for the names the nests read, and for
  the module-level names their helpers read;
- the configuration unchanged (:data:`pcompute.config.GENERATION`).

Anything else takes the full path, which keeps a new Replay.  Each kernel's
own fast call then checks dtypes and scalar types, as for any Elementwise.
"""
import operator

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


def _picker(sources):
    """A function of a call's positional arguments giving the tuple of those
    at the positions ``sources`` (a kernel's values), or None when a source
    is a global's name (looked up at each call)."""
    if any(s.__class__ is not int for s in sources):
        return None
    if len(sources) == 1:
        k = sources[0]
        return lambda args: (args[k],)
    if not sources:
        return lambda args: ()          # a kernel of the loops' bounds only
    return operator.itemgetter(*sources)


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
        # the indices were checked against these shapes (bounds.py)
        self.shapes = tuple((k, args[k].shape) for k in self.arrays)
        position = {name: k for k, name in enumerate(owner.params)}
        # The first kernel's fast call checks the arrays it takes (exact
        # dtype object, rank, C-contiguous: what the full path passes as it
        # is); when it declines, nothing has run and the call takes the full
        # path.  The arrays only later kernels take are checked here, so that
        # a later kernel's checked call gets what the full path would pass.
        lead = next((plan for _, plan in launches if launch_extent(plan)[1] is not None),
                    launches[0][1])
        first = {position[p] for p in lead.kernel[1].params if p in position}
        self.checks = tuple((k, self.ranks[k], args[k].dtype if self.types[k] is np.ndarray
                             else None) for k in self.arrays if k not in first)
        self.globals = owner.func.__globals__
        # every global a nest reads (a bound, a kernel argument), as it was
        self.global_values = {name: scope[name] for step, _ in launches
                              for name in step.loaded
                              if name not in position and name in self.globals}
        # and every module-level name the nests' helpers read (compiled in)
        self.helper_values = tuple({(id(module), name): (module, name, module.get(name))
                                    for step, _ in launches
                                    for module, name in owner._module_reads(step)}.values())
        self.launches = []
        for step, plan in launches:
            ew, text = plan.kernel
            sources = [position.get(p, p) for p in text.params]
            tail, shape = launch_extent(plan)
            # the kernel's values: the call's arguments picked by position
            # (globals by name), then the loops' starts and steps
            self.launches.append((step, ew, tuple(sources), tuple(tail), shape,
                                  _picker(sources)))
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
        for a, t, value in zip(args, self.types, self.ints):
            if type(a) is not t or (value is not None and a != value):
                return False
        for k, shape in self.shapes:
            if args[k].shape != shape:
                return False
        for k, rank, dtype in self.checks:
            a = args[k]
            if a.ndim != rank:
                return False
            if dtype is not None and (a.dtype is not dtype or not a.flags.c_contiguous
                                      or not self.on_host):
                return False
        arrays = self.arrays
        for x, k in enumerate(arrays):
            for m in arrays[x + 1:]:
                if same_memory(args[k], args[m]):
                    return False
        g = self.globals
        for name, value in self.global_values.items():
            if g.get(name, self) is not value:
                return False
        for module, name, value in self.helper_values:
            if module.get(name, self) is not value:
                return False
        return True

    def __call__(self, args):
        if not self.matches(args):
            return False
        owner = self.owner
        g = self.globals
        first = True
        for step, ew, sources, tail, shape, pick in self.launches:
            if shape is None:
                continue
            if pick is None:
                values = tuple(args[s] if s.__class__ is int else g[s] for s in sources)
            else:
                values = pick(args)
            values += tail
            try:
                # the kernel's compiled fast call (Elementwise.__call__'s first
                # step); declined by the first kernel: the full path (nothing
                # has run); by a later one: its checked call (the values are
                # those the full path passes)
                fast = ew._fast_shaped
                if fast is None or not fast(values, shape):
                    if first:
                        return False
                    ew(*values, shape=shape)
            except OverflowError:       # out of a C type's range: a located error
                if first:
                    return False
                ew(*values, shape=shape)
            except KernelIndexError as error:
                raise owner._user_index_error(error, step) from None
            first = False
        owner.last_plans = list(self.plans)
        return True
