"""The :class:`Array` type and the functions that make Arrays (``wrap``,
``zeros``, ``arange``, ...); see :mod:`pcompute.array`.

An :class:`Array` has a device array ``dev`` (a numpy array on the host
backends ``python`` and ``cython``, a ``pyopencl.array.Array`` on ``opencl``,
a ``pycuda`` ``GPUArray`` on ``cuda``) and a host array ``data``.  On the host
backends ``data is dev`` and :meth:`Array.pull` / :meth:`Array.push` do
nothing.  On device backends ``data`` is a host mirror that is only up to date
after :meth:`~Array.pull` and only reaches the device with
:meth:`~Array.push`: nothing is copied between host and device behind the
user's back, except in the operations whose docstrings say they run on the
host (creation with :func:`arange` / :func:`linspace`).

Precision: float64 data wrapped or created for a GPU backend (``opencl``,
``cuda``) while ``get_config().use_double`` is False is stored as float32, as
Compyle users expect; a :class:`~pcompute.errors.PrecisionWarning` says so once
per process.  Set ``get_config().use_double = True`` to keep float64.

The class is put together here from single-purpose parts: the storage and
transfers (:mod:`.storage`), size and views (:mod:`.resizing`), index kernels
(:mod:`.gathers`), indexing (:mod:`.indexing`), operators (:mod:`.operators`),
the numpy protocol and printing (:mod:`.printing`); the checks of what users
pass are in :mod:`.checks`.  The methods that run kernels use
:mod:`pcompute.primitives.library` and :mod:`pcompute.views`, which work on
device buffers and never import this package.
"""
import numpy as np

from ..errors import KernelValueError
from .checks import (GROWTH, MIN_CAPACITY, _backend_of, _check_length,  # noqa: F401
                     get_backend, get_backend_name)
from .gathers import GathersMixin
from .indexing import IndexingMixin
from .operators import OperatorsMixin
from .printing import PrintingMixin
from .resizing import ResizingMixin
from .storage import ArrayStorage

__all__ = ["Array", "wrap", "wrap_array", "to_device", "zeros", "ones", "empty", "zeros_like",
           "ones_like", "empty_like", "arange", "linspace", "get_backend_name"]


class Array(ResizingMixin, GathersMixin, IndexingMixin, OperatorsMixin, PrintingMixin,
            ArrayStorage):
    """An array on a backend (Compyle's ``Array``), 1-D or of any rank up to 8.

    The Compyle operations (append, resize, align, ...) work on contiguous
    1-D Arrays; n-D Arrays and strided views have ``shape``, ``ndim``,
    ``strides``, ``reshape``, ``T``/``transpose``, basic slicing that makes
    views without a copy on every backend, and ``pull``/``push``/``get``
    that keep the shape.

    ``Array(dtype, n=0, allocate=True, backend=None)`` allocates ``n``
    uninitialised elements (capacity 16 when ``n`` is 0) on ``backend`` (a
    name; None: the configured backend).  Attributes:

    ``dev``      the device array (a numpy array on host backends)
    ``data``     the host array; ``data is dev`` on host backends, else a host
                 mirror valid after :meth:`pull`
    ``length``   the number of elements (``len(a)``)
    ``dtype``    the numpy dtype as stored (float64 may become float32, see
                 the module docstring)
    ``backend``  the backend name; ``alloc`` is the allocated capacity

    Raises :class:`~pcompute.errors.BackendUnavailableError` if the backend
    cannot run here.
    """


# ---------------------------------------------------------------- functions

def _wrap_one(value, backend):
    if isinstance(value, Array):
        if value._backend is backend:
            return value
        # get() is a private host copy: it becomes the new Array's host data
        # (valid without a pull, as in Compyle), never shared with ``value``.
        return Array._from_host(value.get(), backend, share=True)
    if not backend.on_host and backend.is_device_array(value):
        return Array._wrap_device(value, backend)
    return Array._from_host(value, backend, share=True)


