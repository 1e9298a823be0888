"""Elementwise: ``func(i, *args)`` for every ``i`` in ``[0, n)``, or
``func(i, j, *args)`` / ``func(i, j, k, *args)`` over a 2-D / 3-D index space."""
from dataclasses import replace

import numpy as np

from ..backends.base import is_serial  # noqa: F401 (Compyle's helper)
from ..backends.registry import get_backend
from ..config import GENERATION, get_config
from ..bounds import checked, checked_launch
from ..errors import KernelSyntaxError, KernelTypeError, KernelValueError
from ..frontend import type_kernel
from ..frontend.arrays import shape_reads
from ..frontend.program import annotation_types
from ..frontend.source import check_is_function, read_function
from ..types import LONG
from .args import (argument_types, device_value, device_values, index_space,
                   parameter_names, shaped, signature)
from ..records import BuiltKernel
from .base import Primitive

#: The largest index space of an Elementwise: f(i, j, k, ...).
MAX_INDEX_DIMS = 3

#: Checks run once per kernel and index rank before its first build:
#: ``check(func, dims, strict, ints=..., extents=...)`` with the integer
#: scalar arguments ({name: int}) and the index space of the first call
#: (both None when the build does not come from a call).  The layers below the primitives register
#: theirs here (pcompute.autopar registers the race check), so the
#: primitives never import them.
BUILD_CHECKS = []


