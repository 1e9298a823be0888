"""Low-level kernels (Compyle-compatible): ``Kernel``, ``LocalMem``, ``Cython``, ``Extern``.

``Kernel(func)`` turns a function into an OpenCL ``__kernel`` or a CUDA
``__global__`` function, written with the work-item names ``LID_0..2``,
``GID_0..2``, ``LDIM_0..2``, ``GDIM_0..2`` and ``local_barrier()``, and
called as ``k(*args, global_size=(n,), local_size=(64,))``.  ``LocalMem(m)``
arguments give ``m * local_size`` elements of work-group local (OpenCL) or
shared (CUDA) memory.  ``Cython(func)`` compiles one function for direct use
from Python.  ``Extern`` lets users provide external C functions with a
Python fallback.
"""
import numpy as np

from .backends.cython_launch import array_address, extern_link_args
from .backends.registry import backend_names, get_backend
from .build.cython_builder import build_cython
from .codegen.cython import CythonPrinter
from .config import get_config
from .errors import KernelTypeError, KernelValueError
from .frontend import type_kernel
from .frontend.source import read_function
from .frontend.program import annotation_types
from .types import parse_type
from .primitives.args import argument_types, device_value, parameter_names
from .primitives.base import Primitive
from .templates import render
from .types import DOUBLE, FLOAT, address, atomic_dec, atomic_inc, cast  # noqa: F401

# Python meanings of the work-item names (a single work-item of a single group).
LID_0 = LID_1 = LID_2 = 0
GID_0 = GID_1 = GID_2 = 0
LDIM_0 = LDIM_1 = LDIM_2 = 1
GDIM_0 = GDIM_1 = GDIM_2 = 1


def local_barrier():
    """Wait until every work-item of the group has reached this point."""


local_barrier.__pcompute_builtin__ = "local_barrier"


def prange(*args, **options):
    """Python meaning of Cython's parallel range (serial ``range``); in
    ``Cython(func)`` functions the loop runs in parallel with OpenMP."""
    return range(*args)


class _NoOpContext:
    """``nogil`` and ``parallel()`` for Compyle code: in Python they do nothing."""

    def __call__(self, *args, **kw):
        return self

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


nogil = _NoOpContext()
parallel = _NoOpContext()


class LocalMem:
    """A kernel argument of ``size * local_size`` elements of local memory.

    The kernel annotates it with a local pointer type (``ldoublep``,
    ``lintp``, ...).  On OpenCL it is ``__local`` memory; on CUDA, dynamic
    ``__shared__`` memory.
    """

    def __init__(self, size, backend=None):
        if int(size) != size or size <= 0:
            raise KernelValueError("LocalMem(size) needs a positive integer, got %r"
                                   % (size,))
        self.size = int(size)
        self.backend = backend

    def nbytes(self, dtype, local_size):
        """Bytes needed for elements of ``dtype`` and a group of ``local_size``."""
        return self.size * int(local_size) * np.dtype(dtype).itemsize

    def get(self, c_type, workgroup_size):
        """Compyle-compatible: the OpenCL local memory for ``c_type`` elements."""
        import pyopencl as cl
        return cl.LocalMemory(self.nbytes(parse_type(c_type).dtype, workgroup_size))


class Extern:
    """Base class of user-provided external functions.

    Subclasses define ``code(backend)`` returning the source of the function
    in that backend's language (C for opencl/cuda, Cython for cython),
    ``link(backend)`` returning linker arguments (optional, e.g.
    ``['-lm']``: passed to the linker of cython builds; OpenCL and CUDA
    programs are not linked, so there it must return ``[]``), a
    ``return_type`` (a type name, default ``'double'``) and ``__call__`` as
    the pure-Python fallback used by the python backend.  The function is
    called from kernels by the name it is bound to.
    """

    __pcompute_extern__ = True
    return_type = "double"

    def link(self, backend):
        """Linker arguments this function needs on ``backend`` (default none)."""
        return []

    def code(self, backend):
        raise KernelValueError("%s.code(backend) must return the function's source"
                               % type(self).__name__)

    def __call__(self, *args):
        raise KernelValueError("%s has no Python fallback: define __call__"
                               % type(self).__name__)


def _low_level_types(func, params, args, backend, config, where):
    declared, _ = annotation_types(func, read_function(func))
    for name, value in zip(params, args):
        want = declared.get(name)
        if isinstance(value, LocalMem) and (
                want is None or not (want.is_pointer and want.space == "local")):
            raise KernelTypeError(
                "argument %r of %s is a LocalMem, so it must be annotated with a "
                "local pointer type" % (name, where),
                hint="e.g. @annotate(%s='ldoublep')" % name)
    plain = [(n, v) for n, v in zip(params, args) if not isinstance(v, LocalMem)]
    return argument_types([n for n, _ in plain], [v for _, v in plain], declared, where,
                          backend, config)


def kernel_backends():
    """The names of the backends that run low-level Kernels (work-groups)."""
    return [n for n in backend_names() if get_backend(n).has_work_groups]