def wrap(*arrays, backend=None):
    """Wrap numpy arrays as Arrays on ``backend`` (None: the configured one).

    One array gives one Array, several give a list.  On host backends the
    Array uses the numpy array itself (no copy) when it is contiguous and its
    dtype is kept; on device backends the data is copied to the device and the
    numpy array becomes the ``data`` mirror, so ``a.pull()`` updates it.
    Device arrays of the backend are wrapped without a copy.  n-D input keeps
    its shape (``a.shape``, ``a[1:-1, ::2]`` views, see :doc:`ndarrays`); a 0-D
    array raises :class:`~pcompute.errors.KernelValueError`; non-contiguous
    input is copied.
    """
    if not arrays:
        raise KernelValueError("wrap() needs at least one array")
    be = _backend_of(backend)
    result = [_wrap_one(a, be) for a in arrays]
    return result[0] if len(result) == 1 else result


def wrap_array(arr, backend=None):
    """Compyle's one-array :func:`wrap`: ``arr`` as an Array on ``backend``."""
    return _wrap_one(arr, _backend_of(backend))


def to_device(array, backend=None):
    """An Array holding a copy of ``array`` (numpy array or Array) on ``backend``.

    Unlike :func:`wrap` it never shares memory with ``array``.
    """
    be = _backend_of(backend)
    if isinstance(array, Array):
        if array._backend is be:
            return array.copy()
        array = array.get()
    return Array._from_host(array, be, share=False)


def adopt(dev, backend):
    """An Array around ``dev``, a contiguous 1-D device array of ``backend``
    (a Backend object) in a dtype the backend stores as it is, that the
    caller has just allocated: no copy and no checks.  The quick
    constructor for layers that allocate an output per call
    (pcompute.numpy); user data goes through :func:`wrap`."""
    obj = Array.__new__(Array)
    obj._setup(backend, dev.dtype)
    obj._buf = obj._dev = dev
    obj.length = dev.shape[0]
    return obj


def empty(n, dtype, backend=None):
    """An Array of ``n`` uninitialised elements."""
    return Array(dtype, n=_check_length(n), backend=backend)


def zeros(n, dtype, backend=None):
    """An Array of ``n`` zeros (filled on the device)."""
    a = empty(n, dtype, backend)
    a.fill(0)
    return a


def ones(n, dtype, backend=None):
    """An Array of ``n`` ones (filled on the device)."""
    a = empty(n, dtype, backend)
    a.fill(1)
    return a


def _like(a, backend):
    if isinstance(a, Array):
        return len(a), a.dtype, (a._backend if backend is None else backend)
    host = np.asarray(a)
    return len(host), host.dtype, backend


def empty_like(a, backend=None):
    """An uninitialised Array with the length and dtype of ``a`` (Array or numpy).

    An Array's backend is kept unless ``backend`` is given.
    """
    return empty(*_like(a, backend))


def zeros_like(a, backend=None):
    """Zeros with the length and dtype of ``a``; see :func:`empty_like`."""
    return zeros(*_like(a, backend))


def ones_like(a, backend=None):
    """Ones with the length and dtype of ``a``; see :func:`empty_like`."""
    return ones(*_like(a, backend))


def arange(start, stop, step=1, dtype=None, backend=None):
    """Like ``numpy.arange`` (dtype None: numpy's choice), as an Array.

    The values are made on the host and sent to the device.
    """
    return Array._from_host(np.arange(start, stop, step, dtype=dtype), _backend_of(backend),
                      share=False)


def linspace(start, stop, num, dtype=np.float64, backend=None, endpoint=True):
    """Like ``numpy.linspace``, as an Array (made on the host, sent to the device)."""
    values = np.linspace(start, stop, _check_length(num), endpoint=endpoint, dtype=dtype)
    return Array._from_host(values, _backend_of(backend), share=False)
