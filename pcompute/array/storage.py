"""The storage of an :class:`~pcompute.array.Array`: its device buffer,
shape and views of it, the host mirror and the transfers between them; see
:mod:`pcompute.array`.

:class:`ArrayStorage` is the base of ``Array``; the other parts of the class
(:mod:`.resizing`, :mod:`.gathers`, :mod:`.indexing`, :mod:`.operators`,
:mod:`.printing`) are mixins built on it, and :mod:`.core` puts them
together.  Methods that make a new Array make one of the class of ``self``
(``self._wrap_device``), which is ``Array``.
"""
import logging
import math

import numpy as np

from ..arraybase import ArrayBase
from ..errors import KernelTypeError, KernelValueError
from ..types import MAX_NDIM
from ..views import contiguous, copy_into, fill as fill_view
from .checks import (MIN_CAPACITY, _backend_of, _check_dtype, _check_length, _host_1d,
                     _storage_dtype)

logger = logging.getLogger("pcompute.array")


class ArrayStorage(ArrayBase):
    """The buffer, shape, host mirror and transfers of an Array (see the
    module docstring; the class users meet is :class:`pcompute.array.Array`)."""

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
        return self._wrap_view(self._dev.transpose(axes), self._backend, self)

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
        return self._wrap_view(self._dev.reshape(new), self._backend, self)

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
        if isinstance(values, ArrayStorage):
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
        if isinstance(dev, ArrayStorage):
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
            return self._wrap_device(self._backend.empty(0, self.dtype), self._backend)
        if not self._is_contiguous():
            return self._wrap_device(contiguous(self._backend, self._dev), self._backend)
        return self._wrap_device(self._backend.copy(self._dev), self._backend)

    def fill(self, value):
        """Set every element to ``value`` (on the device)."""
        backend, dev = self._backend, self._dev
        if not dev.size:
            return
        if backend.on_host or dev.flags.c_contiguous:
            backend.fill(dev, self.dtype.type(value))
        else:
            fill_view(backend, dev, value)


    @classmethod
    def _from_host(cls, values, backend, share):
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
            return cls._wrap_device(converted, backend)
        dev = backend.to_device(converted)
        return cls._wrap_device(dev, backend, host=converted if share else None)
