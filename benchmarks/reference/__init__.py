"""The hand-written C + OpenMP references, built once and called via ctypes.

``load()`` compiles ``kernels.c`` with ``$CC`` (default gcc) and
``-O3 -march=native -fopenmp -shared -fPIC`` into a cache directory keyed
by the source, the flags and the compiler's version, and returns a
:class:`CRef`, or raises :class:`RuntimeError` saying why it cannot.

Every kernel has two entry points: a plain call (timed from Python, like any
peer) and a ``time_*`` twin that repeats the kernel inside C and returns the
seconds per call measured with ``omp_get_wtime`` (no ctypes overhead).
"""
import ctypes
import hashlib
import os
import shlex
import subprocess
import tempfile
from pathlib import Path

import numpy as np

SOURCE = Path(__file__).with_name("kernels.c")
FLAGS = ["-O3", "-march=native", "-fopenmp", "-shared", "-fPIC"]

_P, _I64, _I, _D = ctypes.c_void_p, ctypes.c_int64, ctypes.c_int, ctypes.c_double
_SIGNATURES = {
    "axpy_f64": (None, [_I64, _D, _P, _P, _I]),
    "sum_f64": (_D, [_I64, _P, _I]),
    "sum_f32": (_D, [_I64, _P, _I]),
    "sum_i32": (_I64, [_I64, _P, _I]),
    "scan_f64": (None, [_I64, _P, _P, _I, _I]),
    "radix_sort_i32": (None, [_I64, _P, _P, _P, _P, _P, _P, _I, _I, _I]),
    "map_f64": (None, [_I64, _P, _P, _I]),
    "min_f64": (_D, [_I64, _P, _I]),
    "segscan_f64": (None, [_I64, _P, _P, _P, _I]),
    "gather3_f64": (None, [_I64, _P, _P, _P, _P, _P, _P, _P, _I]),
}


def compiler():
    return os.environ.get("CC") or "gcc"


def compiler_version():
    """First line of ``$CC --version`` (or why it failed)."""
    try:
        out = subprocess.run([compiler(), "--version"], capture_output=True, text=True,
                             timeout=30)
        return out.stdout.splitlines()[0] if out.stdout else out.stderr.strip()
    except (OSError, subprocess.SubprocessError) as exc:
        return "unavailable (%s)" % exc


def cache_dir():
    root = os.environ.get("XDG_CACHE_HOME") or os.path.join(tempfile.gettempdir(),
                                                            "pcompute-bench-%d" % os.getuid())
    return Path(root) / "pcompute-bench-reference"


