"""Taichi on its CPU backend (``pip install taichi``), when importable.

``ti.init(arch=ti.cpu, cpu_max_num_threads=<cores>, default_fp=ti.f64)``
once per process; kernels take numpy arrays as ``ti.types.ndarray`` (no
copy on the CPU).  Taichi compiles a kernel on its first call for each
argument type (the "first call" column).  Sums accumulate float32 in
float64 and int32 in int64, like the C reference: Taichi reduces a
kernel-scope scalar updated with ``+=`` in its parallel top-level loop per
thread, then atomically.
"""
import os

import numpy as np

try:
    import taichi as ti
    _ERROR = None
except Exception as exc:  # not installed, or a broken install
    ti = None
    _ERROR = "taichi is not importable (%s: %s); pip install taichi to compare" % (
        type(exc).__name__, exc)

_ready = False


def why_missing():
    return _ERROR or init_error()


def version():
    return ".".join(map(str, ti.__version__)) if ti else None


def threads():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


_init_error = None


def init_error():
    """Start Taichi's CPU backend once; None, or why it failed."""
    global _ready, _init_error
    if ti is None or _ready or _init_error:
        return _init_error
    try:
        ti.init(arch=ti.cpu, cpu_max_num_threads=threads(), default_fp=ti.f64,
                default_ip=ti.i32, log_level=ti.ERROR, offline_cache=True)
        _ready = True
    except Exception as exc:
        _init_error = "taichi CPU backend failed to start (%s: %s)" % (type(exc).__name__,
                                                                         exc)
    return _init_error


if ti is not None:
    f64_1d = ti.types.ndarray(dtype=ti.f64, ndim=1)
    f32_1d = ti.types.ndarray(dtype=ti.f32, ndim=1)
    i32_1d = ti.types.ndarray(dtype=ti.i32, ndim=1)

    @ti.kernel
    def _axpy(a: ti.f64, x: f64_1d, y: f64_1d):
        for i in x:
            y[i] = a * x[i] + y[i]

    @ti.kernel
    def _sum_f64(x: f64_1d) -> ti.f64:
        s = ti.f64(0.0)
        for i in x:
            s += x[i]
        return s

    @ti.kernel
    def _sum_f32(x: f32_1d) -> ti.f64:
        s = ti.f64(0.0)
        for i in x:
            s += ti.cast(x[i], ti.f64)
        return s

    @ti.kernel
    def _sum_i32(x: i32_1d) -> ti.i64:
        s = ti.i64(0)
        for i in x:
            s += ti.cast(x[i], ti.i64)
        return s


def axpy(a, x, y):
    _axpy(a, x, y)


def summer(dtype):
    """sum(x) for a numpy array of ``dtype`` (float64, float32 or int32)."""
    return {np.dtype(np.float64): _sum_f64, np.dtype(np.float32): _sum_f32,
            np.dtype(np.int32): _sum_i32}[np.dtype(dtype)]


def sync():
    ti.sync()
