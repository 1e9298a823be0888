"""The interface every backend implements.

Primitives and :class:`~pcompute.array.Array` talk only to this interface:
availability (and why not), memory (allocate, transfer, copy, fill), building
a typed kernel for a primitive, launching, synchronising and timing.  Adding a
backend is one module plus its templates.
"""
import contextlib
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

    @property
    def generates_source(self):
        """True if kernels are typed and printed as source (a ``dialect``);
        False for a backend that runs the user's Python directly."""
        return self.dialect is not None

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

    def device_key(self):
        """What a built kernel is bound to besides its source (its context or
        queue on a device; None on the host): part of every key under which
        built kernels are kept, so a new context builds them again."""
        return None

    def demote_double(self, config):
        """True if float64 data and types become float32 on this backend."""
        return False

    # -- memory (host backends: the device array is the numpy array) --------
    def empty(self, n, dtype):
        return np.empty(n, dtype=dtype)

    def to_device(self, host):
        return np.ascontiguousarray(host)

    def object_value(self, obj, record):
        """The kernel value of ``obj``, an object of a user class whose fields
        ``record`` holds (a one-element NumPy record with its struct's
        layout): the record, in the backend's memory."""
        return record if self.on_host else self.to_device(record)

    def to_host(self, dev):
        return dev

    def copy_to_host(self, dev, host):
        if host is not dev:
            host[...] = dev

    def copy_box_to_host(self, dev, host, box):
        """Copy the elements of the device array ``dev`` in ``box``
        (``((start, stop), ...)`` per axis) into the same elements of the
        C-contiguous NumPy array ``host`` of ``dev``'s shape; the other
        elements of ``host`` keep their values (``dev`` may hold anything
        there).  Waits for the copy."""
        if host is not dev:
            index = tuple(slice(lo, hi) for lo, hi in box)
            host[index] = dev[index]

    def copy_to_device(self, host, dev, wait=True):
        """Copy the host array ``host`` into the device array ``dev``.  With
        ``wait=False`` a device backend may return before the copy is done
        (queued before the kernels launched after it): ``host`` must then
        stay alive and unchanged until :meth:`synchronize` or a later
        blocking copy to the host."""
        if host is not dev:
            dev[...] = host

    def copy(self, dev):
        return dev.copy()

    def fill(self, dev, value):
        dev.fill(value)

    def is_device_array(self, obj):
        return isinstance(obj, np.ndarray)

    def memory_address(self, dev):
        """Where the device array ``dev`` starts: ``(space, address)``, the
        byte address of its first element within ``space``, a hashable that
        two device arrays sharing memory have alike (on a device: their
        allocation or the device's address space); None for an array
        without memory.  Two arrays in different spaces share no memory.
        Host backends: NumPy arrays, one address space (None)."""
        return None, dev.__array_interface__["data"][0]

    def foreign_array(self, dev):
        """None if the device array ``dev`` of this backend can be used by its
        kernels now, else why not (e.g. it lives on an OpenCL context that
        ``set_context`` replaced)."""
        return None

    # -- kernels ---------------------------------------------------------------
    def synchronize(self):
        """Wait for all queued work (a no-op on host backends)."""

    def now(self):
        """A timestamp for timing kernels (synchronises first)."""
        self.synchronize()
        return time.perf_counter()

    def timed_call(self, kernel, args, kwargs):
        """Call a raw kernel of this backend (a user's pyopencl Kernel, pycuda
        Function, compiled function...) and time it: (its result, seconds).
        Here: the wall clock between two synchronisations."""
        start = self.now()
        result = kernel(*args, **kwargs)
        return result, self.now() - start

    # Every kind of kernel: ``generate_<kind>`` returns the
    # :class:`~pcompute.records.GeneratedKernel` (compiles nothing, needs no
    # device), ``build_<kind>`` the :class:`~pcompute.records.BuiltKernel`.
    def _missing(self, what):
        return BackendUnavailableError(
            "the %s backend does not implement %s; run this on another backend "
            "(use_config(backend=...))" % (self.name, what))

    def generate_elementwise(self, program, func, config):
        """The generated Elementwise kernel of typed ``program`` (entry ``func``)."""
        raise self._missing("Elementwise")

    def build_elementwise(self, program, func, config):
        """The built Elementwise: ``built(n, args)`` applies the entry for i < n
        (``n`` a tuple of extents over an n-D index space)."""
        raise self._missing("Elementwise")

    #: True if :meth:`prebuild_elementwise` builds kernels together (callers
    #: then collect what they will need ahead; else they need not).
    builds_together = False

    def prebuild_elementwise(self, items, config):
        """Build ahead the Elementwise kernels ``items`` (``(program, func)``
        pairs, as :meth:`build_elementwise` takes them) that a caller will
        ask for soon, together where the backend can (the cython backend
        compiles them as one module); their later :meth:`build_elementwise`
        calls then find them.  Returns the number of modules made.  This
        default builds nothing ahead: each kernel is built at its first call."""
        return 0

    def before_compile(self, hook):
        """A context manager: within it, ``hook()`` runs once, before the
        first kernel this backend must compile (not found built), so that
        the caller can build the kernels it will need together there
        (:meth:`prebuild`).  This default never runs it."""
        return contextlib.nullcontext()

    def prebuild(self, generated, config):
        """Build ahead the generated kernels ``generated``
        (:class:`~pcompute.records.GeneratedKernel` records of any kind:
        Elementwise, Reduction, Scan, as the primitives' ``generated_for``
        give them) that a caller will ask for soon, together where the
        backend can; their later builds then find them.  Returns the number
        of modules made.  This default builds nothing ahead."""
        return 0

    def generate_reduction(self, spec, config):
        """The generated Reduction described by ``spec`` (a ReductionSpec)."""
        raise self._missing("Reduction")

    def build_reduction(self, spec, config):
        """The built Reduction: ``built(n, args)`` returns the reduced value."""
        raise self._missing("Reduction")

    def generate_scan(self, spec, config):
        """The generated Scan described by ``spec`` (a ScanSpec)."""
        raise self._missing("Scan")

    def build_scan(self, spec, config):
        """The built Scan: ``built(n, args)`` runs the scan and its output."""
        raise self._missing("Scan")

    #: True if the backend runs low-level Kernels (work-items in work-groups).
    has_work_groups = False

    def generate_kernel(self, program, name, config):
        """The generated low-level Kernel of typed ``program``."""
        raise self._missing("low-level Kernels")

    def build_kernel(self, program, name, config):
        """The built low-level Kernel: ``built((global_size, local_size), values)``."""
        raise self._missing("low-level Kernels")

    def local_memory(self, nbytes):
        """The value standing for ``nbytes`` of work-group local memory in a
        raw launch of this backend (Compyle's ``LocalMem.get``)."""
        raise self._missing("LocalMem.get (local memory for raw kernel launches)")

    #: True if the backend compiles one function for direct calls from Python
    #: (Compyle's ``Cython(func)``).
    compiles_functions = False

    def generate_function(self, program, name, config):
        """The generated host function of typed ``program`` (entry ``name``)."""
        raise self._missing("compiled functions (Cython(func))")

    def build_function(self, program, name, config):
        """The built host function: ``built(None, values)`` calls it with the
        device values of its arguments and returns its value."""
        raise self._missing("compiled functions (Cython(func))")

    def sort_by_keys(self, keys, values, key_bits, config, permutation=True):
        """Stable ascending sort of device array ``keys`` (permuting ``values``).

        Returns (sorted keys, list of permuted values, permutation) as device
        arrays of this backend.
        """
        raise self._missing("sorting")

    def speculation_chunks(self, config):
        """How a speculated loop of :func:`pcompute.parallelize` is checked
        here: a number of contiguous chunks, one per thread, each recording
        its accesses in private bitmaps checked after the loop (few threads:
        a CPU), or None for the per-element atomic-max logs of the
        iterations (many threads: a GPU; and the python backend, whose
        logs are the reference)."""
        return None

    #: True where the chunks of a speculated loop gain from prefetching
    #: their keyed accesses ahead (:func:`pcompute.autopar.specchunk.prefetches`):
    #: the cython backend's C.  PoCL's OpenCL C gained nothing (its
    #: ``prefetch`` does nothing; the test ahead cost a few percent).
    speculation_prefetch = False

    # -- description -------------------------------------------------------------
    #: Line-comment prefix of the generated source (for headers).
    comment = "//"
    #: True if the backend's kernels can run with OpenMP (``use_openmp``).
    has_openmp = False
    #: True if ``sort_by_keys`` itself checks that every key lies in
    #: ``[0, 2**key_bits)`` (raising :func:`~pcompute.backends.sort_common.key_range_error`),
    #: from the bits it reads anyway to plan its passes; the array functions
    #: then skip their own check, a pass over the keys.
    sort_checks_key_bits = False

    def describe(self):
        """What ``pcompute info`` reports: ``{"works": bool, "reason": str or
        None}`` plus backend details (e.g. the device) when it works."""
        reason = self.why_unavailable()
        return {"works": reason is None, "reason": reason}

    def calling_convention(self, kind):
        """One line on how the generated ``kind`` kernel is called (for
        ``pcompute source`` headers), or None."""
        return None

    def __repr__(self):
        return "<pcompute backend %s>" % self.name
