"""The ``pcompute`` command line (also ``python -m pcompute``).

Subcommands::

    pcompute info [--json]                 versions, backends and why not, devices,
                                           compiler, OpenMP flags, cache
    pcompute source MODULE:FUNCTION [-b cython|opencl|cuda] [--types x=gdoublep,...]
                    [--kind elementwise|function] [--double|--single]
                    [--openmp|--no-openmp] [-o FILE]
    pcompute source MODULE:ARRAY [-b ...] [--openmp|--no-openmp] [-o FILE]
                                           the fused kernels of a pcompute.numpy array
    pcompute cache dir|list|clear

``MODULE`` is a dotted module name (importable from the current directory)
or the path of a ``.py`` file.  Exit status: 0 success, 1 error (one line, or
the error's message with its source location for errors in kernel code; no
traceback), 2 usage error.
"""
import argparse
import contextlib
import importlib
import importlib.util
import json
import os
import platform
import re
import subprocess
import sys

from .backends.registry import backend_names, get_backend
from .config import get_config, use_config
from .errors import (BackendUnavailableError, BuildError, InternalError,
                     KernelError, KernelTypeError)

__all__ = ["main", "collect_info", "load_function", "CommandError", "UsageError"]

PROG = "pcompute"


def source_backends():
    """The backends that generate source (all but those running Python)."""
    return [n for n in backend_names() if get_backend(n).generates_source]
KINDS = ("elementwise", "function")


class CommandError(Exception):
    """A user error on the command line: printed as one line, exit status 1."""

    status = 1


class UsageError(CommandError):
    """A malformed argument: printed as one line, exit status 2."""

    status = 2


# ------------------------------------------------------------------ helpers

def _version(dist):
    try:
        from importlib.metadata import version
        return version(dist)
    except Exception:
        return None


def _shorten(text, width=72):
    """``text`` cut to ``width`` characters, with '...' where it was cut."""
    return text if len(text) <= width else text[:width - 3] + "..."


def _human_size(n):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return ("%d %s" % (n, unit)) if unit == "B" else ("%.1f %s" % (n, unit))
        n /= 1024.0


def _tree_size(path):
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            try:
                total += os.path.getsize(os.path.join(root, name))
            except OSError:
                pass
    return total


def _safe(fn, *args):
    """fn(*args), or ``{"error": ...}`` if it raises (info never fails)."""
    try:
        return fn(*args)
    except Exception as exc:   # info reports, it does not crash
        return {"error": "%s: %s" % (type(exc).__name__, str(exc).strip()[:300])}


# --------------------------------------------------------------------- info

def _versions():
    import pcompute
    out = {"pcompute": pcompute.__version__,
           "python": "%s (%s)" % (platform.python_version(), sys.executable),
           "platform": platform.platform()}
    for label, dist in (("numpy", "numpy"), ("Cython", "Cython"), ("mako", "Mako"),
                        ("pyopencl", "pyopencl"), ("pycuda", "pycuda")):
        out[label] = _version(dist) or "not installed"
    return out


def _backends():
    return {name: get_backend(name).describe() for name in backend_names()}


def _opencl_devices():
    try:
        import pyopencl as cl
    except ImportError:
        return {"error": "pyopencl is not installed"}
    from .build import opencl_builder
    chosen = set()
    if opencl_builder.why_unavailable() is None:
        chosen = {d.int_ptr for d in opencl_builder.get_context().devices}
    devices = []
    for plat in cl.get_platforms():
        try:
            found = plat.get_devices()
        except Exception:
            found = []
        for d in found:
            devices.append({
                "name": d.name.strip(), "platform": plat.name.strip(),
                "type": cl.device_type.to_string(d.type),
                "version": d.version.strip(),
                "fp64": opencl_builder.device_supports_double(d),
                "compute_units": d.max_compute_units,
                "global_mem_bytes": d.global_mem_size,
                "selected": d.int_ptr in chosen})
    return devices


def _compiler():
    from .build import toolchain
    flags = toolchain.openmp_flags()
    arch = toolchain.arch_flags()
    return {"c_compiler": toolchain.compiler_identity(),
            "openmp": None if flags is None else {"compile": flags[0], "link": flags[1]},
            "cpu_flags": arch,
            "cpu_target": toolchain.native_target()
            if arch and arch == toolchain.native_flags() else None}


