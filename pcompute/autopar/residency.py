"""The arrays of one call of a parallelised function, on the device.

NumPy arguments are wrapped once per call (the same array passed under two
names is wrapped once) and stay on the device between loop nests; before
plain Python runs between nests, and at the end of the call, the values of
the arrays a nest may have written are brought back into the caller's NumPy
arrays (in place), unless the device array is the NumPy array itself (host
backends); arrays only read are not copied back.
"""
import ast

import numpy as np

from ..array import Array, wrap
from ..backends.registry import get_backend


def is_array(value):
    """True for the arrays a nest can index: NumPy arrays and pcompute Arrays."""
    return isinstance(value, (np.ndarray, Array))


def written_arrays(tree):
    """Names of the arrays the nest ``tree`` may write: the roots of stored
    subscripts (``a[i] = ..``, ``a[i, j] += ..``) and every name passed to a
    call, whole or subscripted (a helper may write its argument, and
    ``atomic_inc(a[k])`` writes ``a``)."""
    out = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Store):
            out.add(_root(n))
        elif isinstance(n, ast.Call):
            out.update(_root(a) for a in list(n.args) + [k.value for k in n.keywords])
    out.discard(None)
    return frozenset(out)


def _root(node):
    """The name under the subscripts of ``node`` (``a`` of ``a[i][j]``), or None."""
    while isinstance(node, ast.Subscript):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def same_memory(a, b):
    """0 for distinct arrays, 1 for the same array under two names, 2 for
    overlapping but different views."""
    if a is b:
        return 1
    ha, hb = getattr(a, "data", a), getattr(b, "data", b)
    if not (isinstance(ha, np.ndarray) and isinstance(hb, np.ndarray)):
        return 0
    if not np.shares_memory(ha, hb):
        return 0
    same = (ha.__array_interface__["data"][0] == hb.__array_interface__["data"][0]
            and ha.shape == hb.shape and ha.strides == hb.strides)
    return 1 if same else 2


class Residency:
    """Device copies of the host arrays used by one call."""

    def __init__(self):
        self._dev = {}
        self._written = set()       # ids of the wrapped arrays a nest may have written
        self._on_host = None

    def launch_value(self, value):
        """What a kernel launch takes for the array ``value``: on a host
        backend a C-contiguous NumPy array of a plain numeric dtype as it is
        (the Array :meth:`device` would wrap around it is that very memory,
        so both stay one array), else :meth:`device`."""
        if type(value) is np.ndarray and value.flags.c_contiguous and \
                value.dtype.kind in "fiub" and value.dtype.isnative:
            if self._on_host is None:
                self._on_host = get_backend().on_host
            if self._on_host:
                return value
        return self.device(value)

    def device(self, value):
        """The device Array for ``value`` (an Array is used as it is)."""
        if isinstance(value, Array):
            return value
        key = id(value)
        if key not in self._dev:
            self._dev[key] = (value, wrap(value))
        return self._dev[key][1]

    def wrote(self, values):
        """Note that a nest may have written the arrays among ``values``."""
        self._written.update(id(v) for v in values if isinstance(v, np.ndarray))

    def sync(self):
        """Bring every wrapped array a nest may have written back into its
        NumPy array; forget them all."""
        for key, (host, arr) in self._dev.items():
            if key not in self._written:
                continue
            data = arr.pull().data
            if data is not host and not np.shares_memory(data, host):
                host[...] = data
        self._dev.clear()
        self._written.clear()
