"""The arrays of one call of a parallelised function, on the device.

NumPy arguments are wrapped once per call (the same array passed under two
names is wrapped once) and stay on the device between loop nests; before
plain Python runs between nests, and at the end of the call, the values of
the arrays a nest may have written are brought back into the caller's NumPy
arrays (in place), unless the device array is the NumPy array itself (host
backends); arrays only read are not copied back.

On a device backend the device arrays of a call are kept for the next call
of the same function (:class:`DevicePool`, at most ``MAX_ARRAYS``): a
C-contiguous NumPy argument of the shape and dtype of one of them, in a dtype
the backend stores as it is, is copied into it without waiting (the
copies are queued before the kernels; the call waits for them before it
returns or runs Python), instead of a new device array allocated and filled
per call.  On PoCL a new buffer costs more than the copy itself (its
allocation, and the first launch that uses it).  An argument the backend
stores in another dtype (float64 without ``use_double`` on a device) is
converted by :func:`~pcompute.array.wrap` every call and never pooled.
"""
import ast

import numpy as np

from ..array import Array, empty, wrap
from ..array.checks import _storage_dtype
from ..array.overlap import memory_overlap
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
    """0 for distinct arrays, 1 for the same array under two names (the same
    object, or two views of the same memory with the same shape, strides
    and dtype: NumPy views, or views of a device Array, ``a`` and ``a[:]``),
    2 for overlapping but different views
    (:func:`pcompute.array.overlap.memory_overlap`)."""
    return memory_overlap(a, b)


class DevicePool:
    """The device arrays of a parallelised function's last calls on a device
    backend, by (backend, queue, shape, dtype), for its next calls' NumPy
    arguments: at most :attr:`MAX_ARRAYS`, the oldest shapes dropped first."""

    MAX_ARRAYS = 16

    def __init__(self):
        self._free = {}         # key -> device Arrays, the key last kept last
        self._count = 0         # the number of Arrays in ``_free``

    @property
    def size(self):
        """The number of device Arrays kept (an empty pool stays truthy: no
        ``__len__``)."""
        return self._count

    def take(self, backend, host):
        """A device Array for the NumPy array ``host`` (C-contiguous, native
        dtype) from the last call, or None."""
        key = self._key(backend, host)
        arrays = self._free.get(key)
        if not arrays:
            return None
        self._count -= 1
        if len(arrays) == 1:
            del self._free[key]
        return arrays.pop(0)        # in the order kept

    def keep(self, backend, pairs):
        """Keep the device Arrays of a call's (host, Array) ``pairs`` for
        later host arrays of the same shape and dtype."""
        free = self._free
        for host, arr in pairs:
            key = self._key(backend, host)
            arrays = free.pop(key, [])
            arrays.append(arr)
            free[key] = arrays              # the newest key last
            self._count += 1
        while self._count > self.MAX_ARRAYS:
            oldest = next(iter(free))
            arrays = free[oldest]
            arrays.pop(0)
            self._count -= 1
            if not arrays:
                del free[oldest]

    @staticmethod
    def _key(backend, host):
        return backend, backend.device_key(), host.shape, host.dtype.str


def _poolable(value):
    """True for a NumPy array a pooled device array may receive as it is."""
    return type(value) is np.ndarray and value.flags.c_contiguous and value.size > 0 \
        and value.dtype.isnative and value.dtype.kind in "fiub"


class Residency:
    """Device copies of the host arrays used by one call (``pool``: the
    function's :class:`DevicePool`, or None)."""

    def __init__(self, pool=None):
        self._dev = {}
        self._written = set()       # ids of the wrapped arrays a nest may have written
        self._on_host = None
        self._pool = pool
        self._backend = None
        self._pending = False       # copies to the device queued without waiting
        self._direct = {}           # ids of the arrays copied into pooled device arrays
        #                             (a dict: the order of first use)
        self._fresh = {}            # id -> box of arrays a nest writes whole (in the
        #                             box) and nothing reads (coverage.py)

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
            arr = self._pooled(value, fill=key not in self._fresh)
            if arr is None:
                arr = wrap(value)
            else:
                self._direct[key] = True
            self._dev[key] = (value, arr)
        return self._dev[key][1]

    def _pooled(self, value, fill=True):
        """A device array of the last call filled with ``value`` (the copy
        queued without waiting; none without ``fill``), or None."""
        if self._pool is None or not _poolable(value):
            return None
        backend = self._backend or get_backend()
        self._backend = backend
        if backend.on_host or _storage_dtype(value.dtype, backend) != value.dtype:
            return None                     # stored in another dtype: wrap converts
        arr = self._pool.take(backend, value)
        if arr is None or backend.foreign_array(arr.dev) is not None:
            # a new one (no host mirror: the pool holds no user array)
            arr = empty(value.size, value.dtype, backend=backend).reshape(*value.shape)
        if fill:
            backend.copy_to_device(value, arr.dev, wait=False)
            self._pending = True
        return arr

    def fresh(self, pairs):
        """Note that a nest writes every element of ``box`` (``((start,
        stop), ...)`` per axis) and no other of the NumPy arrays among the
        ``(value, box)`` ``pairs``, and that nothing of its segment reads them
        before (:mod:`.coverage`): their device arrays need not be filled,
        and only the box comes back."""
        self._fresh.update((id(v), box) for v, box in pairs if type(v) is np.ndarray)

    def drop_fresh(self):
        """After a failed call: the arrays given unfilled device arrays are
        not copied back (they keep their values from before the call)."""
        self._written.difference_update(set(self._fresh) & set(self._direct))

    def wrote(self, values):
        """Note that a nest may have written the arrays among ``values``."""
        self._written.update(id(v) for v in values if isinstance(v, np.ndarray))

    def sync(self):
        """Bring every wrapped array a nest may have written back into its
        NumPy array, wait for the copies to the device; forget them all (the
        pool keeps their device arrays for the next call)."""
        for key, (host, arr) in self._dev.items():
            if key not in self._written:
                continue
            if key in self._direct:
                box = self._fresh.get(key)
                if box is None or all(lo == 0 and hi == extent
                                      for (lo, hi), extent in zip(box, host.shape)):
                    self._backend.copy_to_host(arr.dev, host)      # waits
                else:       # unfilled outside the box: only the box comes back
                    self._backend.copy_box_to_host(arr.dev, host, box)
                continue
            data = arr.pull().data
            if data is not host and not np.shares_memory(data, host):
                host[...] = data
        if self._pending:
            self._backend.synchronize()     # the host arrays may change after this
            self._pending = False
        if self._direct:
            self._pool.keep(self._backend, [self._dev[key] for key in self._direct])
        self._dev.clear()
        self._written.clear()
        self._direct.clear()
        self._fresh.clear()