def _nvcc():
    from .build import cuda_builder
    path = cuda_builder.nvcc_path()
    if path is None:
        return {"path": None}
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True,
                             timeout=60)
        lines = [l.strip() for l in out.stdout.splitlines() if "release" in l]
        version = lines[-1] if lines else out.stdout.strip().splitlines()[-1]
    except (OSError, subprocess.SubprocessError, IndexError) as exc:
        version = "unusable: %s" % exc
    return {"path": path, "version": version,
            "default_arch": cuda_builder.default_arch(path)}


def _cache():
    from .build.cache import Cache, cache_root
    cache = Cache()
    entries = cache.list_entries()
    return {"root": str(cache_root()), "dir": str(cache.dir), "entries": len(entries),
            "size_bytes": _tree_size(cache.dir) if cache.dir.is_dir() else 0,
            "env": os.environ.get("PCOMPUTE_CACHE_DIR")}


def collect_info():
    """Everything ``pcompute info`` reports, as a JSON-able dict."""
    config = _safe(lambda: {k: (list(v) if isinstance(v, tuple) else v)
                            for k, v in get_config().as_dict().items()})
    return {"versions": _safe(_versions), "backends": _safe(_backends),
            "opencl_devices": _safe(_opencl_devices), "compiler": _safe(_compiler),
            "nvcc": _safe(_nvcc), "cache": _safe(_cache), "config": config}


def _format_info(info):
    lines = []
    add = lines.append
    v = info["versions"]
    if "error" in v:
        add("versions: %s" % v["error"])
    else:
        add("pcompute %s" % v["pcompute"])
        for key in ("python", "platform", "numpy", "Cython", "mako", "pyopencl",
                    "pycuda"):
            add("  %-9s %s" % (key, v[key]))
    add("")
    add("backends:")
    b = info["backends"]
    if "error" in b:
        add("  %s" % b["error"])
    else:
        for name, entry in b.items():
            if entry["works"]:
                extra = ""
                if "device" in entry:
                    dev = entry["device"]
                    extra = " (device: %s)" % (dev if isinstance(dev, str) else dev["error"])
                add("  %-7s works%s" % (name, extra))
            else:
                add("  %-7s unavailable: %s" % (name, entry["reason"]))
    add("")
    add("OpenCL devices:")
    devs = info["opencl_devices"]
    if isinstance(devs, dict):
        add("  %s" % devs["error"])
    elif not devs:
        add("  none found")
    else:
        for d in devs:
            add("  %s %s [%s] on %s, %s, fp64: %s, %d compute units, %s" % (
                "*" if d["selected"] else "-", d["name"], d["type"], d["platform"],
                d["version"], "yes" if d["fp64"] else "no", d["compute_units"],
                _human_size(d["global_mem_bytes"])))
        add("  (* = the device pcompute uses; set PYOPENCL_CTX to choose)")
    add("")
    c = info["compiler"]
    if "error" in c:
        add("C compiler: %s" % c["error"])
    else:
        add("C compiler: %s" % c["c_compiler"])
        omp = c["openmp"]
        add("OpenMP flags: %s" % ("not available (kernels run serially)" if omp is None
                                  else "compile %s, link %s" % (" ".join(omp["compile"]),
                                                                " ".join(omp["link"]))))
        if c.get("cpu_target"):
            add("Cython modules built for this CPU: %s (the compiler's target: %s)" % (
                " ".join(c["cpu_flags"]), _shorten(c["cpu_target"])))
        elif c.get("cpu_flags"):
            add("Cython modules built with %s (config march)" % " ".join(c["cpu_flags"]))
        else:
            add("Cython modules built for the compiler's generic target (config march)")
    n = info["nvcc"]
    if "error" in n:
        add("nvcc: %s" % n["error"])
    elif n["path"] is None:
        add("nvcc: not found (CUDA sources cannot be compile-checked)")
    else:
        add("nvcc: %s (%s), default arch %s" % (n["path"], n["version"], n["default_arch"]))
    add("")
    k = info["cache"]
    if "error" in k:
        add("cache: %s" % k["error"])
    else:
        add("cache: %s (%d entries, %s)%s" % (
            k["dir"], k["entries"], _human_size(k["size_bytes"]),
            " from PCOMPUTE_CACHE_DIR" if k["env"] else ""))
    cfg = info["config"]
    if "error" not in cfg:
        add("configuration: " + ", ".join("%s=%s" % kv for kv in cfg.items()))
    return "\n".join(lines) + "\n"


def cmd_info(args):
    info = collect_info()
    if args.json:
        sys.stdout.write(json.dumps(info, indent=2, default=str) + "\n")
    else:
        sys.stdout.write(_format_info(info))
    return 0


# ------------------------------------------------------------------- source

