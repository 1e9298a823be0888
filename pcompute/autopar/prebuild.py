"""Building the kernels of a parallelised function's nests together, at its
first call (:class:`~pcompute.autopar.Parallelized`).

Each nest is planned when the call reaches it, and each of its kernels is an
Elementwise built at its first launch: one compiled module per kernel.  On
a backend and configuration, when a call reaches a nest not planned ahead
yet, :meth:`PrebuildMixin._prebuild` plans it and every later nest none of
whose names a statement between them assigns (so its analysis and its
kernels' argument types are those the call will find when it gets there:
the plan is cached and reused), collects the kernels those plans launch with
the argument types of the launch, and asks the backend to build them ahead,
together
(:meth:`~pcompute.backends.base.Backend.prebuild_elementwise`: one module
for all of them on the cython backend).  The launches then find them built.
A nest that reads a name an earlier statement sets is left to its own
launch, as are speculated nests; a user error found while planning ahead is
left to the moment the call reaches that nest, where it is raised as
without the prebuild.
"""
import ast
import warnings

import numpy as np

from ..backends.registry import get_backend
from ..config import GENERATION, get_config
from ..errors import KernelError
from ..timing.timers import compile_timer
from .execute import box_arrays, launch_extent, reduction_parts
from .nest import assigned_names


class PrebuildMixin:
    """The kernels of the first call, built ahead (see the module docstring)."""

    def _prebuild(self, start, scope):
        """At nest ``start``, build the kernels of it and of the later nests
        known from ``scope`` together (each nest once per backend and
        configuration)."""
        stamp, last = self._prebuild_stamp
        if stamp == GENERATION[0] and start in last:
            return                  # the configuration unchanged since: nothing to do
        stamp = GENERATION[0]
        backend, config = get_backend(), get_config()
        if not backend.builds_together:
            self._prebuild_stamp = (stamp, range(len(self.steps)))
            return
        tried = self._prebuilt.setdefault((backend.name, config.codegen_key()), set())
        self._prebuild_stamp = (stamp, tried)
        if start in tried:
            return
        items = self._items_ahead(start, scope, tried, backend, config)
        if len(items) > 1:
            # timed as a build (profiling on): the kernels' own builds then
            # only find their group module
            with compile_timer("%s (kernels built together)" % self.__name__):
                backend.prebuild_elementwise(items, config)

    def kernels_ahead(self, *args, **kwargs):
        """The kernels a first call with these arguments builds ahead on
        the configured backend (at its first nest: the kernels of the nests
        none of whose names an earlier statement assigns; not speculated
        ones), as generated kernels
        (:class:`~pcompute.records.GeneratedKernel`) for
        :meth:`~pcompute.backends.base.Backend.prebuild`, which finds those
        built already (by this function or another).  Runs and builds
        nothing; a user error is left to the call.  For a caller that builds the kernels of several
        functions' calls together (the test suite's group modules)."""
        backend, config = get_backend(), get_config()
        scope = self._scope(args, kwargs)
        return [backend.generate_elementwise(program, func, config)
                for program, func in self._items_ahead(0, scope, set(), backend, config)]

    def _items_ahead(self, start, scope, tried, backend, config):
        """The ``(program, func)`` items of :meth:`_known_launches` not built yet."""
        items = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")     # the launch itself warns
            for ew, args in self._known_launches(start, scope, tried):
                try:
                    item = ew.program_for(backend, config, args)
                except KernelError:
                    continue            # raised where the call reaches it
                if item is not None:
                    items.append(item)
        return items

    def _known_launches(self, start, scope, tried):
        """``(Elementwise, argument values)`` of the launches of nest
        ``start`` and of the later nests none of whose names but their own
        loop variables a statement from ``start`` on assigns; their indices
        join ``tried``."""
        assigned = set()
        for index in range(start, len(self.steps)):
            step = self.steps[index]
            if step.kind == "nest" and index not in tried and \
                    not (assigned & set(step.loaded)) - loop_variables(step.node):
                tried.add(index)
                try:
                    _, plan = self._analysis(index, step, scope)
                except KernelError:
                    return              # raised where the call reaches this nest
                yield from plan_launches(plan, scope)
            assigned |= assigned_names(step.node)


def plan_launches(plan, scope):
    """``(Elementwise, argument values)`` of the kernels ``plan`` launches
    (with stand-ins of the values the executor passes: the arrays of
    ``scope``, new arrays of the dtypes it makes); none for speculated
    nests, and none for a launch over arrays the executor would copy (not
    C-contiguous plain numeric numpy arrays)."""
    if plan.kind == "host":
        inner = dict(scope)
        inner[plan.loop.var] = plan.loop.lo.const
        for child in plan.children:
            yield from plan_launches(child, inner)
        return
    if plan.kind not in ("launch", "serial", "reduce"):
        return
    ew, text = plan.kernel
    values = [scope[p] for p in text.params]
    if not all(_plain(v) for v in values if isinstance(v, np.ndarray)):
        return
    if plan.kind == "launch":
        tail, shape = launch_extent(plan)
        if shape is not None:
            yield ew, values + tail
    elif plan.kind == "serial":
        yield ew, values + box_arrays(plan, scope)
    elif plan.loop.count:
        dtypes, inits = reduction_parts(plan, scope)
        parts = [np.empty(plan.loop.count, dtype=dt) for dt in dtypes]
        yield ew, values + [plan.loop.lo.const, plan.loop.step] + inits + parts


def loop_variables(node):
    """The names the ``for`` statements in ``node`` assign as loop variables."""
    return {n.target.id for n in ast.walk(node)
            if isinstance(n, ast.For) and isinstance(n.target, ast.Name)}


def _plain(value):
    return (type(value) is np.ndarray and value.flags.c_contiguous
            and value.dtype.kind in "fiub" and value.dtype.isnative)
