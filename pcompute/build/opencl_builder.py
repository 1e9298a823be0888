"""pyopencl context selection and program builds.

Without ``PYOPENCL_CTX`` the first device (GPUs before other devices, in
platform order) that can actually build a trivial kernel is chosen: a device
that enumerates but cannot compile (the PoCL bundled in the pyopencl wheel
fails with "unknown target CPU 'generic'" on some CPUs) is skipped.  Builds
are memoised per process and context (weakly: a context nothing else uses
any more takes its programs with it); pyopencl's own binary cache serves new
processes.  A process started by an MPI launcher gets a PoCL kernel cache of
its own first (:mod:`pcompute.build.opencl_ranks`).
"""

import logging
import os
import threading
import warnings
import weakref

from pcompute.build import cache
from pcompute.build.opencl_ranks import separate_pocl_cache
from pcompute.config import bump_generation
from pcompute.errors import BackendUnavailableError, BuildError

log = logging.getLogger("pcompute.build.opencl")

_PROBE_SOURCE = ("__kernel void pc_probe(__global float *a) "
                 "{ a[get_global_id(0)] = 1.0f; }")
_HOW_TO_FIX = ("install an OpenCL driver (on Debian/Ubuntu: apt install "
               "pocl-opencl-icd; or pip install pcompute[pocl]), or set "
               "PYOPENCL_CTX to a working platform:device")

_lock = threading.RLock()
_context = None
_context_error = None
_queues = {}
_programs = weakref.WeakKeyDictionary()     # context -> {(key, names): kernels}


def _import_cl():
    try:
        import pyopencl
    except ImportError as exc:
        raise BackendUnavailableError(
            "pyopencl is not installed (pip install pcompute[opencl]): %s"
            % exc) from None
    return pyopencl


def device_name(device):
    """``'<device> on <platform>'`` for messages."""
    return "%s on %s" % (device.name.strip(), device.platform.name.strip())


def device_identity(device):
    """A string identifying a device and its driver, for cache keys."""
    platform = device.platform
    return "|".join(str(x).strip() for x in (
        platform.name, platform.version, device.name, device.version,
        device.driver_version))


def device_supports_double(device):
    """True if ``device`` supports double precision."""
    try:
        if "cl_khr_fp64" in device.extensions:
            return True
        return bool(device.double_fp_config)
    except Exception:
        return False


def _try_device(cl, device):
    """A context on ``device`` if it builds the probe kernel, else an error
    string."""
    try:
        ctx = cl.Context([device])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cl.Program(ctx, _PROBE_SOURCE).build()
        return ctx
    except Exception as exc:  # any failure means: not usable
        return "%s: %s" % (type(exc).__name__, str(exc).strip()[:500])


def _select_context():
    separate_pocl_cache()
    cl = _import_cl()
    if os.environ.get("PYOPENCL_CTX") is not None:
        try:
            ctx = cl.create_some_context(interactive=False)
        except Exception as exc:
            raise BackendUnavailableError(
                "PYOPENCL_CTX=%r does not select a usable OpenCL device: %s"
                % (os.environ["PYOPENCL_CTX"], exc)) from None
        log.debug("OpenCL context from PYOPENCL_CTX: %s",
                  [device_name(d) for d in ctx.devices])
        return ctx
    try:
        platforms = cl.get_platforms()
    except Exception as exc:
        raise BackendUnavailableError(
            "no OpenCL platform found (%s); %s" % (exc, _HOW_TO_FIX)) from None
    devices = []
    for platform in platforms:
        try:
            devices.extend(platform.get_devices())
        except Exception as exc:
            log.debug("platform %s lists no devices: %s", platform.name, exc)
    devices.sort(key=lambda d: 0 if d.type & cl.device_type.GPU else 1)
    tried = []
    for device in devices:
        result = _try_device(cl, device)
        if not isinstance(result, str):
            log.debug("OpenCL device chosen: %s", device_name(device))
            return result
        log.debug("OpenCL device %s skipped: %s", device_name(device), result)
        tried.append("%s (%s)" % (device_name(device), result))
    if not tried:
        raise BackendUnavailableError(
            "no OpenCL device found on %d platform(s); %s"
            % (len(platforms), _HOW_TO_FIX))
    raise BackendUnavailableError(
        "no OpenCL device could build a kernel; tried: %s; %s"
        % ("; ".join(tried), _HOW_TO_FIX))


