"""Elementwise: ``func(i, *args)`` for every ``i`` in ``[0, n)``, or
``func(i, j, *args)`` / ``func(i, j, k, *args)`` over a 2-D / 3-D index space."""
import numbers
from dataclasses import replace

import numpy as np

from ..backends.registry import get_backend
from ..config import get_config
from ..errors import KernelSyntaxError, KernelTypeError, KernelValueError
from ..frontend import type_kernel
from ..frontend.arrays import shape_reads
from ..frontend.program import annotation_types
from ..frontend.source import check_is_function, read_function
from ..profile import compile_timer, kernel_timer
from ..types import DOUBLE, FLOAT, LONG
from .args import (array_length, check_declared, device_precision, device_value,
                   device_values, parameter_names, shaped, signature, value_type)

#: The largest index space of an Elementwise: f(i, j, k, ...).
MAX_INDEX_DIMS = 3


class Elementwise:
    """Run ``func(i, *args)`` for ``i`` in ``[0, n)``, n = len(first array argument).

    A function with two or three index parameters before its arguments,
    ``func(i, j, *args)`` or ``func(i, j, k, *args)``, runs over a 2-D or 3-D
    index space: the shape of the first array argument of that rank, or the
    ``shape=`` given at the call (``e(a, b, shape=(ny, nx))``).  The number of
    index parameters is the number of parameters less the number of arguments.

    Construction is cheap; the kernel is generated and compiled at the first
    call and memoised per argument types, backend and configuration, so a
    new scalar value never recompiles and switching the backend through the
    configuration between calls works.
    """

    def __init__(self, func, backend=None):
        check_is_function(func)
        self.func = func
        self.name = func.__name__
        self._backend = backend
        self._params = parameter_names(func)
        if not self._params:
            raise KernelTypeError("%s() must take the index i as its first argument"
                                  % self.name)
        self._built = {}
        self._fast = {}
        self._last = None

    @property
    def backend(self):
        """The backend name this primitive runs on now."""
        return get_backend(self._backend).name

    def _where(self):
        return "%s()" % self.name

    def _types(self, args, backend, config, dims=1):
        where = self._where()
        src = read_function(self.func)
        declared, _ = annotation_types(self.func, src)
        float_type = DOUBLE if config.use_double or backend.on_host else FLOAT
        types = {}
        for name, value in zip(self._params[dims:], args):
            given = device_precision(value_type(value, name, where, float_type, nd=True),
                                     name, where, backend, backend.demote_double(config))
            if name in declared:
                want = declared[name]
                if backend.demote_double(config) and want.base == "double":
                    want = want.with_base("float")
                check_declared(want, given, name, where, value)
                continue
            types[name] = given
        types = shaped(types, shape_reads(src))
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
        """The extents of the index space: ``shape``, else the shape of the first
        array argument of rank ``dims``."""
        if shape is not None:
            extents = (shape,) if isinstance(shape, numbers.Integral) else tuple(shape)
            if len(extents) != dims or not all(
                    isinstance(e, (numbers.Integral, np.integer)) and e >= 0
                    for e in extents):
                raise KernelValueError("%s: shape=%r does not describe a %d-D index "
                                       "space" % (self._where(), shape, dims),
                                       hint="pass %d non-negative integers, one per index "
                                       "parameter (%s)" % (dims, ", ".join(
                                           self._params[:dims])))
            extents = tuple(int(e) for e in extents)
            return extents[0] if dims == 1 else extents
        if dims == 1:
            return None
        for a in args:
            dev = a.dev if hasattr(a, "dev") and array_length(a) is not None else a
            if array_length(a) is not None and len(dev.shape) == dims:
                return tuple(int(e) for e in dev.shape)
        nargs = len(self._params) - 1
        raise KernelTypeError(
            "%s takes %d argument(s) after the index (%s), got %d"
            % (self._where(), nargs, ", ".join(self._params[1:]), len(args)),
            hint="pass every argument; or, if %s() runs over a %d-D index space "
                 "(%s), pass a %d-D array argument or shape=(...) to give its extents"
                 % (self.name, dims, ", ".join(self._params[:dims]), dims))

    def _program(self, types, backend, config, dims=1):
        program = type_kernel(self.func, types, use_double=config.use_double,
                              demote_double=backend.demote_double(config))
        program = replace(program, index_dims=dims)
        if "work_items" in program.features:
            raise KernelSyntaxError(
                "%s uses work-item names (LID_0, GID_0, ...) or local_barrier(), which "
                "exist only in low-level kernels" % self._where(),
                hint="use pcompute.low_level.Kernel for OpenCL/CUDA-specific code; in "
                     "Elementwise the index i identifies the item")
        return program

    def _build(self, args, backend, config, dims=1):
        types = self._types(args, backend, config, dims)
        key = (backend.name, config.codegen_key(), dims, tuple(sorted(
            (k, str(v)) for k, v in types.items())))
        run = self._built.get(key)
        if run is None:
            with compile_timer(self.name):
                program = self._program(types, backend, config, dims)
                run = backend.build_elementwise(program, self.func, config)
            self._built[key] = run
        self._last = run
        return run

    def __call__(self, *args, shape=None):
        dims = self._index_dims(args)
        domain = self._domain(args, dims, shape)
        config = get_config()
        backend = get_backend(self._backend)
        fast_key = (backend.name, config.codegen_key(), dims, signature(args))
        run = self._fast.get(fast_key)
        if run is None:
            backend.require()
            run = self._build(args, backend, config, dims)
            self._fast[fast_key] = run
        self._last = run
        if dims == 1 and domain is None:
            values, n = device_values(self._params[1:], args, self._where(), backend)
        else:
            values = [device_value(a, name, self._where(), backend)
                      for name, a in zip(self._params[dims:], args)]
            n = domain
        if config.profile:
            with kernel_timer(self.name, backend):
                run(n, values)
        else:
            run(n, values)

    @property
    def all_source(self):
        """The whole generated source of the last kernel built (after a call)."""
        if self._last is None:
            raise KernelValueError("%s has not been called yet, so no kernel is built"
                                   % self._where(),
                                   hint="call it once, or use pcompute.generate.generate_source()")
        return getattr(self._last, "source", "")

    @property
    def source(self):
        """The generated source of the last kernel built (after a call)."""
        return self.all_source


def elementwise(func=None, backend=None):
    """Decorator form of :class:`Elementwise`: ``@elementwise`` over a kernel."""
    if func is None:
        return lambda f: Elementwise(f, backend=backend)
    return Elementwise(func, backend=backend)


def serial(func=None, backend=None):
    """Like :func:`elementwise` but the loop over ``i`` runs in order, one item
    at a time, on every backend (for code with dependencies between items)."""
    def make(f):
        f.__pcompute_serial__ = True
        return Elementwise(f, backend=backend)
    return make if func is None else make(func)