@contextlib.contextmanager
def _path_first(directory):
    sys.path.insert(0, directory)
    try:
        yield
    finally:
        try:
            sys.path.remove(directory)
        except ValueError:
            pass


def _looks_like_path(module):
    return (module.endswith(".py") or os.sep in module
            or (os.altsep is not None and os.altsep in module))


def _import_file(path):
    path = os.path.abspath(path)
    if not os.path.isfile(path):
        raise CommandError("no such file: %s" % path)
    stem = re.sub(r"\W", "_", os.path.splitext(os.path.basename(path))[0])
    name = "pcompute_cli_%s" % stem
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise CommandError("cannot load %s as a Python module" % path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    with _path_first(os.path.dirname(path)):
        try:
            spec.loader.exec_module(module)
        except BaseException:
            sys.modules.pop(name, None)
            raise
    return module


def _import_module(module):
    """Import MODULE (a dotted name or a .py path); CommandError if it fails."""
    try:
        if _looks_like_path(module) or os.path.isfile(module):
            return _import_file(module)
        with _path_first(os.getcwd()):
            return importlib.import_module(module)
    except CommandError:
        raise
    except KernelError:
        raise                      # an error in kernel code at import: keep its location
    except SyntaxError as exc:
        raise CommandError("cannot import %s: %s (%s, line %s)" % (
            module, exc.msg, exc.filename, exc.lineno)) from None
    except ImportError as exc:
        raise CommandError("cannot import module %r: %s" % (module, exc)) from None
    except Exception as exc:
        raise CommandError("importing %r failed: %s: %s" % (
            module, type(exc).__name__, exc)) from None


def load_object(target):
    """The object named by ``MODULE:NAME`` (NAME may be dotted)."""
    module_name, sep, func_name = target.rpartition(":")
    if not sep or not module_name or not func_name:
        raise UsageError("%r is not MODULE:FUNCTION (e.g. kernels.py:axpy or "
                           "mypackage.kernels:axpy)" % target)
    obj = _import_module(module_name)
    for part in func_name.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise CommandError("%s has no attribute %r" % (module_name, func_name)) from None
    return obj


def load_function(target):
    """The function named by ``MODULE:FUNCTION`` (FUNCTION may be dotted)."""
    return _function_of(load_object(target), target)


def _function_of(obj, target):
    """``obj`` as a Python function (a primitive gives its function)."""
    # A primitive built from the function (Elementwise, ...): use the function.
    inner = getattr(obj, "func", None)
    if callable(inner) and hasattr(inner, "__code__"):
        obj = inner
    if not hasattr(obj, "__code__"):
        raise CommandError("%s is a %s, not a Python function (or a pcompute.numpy "
                           "array)" % (target, type(obj).__name__))
    return obj


def _header(backend, kind, target, types, use_double, openmp, record=None):
    import pcompute
    be = get_backend(backend)
    lines = ["Generated by pcompute %s from %s" % (pcompute.__version__, target),
             "backend %s, kind %s, %s precision%s%s" % (
                 backend, kind, "double" if use_double else "single",
                 ", OpenMP" if openmp and be.has_openmp else "",
                 ", types %s" % types if types else "")]
    call = be.calling_convention(kind)
    if call:
        lines.append("entry: " + call)
    if record is not None:
        lines.append("entry points: " + ", ".join(record.entries))
        lines.append("arguments after the index: " + (", ".join(
            "%s %s" % (name, t) for name, t in record.args) or "none"))
        if record.options:
            lines.append("build options: " + ", ".join(
                "%s=%s" % (k, v) for k, v in record.options))
    return "".join("%s %s\n" % (be.comment, line) for line in lines)


def _with_header(text, header, backend):
    # Compiler directive comments (Cython's "# cython: ...") stay first.
    lines = text.splitlines(True)
    k = 0
    while k < len(lines) and lines[k].startswith("# cython:"):
        k += 1
    return "".join(lines[:k]) + header + "".join(lines[k:])


def _is_lazy_array(obj):
    """True for a :mod:`pcompute.numpy` array (imported only if loaded)."""
    module = sys.modules.get("pcompute.numpy.core")
    return module is not None and isinstance(obj, module.ndarray)


def _fused_source(args, obj):
    """The text of the fused kernels that evaluating the lazy array ``obj``
    would build, each with its header."""
    from .numpy.sources import fused_sources
    for flag, given in (("--types", args.types), ("--kind function", args.kind != "elementwise"),
                        ("--index-dims", args.index_dims != 1),
                        ("--double/--single", args.use_double is not None)):
        if given:
            raise UsageError("%s does not apply to %s: a pcompute.numpy array's kernels "
                             "take their types and index space from the arrays" % (
                                 flag, args.target))
    openmp = get_config().use_openmp if args.openmp is None else args.openmp
    with use_config(use_openmp=openmp):
        kernels = fused_sources(obj, args.backend)
    if not kernels:
        return "%s no kernel: %s is evaluated by NumPy on the host (small, 0-d or already " \
               "computed)\n" % (get_backend(args.backend).comment, args.target)
    parts = []
    for k, (name, text) in enumerate(kernels):
        header = _header(args.backend, "fused kernel %d of %d (%s)" % (
            k + 1, len(kernels), name), args.target, None, True, openmp)
        parts.append(_with_header(text, header, args.backend))
    return "\n".join(parts)


def cmd_source(args):
    from .generate import generate_record, generate_source
    obj = load_object(args.target)
    if _is_lazy_array(obj):
        return _write(args, _fused_source(args, obj))
    config = get_config().copy()
    if args.use_double is not None:
        config.use_double = args.use_double
    if args.openmp is not None:
        config.use_openmp = args.openmp
    config.backend = args.backend
    func = _function_of(obj, args.target)
    try:
        record = None
        if args.kind == "elementwise":
            record = generate_record(func, backend=args.backend, types=args.types,
                                     config=config, index_dims=args.index_dims)
            text = record.source
        else:
            text = generate_source(func, backend=args.backend, types=args.types,
                                   kind=args.kind, config=config,
                                   index_dims=args.index_dims)
    except KernelTypeError as exc:
        if "cannot tell the type" in exc.message:
            exc.hint = "give the types of unannotated arguments with --types, e.g. " \
                       "--types x=gdoublep,n=int"
        raise
    text = _with_header(text, _header(args.backend, args.kind, args.target, args.types,
                                      config.use_double, config.use_openmp, record),
                        args.backend)
    return _write(args, text)


def _write(args, text):
    """Write ``text`` to ``args.output`` (standard output for None or '-')."""
    if args.output in (None, "-"):
        sys.stdout.write(text)
        return 0
    out = os.path.realpath(args.output)      # through links: the file they name
    if not os.path.isdir(os.path.dirname(out)):
        raise CommandError("cannot write %s: the directory does not exist" % args.output)
    if os.path.exists(out) and not os.path.isfile(out):
        # a device or a FIFO (-o /dev/null) is written to as it is: replacing
        # it would put a regular file in its place (as root, /dev/null itself)
        try:
            with open(out, "w", encoding="utf-8") as f:
                f.write(text)
        except OSError as exc:
            raise CommandError("cannot write %s: %s" % (args.output, exc.strerror or exc)) \
                from None
        return 0
    tmp = out + ".tmp-%d" % os.getpid()
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, out)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise CommandError("cannot write %s: %s" % (args.output, exc.strerror or exc)) \
            from None
    return 0


