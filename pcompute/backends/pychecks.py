"""Bounds checks on the python backend: array arguments become
:class:`CheckedArray` views (same memory) whose element accesses raise
:class:`~pcompute.errors.KernelIndexError` for an index outside the axis,
negative ones included (numpy would count those from the end, which the
compiled backends do not)."""
import linecache
import sys

import numpy as np

from ..errors import KernelIndexError, SourceLocation


class CheckedArray(np.ndarray):
    """A view of an array argument that checks every integer index."""

    def _check(self, key, depth=2):
        """Raise for an index outside its axis; ``depth``: frames up to the
        kernel's line."""
        keys = key if isinstance(key, tuple) else (key,)
        for axis, k in enumerate(keys[:self.ndim]):
            if isinstance(k, (int, np.integer)) and not isinstance(k, bool):
                n = self.shape[axis]
                if not 0 <= k < n:
                    frame = sys._getframe(depth)
                    filename, lineno = frame.f_code.co_filename, frame.f_lineno
                    raise KernelIndexError(
                        "index %d is out of range for axis %d of array %r (length %d) "
                        "in %s()" % (k, axis, getattr(self, "pc_name", "?"), n,
                                     getattr(self, "pc_kernel", "?")),
                        location=SourceLocation(filename, lineno,
                                                funcname=frame.f_code.co_name,
                                                line=linecache.getline(filename, lineno)),
                        hint="indices run from 0 to %d on that axis" % (n - 1)
                        if n > 0 else "that axis is empty")

    def __getitem__(self, key):
        self._check(key)
        return np.ndarray.__getitem__(self, key)

    def __setitem__(self, key, value):
        self._check(key)
        np.ndarray.__setitem__(self, key, value)


def checked_args(names, args, kernel):
    """``args`` with the numpy arrays among them as :class:`CheckedArray` views."""
    out = []
    for name, a in zip(names, args):
        if isinstance(a, np.ndarray) and a.ndim:
            a = a.view(CheckedArray)
            a.pc_name, a.pc_kernel = name, kernel
        out.append(a)
    return out
