"""Length and capacity of an :class:`~pcompute.array.Array`: ``reserve``,
``resize``, ``squeeze``, ``append``, ``extend`` and ``get_view`` (a view of a
range of elements); see :mod:`pcompute.array`.
"""
import logging

import numpy as np

from ..errors import KernelValueError
from .checks import GROWTH, _check_length, _host_1d, _is_scalar
from .storage import ArrayStorage

logger = logging.getLogger("pcompute.array")


class ResizingMixin:
    """The size methods of :class:`pcompute.array.Array` (a mixin of
    :class:`~.storage.ArrayStorage`)."""

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
        if isinstance(values, ArrayStorage):
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
        view = self._wrap_device(dev, self._backend)
        view._base = self
        return view