def get_context():
    """The process-wide pyopencl context (chosen once, see module doc).

    Raises :class:`BackendUnavailableError` saying why when there is none.
    """
    global _context, _context_error
    with _lock:
        if _context is not None:
            return _context
        if _context_error is not None:
            raise BackendUnavailableError(_context_error)
        try:
            _context = _select_context()
        except BackendUnavailableError as exc:
            _context_error = str(exc)
            raise
        return _context


def get_queue(profiling=False):
    """The process-wide command queue on :func:`get_context`'s context."""
    with _lock:
        queue = _queues.get(profiling)
        if queue is None:
            cl = _import_cl()
            props = (cl.command_queue_properties.PROFILING_ENABLE
                     if profiling else 0)
            queue = cl.CommandQueue(get_context(), properties=props)
            _queues[profiling] = queue
        return queue


def set_context(context):
    """Use the pyopencl ``context`` from now on (and a new queue on it).

    Kernels are built again for it; arrays made before stay on the old one.
    """
    global _context, _context_error
    with _lock:
        _context, _context_error = context, None
        _queues.clear()
    bump_generation()       # fast calls made for the old queue are stale


def set_queue(queue):
    """Use the pyopencl command ``queue`` (and its context) from now on."""
    global _context, _context_error
    with _lock:
        _context, _context_error = queue.context, None
        _queues.clear()
        _queues[False] = queue
    bump_generation()


def why_unavailable():
    """None if OpenCL is usable here, else the reason (never raises)."""
    try:
        get_context()
    except BackendUnavailableError as exc:
        return str(exc)
    return None


def build_opencl(source, kernel_names, options=(), context=None):
    """Build ``source`` and return ``{name: pyopencl.Kernel}``.

    Memoised per context (held weakly: the memo does not keep a context
    alive) on the source, options, device identities and pcompute version.
    The same Kernel objects are returned again: a caller that keeps
    arguments set between launches makes its own
    (:func:`pcompute.backends.cl_args.own_kernel`); others set every argument
    at each launch, under one lock if several threads launch.  A failed build
    raises :class:`BuildError` with the build log and the numbered source.
    """
    cl = _import_cl()
    ctx = context or get_context()
    options = tuple(options)
    names = tuple(kernel_names)
    key = cache.make_key("opencl", cache.pcompute_version(), source,
                         list(options), [device_identity(d)
                                         for d in ctx.devices])
    # keyed weakly by the context wrapper (equal by its OpenCL handle), not
    # id() of a wrapper that may be collected and reused
    memo_key = (key, names)
    with _lock:
        kernels = _programs.get(ctx, {}).get(memo_key)
    if kernels is None:
        if cache.save_source_enabled():
            cache.save_source("opencl", key, "cl", source)
        program = _build_program(cl, ctx, source, options)
        kernels = {}
        for name in names:
            try:
                kernels[name] = cl.Kernel(program, name)
            except Exception as exc:
                raise BuildError("OpenCL program has no kernel %r (%s)"
                                 % (name, exc), source=source,
                                 backend="opencl") from None
        with _lock:
            _programs.setdefault(ctx, {})[memo_key] = kernels
    return dict(kernels)


def _build_program(cl, ctx, source, options):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            program = cl.Program(ctx, source).build(options=list(options))
        except cl.Error as exc:
            raise BuildError("OpenCL build failed on %s" % ", ".join(
                device_name(d) for d in ctx.devices), log=str(exc),
                source=source, backend="opencl") from None
    for warning in caught:
        log.debug("OpenCL build: %s", warning.message)
    return program
