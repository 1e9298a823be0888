"""Indexing of an :class:`~pcompute.array.Array`: ``a[i]``, slices as views,
index arrays as gathers, basic n-D indexing, ``len``, iteration and truth;
see :mod:`pcompute.array`.
"""
import numpy as np

from ..errors import KernelTypeError, KernelValueError
from .checks import _host_1d, _is_int, _is_scalar
from .storage import ArrayStorage
from ..views import copy_into


class IndexingMixin:
    """The indexing methods of :class:`pcompute.array.Array` (a mixin of
    :class:`~.storage.ArrayStorage`)."""

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
        return self._wrap_view(self._dev[key], self._backend, self)

    def _nd_setitem(self, key, value):
        key = self._basic_key(key)
        if all(_is_int(k) for k in key) and len(key) == self.ndim:
            key = tuple(slice(k, k + 1) for k in key)   # one element, as a view
        target = self._wrap_view(self._dev[key], self._backend, self)
        if _is_scalar(value):
            target.fill(value)
            return
        if isinstance(value, ArrayStorage):
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
        if not isinstance(value, ArrayStorage):
            src = self._backend.to_device(src)
        copy_into(self._backend, target._dev, src)

    def __getitem__(self, key):
        """``a[i]`` pulls one element; ``a[i:j]`` is a view; ``a[idx]`` gathers.

        n-D Arrays and strided views take basic indexing: ``a[i, j]`` pulls
        one element, ``a[1:-1, ::2]`` (ints and slices) is a view sharing memory
        on every backend (a buffer, an offset and strides on OpenCL/CUDA).
        """
        dev = self._dev
        if type(key) is int and len(dev.shape) == 1 and -self.length <= key < self.length \
                and dev.flags.c_contiguous:
            i = key + self.length if key < 0 else key     # the common case, checked first
            return self._backend.to_host(dev[i:i + 1])[0]
        if self.ndim != 1 or isinstance(key, tuple) or not self._is_contiguous() or (
                isinstance(key, slice) and key.step not in (None, 1)):
            return self._nd_getitem(key)
        if _is_int(key):
            i = self._index(key)
            return self._backend.to_host(self._dev[i:i + 1])[0]
        if isinstance(key, slice):
            start, stop = self._slice(key)
            return self.get_view(start, end=stop)
        if isinstance(key, (ArrayStorage, np.ndarray, list)):
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
        if isinstance(value, ArrayStorage):
            self._check_other(value, "slice assignment")
            src = value.dev if value.dtype == self.dtype else value.dev.astype(self.dtype)
        else:
            src = _host_1d(value, self.dtype, "slice assignment")
        if len(src) != n:
            raise KernelValueError("cannot assign %d values to a slice of %d elements"
                                   % (len(src), n))
        if not n:
            return
        if isinstance(value, ArrayStorage):
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
