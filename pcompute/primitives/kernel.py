"""Low-level kernels: :class:`Kernel` and its :class:`LocalMem` arguments.

``Kernel(func)`` turns a function into an OpenCL ``__kernel`` or a CUDA
``__global__`` function, written with the work-item names ``LID_0..2``,
``GID_0..2``, ``LDIM_0..2``, ``GDIM_0..2`` and ``local_barrier()`` (see
:mod:`pcompute.low_level`), and called as
``k(*args, global_size=(n,), local_size=(64,))``.  ``LocalMem(m)`` arguments
give ``m * local_size`` elements of work-group local (OpenCL) or shared
(CUDA) memory.  The backends that have work-groups print and launch it
(``generate_kernel``/``build_kernel``).
"""
import numpy as np

from ..backends.registry import backend_names, get_backend
from ..config import get_config
from ..errors import KernelTypeError, KernelValueError
from ..frontend import type_kernel
from ..frontend.program import annotation_types
from ..frontend.source import read_function
from ..types import parse_type
from .args import argument_types, device_value, parameter_names
from .base import Primitive


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
        """Compyle-compatible: the local memory for ``c_type`` elements as the
        backend's raw launches take it (a ``pyopencl.LocalMemory`` on OpenCL)."""
        return get_backend(self.backend).local_memory(
            self.nbytes(parse_type(c_type).dtype, workgroup_size))


def low_level_types(func, params, args, backend, config, where):
    """The kernel types of the call arguments ``args`` of a low-level Kernel
    or compiled function (LocalMem arguments must be annotated local pointers)."""
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
        types = low_level_types(self.func, self._params, args, be, config, self._where())
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


__all__ = ["Kernel", "LocalMem", "kernel_backends", "low_level_types"]