def build(source=SOURCE, flags=FLAGS):
    """Path of the shared library built from ``source`` with ``flags`` (built
    if not cached)."""
    source = Path(source)
    text = source.read_bytes()
    key = hashlib.sha256(text + repr((compiler(), flags, compiler_version())).encode())
    out = cache_dir() / ("%s-%s.so" % (source.stem, key.hexdigest()[:16]))
    if out.exists():
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp%d" % os.getpid())
    cmd = [compiler()] + list(flags) + [str(source), "-o", str(tmp), "-lm"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError("building the C reference failed:\n$ %s\n%s"
                           % (shlex.join(cmd), proc.stderr))
    os.replace(tmp, out)
    return out


def _ptr(a):
    return a.ctypes.data


class CRef:
    """The C kernels; ``nt`` is the thread count (0: OpenMP's default)."""

    def __init__(self, path):
        self.path = path
        self.lib = ctypes.CDLL(str(path))
        for name, (restype, argtypes) in _SIGNATURES.items():
            for fname, extra in ((name, []), ("time_" + name, [_I, _I, _P])):
                f = getattr(self.lib, fname)
                f.restype = restype if fname == name else None
                f.argtypes = argtypes + extra

    # -- plain calls ----------------------------------------------------------
    def axpy(self, a, x, y, nt=0):
        self.lib.axpy_f64(len(x), a, _ptr(x), _ptr(y), nt)

    def sum(self, x, nt=0):
        return getattr(self.lib, "sum_" + _dtype_code(x))(len(x), _ptr(x), nt)

    def scan(self, x, y, chains=1, nt=0):
        self.lib.scan_f64(len(x), _ptr(x), _ptr(y), nt, chains)

    def sort(self, keys, vals, out_k, out_v, tk, tv, key_bits=32, nt=0, digit_bits=8):
        _sortable(keys)
        self.lib.radix_sort_i32(len(keys), _ptr(keys), _ptr(vals), _ptr(out_k),
                                _ptr(out_v), _ptr(tk), _ptr(tv), key_bits, nt, digit_bits)

    def map(self, x, y, nt=0):
        self.lib.map_f64(len(x), _ptr(x), _ptr(y), nt)

    def min(self, x, nt=0):
        return self.lib.min_f64(len(x), _ptr(x), nt)

    def segscan(self, x, flags, y, nt=0):
        self.lib.segscan_f64(len(x), _ptr(x), _ptr(flags), _ptr(y), nt)

    def gather3(self, idx, a, b, c, oa, ob, oc, nt=0):
        self.lib.gather3_f64(len(idx), *(_ptr(v) for v in (idx, a, b, c, oa, ob, oc)), nt)

    def call(self, kernel, args):
        """``kernel`` ('axpy', 'sum', 'scan', 'sort', 'map', 'min', 'segscan',
        'gather3') on the positional
        ``args`` of the method of that name (thread count last)."""
        return getattr(self, kernel)(*args)

    # -- timed inside C: an array of seconds per call, one per rep ------------
    def timed(self, kernel, args, reps, inner):
        """Seconds per call of ``kernel`` (a name above) for each of ``reps``."""
        times = np.zeros(reps)
        fname, cargs = self._timed_args(kernel, args)
        getattr(self.lib, fname)(*cargs, reps, inner, _ptr(times))
        return times

    def _timed_args(self, kernel, args):
        if kernel == "axpy":
            a, x, y, nt = args
            return "time_axpy_f64", (len(x), a, _ptr(x), _ptr(y), nt)
        if kernel == "sum":
            x, nt = args
            return "time_sum_" + _dtype_code(x), (len(x), _ptr(x), nt)
        if kernel == "scan":
            x, y, chains, nt = args
            return "time_scan_f64", (len(x), _ptr(x), _ptr(y), nt, chains)
        if kernel == "sort":
            keys, vals, ok, ov, tk, tv, bits, nt, digit_bits = args
            _sortable(keys)
            return "time_radix_sort_i32", (len(keys),) + tuple(
                _ptr(a) for a in (keys, vals, ok, ov, tk, tv)) + (bits, nt, digit_bits)
        if kernel == "map":
            x, y, nt = args
            return "time_map_f64", (len(x), _ptr(x), _ptr(y), nt)
        if kernel == "min":
            x, nt = args
            return "time_min_f64", (len(x), _ptr(x), nt)
        if kernel == "segscan":
            x, flags, y, nt = args
            return "time_segscan_f64", (len(x), _ptr(x), _ptr(flags), _ptr(y), nt)
        if kernel == "gather3":
            idx = args[0]
            return "time_gather3_f64", (len(idx),) + tuple(_ptr(v) for v in args[:7]) + \
                (args[7],)
        raise ValueError("unknown reference kernel %r" % kernel)


def _sortable(keys):
    """The C radix sort counts in signed 32 bits: refuse more keys."""
    if len(keys) >= 2 ** 31:
        raise ValueError("the C radix sort counts in 32 bits: %d keys are too many"
                         % len(keys))


def _dtype_code(x):
    code = {np.dtype(np.float64): "f64", np.dtype(np.float32): "f32",
            np.dtype(np.int32): "i32"}.get(x.dtype)
    if code is None or not x.flags.c_contiguous:
        raise TypeError("the C reference sums contiguous float64/float32/int32 only")
    return code


_loaded = None


def load():
    """The :class:`CRef` (built and loaded once per process)."""
    global _loaded
    if _loaded is None:
        _loaded = CRef(build())
    return _loaded
