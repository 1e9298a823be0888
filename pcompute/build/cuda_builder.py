"""CUDA C builds: an ``nvcc --ptx`` check (works without a GPU) and pycuda
modules (need the driver and a device).

The generated CUDA source wraps its kernels in ``extern "C"`` itself, so
pycuda's ``SourceModule`` is called with ``no_extern_c=True``.
"""

import functools
import logging
import os
import shlex
import shutil
import subprocess
import threading

from pcompute.build import cache
from pcompute.errors import BackendUnavailableError, BuildError

log = logging.getLogger("pcompute.build.cuda")

_lock = threading.Lock()
_checked = set()
_modules = {}


def nvcc_path():
    """The nvcc executable (PATH, then CUDA_HOME/CUDA_PATH, then
    /usr/local/cuda), or None."""
    found = shutil.which("nvcc")
    if found:
        return found
    for base in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"),
                 "/usr/local/cuda"):
        if base:
            exe = os.path.join(base, "bin", "nvcc")
            if os.path.isfile(exe) and os.access(exe, os.X_OK):
                return exe
    return None


@functools.lru_cache(maxsize=None)
def default_arch(nvcc=None):
    """The oldest real architecture nvcc supports (e.g. ``sm_75`` for CUDA
    13), used when no arch is given; ``sm_70`` if nvcc cannot say."""
    nvcc = nvcc or nvcc_path()
    try:
        out = subprocess.run([nvcc, "--list-gpu-arch"], capture_output=True,
                             text=True, timeout=60)
        numbers = [int(w.split("_")[1]) for w in out.stdout.split()
                   if w.startswith("compute_") and w.split("_")[1].isdigit()]
        if numbers:
            return "sm_%d" % min(numbers)
    except (OSError, subprocess.SubprocessError, TypeError):
        pass
    return "sm_70"


def check_cuda_source(source, arch=None, options=()):
    """Compile ``source`` to PTX with nvcc; raise BuildError if it fails.

    Raises :class:`BackendUnavailableError` if nvcc is not found.  The PTX of
    a successful check is kept in the compile cache, so the same source is
    not compiled again.
    """
    nvcc = nvcc_path()
    if nvcc is None:
        raise BackendUnavailableError(
            "nvcc not found (install the CUDA toolkit or put nvcc on PATH)")
    arch = arch or default_arch(nvcc)
    key = cache.make_key("nvcc-ptx", source, arch, list(options), nvcc,
                         cache.pcompute_version())
    with _lock:
        if key in _checked:
            return

    def compile_ptx(work):
        src = os.path.join(str(work), "kernel.cu")
        ptx = os.path.join(str(work), "kernel.ptx")
        with open(src, "w", encoding="utf-8") as f:
            f.write(source)
        args = [nvcc, "--ptx", "-arch=%s" % arch, *options, "-o", ptx, src]
        try:
            out = subprocess.run(args, capture_output=True, text=True,
                                 errors="replace", cwd=str(work), timeout=300)
        except (OSError, subprocess.SubprocessError) as exc:
            raise BuildError("could not run nvcc: %s" % exc, source=source,
                             backend="cuda") from None
        if out.returncode != 0:
            raise BuildError("nvcc failed (exit status %d)" % out.returncode,
                             log="$ %s\n%s%s" % (shlex.join(args), out.stdout,
                                                 out.stderr),
                             source=source, backend="cuda")
        return ptx

    # The PTX is kept in the compile cache: a source checked once is not
    # compiled again by later processes.
    cache.get_or_build("nvcc", key, compile_ptx, suffix=".ptx")
    with _lock:
        _checked.add(key)


def cuda_why_unavailable():
    """None if pycuda can run kernels here, else the reason (never raises)."""
    try:
        import pycuda.driver as drv
    except ImportError as exc:
        if getattr(exc, "name", None) in ("pycuda", "pycuda.driver") or \
                "No module named 'pycuda" in str(exc):
            return ("pycuda is not installed (pip install pcompute[cuda], "
                    "which needs the CUDA toolkit): %s" % exc)
        return "no CUDA driver: pycuda cannot load it (%s)" % exc
    except Exception as exc:
        return "no CUDA driver: %s" % exc
    try:
        drv.init()
        count = drv.Device.count()
    except Exception as exc:
        return "no CUDA driver: %s" % exc
    if count == 0:
        return "no CUDA device found by the driver"
    return None


def ensure_context():
    """Make the primary context of device 0 current (via pycuda)."""
    reason = cuda_why_unavailable()
    if reason:
        raise BackendUnavailableError(reason)
    try:
        import pycuda.autoprimaryctx  # noqa: F401  (pycuda >= 2021.1)
    except ImportError:
        import pycuda.autoinit  # noqa: F401


def build_cuda(source, kernel_names, options=(), arch=None):
    """Build ``source`` with pycuda and return ``{name: pycuda Function}``.

    Memoised per process (on source, options, arch and the current device).
    A compile failure raises :class:`BuildError` with nvcc's log and the
    numbered source.
    """
    ensure_context()
    import pycuda.driver as drv
    from pycuda.compiler import SourceModule

    device = drv.Context.get_device()
    ident = "%s cc%d.%d" % ((device.name(),) + device.compute_capability())
    key = cache.make_key("cuda", cache.pcompute_version(), source,
                         list(options), arch, ident, tuple(kernel_names))
    with _lock:
        entry = _modules.get(key)
    if entry is not None:
        return dict(entry[1])
    if cache.save_source_enabled():
        cache.save_source("cuda", key, "cu", source)
    try:
        module = SourceModule(source, nvcc=nvcc_path() or "nvcc",
                              options=list(options), no_extern_c=True,
                              arch=arch)
    except drv.CompileError as exc:
        text = "\n".join(str(x) for x in (
            getattr(exc, "command_line", ""), getattr(exc, "stdout", ""),
            getattr(exc, "stderr", "")) if x) or str(exc)
        raise BuildError("nvcc failed in pycuda's SourceModule", log=text,
                         source=source, backend="cuda") from None
    functions = {}
    for name in kernel_names:
        try:
            functions[name] = module.get_function(name)
        except drv.LogicError as exc:
            raise BuildError("CUDA module has no kernel %r (%s)" % (name, exc),
                             source=source, backend="cuda") from None
    with _lock:
        _modules[key] = (module, functions)  # the module stays loaded
    return dict(functions)
