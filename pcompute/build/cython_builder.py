"""Cython source text -> imported extension module, through the cache.

Cython turns the ``.pyx`` text into C (serialised by a lock: the Cython
compiler keeps global state and holds the GIL anyway); setuptools' build_ext
compiles and links it, with the compiler's output captured for error reports.
The module is named ``pc_<hint>_<key[:16]>`` and stored as
``<cache>/cython/<key[:2]>/<module name><EXT_SUFFIX>``, so its init function
matches its file name.

Flags: ``-O3 -g0`` (sysconfig's ``-g`` only slows the build; ``-O2`` builds
no faster here; ``Config.opt_level`` / ``PCOMPUTE_OPT_LEVEL`` chooses another
level, and the test suite builds most kernels at ``-O0``), ``-fwrapv``:
signed integer overflow wraps around, as the kernel language defines it (the
OpenCL and CUDA printers compute signed arithmetic in unsigned types for the
same result), ``-ffp-contract=off``: no multiply and add is fused into one FMA
instruction (which rounds once, not twice), so every result is the one of
plain Python whatever the CPU, and ``-fno-math-errno`` (``sqrt`` is the
instruction; kernels never read ``errno``).  MSVC has none of these flags (and
contracts nothing by default).  The code is made for the CPU that builds it
(``Config.march``, default ``'native'``: ``-march=native``, see
``toolchain.arch_flags``), as a JIT compiler does; the CPU's identity
(``toolchain.cpu_identity``) then joins the key, so a cache shared by
different machines never loads a module made for another CPU.
``Config.march = 'generic'`` (``PCOMPUTE_MARCH=generic``) builds code for
every CPU of the architecture.  The directive ``binding=False`` is the default (a
source header may override it): it halves the C compile time of a small
module by leaving out the CyFunction machinery.
"""

import contextlib
import contextvars
import functools
import importlib.util
import json
import logging
import os
import re
import shlex
import subprocess
import sys
import sysconfig
import threading
import time
import traceback
from pathlib import Path

from pcompute.build import cache, toolchain
from pcompute.errors import BuildError

log = logging.getLogger("pcompute.build.cython")

DEFAULT_DIRECTIVES = {"binding": False}
UNIX_CFLAGS = ["-g0", "-fwrapv", "-ffp-contract=off", "-fno-math-errno"]  # after -O<level>
MSVC_CFLAGS = []

# A module built at -O0 (Config.opt_level 0: built for build speed, as the
# test suite builds) leaves out Cython's optional fast paths that read
# CPython's int internals (its C int <-> Python int converters then call
# PyLong_AsLongLong and friends, as Cython does under PyPy or the limited
# API): the same values, ~1200 fewer lines of C per module, gcc ~8 % faster
# on a small kernel (0.318 -> 0.288 CPU-s median of 8 alternating compiles,
# AMD EPYC, load 12).  Higher levels keep them (a faster call).
FAST_BUILD_DEFINES = ["-DCYTHON_USE_PYLONG_INTERNALS=0"]

#: counters, for tests and ``pcompute info``: modules compiled, loaded.
stats = {"compiled": 0, "loaded": 0}

_memo = {}                 # key -> module
_memo_lock = threading.Lock()
_key_locks = {}            # key -> threading.Lock (one builder per key)
_cython_lock = threading.Lock()


def ext_suffix():
    """The file suffix of extension modules for this interpreter."""
    return sysconfig.get_config_var("EXT_SUFFIX") or ".so"


@functools.lru_cache(maxsize=None)
def cython_version():
    """The version of the Cython that ``import Cython`` finds, read once per
    process (every build_cython call, cached or not, needs it for the key)
    from the line of ``Cython/Shadow.py`` that sets ``Cython.__version__``,
    without importing Cython or ``importlib.metadata`` (each costs more than
    the rest of loading a kernel from the cache); else imported."""
    try:
        spec = importlib.util.find_spec("Cython")
        for folder in (spec.submodule_search_locations or []) if spec else []:
            with open(os.path.join(folder, "Shadow.py"), encoding="utf-8") as f:
                for line in f:
                    found = _VERSION_LINE.match(line)
                    if found:
                        return found.group(1)
    except (OSError, ValueError, ImportError):
        pass
    import Cython
    return Cython.__version__


_VERSION_LINE = re.compile(r"""__version__\s*=\s*["']([^"']+)["']\s*$""")


@functools.lru_cache(maxsize=None)
def numpy_version():
    """The version of the numpy whose headers modules are compiled with (the
    kernels' compiled fast calls read numpy arrays through them)."""
    import numpy
    return numpy.__version__


