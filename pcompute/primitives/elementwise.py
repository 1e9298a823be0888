"""Elementwise: ``func(i, *args)`` for every ``i`` in ``[0, n)``."""
from ..backends.registry import get_backend
from ..config import get_config
from ..errors import KernelSyntaxError, KernelTypeError, KernelValueError
from ..frontend import type_kernel
from ..frontend.program import annotation_types
from ..frontend.source import check_is_function, read_function
from ..profile import compile_timer, kernel_timer
from ..types import DOUBLE, FLOAT, LONG
from .args import (check_declared, device_precision, device_values, parameter_names,
                   signature, value_type)


class Elementwise:
    """Run ``func(i, *args)`` for ``i`` in ``[0, n)``, n = len(first array argument).

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

    def _types(self, args, backend, config):
        where = self._where()
        src = read_function(self.func)
        declared, _ = annotation_types(self.func, src)
        float_type = DOUBLE if config.use_double or backend.on_host else FLOAT
        types = {}
        for name, value in zip(self._params[1:], args):
            given = device_precision(value_type(value, name, where, float_type), name,
                                     where, backend, backend.demote_double(config))
            if name in declared:
                want = declared[name]
                if backend.demote_double(config) and want.base == "double":
                    want = want.with_base("float")
                check_declared(want, given, name, where)
                continue
            types[name] = given
        if self._params[0] not in declared:
            types[self._params[0]] = LONG
        return types

    def _program(self, types, backend, config):
        program = type_kernel(self.func, types, use_double=config.use_double,
                              demote_double=backend.demote_double(config))
        if "work_items" in program.features:
            raise KernelSyntaxError(
                "%s uses work-item names (LID_0, GID_0, ...) or local_barrier(), which "
                "exist only in low-level kernels" % self._where(),
                hint="use pcompute.low_level.Kernel for OpenCL/CUDA-specific code; in "
                     "Elementwise the index i identifies the item")
        return program

    def _build(self, args, backend, config):
        types = self._types(args, backend, config)
        key = (backend.name, config.codegen_key(), tuple(sorted(
            (k, str(v)) for k, v in types.items())))
        run = self._built.get(key)
        if run is None:
            with compile_timer(self.name):
                program = self._program(types, backend, config)
                run = backend.build_elementwise(program, self.func, config)
            self._built[key] = run
        self._last = run
        return run

    def __call__(self, *args):
        nargs = len(self._params) - 1
        if len(args) != nargs:
            raise KernelTypeError("%s takes %d argument(s) after the index (%s), got %d"
                                  % (self._where(), nargs, ", ".join(self._params[1:]),
                                     len(args)),
                                  hint="call it with the arguments of %s() after i"
                                  % self.name)
        config = get_config()
        backend = get_backend(self._backend)
        fast_key = (backend.name, config.codegen_key(), signature(args))
        run = self._fast.get(fast_key)
        if run is None:
            backend.require()
            run = self._build(args, backend, config)
            self._fast[fast_key] = run
        self._last = run
        values, n = device_values(self._params[1:], args, self._where(), backend)
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
