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

from .backends.registry import get_backend
from .build import cuda_builder, opencl_builder
from .build.cython_builder import build_cython
from .codegen.cuda import CUDAPrinter
from .codegen.cython import CythonPrinter
from .codegen.opencl import OpenCLPrinter
from .config import get_config
from .errors import KernelTypeError, KernelValueError
from .frontend import type_kernel
from .frontend.source import read_function
from .frontend.program import annotation_types
from .types import parse_type
from .primitives.args import (check_declared, device_precision, device_value,
                              parameter_names, value_type)
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
    ``link(backend)`` returning libraries to link (optional), a
    ``return_type`` (a type name, default ``'double'``) and ``__call__`` as
    the pure-Python fallback used by the python backend.  The function is
    called from kernels by the name it is bound to.
    """

    __pcompute_extern__ = True
    return_type = "double"

    def link(self, backend):
        return []

    def code(self, backend):
        raise KernelValueError("%s.code(backend) must return the function's source"
                               % type(self).__name__)

    def __call__(self, *args):
        raise KernelValueError("%s has no Python fallback: define __call__"
                               % type(self).__name__)


_WORK_ITEM_MACROS = {
    "opencl": """#define LID_0 get_local_id(0)
#define LID_1 get_local_id(1)
#define LID_2 get_local_id(2)
#define GID_0 get_global_id(0)
#define GID_1 get_global_id(1)
#define GID_2 get_global_id(2)
#define LDIM_0 get_local_size(0)
#define LDIM_1 get_local_size(1)
#define LDIM_2 get_local_size(2)
#define GDIM_0 get_num_groups(0)
#define GDIM_1 get_num_groups(1)
#define GDIM_2 get_num_groups(2)
#define local_barrier() barrier(CLK_LOCAL_MEM_FENCE)""",
    "cuda": """#define LID_0 threadIdx.x
#define LID_1 threadIdx.y
#define LID_2 threadIdx.z
#define GID_0 (blockIdx.x * blockDim.x + threadIdx.x)
#define GID_1 (blockIdx.y * blockDim.y + threadIdx.y)
#define GID_2 (blockIdx.z * blockDim.z + threadIdx.z)
#define LDIM_0 blockDim.x
#define LDIM_1 blockDim.y
#define LDIM_2 blockDim.z
#define GDIM_0 gridDim.x
#define GDIM_1 gridDim.y
#define GDIM_2 gridDim.z
#define local_barrier() __syncthreads()""",
}


class _OpenCLKernelPrinter(OpenCLPrinter):
    def function_prefix(self, fn):
        return "__kernel" if fn is self.program.entry else OpenCLPrinter.function_prefix(
            self, fn)


class _CUDAKernelPrinter(CUDAPrinter):
    """The entry becomes a __global__ function; local pointers come from the
    dynamic shared-memory buffer at byte offsets passed as arguments."""

    def function_prefix(self, fn):
        if fn is self.program.entry:
            return 'extern "C" __global__'
        return CUDAPrinter.function_prefix(self, fn)

    def signature(self, fn):
        if fn is not self.program.entry:
            return CUDAPrinter.signature(self, fn)
        params = []
        for n, t in fn.args:
            if t.is_pointer and t.space == "local":
                params.append("long long pc_lm_%s" % n)
            else:
                params.append("%s %s" % (self.type_name(t), fn.cname(n)))
        return "void %s(%s)" % (fn.c_name, ", ".join(params) or "void")

    def declarations(self, fn):
        out = CUDAPrinter.declarations(self, fn)
        if fn is not self.program.entry:
            return out
        local = [(n, t) for n, t in fn.args if t.is_pointer and t.space == "local"]
        if local:
            out.insert(0, "extern __shared__ char pc_shared[];")
            for n, t in local:
                out.insert(1, "%s* %s = (%s*)(pc_shared + pc_lm_%s);"
                           % (self.type_name_of(t.base), fn.cname(n),
                              self.type_name_of(t.base), n))
        return out


_KERNEL_PRINTERS = {"opencl": _OpenCLKernelPrinter, "cuda": _CUDAKernelPrinter}


def _low_level_types(func, params, args, backend, config, where):
    declared, _ = annotation_types(func, read_function(func))
    demote = backend.demote_double(config)
    float_type = DOUBLE if config.use_double or backend.on_host else FLOAT
    types = {}
    for name, value in zip(params, args):
        want = declared.get(name)
        if want is not None and demote and want.base == "double":
            want = want.with_base("float")
        if isinstance(value, LocalMem):
            if want is None or not (want.is_pointer and want.space == "local"):
                raise KernelTypeError(
                    "argument %r of %s is a LocalMem, so it must be annotated with a "
                    "local pointer type" % (name, where),
                    hint="e.g. @annotate(%s='ldoublep')" % name)
            continue
        given = device_precision(value_type(value, name, where, float_type), name, where,
                                 backend, demote)
        if want is not None:
            check_declared(want, given, name, where)
        else:
            types[name] = given
    return types


