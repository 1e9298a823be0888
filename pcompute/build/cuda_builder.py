"""CUDA C builds: an ``nvcc --ptx`` check (works without a GPU) and pycuda
modules (need the driver and a device).

The generated CUDA source wraps its kernels in ``extern "C"`` itself, so
pycuda's ``SourceModule`` is called with ``no_extern_c=True``.
"""

import functools
import logging
import os
import re
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

# nvcc's remarks on the generated text that say nothing the user can act on:
# #177 a variable declared but never referenced and #550 one set but never
# read (the printers declare the temporaries of a statement list up front and
# the layers leave some unread), #186 an unsigned value compared with zero
# (``u >= 0`` keeps Python's meaning: always true).  pycuda turns any output of
# a successful nvcc run into a UserWarning that quotes the kernel text; with
# these silenced a clean build prints nothing, and every other diagnostic
# still reaches the user.
QUIET_DIAGNOSTICS = ("-diag-suppress=177,186,550",)


def nvcc_options(options=()):
    """The nvcc options of a build or check: :data:`QUIET_DIAGNOSTICS`, then
    ``options``."""
    return [*QUIET_DIAGNOSTICS, *options]


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


def _ptx_key(source, arch, options, nvcc):
    return cache.make_key("nvcc-ptx", source, arch, list(options), nvcc,
                          cache.pcompute_version())


def _nvcc_ptx(nvcc, arch, options, text, work, source):
    """Run ``nvcc --ptx`` on ``text`` in ``work``; the PTX path.  A failure
    raises :class:`BuildError` carrying ``source`` (the text the user
    gave)."""
    src = os.path.join(str(work), "kernel.cu")
    ptx = os.path.join(str(work), "kernel.ptx")
    with open(src, "w", encoding="utf-8") as f:
        f.write(text)
    args = [nvcc, "--ptx", "-arch=%s" % arch, *nvcc_options(options), "-o", ptx, src]
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


def _known(key):
    """True when the source of ``key`` passed a check before: in this
    process, or (kept in the compile cache) alone or in a batch."""
    with _lock:
        if key in _checked:
            return True
    store = cache.Cache()
    if store.lookup("nvcc", key, suffix=".ptx") is None and \
            store.lookup("nvcc", key, suffix=".checked") is None:
        return False
    with _lock:
        _checked.add(key)
    return True


def _nvcc_and_arch(arch):
    nvcc = nvcc_path()
    if nvcc is None:
        raise BackendUnavailableError(
            "nvcc not found (install the CUDA toolkit or put nvcc on PATH)")
    return nvcc, arch or default_arch(nvcc)


def check_cuda_source(source, arch=None, options=()):
    """Compile ``source`` to PTX with nvcc; raise BuildError if it fails.

    Raises :class:`BackendUnavailableError` if nvcc is not found.  The PTX of
    a successful check is kept in the compile cache, so the same source is
    not compiled again.
    """
    nvcc, arch = _nvcc_and_arch(arch)
    key = _ptx_key(source, arch, options, nvcc)
    if _known(key):
        return
    # The PTX is kept in the compile cache: a source checked once is not
    # compiled again by later processes.
    cache.get_or_build("nvcc", key, lambda work: _nvcc_ptx(
        nvcc, arch, options, source, work, source), suffix=".ptx")
    with _lock:
        _checked.add(key)


_INCLUDE = re.compile(r"^[ \t]*#[ \t]*include\b.*$", re.M)
_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)", re.M)


def combined_source(sources):
    """One translation unit holding every source of ``sources`` (which share
    the same ``#include`` lines): the includes once at the top, then each
    source in a namespace of its own with ``extern "C"`` removed (generated
    sources all name their kernel ``pc_elementwise``; C linkage would make
    them one function) and its macros undefined after it, so that no source
    sees another's names."""
    includes = _INCLUDE.findall(sources[0]) if sources else []
    parts = ["".join(line.strip() + "\n" for line in includes)]
    for k, source in enumerate(sources):
        body = _INCLUDE.sub("", source).replace('extern "C"', "")
        parts.append("namespace pc_check_%d {\n%s\n}\n" % (k, body))
        parts.extend("#undef %s\n" % name for name in
                     sorted(set(_DEFINE.findall(source))))
    return "".join(parts)


def check_cuda_sources(sources, arch=None, options=()):
    """:func:`check_cuda_source` for several sources, with one nvcc run for
    all those not checked before that have the same ``#include`` lines
    (:func:`combined_source`; each nvcc run costs a few hundred
    milliseconds of CPU however small the source).  When the combined
    check fails, each source is checked alone, so the error names the
    source at fault.  A source that passes is not compiled again in this
    process nor, through a marker in the compile cache (the combined PTX
    is kept there too), in later ones.
    """
    nvcc, arch = _nvcc_and_arch(arch)
    groups = {}
    for source in dict.fromkeys(sources):
        key = _ptx_key(source, arch, options, nvcc)
        if _known(key):
            continue
        includes = tuple(line.strip() for line in _INCLUDE.findall(source))
        groups.setdefault(includes, []).append((key, source))
    for members in groups.values():
        if len(members) == 1:
            check_cuda_source(members[0][1], arch, options)
            continue
        text = combined_source([source for _, source in members])
        batch = cache.make_key("nvcc-ptx-batch", [k for k, _ in members], arch,
                               list(options), nvcc, cache.pcompute_version())
        try:
            cache.get_or_build("nvcc", batch, lambda work: _nvcc_ptx(
                nvcc, arch, options, text, work, text), suffix=".ptx")
        except BuildError:
            log.debug("combined nvcc check of %d sources failed; checking "
                      "each alone", len(members))
            for _, source in members:
                check_cuda_source(source, arch, options)
            continue
        for key, _ in members:      # later processes: checked, in this batch
            cache.get_or_build("nvcc", key, functools.partial(
                _marker, batch), suffix=".checked")
        with _lock:
            _checked.update(k for k, _ in members)


def _marker(batch, work):
    path = os.path.join(str(work), "checked")
    with open(path, "w", encoding="utf-8") as f:
        f.write("passed nvcc --ptx in batch %s\n" % batch)
    return path


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
                              options=nvcc_options(options), no_extern_c=True,
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