# -------------------------------------------------------------------- cache

def cmd_cache(args):
    from .build.cache import Cache
    cache = Cache()
    if args.action == "dir":
        sys.stdout.write("%s\n" % cache.dir)
        return 0
    if args.action == "list":
        entries = cache.list_entries(args.kind)
        if not entries:
            sys.stdout.write("no entries in %s\n" % cache.dir)
            return 0
        import time
        total = 0
        for e in entries:
            created = (time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(e["created"]))
                       if e["created"] else "?")
            total += e["size"]
            sys.stdout.write("%-9s %10s  %s  %s\n" % (e["kind"], _human_size(e["size"]),
                                                     created, e["path"]))
        sys.stdout.write("%d entries, %s in %s\n" % (len(entries), _human_size(total),
                                                     cache.dir))
        return 0
    # clear
    target = cache.dir.parent if args.all_versions else cache.dir
    entries = len(cache.list_entries()) if not args.all_versions else sum(
        len(Cache(cache.dir.parent, version=p.name[1:]).list_entries())
        for p in cache.dir.parent.glob("v*") if p.is_dir())
    size = _tree_size(target) if target.is_dir() else 0
    cache.clear(all_versions=args.all_versions)
    sys.stdout.write("removed %d entries (%s) from %s\n" % (entries, _human_size(size),
                                                           target))
    return 0


# ------------------------------------------------------------------- parser

class _Parser(argparse.ArgumentParser):
    """argparse with usage errors as one line plus a pointer to --help."""

    def error(self, message):
        self.exit(2, "%s: error: %s (see %s --help)\n" % (self.prog, message, self.prog))