class Kernel:
    """A low-level kernel for the opencl or cuda backend (see the module doc)."""

    def __init__(self, func, backend=None):
        self.func = func
        self.name = func.__name__
        if backend is None:
            configured = get_config().backend
            backend = configured if configured in _KERNEL_PRINTERS else "opencl"
        self._backend = backend
        self._params = parameter_names(func)
        self._built = {}
        self._last_source = None

    def _where(self):
        return "Kernel(%s)" % self.name

    def generate(self, args=(), backend=None, config=None):
        """The generated source for ``args`` (types) on ``backend``."""
        config = config or get_config()
        be = get_backend(backend or self._backend)
        if be.name not in _KERNEL_PRINTERS:
            raise KernelValueError(
                "low-level Kernels run on the opencl or cuda backend, not %s" % be.name,
                hint="use Elementwise for code that should run on every backend, or "
                     "select opencl/cuda")
        types = _low_level_types(self.func, self._params, args, be, config, self._where())
        program = type_kernel(self.func, types, use_double=config.use_double,
                              demote_double=be.demote_double(config))
        if program.entry.ret.base != "void":
            raise KernelTypeError("%s must not return a value" % self._where(),
                                  hint="write results into array arguments")
        printer = _KERNEL_PRINTERS[be.name](program)
        runtime, functions = printer.print_program()
        double = any("double" in text for text in (runtime, functions))
        source = render("kernel_" + be.name, name=self.name, double=double,
                        macros=_WORK_ITEM_MACROS[be.name], runtime=runtime,
                        functions=functions)
        return source, program

    @property
    def source(self):
        """The source of the last kernel built (after a call)."""
        if self._last_source is None:
            raise KernelValueError("%s has not been called yet" % self._where())
        return self._last_source

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
        config = get_config()
        be = get_backend(self._backend)
        be.require()
        global_size = tuple(np.atleast_1d(global_size).astype(int))
        local_size = None if local_size is None else tuple(
            np.atleast_1d(local_size).astype(int))
        key = (be.name, config.codegen_key(), tuple(
            (type(a), getattr(a, "dtype", None)) for a in args))
        launch = self._built.get(key)
        if launch is None:
            source, program = self.generate(args, be.name, config)
            launch = _LAUNCHERS[be.name](self, be, source, program)
            self._built[key] = launch
            self._last_source = source
        if local_size is None:
            local_size = (min(64, int(np.prod(global_size))),)
        total, group = int(np.prod(global_size)), int(np.prod(local_size))
        if len(global_size) == 1 and total % group:
            global_size = ((total + group - 1) // group * group,)
        launch(args, global_size, local_size)


def _opencl_launcher(kernel, be, source, program):
    from .backends._device import check_double, scalar_dtype
    check_double(be, program)
    import pyopencl as cl
    knl = opencl_builder.build_opencl(source, [program.entry.c_name])[program.entry.c_name]
    arg_types = [t for _, t in program.entry.args]

    def launch(args, global_size, local_size):
        values = []
        for name, t, a in zip(kernel._params, arg_types, args):
            if isinstance(a, LocalMem):
                if local_size is None:
                    raise KernelValueError("LocalMem arguments need local_size=")
                values.append(cl.LocalMemory(a.nbytes(t.dtype, np.prod(local_size))))
                continue
            dev = device_value(a, name, kernel._where(), be)
            if t.is_pointer:
                if dev.offset:
                    raise KernelValueError(
                        "argument %r of %s is a view that does not start at element 0"
                        % (name, kernel._where()), hint="pass a copy: a.copy()")
                values.append(dev.data)
            else:
                values.append(scalar_dtype(t).type(a))
        knl(be.queue, global_size, local_size, *values)
    return launch


def _cuda_launcher(kernel, be, source, program):
    from .backends._device import scalar_dtype
    knl = cuda_builder.build_cuda(source, [program.entry.c_name])[program.entry.c_name]
    arg_types = [t for _, t in program.entry.args]

    def launch(args, global_size, local_size):
        local_size = local_size or (128,)
        block = tuple(local_size) + (1,) * (3 - len(local_size))
        grid = tuple(int(g) // int(b) for g, b in zip(global_size, block))
        values, shared = [], 0
        for name, t, a in zip(kernel._params, arg_types, args):
            if isinstance(a, LocalMem):
                values.append(np.int64(shared))
                shared += a.nbytes(t.dtype, np.prod(local_size))
                continue
            dev = device_value(a, name, kernel._where(), be)
            values.append(dev.gpudata if t.is_pointer else scalar_dtype(t).type(a))
        knl(*values, block=block, grid=grid + (1,) * (2 - len(grid)), shared=shared)
    return launch


_LAUNCHERS = {"opencl": _opencl_launcher, "cuda": _cuda_launcher}


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
        from .backends.cython import array_address
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
        module = build_cython(self.source, self.name, openmp)
        slots = [k for k, c in enumerate(convert) if c is not None]

        def run(values):
            for k in slots:
                values[k] = array_address(values[k])
            return module.run(*values)
        return run
