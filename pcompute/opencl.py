"""Compyle's ``compyle.opencl`` access to the OpenCL context and queue.

Code written for Compyle that calls PyOpenCL itself (``GenericScanKernel``,
``ElementwiseKernel``) takes the context and queue from here; they are the
ones pcompute's own arrays and kernels use, so work queued on them is ordered
with pcompute's.  The device is chosen once per process (``PYOPENCL_CTX`` is
honoured; see the configuration page of the docs).
"""
from .backends.registry import get_backend

__all__ = ["get_context", "get_queue"]


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