class Elementwise(Primitive):
    """Run ``func(i, *args)`` for ``i`` in ``[0, n)``, n = len(first array argument).

    A function with two or three index parameters before its arguments,
    ``func(i, j, *args)`` or ``func(i, j, k, *args)``, runs over a 2-D or 3-D
    index space: the shape of the first array argument of that rank, or the
    ``shape=`` given at the call (``e(a, b, shape=(ny, nx))``).  The number of
    index parameters is the number of parameters less the number of arguments.

    Construction is cheap; the kernel is generated and compiled at the first
    call and memoised per argument types, backend and configuration, so a
    new scalar value never recompiles and switching the backend through the
    configuration (or :meth:`set_backend`) between calls works.  A function
    marked with :func:`serial` runs its items in order, one at a time.

    Before the first build the kernel is checked for data races (two items
    writing, or writing and reading, one element): a race found gives a
    :class:`~pcompute.errors.RaceWarning` with a counterexample, or, with
    ``strict=True``, raises :class:`~pcompute.errors.RaceError`.
    """

    def __init__(self, func, backend=None, strict=False):
        check_is_function(func)
        Primitive.__init__(self, backend)
        self.func = func
        self.strict = strict
        self._checked = set()
        self.name = func.__name__
        self._params = parameter_names(func)
        if not self._params:
            raise KernelTypeError("%s() must take the index i as its first argument"
                                  % self.name)
        self._built = {}

    @property
    def elementwise(self):
        """Compyle's name for the built kernel: None until the first call, then
        the :class:`~pcompute.records.BuiltKernel` (its ``.backend`` is the
        backend name)."""
        return self._last

    def _where(self):
        return "%s()" % self.name

    def _types(self, args, backend, config, dims=1):
        src = read_function(self.func)
        declared, _ = annotation_types(self.func, src)
        types = argument_types(self._params[dims:], args, declared, self._where(), backend,
                               config, nd=True)
        # With bounds checks every array argument knows its shape.
        types = shaped(types, self._params if config.bounds_check else shape_reads(src))
        for index in self._params[:dims]:
            if index not in declared:
                types[index] = LONG
        return types

    def _index_dims(self, args):
        """The number of index parameters of a call with ``args``."""
        dims = len(self._params) - len(args)
        if not 1 <= dims <= MAX_INDEX_DIMS:
            nargs = len(self._params) - 1
            raise KernelTypeError("%s takes %d argument(s) after the index (%s), got %d"
                                  % (self._where(), nargs, ", ".join(self._params[1:]),
                                     len(args)),
                                  hint="call it with the arguments of %s() after i (or "
                                  "after i, j for a 2-D index space)" % self.name)
        return dims

    def _domain(self, args, dims, shape):
        """The extents of the index space (see :func:`.args.index_space`)."""
        return index_space(args, dims, shape, self._params, self._where())

    def _program(self, types, backend, config, dims=1):
        program = type_kernel(self.func, types, use_double=config.use_double,
                              demote_double=backend.demote_double(config))
        program = replace(program, index_dims=dims)
        if config.bounds_check:
            program = checked(program)
        if "work_items" in program.features:
            raise KernelSyntaxError(
                "%s uses work-item names (LID_0, GID_0, ...) or local_barrier(), which "
                "exist only in low-level kernels" % self._where(),
                hint="use pcompute.low_level.Kernel for OpenCL/CUDA-specific code; in "
                     "Elementwise the index i identifies the item")
        return program

    @staticmethod
    def _build_key(types, backend, config, dims):
        """The key of :attr:`_built` for a kernel of argument ``types``."""
        return (backend, backend.device_key(), config.codegen_key(), dims, tuple(sorted(
            (k, str(v), v.struct) for k, v in types.items())))

    def _build(self, args, backend, config):
        dims = self._index_dims(args)
        types = self._types(args, backend, config, dims)
        key = self._build_key(types, backend, config, dims)
        built = self._built.get(key)
        if built is None:
            program = self._program(types, backend, config, dims)
            if dims not in self._checked:
                self._run_checks(dims)
            built = backend.build_elementwise(program, self.func, config)
            if program.bounds_check:
                built = BuiltKernel(built.generated, built.backend, checked_launch(
                    program, backend, built.launch, self._where()))
            self._built[key] = built
        return built

    def _run_checks(self, dims, ints=None, extents=None):
        """The :data:`BUILD_CHECKS` of index rank ``dims`` (once)."""
        for check in BUILD_CHECKS:
            check(self.func, dims, self.strict, ints=ints, extents=extents)
        self._checked.add(dims)

    def _call_checks(self, args, dims, domain):
        """The build checks with this call's integer arguments and index
        space (the race check then judges ``x[i + k]`` at this ``k``)."""
        ints = {name: int(a) for name, a in zip(self._params[dims:], args)
                if isinstance(a, (int, np.integer)) and not isinstance(a, bool)}
        if domain is not None:
            extents = tuple(domain) if isinstance(domain, (tuple, list)) else (domain,)
        else:
            extents = next(((int(a.shape[0]),) for a in args
                            if len(getattr(a, "shape", ())) >= 1), None)
        self._run_checks(dims, ints, extents if extents is not None
                         and len(extents) == dims else None)

    def generate(self, backend, *args):
        """The source the kernel would compile on ``backend`` (a name) for
        these call arguments (numpy arrays and numbers stand for the real
        ones), under the current configuration; builds and runs nothing, so
        CUDA C can be produced without a GPU."""
        be = get_backend(backend)
        if be.dialect is None:
            raise KernelValueError("the %s backend runs Python directly and generates "
                                   "no source" % be.name)
        return be.generate_elementwise(self.typed_program(be, *args), self.func,
                                       get_config()).source

    def typed_program(self, backend, *args):
        """The typed program (:mod:`pcompute.frontend`'s record) of a call
        with these arguments (numpy arrays and numbers stand for the real
        ones) on ``backend`` (a name or a Backend) under the current
        configuration: what the python backend's oracle copy of the function
        follows (:func:`pcompute.backends.pyexec.python_callable`).  Builds
        nothing."""
        be = get_backend(backend) if isinstance(backend, str) else backend
        config = get_config()
        dims = self._index_dims(args)
        return self._program(self._types(args, be, config, dims), be, config, dims)

    def program_for(self, backend, config, args):
        """``(program, func)``: what a call with ``args`` (numpy arrays and
        numbers stand for the real ones) builds on the Backend ``backend``
        under ``config``, or None when that kernel is built already (for
        :meth:`~pcompute.backends.base.Backend.prebuild_elementwise`).  Runs
        no checks and builds nothing."""
        dims = self._index_dims(args)
        types = self._types(args, backend, config, dims)
        key = self._build_key(types, backend, config, dims)
        if key in self._built:
            return None
        return self._program(types, backend, config, dims), self.func

    def generated_for(self, backend, config, args):
        """The :class:`~pcompute.records.GeneratedKernel` a 1-D call with
        ``args`` builds on ``backend`` under ``config``, or None when it is
        built already (for :meth:`~pcompute.backends.base.Backend.prebuild`).
        Runs no checks and builds nothing."""
        item = self.program_for(backend, config, args)
        return None if item is None else backend.generate_elementwise(*item, config)

    def __call__(self, *args, shape=None):
        fast = self._fast
        if fast is not None and shape is None:
            try:
                if fast(args, None) is not None:
                    return
            except OverflowError as exc:
                self._raise_range_error(self._last, args, exc)
                raise
        shaped = self._fast_shaped
        if shaped is not None and shape is not None:
            try:
                if shaped(args, shape):
                    return
            except OverflowError as exc:
                self._raise_range_error(self._last, args, exc)
                raise
        stamp = self._stamp()
        dims = self._index_dims(args)
        domain = self._domain(args, dims, shape)
        if dims not in self._checked:
            self._call_checks(args, dims, domain)
        config, backend = self._call_setup()
        built = self._kernel(args, backend, config)
        if dims == 1 and domain is None:
            values, n = device_values(self._params[1:], args, self._where(), backend)
        else:
            values = [device_value(a, name, self._where(), backend)
                      for name, a in zip(self._params[dims:], args)]
            n = domain
        self._launch(built, backend, config, n, values)
        if dims == 1 and domain is None:
            self._remember_fast(built, args, stamp, backend, config)
        elif shape is not None and not config.profile:
            compiled = built.fastcall and built.fastcall(args, stamp, backend.name, shaped=True)
            self._fast_shaped = compiled or self._shaped_call(built, args, stamp, backend, dims)

    def _shaped_call(self, built, args, stamp, backend, dims):
        """The Python fast path of later calls given ``shape=`` (n-D index
        spaces, and parallelize's launches) where the backend has no compiled
        one (``BuiltKernel.fastcall`` with ``shaped=True``): while the configuration is unchanged
        (``GENERATION[0]`` is ``stamp``) and the arguments have the signature
        of ``args``, it launches ``built`` with them, skipping the checked
        path's configuration, backend and memo lookups.  It returns False
        (the caller takes the checked path) for anything else."""
        sig = signature(args)
        names = self._params[dims:]
        where = self._where()

        def call(args, shape):
            if GENERATION[0] != stamp or len(args) != len(names):
                return False
            if dims == 1 and type(shape) is int and shape >= 0:
                n = shape
            elif type(shape) is tuple and len(shape) == dims and all(
                    type(e) is int and e >= 0 for e in shape):
                n = shape[0] if dims == 1 else shape
            else:
                return False
            if signature(args) != sig:
                return False
            values = [device_value(a, name, where, backend) for name, a in zip(names, args)]
            try:
                built(n, values)
            except Exception as exc:
                self._raise_range_error(built, values, exc)
                raise
            return True
        return call


def elementwise(func=None, backend=None, strict=False):
    """Decorator form of :class:`Elementwise`: ``@elementwise`` over a kernel."""
    if func is None:
        return lambda f: Elementwise(f, backend=backend, strict=strict)
    return Elementwise(func, backend=backend, strict=strict)


def serial(func=None, **options):
    """Mark ``func`` to run its items in order, one at a time (Compyle's
    ``@serial``): ``Elementwise(func)`` then loops serially on every backend,
    for code with dependencies between items.  Returns ``func`` itself, with
    ``func.is_serial = True``; options are accepted for Compyle's signature."""
    def mark(f):
        f.is_serial = True
        return f
    return mark if func is None else mark(func)
