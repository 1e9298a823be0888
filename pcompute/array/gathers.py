"""The operations of an :class:`~pcompute.array.Array` that run index
kernels on the device: ``remove`` (stream compaction), ``align`` and
``copy_values`` (gathers) and ``update_min_max`` (reductions); see
:mod:`pcompute.array`.  They use :mod:`pcompute.primitives.library`, which
works on device buffers and never imports the array package.
"""
import numpy as np

from ..errors import KernelTypeError, KernelValueError
from ..primitives import library
from ..primitives.elementwise import Elementwise
from .checks import _backend_of, _check_length
from .storage import ArrayStorage


def _index_array(indices, length, what):
    """Integer indices (Array, numpy array or sequence) as a host array in range."""
    if isinstance(indices, ArrayStorage):
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


def _new(like, n, dtype, fill=None):
    """A new Array of ``like``'s class and backend (``pcompute.array.empty``,
    ``zeros`` or ``ones`` with ``fill`` None, 0 or 1)."""
    a = type(like)(dtype, n=_check_length(n), backend=like.backend)
    if fill is not None:
        a.fill(fill)
    return a


def _wrap_indices(like, host):
    """Host indices as an Array on ``like``'s backend (``pcompute.array.wrap``)."""
    return like._from_host(host, _backend_of(like.backend), share=True)


class GathersMixin:
    """The index-kernel methods of :class:`pcompute.array.Array` (a mixin of
    :class:`~.storage.ArrayStorage`)."""

    def remove(self, indices, input_sorted=False):
        """Remove the elements at ``indices`` (Array, numpy array or sequence of ints).

        Repeated indices remove an element once.  ``input_sorted`` is accepted
        for Compyle compatibility.  Runs on the device: the indices clear a
        mask, and a scan compacts the kept elements (stream compaction).
        """
        self._require_1d("remove()")
        idx = indices if isinstance(indices, ArrayStorage) else None
        if idx is None or idx.backend != self.backend:
            idx = _wrap_indices(self, _index_array(indices, self.length, "remove()"))
        else:
            _check_device_indices(idx, self.length, "remove()")
        if len(idx) == 0:
            return
        mask = _new(self, self.length, np.int8, fill=1)
        library.cached(("clear_mask", self.backend), lambda: Elementwise(
            _clear_mask, backend=self.backend))(idx, mask)
        kept = _new(self, self.length, self.dtype)
        count = _new(self, 1, np.int64, fill=0)
        library.compact(mask, self, kept, count, self._backend)
        kept.resize(int(count[0]))
        kept.squeeze()
        self.set_data(kept.dev)

    def align(self, indices, out=None):
        """A new Array ``r`` with ``r[i] = self[indices[i]]`` (a gather on the
        device).  ``out``, if given, is an Array receiving the result (resized
        to fit) and is returned."""
        self._require_1d("align()")
        if not isinstance(indices, ArrayStorage):
            indices = _wrap_indices(self, _index_array(indices, self.length, "align()"))
        self._check_other(indices, "align()")
        library.check_indices(indices, self.length, self._backend, "align()")
        if out is None:
            out = _new(self, len(indices), self.dtype)
        else:
            if not isinstance(out, ArrayStorage):
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
        if not isinstance(indices, ArrayStorage):
            indices = _wrap_indices(self, _index_array(indices, self.length, "copy_values()"))
        self._check_other(indices, "copy_values()")
        if not isinstance(dest, ArrayStorage) or dest.backend != self.backend or \
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
