"""Compyle's ``compyle.low_level`` names: ``Kernel``, ``LocalMem``, ``Cython``, ``Extern``.

``Kernel(func)`` turns a function into an OpenCL ``__kernel`` or a CUDA
``__global__`` function, written with the work-item names ``LID_0..2``,
``GID_0..2``, ``LDIM_0..2``, ``GDIM_0..2`` and ``local_barrier()``, and
called as ``k(*args, global_size=(n,), local_size=(64,))``.  ``LocalMem(m)``
arguments give ``m * local_size`` elements of work-group local (OpenCL) or
shared (CUDA) memory.  ``Cython(func)`` compiles one function for direct use
from Python.  ``Extern`` lets users provide external C functions with a
Python fallback.

This module holds the Python meanings of the kernel-language names (work-item
ids, ``local_barrier``, ``prange``, ``nogil``, ``parallel``) and ``Extern``;
the classes live with the primitives (:mod:`pcompute.primitives.kernel`,
:mod:`pcompute.primitives.function`), printers in ``codegen/`` and launchers
in the backends.
"""
from .primitives.function import Cython  # noqa: F401
from .primitives.kernel import Kernel, LocalMem, kernel_backends  # noqa: F401
from .errors import KernelValueError
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
