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

The methods that run kernels (``remove``, ``align``, ``copy_values``,
``update_min_max``, strided copies) use :mod:`pcompute.primitives.library`
and :mod:`pcompute.views`, which work on device buffers and never import this
module.
"""
import logging
import math
import numbers
import operator
import sys
import warnings

import numpy as np

from ..arraybase import ArrayBase
from ..backends.registry import get_backend as _backend_object
from ..config import get_config
from ..errors import KernelTypeError, KernelValueError, PrecisionWarning
from ..primitives import library
from ..primitives.elementwise import Elementwise
from ..types import MAX_NDIM
from ..views import contiguous, copy_into, fill as fill_view

__all__ = ["Array", "wrap", "wrap_array", "to_device", "zeros", "ones", "empty", "zeros_like",
           "ones_like", "empty_like", "arange", "linspace", "get_backend_name"]

logger = logging.getLogger("pcompute.array")

#: Capacity of an Array created with no elements (room for a few appends).
MIN_CAPACITY = 16
#: Factor by which :meth:`Array.resize` grows the capacity when it must.
GROWTH = 2

_DTYPE_KINDS = "biuf"          # bool, signed, unsigned, floating
_precision_warned = False      # PrecisionWarning is emitted once per process


# ------------------------------------------------------------------ helpers

def _backend_of(backend):
    """The Backend object for a name, a Backend object or None (configured)."""
    if backend is not None and not isinstance(backend, str) \
            and not hasattr(backend, "on_host"):
        raise KernelValueError("backend must be a backend name or None, not %r"
                               % (backend,),
                               hint="use one of 'python', 'cython', 'opencl', 'cuda'")
    return _backend_object(backend)


def get_backend_name(backend=None):
    """The name of ``backend`` (a name, a backend object, or None: configured)."""
    return _backend_of(backend).name


# Compyle-compatible name: pcompute.array.get_backend(backend) gives a name.
get_backend = get_backend_name


def _check_dtype(dtype):
    """``dtype`` as a numpy dtype, if it is a kind kernels can use."""
    if dtype is None:
        raise KernelTypeError("an array needs a dtype, not None",
                              hint="pass e.g. numpy.float32 or numpy.int32")
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise KernelTypeError("%r is not a numpy dtype" % (dtype,),
                              hint="pass e.g. numpy.float32 or 'int32'") from None
    if dt.kind not in _DTYPE_KINDS or dt.shape or dt.fields:
        raise KernelTypeError("arrays of dtype %s are not supported" % dt,
                              hint="use a boolean, integer or floating point dtype")
    return dt


def _warn_demoted(backend):
    """Warn (once per process) that float64 is stored as float32."""
    global _precision_warned
    logger.debug("float64 data stored as float32 on the %s backend", backend.name)
    if _precision_warned or get_config().suppress_warnings:
        return
    _precision_warned = True
    frame, level = sys._getframe(0), 1
    while frame.f_back is not None \
            and frame.f_globals.get("__name__", "").startswith("pcompute"):
        frame, level = frame.f_back, level + 1
    warnings.warn(
        "float64 data is stored as float32 on the %s backend because "
        "get_config().use_double is False; set get_config().use_double = True "
        "(or PCOMPUTE_DOUBLE=1) to keep double precision, or pass float32 data "
        "to silence this warning" % backend.name, PrecisionWarning, stacklevel=level)


def _storage_dtype(dtype, backend):
    """The dtype data of ``dtype`` is stored as on ``backend`` (see module doc)."""
    dt = _check_dtype(dtype)
    if dt == np.float64 and backend.demote_double(get_config()):
        _warn_demoted(backend)
        return np.dtype(np.float32)
    return dt


def _check_length(n):
    if isinstance(n, bool) or not isinstance(n, (numbers.Integral, np.integer)):
        raise KernelTypeError("an array length must be an integer, not %r" % (n,))
    if n < 0:
        raise KernelValueError("an array length must be >= 0, not %d" % n)
    return int(n)


def _is_int(key):
    return isinstance(key, (numbers.Integral, np.integer)) and not isinstance(key, bool)


def _is_scalar(value):
    return isinstance(value, (numbers.Number, np.generic)) or \
        (isinstance(value, np.ndarray) and value.ndim == 0)


def _host_1d(values, dtype=None, what="the data"):
    """``values`` as a contiguous 1-D numpy array (of ``dtype`` if given)."""
    host = np.asarray(values)
    if host.ndim != 1:
        raise KernelValueError("%s must be 1-D, got a %d-D array of shape %s"
                               % (what, host.ndim, host.shape),
                               hint="pass x.ravel() and index it as x[i*n + j]")
    if dtype is not None and host.dtype != dtype:
        host = host.astype(dtype)
    if not host.flags.c_contiguous:
        logger.debug("%s is not contiguous: copying it", what)
        host = np.ascontiguousarray(host)
    return host


def _index_array(indices, length, what):
    """Integer indices (Array, numpy array or sequence) as a host array in range."""
    if isinstance(indices, Array):
        indices = indices.get()
    idx = np.asarray(indices)
    if idx.ndim != 1 or (idx.size and idx.dtype.kind not in "iu"):
        raise KernelValueError("%s needs a 1-D array of integer indices, got %s of "
                               "dtype %s" % (what, idx.shape, idx.dtype))
    idx = idx.astype(np.int64, copy=False)
    if idx.size and (idx.min() < 0 or idx.max() >= length):
        raise KernelValueError("%s: indices must lie in [0, %d), got values from %d "
                               "to %d" % (what, length, idx.min(), idx.max()))
    return idx


def _clear_mask(i, idx, mask):
    mask[idx[i]] = 0


def _check_device_indices(idx, length, what):
    """Range-check device indices with two reductions (no host copy)."""
    if idx.dtype.kind not in "iu":
        raise KernelValueError("%s needs integer indices, got dtype %s" % (what, idx.dtype))
    if len(idx) == 0:
        return
    be = idx._backend
    low, high = library.extremum("minimum", idx, be), library.extremum("maximum", idx, be)
    if low < 0 or high >= length:
        raise KernelValueError("%s: indices must lie in [0, %d), got values from %d "
                               "to %d" % (what, length, low, high))


# -------------------------------------------------------------------- Array

class Array(ArrayBase):
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

    # Make numpy defer to our reflected operators (ndarray + Array).
    __array_priority__ = 1000

    # ``_dev`` is what ``dev`` returns (see pcompute.arraybase).
    DEV_ATTRIBUTE = "_dev"

    def __init__(self, dtype, n=0, allocate=True, backend=None):
        be = _backend_of(backend)
        be.require()
        self._setup(be, _storage_dtype(dtype, be))
        n = _check_length(n)
        capacity = (n or MIN_CAPACITY) if allocate else 0
        self._set_buffer(be.empty(capacity, self.dtype), n if allocate else 0)

    # -- construction helpers ---------------------------------------------------
    def _setup(self, backend, dtype):
        self._backend = backend
        self.backend = backend.name
        self.dtype = np.dtype(dtype)
        self._host = None        # host mirror (device backends only)
        self._base = None        # the Array this one is a view of
        self._buf = None         # allocated device buffer (capacity)
        self._dev = None         # self._buf[:length]
        self.length = 0

    @classmethod
    def _wrap_view(cls, dev, backend, base=None):
        """An Array around a device array of any rank and strides (a view of
        ``base``'s memory): no copy, no checks of contiguity."""
        obj = cls.__new__(cls)
        obj._setup(backend, _check_dtype(dev.dtype))
        obj._buf = obj._dev = dev
        obj.length = dev.shape[0] if len(dev.shape) else 0
        obj._base = base
        return obj

    @classmethod
    def _wrap_device(cls, dev, backend, host=None):
        """An Array around an existing device array (no copy, no conversion)."""
        obj = cls.__new__(cls)
        obj._setup(backend, dev.dtype)
        obj.set_data(dev)
        obj._host = host
        return obj

    def _set_buffer(self, buf, length):
        self._buf = buf
        self.length = length
        self._update_dev()

    def _update_dev(self):
        buf = self._buf
        self._dev = buf if self.length == len(buf) else buf[:self.length]

    # -- attributes ---------------------------------------------------------------
    @property
    def shape(self):
        """The shape (a tuple; ``(length,)`` for a 1-D Array)."""
        return tuple(self._dev.shape)

    @property
    def ndim(self):
        """The number of axes."""
        return len(self._dev.shape)

    @property
    def size(self):
        """The number of elements (the product of the shape)."""
        return math.prod(self._dev.shape)

    @property
    def strides(self):
        """The strides in bytes, as numpy gives them."""
        return tuple(self._dev.strides)

    @property
    def T(self):
        """The transpose: a view with the axes reversed (no copy)."""
        return self.transpose()

    def transpose(self, *axes):
        """A view with the axes permuted (reversed when none are given), as
        ``numpy.transpose``; no copy on any backend."""
        if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
            axes = tuple(axes[0])
        axes = tuple(axes) or tuple(range(self.ndim))[::-1]
        if sorted(int(a) for a in axes) != list(range(self.ndim)):
            raise KernelValueError("transpose(%s): the axes must be a permutation of "
                                   "0..%d" % (", ".join(map(str, axes)), self.ndim - 1))
        return Array._wrap_view(self._dev.transpose(axes), self._backend, self)

    def reshape(self, *shape):
        """A view with another shape and the same elements in C order (one
        dimension may be -1).  Only contiguous arrays can be reshaped without a
        copy: reshape a strided view's ``copy()``."""
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        if not self._dev.flags.c_contiguous:
            raise KernelValueError("reshape() of a strided view (strides %s) would need "
                                   "a copy" % (self.strides,),
                                   hint="reshape a contiguous copy: a.copy().reshape(...)")
        try:
            new = np.empty(self.shape, np.int8).reshape(shape).shape
        except ValueError as exc:
            raise KernelValueError("cannot reshape an Array of shape %s into %s: %s"
                                   % (self.shape, shape, exc)) from None
        return Array._wrap_view(self._dev.reshape(new), self._backend, self)

    def _is_contiguous(self):
        return bool(self._dev.flags.c_contiguous)

    def _require_1d(self, what):
        if self.ndim != 1 or not self._is_contiguous():
            raise KernelValueError("%s works on contiguous 1-D Arrays; this one has shape "
                                   "%s and strides %s" % (what, self.shape, self.strides),
                                   hint="work on the n-D array or view in a kernel, or "
                                        "on a 1-D copy: wrap(a.get().ravel())")

    @property
    def dev(self):
        """The device array (numpy on host backends); assigning calls :meth:`set_data`."""
        return self._dev

    @dev.setter
    def dev(self, value):
        self.set_data(value)

    @property
    def alloc(self):
        """The allocated capacity in elements (>= ``length``)."""
        return len(self._buf)

    @property
    def data(self):
        """The host array.

        On host backends this is ``dev`` itself.  On device backends it is a
        host mirror: call :meth:`pull` to fill it from the device and
        :meth:`push` to send changes back.  After the length changes the
        mirror is a new, uninitialised array until the next :meth:`pull`.
        """
        if self._backend.on_host:
            return self._dev
        host = self._host
        if host is None or host.shape != self.shape or host.dtype != self.dtype:
            host = self._host = np.empty(self.shape, self.dtype)
        return host

    @data.setter
    def data(self, values):
        if self.ndim != 1:
            host = np.ascontiguousarray(np.asarray(values, dtype=self.dtype))
            if host.shape != self.shape:
                raise KernelValueError("Array.data: values of shape %s given for an "
                                       "array of shape %s" % (host.shape, self.shape))
            if self._backend.on_host:
                self._dev[...] = host
            else:
                self._host = host
            return
        host = _host_1d(values, self.dtype, "Array.data")
        if len(host) != self.length:
            raise KernelValueError(
                "Array.data: %d values given for an array of length %d"
                % (len(host), self.length), hint="use a.set(values) to change the length")
        if self._backend.on_host:
            self._dev[...] = host
        else:
            self._host = host

    def _check_other(self, other, what):
        if other._backend is not self._backend:
            raise KernelValueError(
                "%s: the arrays are on different backends (%s and %s)"
                % (what, self.backend, other.backend),
                hint="create both on one backend, or move one: wrap(a.get(), backend=...)")

    # -- transfers -------------------------------------------------------------------
    def pull(self):
        """Copy the device data into :attr:`data` (no-op on host backends).

        Returns the Array itself (Compyle returns None), so ``a.pull().data``
        works.
        """
        if not self._backend.on_host and self.size:
            self._backend.copy_to_host(contiguous(self._backend, self._dev), self.data)
        return self

    def push(self):
        """Copy :attr:`data` to the device (no-op on host backends); returns self."""
        if self._backend.on_host:
            return self
        host = self._host
        if host is None:
            logger.debug("push() without host data: nothing to send")
            return self
        if host.shape != self.shape:
            raise KernelValueError(
                "push(): the host data has %d elements but the array %d"
                % (len(host), self.length),
                hint="call pull() after changing the length, or use set(values)")
        if self.size and self._is_contiguous():
            self._backend.copy_to_device(host, self._dev)
        elif self.size:
            copy_into(self._backend, self._dev, self._backend.to_device(host))
        return self

    def get(self):
        """A new numpy array with the contents (pulled from the device first)."""
        return self.pull().data.copy()

    def set(self, values):
        """Replace the contents and length with ``values`` (numpy array or Array).

        The data is copied to the device; it never aliases ``values``.  On
        device backends :attr:`data` is valid again after :meth:`pull`.
        """
        if isinstance(values, Array):
            self._check_other(values, "set()")
            src = values.dev if values.dtype == self.dtype else values.dev.astype(self.dtype)
            self.resize(len(src))
            if len(src):
                self._dev[0:len(src)] = src
            return
        host = _host_1d(values, self.dtype, "set()")
        self.resize(len(host))
        if len(host):
            self._backend.copy_to_device(host, self._dev)

    def set_data(self, dev):
        """Use the device array ``dev`` (or another Array's) as this Array's storage.

        No copy: the Array's length, capacity and dtype become those of ``dev``.
        """
        if isinstance(dev, Array):
            self._check_other(dev, "set_data()")
            dev = dev.dev
        if not self._backend.is_device_array(dev):
            raise KernelTypeError(
                "set_data() needs a device array of the %s backend, not a %s"
                % (self.backend, type(dev).__name__),
                hint="use set(values) to copy host data to the device")
        if not 1 <= len(dev.shape) <= MAX_NDIM:
            raise KernelValueError("set_data() needs an array of rank 1 to %d, got shape "
                                   "%s" % (MAX_NDIM, dev.shape,))
        if not dev.flags.c_contiguous:
            raise KernelValueError("set_data() needs a contiguous array")
        self.dtype = _check_dtype(dev.dtype)
        self._host = None
        self._base = None
        self._set_buffer(dev, len(dev))

    def get_data(self):
        """The whole allocated device buffer (``alloc`` elements)."""
        return self._buf

    def get_array(self):
        """A view of the ``length`` used elements (Compyle name)."""
        return self.get_view()

    # -- whole-array operations ---------------------------------------------------
    def copy(self):
        """A new Array with a device copy of the contents (contiguous, with the
        shape of this one)."""
        if self.size == 0 and self.ndim == 1:
            return Array._wrap_device(self._backend.empty(0, self.dtype), self._backend)
        if not self._is_contiguous():
            return Array._wrap_device(contiguous(self._backend, self._dev), self._backend)
        return Array._wrap_device(self._backend.copy(self._dev), self._backend)

    def fill(self, value):
        """Set every element to ``value`` (on the device)."""
        if not self.size:
            return
        if not self._backend.on_host and not self._is_contiguous():
            fill_view(self._backend, self._dev, value)
        else:
            self._backend.fill(self._dev, self.dtype.type(value))

    # -- size ------------------------------------------------------------------------
    def _realloc(self, capacity):
        """Move the contents into a new buffer of ``capacity`` elements."""
        logger.debug("reallocating %s array: %d -> %d elements",
                     self.backend, self.alloc, capacity)
        new = self._backend.empty(capacity, self.dtype)
        keep = min(self.length, capacity)
        if keep:
            new[0:keep] = self._dev[0:keep]
        self._base = None            # a view stops sharing memory here
        self._set_buffer(new, keep)

    def reserve(self, n):
        """Make room for at least ``n`` elements without changing the length."""
        self._require_1d("reserve()")
        n = _check_length(n)
        if n > self.alloc:
            self._realloc(n)

    def resize(self, n):
        """Set the length to ``n``, keeping the first ``min(n, length)`` elements.

        New elements are uninitialised.  The capacity grows geometrically (at
        least doubling) when it must, so repeated growth is amortised O(1); it
        never shrinks (see :meth:`squeeze`).  Growing a view beyond its
        capacity gives it its own memory.
        """
        self._require_1d("resize()")
        n = _check_length(n)
        if n > self.alloc:
            self._realloc(max(n, GROWTH * self.alloc))
        self.length = n
        self._update_dev()

    def squeeze(self):
        """Release the capacity beyond ``length``."""
        self._require_1d("squeeze()")
        if self.alloc > self.length:
            self._realloc(self.length)

    def _write(self, i, value):
        host = np.asarray([value], dtype=self.dtype)
        self._backend.copy_to_device(host, self._buf[i:i + 1])

    def append(self, value):
        """Append a scalar (or, like :meth:`extend`, an array) at the end.

        One small host-to-device transfer per call on device backends: prefer
        :meth:`extend` or a kernel for many values.
        """
        self._require_1d("append()")
        if not _is_scalar(value):
            self.extend(value)
            return
        k = self.length
        self.resize(k + 1)
        self._write(k, value)

    def extend(self, values):
        """Append the elements of ``values`` (an Array, numpy array or sequence).

        An Array is copied device to device; host values are sent to the device.
        """
        self._require_1d("extend()")
        k = self.length
        if isinstance(values, Array):
            self._check_other(values, "extend()")
            src = values.dev if values.dtype == self.dtype else values.dev.astype(self.dtype)
            n = len(src)
            self.resize(k + n)
            if n:
                self._buf[k:k + n] = src
            return
        host = _host_1d(values, self.dtype, "extend()")
        n = len(host)
        self.resize(k + n)
        if n:
            self._backend.copy_to_device(host, self._buf[k:k + n])

    def remove(self, indices, input_sorted=False):
        """Remove the elements at ``indices`` (Array, numpy array or sequence of ints).

        Repeated indices remove an element once.  ``input_sorted`` is accepted
        for Compyle compatibility.  Runs on the device: the indices clear a
        mask, and a scan compacts the kept elements (stream compaction).
        """
        self._require_1d("remove()")
        idx = indices if isinstance(indices, Array) else None
        if idx is None or idx.backend != self.backend:
            idx = wrap(_index_array(indices, self.length, "remove()"),
                       backend=self.backend)
        else:
            _check_device_indices(idx, self.length, "remove()")
        if len(idx) == 0:
            return
        mask = ones(self.length, np.int8, backend=self.backend)
        library.cached(("clear_mask", self.backend), lambda: Elementwise(
            _clear_mask, backend=self.backend))(idx, mask)
        kept = empty(self.length, self.dtype, backend=self.backend)
        count = zeros(1, np.int64, backend=self.backend)
        library.compact(mask, self, kept, count, self._backend)
        kept.resize(int(count[0]))
        kept.squeeze()
        self.set_data(kept.dev)

    def align(self, indices, out=None):
        """A new Array ``r`` with ``r[i] = self[indices[i]]`` (a gather on the
        device).  ``out``, if given, is an Array receiving the result (resized
        to fit) and is returned."""
        self._require_1d("align()")
        if not isinstance(indices, Array):
            indices = wrap(_index_array(indices, self.length, "align()"),
                           backend=self.backend)
        self._check_other(indices, "align()")
        library.check_indices(indices, self.length, self._backend, "align()")
        if out is None:
            out = empty(len(indices), self.dtype, backend=self.backend)
        else:
            if not isinstance(out, Array):
                raise KernelTypeError("align(): out must be an Array, not a %s"
                                      % type(out).__name__)
            self._check_other(out, "align()")
            if out.dtype != self.dtype:
                raise KernelTypeError("align(): out has dtype %s, but %s is needed"
                                      % (out.dtype, self.dtype))
            out.resize(len(indices))
        library.gather(indices, [self], [out], self._backend)
        return out

    def copy_values(self, indices, dest):
        """``dest[i] = self[indices[i]]`` for ``i < len(indices)``, on the
        device (Compyle's ``copy_values``); ``dest`` is an Array of this
        backend and dtype, at least as long as ``indices``; indices are
        checked to lie in ``[0, len(self))``."""
        self._require_1d("copy_values()")
        if not isinstance(indices, Array):
            indices = wrap(_index_array(indices, self.length, "copy_values()"),
                           backend=self.backend)
        self._check_other(indices, "copy_values()")
        if not isinstance(dest, Array) or dest.backend != self.backend or \
                dest.dtype != self.dtype:
            raise KernelTypeError("copy_values(): dest must be an Array of the %s backend "
                                  "with dtype %s" % (self.backend, self.dtype),
                                  hint="dest = pcompute.array.empty(len(indices), a.dtype)")
        n = len(indices)
        if len(dest) < n:
            raise KernelValueError("copy_values(): dest has %d elements, fewer than the %d "
                                   "indices" % (len(dest), n))
        library.check_indices(indices, self.length, self._backend, "copy_values()")
        target = dest if len(dest) == n else dest.get_view(0, n)
        library.gather(indices, [self], [target], self._backend)

    def update_min_max(self, only_min=False, only_max=False):
        """Store the smallest and largest elements in ``minimum``/``maximum``."""
        self._require_1d("update_min_max()")
        if only_min and only_max:
            raise KernelValueError("update_min_max(): only one of only_min and only_max "
                                   "can be True")
        if not only_max:
            self.minimum = library.extremum("minimum", self, self._backend)
        if not only_min:
            self.maximum = library.extremum("maximum", self, self._backend)

    def get_view(self, offset=0, length=None, end=None):
        """An Array sharing memory with elements ``[offset, offset + length)``.

        Compyle's signature: ``length`` defaults to the rest of the array;
        ``end=`` may be given instead of ``length``.  Writes through either
        Array are seen by the other (on device backends ``data`` mirrors are
        separate).  The view stops sharing if either is reallocated.
        """
        self._require_1d("get_view()")
        start = _check_length(offset)
        if length is not None and end is not None:
            raise KernelValueError("get_view(): give length or end, not both")
        if length is not None:
            stop = start + _check_length(length)
        else:
            stop = self.length if end is None else _check_length(end)
        if not start <= stop <= self.length:
            raise KernelValueError("get_view(): [%d, %d) is not inside [0, %d)"
                                   % (start, stop, self.length))
        slicer = getattr(self._backend, "view", None)
        if start == stop:          # pycuda cannot slice an empty array (no pointer)
            dev = self._backend.empty(0, self.dtype)
        else:
            dev = slicer(self._dev, start, stop) if slicer else self._dev[start:stop]
        view = Array._wrap_device(dev, self._backend)
        view._base = self
        return view

    # -- indexing ----------------------------------------------------------------------
    def __len__(self):
        return self.length

    def _index(self, key):
        i = int(key)
        if i < 0:
            i += self.length
        if not 0 <= i < self.length:
            raise IndexError("index %d is out of range for an Array of length %d"
                             % (int(key), self.length))
        return i

    def _slice(self, key):
        start, stop, step = key.indices(self.length)
        if step != 1:
            raise KernelValueError("Array slices take step 1, not %d" % step,
                                   hint="gather with a.align(indices) instead")
        return start, max(start, stop)

    def _basic_key(self, key):
        """``key`` as a tuple of ints (in range, made non-negative) and slices."""
        key = key if isinstance(key, tuple) else (key,)
        if len(key) > self.ndim:
            raise IndexError("%d indices for an Array of rank %d" % (len(key), self.ndim))
        out = []
        for axis, k in enumerate(key):
            if _is_int(k):
                n = self.shape[axis]
                i = int(k) + n if k < 0 else int(k)
                if not 0 <= i < n:
                    raise IndexError("index %d is out of range for axis %d of length %d"
                                     % (int(k), axis, n))
                out.append(i)
            elif isinstance(k, slice):
                out.append(k)
            else:
                raise KernelTypeError(
                    "n-D Arrays take ints and slices as indices (basic indexing), not %s"
                    % type(k).__name__,
                    hint="gather in a kernel, or index the host copy: a.get()[...]")
        return tuple(out)

    def _nd_getitem(self, key):
        key = self._basic_key(key)
        if len(key) == self.ndim and all(_is_int(k) for k in key):
            if self._backend.on_host:
                return self._dev[key]
            return self._backend.to_host(self._dev[key])[()]
        return Array._wrap_view(self._dev[key], self._backend, self)

    def _nd_setitem(self, key, value):
        key = self._basic_key(key)
        if all(_is_int(k) for k in key) and len(key) == self.ndim:
            key = tuple(slice(k, k + 1) for k in key)   # one element, as a view
        target = Array._wrap_view(self._dev[key], self._backend, self)
        if _is_scalar(value):
            target.fill(value)
            return
        if isinstance(value, Array):
            self._check_other(value, "assignment")
            src = value.copy().dev if not value._is_contiguous() else value.dev
        else:
            src = np.ascontiguousarray(np.asarray(value, dtype=self.dtype))
        if tuple(src.shape) != target.shape:
            raise KernelValueError("cannot assign values of shape %s to a view of shape %s"
                                   % (tuple(src.shape), target.shape),
                                   hint="give values of the view's shape")
        if self._backend.on_host:
            target._dev[...] = src
            return
        if not isinstance(value, Array):
            src = self._backend.to_device(src)
        copy_into(self._backend, target._dev, src)

    def __getitem__(self, key):
        """``a[i]`` pulls one element; ``a[i:j]`` is a view; ``a[idx]`` gathers.

        n-D Arrays and strided views take basic indexing: ``a[i, j]`` pulls
        one element, ``a[1:-1, ::2]`` (ints and slices) is a view sharing memory
        on every backend (a buffer, an offset and strides on OpenCL/CUDA).
        """
        if self.ndim != 1 or isinstance(key, tuple) or not self._is_contiguous() or (
                isinstance(key, slice) and key.step not in (None, 1)):
            return self._nd_getitem(key)
        if _is_int(key):
            i = self._index(key)
            return self._backend.to_host(self._dev[i:i + 1])[0]
        if isinstance(key, slice):
            start, stop = self._slice(key)
            return self.get_view(start, end=stop)
        if isinstance(key, (Array, np.ndarray, list)):
            return self.align(key)
        raise KernelTypeError("Arrays are indexed by an int, a slice or an index array, "
                              "not %s" % type(key).__name__)

    def __setitem__(self, key, value):
        """``a[i] = x``; ``a[i:j] = scalar | numpy array | Array`` (on the device);
        on n-D Arrays and views, basic indexing: ``a[1:-1, 0] = 0.0``."""
        if self.ndim != 1 or isinstance(key, tuple) or not self._is_contiguous() or (
                isinstance(key, slice) and key.step not in (None, 1)):
            self._nd_setitem(key, value)
            return
        if _is_int(key):
            self._write(self._index(key), value)
            return
        if not isinstance(key, slice):
            raise KernelTypeError("Array assignment takes an int or a slice index, "
                                  "not %s" % type(key).__name__)
        start, stop = self._slice(key)
        n = stop - start
        if _is_scalar(value):
            if n:
                self._backend.fill(self._buf[start:stop], self.dtype.type(value))
            return
        if isinstance(value, Array):
            self._check_other(value, "slice assignment")
            src = value.dev if value.dtype == self.dtype else value.dev.astype(self.dtype)
        else:
            src = _host_1d(value, self.dtype, "slice assignment")
        if len(src) != n:
            raise KernelValueError("cannot assign %d values to a slice of %d elements"
                                   % (len(src), n))
        if not n:
            return
        if isinstance(value, Array):
            self._buf[start:stop] = src
        else:
            self._backend.copy_to_device(src, self._buf[start:stop])

    def __iter__(self):
        return iter(self.get())

    def __bool__(self):
        if self.length != 1:
            raise KernelValueError("the truth value of an Array of length %d is "
                                   "ambiguous" % self.length,
                                   hint="compare elements after a.get()")
        return bool(self[0])

    # -- arithmetic and comparisons -----------------------------------------------
    def _operand(self, other, what):
        """The device-side operand for ``other``, or NotImplemented."""
        if isinstance(other, Array):
            self._check_other(other, what)
            if other.length != self.length:
                raise KernelValueError("%s: lengths differ (%d and %d)"
                                       % (what, self.length, other.length))
            return other.dev
        if isinstance(other, np.ndarray) and other.ndim == 0:
            return other[()]
        if isinstance(other, (numbers.Number, np.generic)):
            return other
        if isinstance(other, np.ndarray):
            if not self._backend.on_host:
                raise KernelTypeError("%s: a numpy array with a %s Array"
                                      % (what, self.backend),
                                      hint="wrap it first: wrap(x)")
            if other.shape != (self.length,):
                raise KernelValueError("%s: shapes differ (%d,) and %s"
                                       % (what, self.length, other.shape))
            return other
        return NotImplemented

    def _binary(self, other, op, what, reflected=False, compare=False):
        b = self._operand(other, what)
        if b is NotImplemented:
            return NotImplemented
        if self.length == 0:
            # No launch for nothing (pycuda cannot pass an empty array's null
            # pointer): the result's dtype is what numpy gives for the operands.
            probe = np.zeros(0, self.dtype)
            other_probe = b if _is_scalar(b) else np.zeros(0, b.dtype)
            dtype = (op(other_probe, probe) if reflected else op(probe, other_probe)).dtype
            if compare and not self._backend.on_host:
                dtype = np.dtype(np.int8)
            return Array._wrap_device(self._backend.empty(0, dtype), self._backend)
        result = op(b, self._dev) if reflected else op(self._dev, b)
        if compare and np.dtype(result.dtype).kind not in "biu":
            # pycuda's comparisons give 1.0/0.0 in the operands' dtype; pyopencl
            # gives int8, numpy bool: a comparison is always an integer mask.
            result = result.astype(np.int8)
        return Array._wrap_device(result, self._backend)

    def __add__(self, other):
        return self._binary(other, operator.add, "+")

    def __radd__(self, other):
        return self._binary(other, operator.add, "+", reflected=True)

    def __sub__(self, other):
        return self._binary(other, operator.sub, "-")

    def __rsub__(self, other):
        return self._binary(other, operator.sub, "-", reflected=True)

    def __lt__(self, other):
        return self._binary(other, operator.lt, "<", compare=True)

    def __le__(self, other):
        return self._binary(other, operator.le, "<=", compare=True)

    def __gt__(self, other):
        return self._binary(other, operator.gt, ">", compare=True)

    def __ge__(self, other):
        return self._binary(other, operator.ge, ">=", compare=True)

    def __eq__(self, other):
        return self._binary(other, operator.eq, "==", compare=True)

    def __ne__(self, other):
        return self._binary(other, operator.ne, "!=", compare=True)

    __hash__ = None

    # -- numpy and printing ------------------------------------------------------
    def __array__(self, dtype=None, copy=None):
        """``numpy.asarray(a)``: pulls, then returns :attr:`data` (or a copy)."""
        out = self.pull().data
        if dtype is not None and np.dtype(dtype) != out.dtype:
            return out.astype(dtype)
        return out.copy() if copy else out

    def _preview(self):
        if self.length <= 10:
            return np.array2string(self.get(), separator=", ")
        head = self._backend.to_host(self._dev[0:3])
        tail = self._backend.to_host(self._dev[self.length - 3:self.length])
        return "[%s, ..., %s]" % (np.array2string(head, separator=", ")[1:-1],
                                  np.array2string(tail, separator=", ")[1:-1])

    def __repr__(self):
        return "Array(%s, length=%d, dtype=%s, backend=%r)" % (
            self._preview(), self.length, self.dtype, self.backend)

    def __str__(self):
        return self._preview()


# ---------------------------------------------------------------- functions

def _from_host(values, backend, share):
    """An Array with the contents of host ``values`` on ``backend``.

    With ``share``, the Array uses ``values`` itself where it can (as ``dev``
    on host backends, as the ``data`` mirror on device backends).
    """
    host = np.asarray(values)
    if not 1 <= host.ndim <= MAX_NDIM:
        raise KernelValueError("arrays of rank 1 to %d can be wrapped, got a %d-D array "
                               "of shape %s" % (MAX_NDIM, host.ndim, host.shape),
                               hint="wrap a numpy array with at least one axis")
    backend.require()
    dtype = _storage_dtype(host.dtype, backend)
    if host.ndim == 1:
        converted = _host_1d(host, dtype, "the array")
    else:
        converted = np.ascontiguousarray(host, dtype=dtype)
    if backend.on_host:
        if not share and converted is host:
            converted = host.copy()
        return Array._wrap_device(converted, backend)
    dev = backend.to_device(converted)
    return Array._wrap_device(dev, backend, host=converted if share else None)


def _wrap_one(value, backend):
    if isinstance(value, Array):
        if value._backend is backend:
            return value
        # get() is a private host copy: it becomes the new Array's host data
        # (valid without a pull, as in Compyle), never shared with ``value``.
        return _from_host(value.get(), backend, share=True)
    if not backend.on_host and backend.is_device_array(value):
        return Array._wrap_device(value, backend)
    return _from_host(value, backend, share=True)


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
    return _from_host(array, be, share=False)


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
    return _from_host(np.arange(start, stop, step, dtype=dtype), _backend_of(backend),
                      share=False)


def linspace(start, stop, num, dtype=np.float64, backend=None, endpoint=True):
    """Like ``numpy.linspace``, as an Array (made on the host, sent to the device)."""
    values = np.linspace(start, stop, _check_length(num), endpoint=endpoint, dtype=dtype)
    return _from_host(values, _backend_of(backend), share=False)
