"""The C compiler used for extensions, and how to get OpenMP from it.

The OpenMP probe compiles, links and runs a tiny program; its result is
stored in the cache directory keyed by the compiler identity (and any
``PCOMPUTE_OPENMP_*FLAGS`` override), so a new process does not probe again.
The compiler's identity (``--version``) and what it makes of ``-march=native``
(``-###``) are kept in the cache too, keyed on the files of the compiler that
really runs: its driver and its compiler proper, behind any launcher such as
ccache or a script (:mod:`pcompute.build.compiler_answers`).
"""

import functools
import json
import logging
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time

from pcompute import diskcache
from pcompute.build import cache
from pcompute.build.compiler_answers import kept_answer, proper_lines
from pcompute.errors import OpenMPWarning, warn_once

log = logging.getLogger("pcompute.build.toolchain")

_PROBE_SOURCE = """\
#include <omp.h>
int main(void) {
    int n = 0;
    #pragma omp parallel reduction(+:n)
    n += 1;
    return (n >= 1 && omp_get_max_threads() >= 1) ? 0 : 1;
}
"""
_NEGATIVE_TTL = 24 * 3600.0   # re-probe a failed detection after a day
_BREW_PREFIXES = ("/opt/homebrew/opt/libomp", "/usr/local/opt/libomp")


def compiler_command():
    """The C compiler command for extensions: ``CC``, else sysconfig's."""
    cc = os.environ.get("CC") or sysconfig.get_config_var("CC")
    if not cc:
        return ["cl"] if os.name == "nt" else ["cc"]
    return list(_split_command(cc))


@functools.lru_cache(maxsize=16)
def _split_command(text):
    return tuple(shlex.split(text))


def is_msvc(command=None):
    """True if the compiler command is MSVC's ``cl``."""
    exe = os.path.basename((command or compiler_command())[0]).lower()
    return exe in ("cl", "cl.exe")


def compiler_identity():
    """A string naming the C compiler: its command, resolved path and the
    first line of ``--version``.  Cached per process and per ``CC``."""
    return _identity(tuple(compiler_command()))


@functools.lru_cache(maxsize=None)
def _identity(command):
    exe = shutil.which(command[0]) or command[0]
    return kept_answer("identity", command, (), lambda: _run_identity(command, exe),
                       listing=not is_msvc(command))


def _run_identity(command, exe):
    """``(identity, whether to keep it)`` from the compiler's ``--version``."""
    # through a launcher (ccache gcc) the compiler behind it answers
    args = [exe] if is_msvc(command) else [exe] + list(command[1:]) + ["--version"]
    try:
        out = subprocess.run(args, capture_output=True, text=True,
                             errors="replace", timeout=30)
        text = (out.stdout or "") + (out.stderr or "")
        first = next((l.strip() for l in text.splitlines() if l.strip()),
                     "unknown version")
        keep = out.returncode == 0
    except (OSError, subprocess.SubprocessError) as exc:
        first, keep = "unusable: %s" % exc, False
    return "%s [%s] %s" % (" ".join(command), exe, first), keep


def python_build_flags():
    """What compiling a CPython extension depends on: include dirs, the
    extension suffix and the compiler/linker flags setuptools will use (with
    the environment variables that change them)."""
    paths = sysconfig.get_paths()
    var = sysconfig.get_config_var
    env = {k: os.environ[k] for k in ("CC", "CFLAGS", "CPPFLAGS", "LDFLAGS",
                                      "LDSHARED", "AR", "ARFLAGS")
           if k in os.environ}
    return {
        "python": "%s %s" % (sys.implementation.cache_tag, sys.version),
        "platform": sysconfig.get_platform(),
        "include_dirs": sorted({paths["include"], paths["platinclude"]}),
        "ext_suffix": var("EXT_SUFFIX") or ".so",
        "cflags": var("CFLAGS") or "",
        "ccshared": var("CCSHARED") or "",
        "ldshared": var("LDSHARED") or "",
        "env": env,
    }


def cpu_identity():
    """The identity of the CPU that code built for "this CPU" is made for,
    for cache keys: the host's vendor, family, model and stepping numbers,
    model name and feature flags (``/proc/cpuinfo``), and what the C compiler
    resolves its native target to (:func:`native_target`: for gcc the
    ``-march=znver4 -mavx2 -mno-avx512f ...`` it really compiles with).  Two
    machines share modules built for the host CPU only when both agree.
    Computed once per process (and per compiler)."""
    return "%s || %s" % (_cpuinfo_identity(), native_target())