def numpy_include():
    """numpy's C header directory."""
    import numpy
    return numpy.get_include()


def module_name(name_hint, key):
    """The unique module name for ``key``: ``pc_<hint>_<key[:16]>``."""
    hint = re.sub(r"\W", "_", name_hint or "")[:40].strip("_") or "kernel"
    return "pc_%s_%s" % (hint, key[:16])


def build_flags(openmp, extra_compile_args=(), extra_link_args=()):
    """``(compile_args, link_args, openmp_used)`` for a module (built at
    ``Config.opt_level``; at 0 with :data:`FAST_BUILD_DEFINES`)."""
    from pcompute.config import get_config
    level = get_config().opt_level
    cflags = toolchain.opt_flags(level) + (MSVC_CFLAGS if toolchain.is_msvc() else UNIX_CFLAGS)
    if level == 0:
        cflags += FAST_BUILD_DEFINES
    cflags += toolchain.arch_flags()
    ldflags = []
    used = False
    if openmp:
        flags = toolchain.openmp_flags()
        if flags is None:
            toolchain.warn_no_openmp()
        else:
            cflags += flags[0]
            ldflags += flags[1]
            used = True
    return (cflags + list(extra_compile_args),
            ldflags + list(extra_link_args), used)


def build_key(source, openmp, extra_key="", extra_compile_args=(),
              extra_link_args=()):
    """The cache key of a module and the flags it is built with."""
    cflags, ldflags, used = build_flags(openmp, extra_compile_args,
                                        extra_link_args)
    bf = toolchain.python_build_flags()
    parts = ["cython", cache.pcompute_version(), source, cflags, ldflags,
             toolchain.compiler_identity(), bf["python"], bf["platform"],
             bf["ext_suffix"], bf["cflags"], bf["ldshared"],
             sorted(bf["env"].items()), cython_version(),
             sorted(DEFAULT_DIRECTIVES.items()), "openmp=%s" % used,
             "numpy=%s" % numpy_version(), WARNINGS_KEY, extra_key]
    if toolchain.depends_on_cpu(cflags):
        parts.append(toolchain.cpu_identity())
    return cache.make_key(*parts), cflags, ldflags


#: A function to run once before the next module compiled in this context
#: (not found in the memo or the cache), so that it can build that module
#: together with others first (see :func:`before_compile`); None: none.
_before_compile = contextvars.ContextVar("pcompute_before_compile", default=None)


@contextlib.contextmanager
def before_compile(hook):
    """Within the block, ``hook()`` runs before the first module that must
    be compiled (never when every module is found built): a caller that can
    list the modules it will need (a ``@dataparallel`` call's phases) builds
    them together there, only when something is to be compiled."""
    token = _before_compile.set(hook)
    try:
        yield
    finally:
        _before_compile.reset(token)


def build_cython(source, name_hint, openmp, extra_key="",
                 extra_compile_args=(), extra_link_args=()):
    """Build (or load from the cache) the module of Cython ``source``.

    Returns the imported module; memoised per process.  A Cython or C
    compiler failure raises :class:`BuildError` with the log and the
    numbered source.
    """
    key, cflags, ldflags = build_key(source, openmp, extra_key,
                                     extra_compile_args, extra_link_args)
    with _memo_lock:
        module = _memo.get(key)
        if module is not None:
            return module
        key_lock = _key_locks.setdefault(key, threading.Lock())
    with key_lock:
        module = _memo.get(key)
        if module is not None:
            return module
        name = module_name(name_hint, key)
        store = cache.Cache()
        if cache.save_source_enabled():
            store.save_source("cython", key, "pyx", source)
        module = group_member(store, key, name)
        if module is not None:
            with _memo_lock:
                _memo[key] = module
            return module
        hook = _before_compile.get()
        if hook is not None and store.lookup("cython", key, ext_suffix(), name) is None:
            _before_compile.set(None)
            hook()                      # may build this module in a group
            with _memo_lock:
                module = _memo.get(key)
            if module is not None:
                return module
        path = store.get_or_build(
            "cython", key,
            lambda work: _compile(source, name, work, cflags, ldflags),
            suffix=ext_suffix(), name=name)
        module = _load(name, path)
        with _memo_lock:
            _memo[key] = module
        return module


# --------------------------------------------------------------------------
# modules built as members of a group module (cython_group.py)

#: The cache kind of the index from a member's key to its group module.
INDEX_KIND = "cython-index"


