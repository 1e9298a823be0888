"""An :class:`~pcompute.array.Array` seen by numpy (``numpy.asarray(a)``)
and by people (``repr``, ``str``: a short preview); see :mod:`pcompute.array`.
"""
import numpy as np


class PrintingMixin:
    """The numpy protocol and printing of :class:`pcompute.array.Array` (a
    mixin of :class:`~.storage.ArrayStorage`)."""

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
