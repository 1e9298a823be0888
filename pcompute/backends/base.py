"""The interface every backend implements.

Primitives and :class:`~pcompute.array.Array` talk only to this interface:
availability (and why not), memory (allocate, transfer, copy, fill), building
a typed kernel for a primitive, launching, synchronising and timing.  Adding a
backend is one module plus its templates.
"""
import importlib
import time

import numpy as np

from ..errors import BackendUnavailableError


def is_serial(func):
    """True if the user marked ``func`` with ``@serial``: its items run in
    order, one at a time, on every backend."""
    return bool(getattr(func, "is_serial", False))


class Backend:
    """Base class of the backends; subclasses set ``name`` and ``dialect``."""

    name = None
    dialect = None       # code generator used ('cython', 'opencl', 'cuda') or None
    on_host = True       # arrays live in host memory (numpy arrays are the data)

    # -- availability --------------------------------------------------------
    def why_unavailable(self):
        """None when the backend can run here, else the reason."""
        return None

    def available(self):
        """True when this backend can run on this machine."""
        return self.why_unavailable() is None

    def require(self):
        """Raise :class:`BackendUnavailableError` (with the reason) if unavailable."""
        reason = self.why_unavailable()
        if reason is not None:
            raise BackendUnavailableError("the %s backend is not available: %s"
                                          % (self.name, reason))

    def supports_double(self):
        """True if the device computes in double precision."""
        return True

    def demote_double(self, config):
        """True if float64 data and types become float32 on this backend."""
        return False

    # -- memory (host backends: the device array is the numpy array) --------
    def empty(self, n, dtype):
        return np.empty(n, dtype=dtype)

    def to_device(self, host):
        return np.ascontiguousarray(host)

    def to_host(self, dev):
        return dev

    def copy_to_host(self, dev, host):
        if host is not dev:
            host[...] = dev

    def copy_to_device(self, host, dev):
        if host is not dev:
            dev[...] = host

    def copy(self, dev):
        return dev.copy()

    def fill(self, dev, value):
        dev.fill(value)

    def is_device_array(self, obj):
        return isinstance(obj, np.ndarray)

    # -- kernels ---------------------------------------------------------------
    def synchronize(self):
        """Wait for all queued work (a no-op on host backends)."""

    def now(self):
        """A timestamp for timing kernels (synchronises first)."""
        self.synchronize()
        return time.perf_counter()

    def build_elementwise(self, program, func, config):
        """A callable ``run(n, args)`` applying ``program``'s entry for i < n."""
        raise NotImplementedError("%s does not implement Elementwise" % self.name)

    # Scan and sort live in one module per backend: backends/scan_<name>.py
    # and backends/sort_<name>.py.
    def _primitive(self, kind):
        return importlib.import_module("%s.%s_%s" % (__package__, kind, self.name))

    def build_scan(self, spec, config):
        """A callable ``run(n, args)`` performing the scan described by ``spec``."""
        return self._primitive("scan").build_scan(self, spec, config)

    def generate_scan(self, spec, config):
        """The generated source of the scan described by ``spec``; compiles nothing."""
        return self._primitive("scan").generate_scan(self, spec, config)

    def sort_by_keys(self, keys, values, key_bits, config, permutation=True):
        """Stable ascending sort of device array ``keys`` (permuting ``values``).

        Returns (sorted keys, list of permuted values, permutation) as device
        arrays of this backend.
        """
        return self._primitive("sort").sort_by_keys(self, keys, values, key_bits, config,
                                                   permutation=permutation)

    def __repr__(self):
        return "<pcompute backend %s>" % self.name