class MemberView:
    """The names of member ``k`` of a group module (``run``, ``pc_fast``,
    ...), as the module of that member built alone would have them (see
    :func:`pcompute.build.cython_merge.member_name`)."""

    def __init__(self, module, k, name):
        self._module = module
        self._suffix = "_pcm%d" % k
        self.__name__ = "%s[%d]" % (module.__name__, k)
        self.member_name = name       # the module name it would have alone

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        try:
            return getattr(self._module, name + self._suffix)
        except AttributeError:
            raise AttributeError("%s has no %r" % (self.__name__, name)) from None

    def __repr__(self):
        return "<member %s>" % self.__name__


def group_member(store, key, name):
    """The view of the module of ``key`` in a group module the cache holds
    (its index entry names the group), or None when there is none (or its
    group module is gone: the member is then built alone)."""
    index = store.lookup(INDEX_KIND, key, ".json")
    if index is None:
        return None
    try:
        entry = json.loads(index.read_text())
        group_key, group_name, k = entry["group"], entry["name"], int(entry["member"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    with _memo_lock:
        module = _memo.get(group_key)
    if module is None:
        path = store.lookup("cython", group_key, ext_suffix(), group_name)
        if path is None:
            return None
        module = _load(group_name, path)
        with _memo_lock:
            _memo[group_key] = module
    log.debug("module %s found as member %d of %s", name, k, group_name)
    return MemberView(module, k, name)


def write_index(store, key, group_key, group_name, k):
    """Record in the cache that the module of ``key`` is member ``k`` of the
    group module ``group_name`` (cache key ``group_key``)."""
    text = json.dumps({"group": group_key, "name": group_name, "member": k})

    def write(work):
        path = work / "index.json"
        path.write_text(text)
        return path
    store.get_or_build(INDEX_KIND, key, write, suffix=".json")


def build_many(items):
    """Build several modules at once (compilers run in parallel threads).

    ``items`` holds tuples ``(source, name_hint, openmp[, extra_key])``;
    returns the modules in the same order.  The first failure is raised
    after all builds have finished.
    """
    items = [tuple(item) for item in items]
    if len(items) <= 1:
        return [build_cython(*item) for item in items]
    workers = min(len(items), os.cpu_count() or 2)
    import concurrent.futures       # (a few ms: only when building several)
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        futures = [pool.submit(build_cython, *item) for item in items]
        concurrent.futures.wait(futures)
    return [f.result() for f in futures]


def _load(name, path):
    start = time.perf_counter()
    spec = importlib.util.spec_from_file_location(name, str(path))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.modules[name] = module
    stats["loaded"] += 1
    log.debug("loaded %s from %s in %.1f ms", name, path,
              1e3 * (time.perf_counter() - start))
    return module


# --------------------------------------------------------------------------
# compiling

def _compile(source, name, work, cflags, ldflags):
    """Cython + C compile in ``work``; the path of the built extension."""
    start = time.perf_counter()
    pyx = work / (name + ".pyx")
    pyx.write_text(source, encoding="utf-8")
    c_file = _cythonize(pyx, name, source)
    t_c = time.perf_counter()
    built = _compile_c(c_file, name, work, cflags, ldflags, source)
    stats["compiled"] += 1
    log.info("compiled %s: cython %.2f s, C %.2f s", name, t_c - start,
             time.perf_counter() - t_c)
    return built


# Cython's compiler context, shared by the modules a process compiles (as
# Cython's own compile_multiple does): the .pxd modules they cimport
# (cpython, libc) are parsed once instead of per module (about 0.05 s of
# the ~0.1 s Cython spends on a small kernel).  Each module's own scope is
# dropped after its compile, so a module compiled again starts afresh (the
# C text is the same as with a new context); a failed compile drops the
# context.  Used under _cython_lock only.
_context = None


def _cythonize(pyx, name, source):
    global _context
    with _cython_lock:
        from Cython.Compiler import Main
        options = Main.CompilationOptions(
            Main.default_options, language_level=3,
            compiler_directives=dict(DEFAULT_DIRECTIVES),
            output_file=str(pyx.with_suffix(".c")), use_listing_file=True,
            errors_to_stderr=False, cplus=False, annotate=False)
        if _context is None:
            _context = Main.Context.from_options(options)
        result = None
        try:
            result = Main.compile_single(str(pyx), options, full_module_name=name,
                                         context=_context)
        except Exception:
            raise BuildError("Cython failed on module %s" % name,
                             log=_listing(pyx) + traceback.format_exc(),
                             source=source, backend="cython") from None
        finally:
            if result is not None and not result.num_errors:
                _context.modules.pop(name, None)
            else:
                _context = None
    if result.num_errors or not result.c_file:
        raise BuildError("Cython reported errors in module %s" % name,
                         log=_listing(pyx), source=source, backend="cython")
    return Path(result.c_file)


def _listing(pyx):
    try:
        return pyx.with_suffix(".lis").read_text(errors="replace")
    except OSError:
        return ""


def _compile_c(c_file, name, work, cflags, ldflags, source):
    from setuptools import Extension
    from setuptools.errors import BaseError, CCompilerError

    output = []
    ext = Extension(name, [str(c_file)], extra_compile_args=list(cflags),
                    extra_link_args=list(ldflags), include_dirs=[numpy_include()])
    cmd = _build_ext_class()(_distribution(ext))
    cmd.output_log = output
    cmd.build_lib = str(work)
    cmd.build_temp = str(work / "build")
    try:
        with _finalize_lock:
            cmd.ensure_finalized()
        cmd.run()
    except (CCompilerError, BaseError, OSError) as exc:
        text = "\n".join(output) + ("\n%s: %s" % (type(exc).__name__, exc))
        raise BuildError("the C compiler failed on module %s" % name,
                         log=text, source=source, backend="cython") from None
    return Path(cmd.get_ext_fullpath(name))


# One setuptools Distribution per process, copied per module: making one
# reads every installed package's entry points (~15 ms CPU, ~4 % of a small
# module's build at -O0).  A shallow copy owns its ext_modules; the command
# objects it shares (build's directories, which build_ext only reads) are
# finalized under _finalize_lock.
_dist = None
_finalize_lock = threading.Lock()


def _distribution(ext):
    """A setuptools Distribution whose only extension is ``ext``."""
    global _dist
    import copy
    from setuptools import Distribution
    with _finalize_lock:
        if _dist is None:
            _dist = Distribution({"name": "pcompute-kernels"})
    dist = copy.copy(_dist)
    dist.ext_modules = [ext]
    return dist


_build_ext = None

# Warning options (-Wall, -Wsign-compare, ... from Python's own build flags)
# but the -Wp,/-Wa,/-Wl, pass-throughs.  Nobody reads the warnings of a
# generated module (a failed build's log keeps its errors), and -Wall's
# analyses cost gcc ~8 % of a module's build at -O0 (0.355 -> 0.327 CPU-s
# median of 10, AMD EPYC, load 13).  In the cache key (WARNINGS_KEY).
_WARNING_OPTION = re.compile(r"^-W(?![pal],)")
WARNINGS_KEY = "compiler warnings off"


def python_cflags():
    """Python's own C flags (sysconfig's ``CFLAGS``), as setuptools puts them
    in the compile command: after the compiler, before the user's ``CFLAGS``
    and ``CPPFLAGS`` from the environment."""
    return shlex.split(sysconfig.get_config_var("CFLAGS") or "")


def quiet_compile_args(args, own=None):
    """``args`` (a compiler command) without the warning options of Python's
    own flags ``own`` (default :func:`python_cflags`), found as the run of
    those flags in ``args``; warning options the user gave (``CC``,
    ``CFLAGS``, ``CPPFLAGS``) stay.  Unchanged when the run is not there."""
    own = python_cflags() if own is None else list(own)
    args = list(args)
    if not own:
        return args
    for start in range(len(args) - len(own) + 1):
        if args[start:start + len(own)] == own:
            kept = [a for a in own if not _WARNING_OPTION.match(a)]
            return args[:start] + kept + args[start + len(own):]
    return args


def _build_ext_class():
    """setuptools' build_ext, with the compiler's output captured."""
    global _build_ext
    if _build_ext is not None:
        return _build_ext
    from setuptools.command.build_ext import build_ext
    from setuptools.errors import CompileError

    class CapturingBuildExt(build_ext):
        output_log = None

        def build_extensions(self):
            self.compiler.spawn = self._spawn
            compile_args = getattr(self.compiler, "compiler_so", None)
            if compile_args is not None:
                self.compiler.compiler_so = quiet_compile_args(compile_args)
            super().build_extensions()

        def _spawn(self, args, **_kw):
            proc = subprocess.run(list(args), capture_output=True, text=True,
                                  errors="replace")
            text = "$ %s\n%s%s" % (shlex.join(args), proc.stdout, proc.stderr)
            self.output_log.append(text)
            if proc.stdout.strip() or proc.stderr.strip():
                log.debug("%s", text)
            if proc.returncode != 0:
                raise CompileError("command %r failed with exit status %d"
                                   % (args[0], proc.returncode))

    _build_ext = CapturingBuildExt
    return _build_ext