@functools.lru_cache(maxsize=None)
def _cpuinfo_identity():
    try:
        with open("/proc/cpuinfo") as f:
            info = f.read()
        fields = {}
        for line in info.splitlines():
            name, _, value = line.partition(":")
            fields.setdefault(name.strip(), value.strip())
        numbers = " ".join("%s=%s" % (k.replace(" ", "_"), fields[k]) for k in
                           ("vendor_id", "cpu family", "model", "stepping", "CPU implementer",
                            "CPU part", "CPU variant") if k in fields)
        return "%s | %s | %s" % (fields.get("model name", "?"), numbers,
                                 fields.get("flags", fields.get("Features", "?")))
    except OSError:
        import platform
        return "%s %s" % (platform.machine(), platform.processor())


def native_flags():
    """The flags that select the host CPU's instruction set:
    ``-march=native`` on x86, ``-mcpu=native`` on 64-bit ARM (Apple's clang
    knows no ``-march=native`` there), none on other machines and with MSVC
    (whose ``/arch:`` names no host CPU): generic code."""
    if is_msvc():
        return []
    import platform
    machine = platform.machine().lower()
    if machine in ("x86_64", "amd64", "i386", "i686", "x86"):
        return ["-march=native"]
    if machine in ("arm64", "aarch64"):
        return ["-mcpu=native"]
    return []


def native_target():
    """What the C compiler makes of :func:`native_flags` on this CPU: the
    target options of its compiler proper (gcc: ``-march=<cpu>``, one
    ``-m<isa>``/``-mno-<isa>`` per instruction set extension, ``-mtune`` and
    the cache-size parameters; clang: ``-target-cpu`` and the
    ``-target-feature`` list), read from the driver's ``-###`` listing
    (no compilation: a few milliseconds, once per compiler and CPU: kept
    in the cache)."""
    return _native_target(tuple(compiler_command()), tuple(native_flags()))


@functools.lru_cache(maxsize=None)
def _native_target(command, flags):
    if not flags:
        return "no native target"
    # what -march=native means depends on the CPU: a cache shared by machines
    # keeps one answer per CPU
    return kept_answer("native-target", command, list(flags) + [_cpuinfo_identity()],
                       lambda: _run_native_target(command, flags))


def _run_native_target(command, flags):
    """``(target options, whether to keep them)`` from the driver's ``-###``."""
    exe = shutil.which(command[0]) or command[0]
    args = [exe] + list(command[1:]) + list(flags) + ["-###", "-E", "-x", "c", os.devnull]
    try:
        out = subprocess.run(args, capture_output=True, text=True, errors="replace",
                             timeout=30)
    except (OSError, subprocess.SubprocessError) as exc:
        return "unresolved (%s)" % exc, False
    found = []
    for words in proper_lines(out.stderr or ""):
        take = False
        for w in words:
            if take:
                found.append(w)
                take = False
            elif w in ("-target-cpu", "-target-feature", "-tune-cpu"):
                found.append(w)
                take = True
            elif w.startswith(("-march=", "-mcpu=", "-mtune=", "--param=")) or \
                    (w.startswith("-m") and "=" not in w and len(w) > 2):
                found.append(w)
    if not found:
        return "unresolved: %s" % " ".join((out.stderr or "").split())[-300:], False
    return " ".join(found), True


def arch_flags(march=None):
    """The compile flags selecting the instruction set for ``march``
    (default: ``get_config().march``, set by ``PCOMPUTE_MARCH``):
    :func:`native_flags` for ``'native'``, none for ``'generic'``,
    ``['-march=M']`` for another value (MSVC: none, with one warning)."""
    if march is None:
        from pcompute.config import get_config
        march = get_config().march
    from pcompute.config import MARCH_GENERIC
    if march == MARCH_GENERIC:
        return []
    if march == "native":
        return native_flags()
    if is_msvc():
        warn_once("march=%r is ignored: %s has no -march option (use its /arch: "
                  "flags through extra_compile_args)" % (march, compiler_identity()),
                  OpenMPWarning)
        return []
    return ["-march=%s" % march]


