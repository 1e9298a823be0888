"""Compyle's ``compyle.opencl`` access to the OpenCL context and queue.

Code written for Compyle that calls PyOpenCL itself (``GenericScanKernel``,
``ElementwiseKernel``) takes the context and queue from here; they are the
ones pcompute's own arrays and kernels use, so work queued on them is ordered
with pcompute's.  The device is chosen once per process (``PYOPENCL_CTX`` is
honoured; see the configuration page of the docs) unless the program sets its
own with :func:`set_context` or :func:`set_queue`, as in Compyle.
"""
from .backends.registry import get_backend
from .build import opencl_builder

__all__ = ["get_context", "get_queue", "set_context", "set_queue"]


def get_queue():
    """The ``pyopencl.CommandQueue`` pcompute's OpenCL backend uses.

    Raises :class:`~pcompute.errors.BackendUnavailableError` (saying why)
    when no OpenCL device works here."""
    backend = get_backend("opencl")
    backend.require()
    return backend.queue


def get_context():
    """The ``pyopencl.Context`` of :func:`get_queue`."""
    return get_queue().context


def _pyopencl(what, value, cls_name):
    import pyopencl
    cls = getattr(pyopencl, cls_name)
    if not isinstance(value, cls):
        raise TypeError("pcompute.opencl.%s() needs a pyopencl.%s, got %s"
                        % (what, cls_name, type(value).__name__))


def set_context(ctx):
    """Make pcompute use the ``pyopencl.Context`` ``ctx`` from now on.

    New arrays and kernels use it, with a new command queue on it (see
    :func:`get_queue`); kernels are built again for it when next called.
    Arrays made before stay on their own context: make them again (or
    ``pull()`` them and wrap the data) before using them with new kernels;
    a kernel, reduction, scan or sort given one raises
    :class:`~pcompute.errors.KernelValueError` naming the argument.
    """
    _pyopencl("set_context", ctx, "Context")
    opencl_builder.set_context(ctx)


def set_queue(q):
    """Make pcompute use the ``pyopencl.CommandQueue`` ``q`` (and its context)
    from now on, e.g. a queue with profiling enabled or on another device;
    what :func:`set_context` says of arrays and kernels applies."""
    _pyopencl("set_queue", q, "CommandQueue")
    opencl_builder.set_queue(q)