class Kernel(Primitive):
    """A low-level kernel for a backend with work-groups, OpenCL or CUDA (see
    the module doc)."""

    def __init__(self, func, backend=None):
        if backend is None:
            configured = get_backend()
            backend = configured.name if configured.has_work_groups else \
                kernel_backends()[0]
        Primitive.__init__(self, backend)
        self.func = func
        self.name = func.__name__
        self._params = parameter_names(func)

    def _where(self):
        return "Kernel(%s)" % self.name

    def _program(self, args, be, config):
        if not be.has_work_groups:
            raise KernelValueError(
                "low-level Kernels run on the %s backend, not %s"
                % (" or ".join(kernel_backends()), be.name),
                hint="use Elementwise for code that should run on every backend, or "
                     "select %s" % "/".join(kernel_backends()))
        types = _low_level_types(self.func, self._params, args, be, config, self._where())
        program = type_kernel(self.func, types, use_double=config.use_double,
                              demote_double=be.demote_double(config))
        if program.entry.ret.base != "void":
            raise KernelTypeError("%s must not return a value" % self._where(),
                                  hint="write results into array arguments")
        return program

    def generate(self, args=(), backend=None, config=None):
        """(generated source, typed program) for ``args`` (values standing for
        the real ones) on ``backend``; compiles nothing."""
        config = config or get_config()
        be = get_backend(backend or self._backend)
        program = self._program(args, be, config)
        return be.generate_kernel(program, self.name, config).source, program

    def _build(self, args, backend, config):
        return backend.build_kernel(self._program(args, backend, config), self.name, config)

    def __call__(self, *args, global_size=None, local_size=None):
        if len(args) != len(self._params):
            raise KernelTypeError("%s takes %d argument(s), got %d"
                                  % (self._where(), len(self._params), len(args)))
        if global_size is None:
            first = next((a for a in args if hasattr(a, "dtype") and hasattr(a, "__len__")),
                         None)
            if first is None:
                raise KernelValueError("%s needs global_size=(n,)" % self._where())
            global_size = (len(first),)
        config, be = self._call_setup()
        global_size = tuple(np.atleast_1d(global_size).astype(int))
        local_size = None if local_size is None else tuple(
            np.atleast_1d(local_size).astype(int))
        built = self._kernel(args, be, config)
        if local_size is None:
            local_size = (min(64, int(np.prod(global_size))),)
        total, group = int(np.prod(global_size)), int(np.prod(local_size))
        if len(global_size) == 1 and total % group:
            global_size = ((total + group - 1) // group * group,)
        values = [a if isinstance(a, LocalMem) else device_value(a, name, self._where(), be)
                  for name, a in zip(self._params, args)]
        self._launch(built, be, config, (global_size, local_size), values)


class Cython:
    """Compile one annotated function for direct use from Python (CPU).

    ``f = Cython(func)`` then ``f(*args)`` with numpy arrays and numbers
    returns the function's value.  Loops written ``for i in prange(n):`` run
    in parallel with OpenMP when ``use_openmp`` is set (``+=`` on a scalar in
    such a loop is a reduction, as in Cython).
    """

    def __init__(self, func):
        self.func = func
        self.name = func.__name__
        self._params = parameter_names(func)
        self._built = {}
        self.source = None

    def _where(self):
        return "Cython(%s)" % self.name

    def __call__(self, *args):
        if len(args) != len(self._params):
            raise KernelTypeError("%s takes %d argument(s), got %d"
                                  % (self._where(), len(self._params), len(args)))
        config = get_config()
        be = get_backend("cython")
        key = (config.codegen_key(), tuple((type(a), getattr(a, "dtype", None))
                                           for a in args))
        run = self._built.get(key)
        if run is None:
            run = self._build(args, be, config)
            self._built[key] = run
        values = [device_value(a, name, self._where(), be)
                  for name, a in zip(self._params, args)]
        return run(values)

    def _build(self, args, be, config):
        types = _low_level_types(self.func, self._params, args, be, config, self._where())
        program = type_kernel(self.func, types, use_double=config.use_double)
        printer = CythonPrinter(program)
        runtime, functions = printer.print_program()
        entry = program.entry
        params, unpack, convert = be.entry_parts(program, printer, first=0)
        call = "%s(%s)" % (entry.c_name, ", ".join(entry.cname(n) for n, _ in entry.args))
        openmp = be.use_openmp(config)
        self.source = render("cython_function", name=self.name, openmp=openmp,
                             cimports=printer.cimports(), runtime=runtime,
                             functions=functions, params=params, unpack=unpack, call=call,
                             ret_type=printer.type_name(entry.ret))
        module = build_cython(self.source, self.name, openmp,
                              extra_link_args=extern_link_args(printer))
        slots = [k for k, c in enumerate(convert) if c is not None]

        def run(values):
            for k in slots:
                values[k] = array_address(values[k])
            return module.run(*values)
        return run