def opt_flags(level=None):
    """The optimisation flag of a Cython module built at ``level`` (default:
    ``get_config().opt_level``): ``['-O<level>']``; MSVC ``['/Od']`` for 0,
    ``['/O1']`` for 1, else ``['/O2']`` (its highest)."""
    if level is None:
        from pcompute.config import get_config
        level = get_config().opt_level
    if is_msvc():
        return [{0: "/Od", 1: "/O1"}.get(level, "/O2")]
    return ["-O%d" % level]


def vector_math_flags():
    """``(compile_args, link_args)`` of a kernel built with the
    ``vector_math`` option (see :mod:`pcompute.kernel_options`).

    ``-fno-math-errno`` lets the compiler vectorise loops calling math
    functions (and use the ``sqrt`` instruction without a libm call).  On
    x86-64 with glibc, ``-D__FAST_MATH__`` makes ``<math.h>`` declare the
    functions that glibc's vector math library (libmvec) provides as
    ``#pragma omp declare simd`` (glibc ties its declarations to that macro,
    which GCC defines only under ``-ffast-math``; no other ``-ffast-math``
    effect is taken: NaN and infinity keep their meaning), and ``-lm`` links
    libmvec.  MSVC: no flags."""
    if is_msvc():
        return [], []
    import platform
    libc, version = platform.libc_ver()
    if platform.machine() in ("x86_64", "AMD64") and libc == "glibc" and \
            _version_tuple(version) >= (2, 22):
        return ["-fno-math-errno", "-D__FAST_MATH__"], ["-lm"]
    return ["-fno-math-errno"], []


def host_cpu_flags():
    """The compile flags of a kernel built with the ``host_cpu`` option (see
    :mod:`pcompute.kernel_options`): :func:`native_flags` whatever
    ``Config.march`` says, with ``-ffp-contract=off`` (no fused
    multiply-add, so results are those of the generic build) and
    ``-fno-math-errno`` (``sqrt`` is the instruction; kernels never read
    ``errno``), as every Cython module has.  MSVC: none (its default
    contracts nothing)."""
    if is_msvc():
        return []
    return native_flags() + ["-ffp-contract=off", "-fno-math-errno"]


def fma_flags():
    """The compile flags of a kernel built with the ``fma`` option (see
    :mod:`pcompute.kernel_options`): ``-ffp-contract=fast``, given after the
    builder's ``-ffp-contract=off`` so that it wins (multiplies and adds may
    be fused where the target has FMA).  MSVC: none."""
    if is_msvc():
        return []
    return ["-ffp-contract=fast"]


def _version_tuple(text):
    try:
        return tuple(int(p) for p in text.split("."))
    except ValueError:
        return ()


def depends_on_cpu(cflags):
    """True when code built with ``cflags`` is made for the CPU that builds
    it (``-march``/``-mcpu``/``-mtune=native`` or any ``-march``): its cache
    key must then name that CPU (:func:`cpu_identity`), so that a cache
    shared between machines never loads code made for another CPU."""
    return any(f.startswith(("-march=", "-mcpu=", "-mtune=native", "-mavx", "-msse",
                             "-mfma", "/arch:")) for f in cflags)


# --------------------------------------------------------------------------
# OpenMP

def _candidates(command):
    if is_msvc(command):
        return [(["/openmp"], [])]
    found = [(["-fopenmp"], ["-fopenmp"]),
             (["-Xpreprocessor", "-fopenmp"], ["-lomp"])]
    for prefix in _BREW_PREFIXES:
        if os.path.isdir(prefix):
            found.append((["-Xpreprocessor", "-fopenmp", "-I%s/include" % prefix],
                          ["-L%s/lib" % prefix, "-lomp",
                           "-Wl,-rpath,%s/lib" % prefix]))
    return found