def build_parser():
    import pcompute
    parser = _Parser(prog=PROG, description="pcompute: Python kernels for Cython+OpenMP, "
                     "OpenCL and CUDA. Exit status: 0 ok, 1 error, 2 usage error.")
    parser.add_argument("--version", action="version",
                        version="pcompute %s" % pcompute.__version__)
    parser.add_argument("-v", "--verbose", action="count", default=0,
                        help="log pcompute's progress to stderr (-vv: debug)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    p = sub.add_parser("info", help="versions, backends, devices, compiler, cache",
                       description="What pcompute can do on this machine, and why not.")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=cmd_info)

    p = sub.add_parser(
        "source", help="write the generated source of a kernel function",
        description="Translate FUNCTION of MODULE and write the generated source: a "
        "complete kernel file (--kind elementwise) or the translated functions only "
        "(--kind function). For a pcompute.numpy array (MODULE:ARRAY), write the fused "
        "kernels evaluating it would build, in order (nothing is evaluated). Needs "
        "neither a GPU nor the backend's runtime.")
    p.add_argument("target", metavar="MODULE:FUNCTION",
                   help="a dotted module name or a .py path, a colon, the function name")
    p.add_argument("-b", "--backend", choices=source_backends(),
                   default=get_config().backend if get_config().backend in source_backends()
                   else source_backends()[0],
                   help="target dialect (default: the configured backend)")
    p.add_argument("--types", default=None, metavar="NAME=TYPE,...",
                   help="types of the arguments that are not annotated, "
                        "e.g. x=gdoublep,n=int")
    p.add_argument("--kind", choices=KINDS, default="elementwise",
                   help="elementwise: a complete Elementwise kernel (default); "
                        "function: the translated functions only")
    p.add_argument("--index-dims", type=int, choices=(1, 2, 3), default=1,
                   help="index parameters of an Elementwise kernel: 2 for f(i, j, ...) "
                        "over a 2-D index space, 3 for f(i, j, k, ...) (default 1)")
    prec = p.add_mutually_exclusive_group()
    prec.add_argument("--double", dest="use_double", action="store_const", const=True,
                      default=None, help="double precision floating point")
    prec.add_argument("--single", dest="use_double", action="store_const", const=False,
                      help="single precision (double demoted to float on GPUs)")
    p.add_argument("--openmp", action=argparse.BooleanOptionalAction, default=None,
                   help="parallel loop with OpenMP (cython backend)")
    p.add_argument("-o", "--output", metavar="FILE", default=None,
                   help="write to FILE instead of standard output")
    p.set_defaults(handler=cmd_source)

    p = sub.add_parser("cache", help="the compile cache: dir, list, clear",
                       description="Show or clear pcompute's compile cache "
                       "(PCOMPUTE_CACHE_DIR sets where it is).")
    csub = p.add_subparsers(dest="action", metavar="ACTION", parser_class=_Parser)
    csub.required = True
    csub.add_parser("dir", help="print the cache directory")
    c = csub.add_parser("list", help="list the cached artefacts")
    c.add_argument("--kind", default=None, help="only this kind (cython, ...)")
    c = csub.add_parser("clear", help="remove the cached artefacts")
    c.add_argument("--all-versions", action="store_true",
                   help="also the entries of other pcompute versions")
    p.set_defaults(handler=cmd_cache)
    return parser


def _setup_logging(verbosity):
    if verbosity <= 0:
        return
    import logging
    logger = logging.getLogger("pcompute")
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(name)s: %(message)s"))
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG if verbosity > 1 else logging.INFO)


def main(argv=None):
    """Run the command line with ``argv`` (default ``sys.argv[1:]``); returns
    the exit status (0 ok, 1 error, 2 usage error)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:          # --help, --version, usage errors
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    if args.command is None:
        parser.print_usage(sys.stderr)
        sys.stderr.write("%s: error: a command is required: info, source or cache\n" % PROG)
        return 2
    _setup_logging(args.verbose)
    prog = "%s %s" % (PROG, args.command)
    try:
        return args.handler(args)
    except (CommandError, KernelError, BackendUnavailableError, BuildError) as exc:
        sys.stderr.write("%s: error: %s\n" % (prog, str(exc).strip()))
        return getattr(exc, "status", 1)
    except InternalError as exc:
        sys.stderr.write("%s: %s\n" % (prog, exc))
        return 1
    except BrokenPipeError:
        # stdout closed early (e.g. piped to head): not an error.
        with contextlib.suppress(OSError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        sys.stderr.write("%s: interrupted\n" % prog)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