def probe_openmp(cflags, ldflags, command=None):
    """Compile, link and run the probe program with these flags.

    Returns ``(ok, log)``.
    """
    command = list(command or compiler_command())
    with tempfile.TemporaryDirectory(prefix="pcompute-omp-") as work:
        src = os.path.join(work, "probe.c")
        exe = os.path.join(work, "probe.exe" if os.name == "nt" else "probe")
        with open(src, "w") as f:
            f.write(_PROBE_SOURCE)
        if is_msvc(command):
            args = command + ["/nologo"] + cflags + [src, "/Fe" + exe]
            if ldflags:
                args += ["/link"] + ldflags
        else:
            args = command + cflags + [src, "-o", exe] + ldflags
        try:
            out = subprocess.run(args, capture_output=True, text=True,
                                 errors="replace", cwd=work, timeout=120)
            text = "$ %s\n%s%s" % (shlex.join(args), out.stdout, out.stderr)
            if out.returncode != 0:
                return False, text
            run = subprocess.run([exe], capture_output=True, text=True,
                                 errors="replace", timeout=60,
                                 env=dict(os.environ, OMP_NUM_THREADS="2"))
            text += "$ %s -> exit %d\n%s%s" % (exe, run.returncode,
                                               run.stdout, run.stderr)
            return run.returncode == 0, text
        except (OSError, subprocess.SubprocessError) as exc:
            return False, "$ %s\n%s" % (shlex.join(args), exc)


def openmp_flags():
    """``(compile_args, link_args)`` enabling OpenMP, or None.

    ``PCOMPUTE_OPENMP_CFLAGS`` / ``PCOMPUTE_OPENMP_LDFLAGS`` (shell-split)
    override the detection; an unset LDFLAGS defaults to the CFLAGS.  An
    override that does not work warns and falls back to detection.
    """
    cflags = os.environ.get("PCOMPUTE_OPENMP_CFLAGS", "").strip()
    ldflags = os.environ.get("PCOMPUTE_OPENMP_LDFLAGS", "").strip()
    return _openmp_flags(tuple(compiler_command()), cflags, ldflags)


@functools.lru_cache(maxsize=None)
def _openmp_flags(command, cflags_env, ldflags_env):
    identity = _identity(command)
    if cflags_env or ldflags_env:
        override = (shlex.split(cflags_env),
                    shlex.split(ldflags_env or cflags_env))
        result = _cached_probe(command, identity, [override])
        if result is not None:
            return result
        warn_once("PCOMPUTE_OPENMP_CFLAGS=%r / PCOMPUTE_OPENMP_LDFLAGS=%r do "
                  "not build an OpenMP program with %s; detecting OpenMP "
                  "flags instead" % (cflags_env, ldflags_env, identity), OpenMPWarning)
    return _cached_probe(command, identity, _candidates(command))


def _cached_probe(command, identity, candidates):
    key = cache.make_key("openmp-probe", identity, sys.platform,
                         [list(c) + list(l) for c, l in candidates])
    try:
        path = cache.Cache().dir / "toolchain" / ("openmp-%s.json" % key)
    except OSError:
        path = None
    stored = _read_probe(path)
    if stored is not False:
        return stored
    start = time.perf_counter()
    result = None
    for cflags, ldflags in candidates:
        ok, text = probe_openmp(list(cflags), list(ldflags), command)
        log.debug("OpenMP probe %s %s: %s\n%s", cflags, ldflags,
                  "ok" if ok else "failed", text)
        if ok:
            result = (list(cflags), list(ldflags))
            break
    log.info("OpenMP probe for %s took %.3f s: %s", identity,
             time.perf_counter() - start, result)
    _write_probe(path, result)
    return result


def _read_probe(path):
    """The stored probe result, or False if there is none (or it expired)."""
    if path is None:
        return False
    try:
        data = json.loads(path.read_text())
        if data["flags"] is None:
            if time.time() - data["time"] > _NEGATIVE_TTL:
                return False
            return None
        cflags, ldflags = data["flags"]
        return list(cflags), list(ldflags)
    except (OSError, ValueError, KeyError, TypeError):
        return False


def _write_probe(path, result):
    if path is None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        diskcache.write_atomic(path, json.dumps(
            {"flags": result, "time": time.time()}).encode())
    except OSError as exc:
        log.debug("could not store the OpenMP probe result: %s", exc)


def warn_no_openmp():
    """Emit, once per process, the OpenMPWarning that kernels run serially."""
    warn_once("OpenMP not available with %s; kernels run serially. Set "
              "PCOMPUTE_OPENMP_CFLAGS/PCOMPUTE_OPENMP_LDFLAGS to the flags "
              "that enable it (e.g. '-fopenmp', or on macOS '-Xpreprocessor "
              "-fopenmp' and '-lomp' with libomp installed)."
              % compiler_identity(), OpenMPWarning)
