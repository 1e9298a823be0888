"""NVIDIA Warp on its CPU device (``pip install warp-lang``), when importable.

Warp's CPU device runs a kernel launch on one thread (its parallel devices
are CUDA GPUs, not present here): its rows say so.  Arrays are
``wp.array(..., device="cpu")`` views of the numpy arrays (no copy).  The
sum is Warp's own ``warp.utils.array_sum``.  Warp compiles each module on
first use (cached in ``~/.cache/warp`` afterwards): the "first call" column.
"""
import numpy as np

try:
    import warp as wp
    _ERROR = None
except Exception as exc:  # not installed, or a broken install
    wp = None
    _ERROR = "warp is not importable (%s: %s); pip install warp-lang to compare" % (
        type(exc).__name__, exc)

_init_error = None
_ready = False
DEVICE = "cpu"
LABEL = "warp cpu (1 thread)"


def init_error():
    global _ready, _init_error
    if wp is None or _ready or _init_error:
        return _init_error
    try:
        wp.config.quiet = True
        wp.init()
        _ready = True
    except Exception as exc:
        _init_error = "warp failed to start (%s: %s)" % (type(exc).__name__, exc)
    return _init_error


def why_missing():
    return _ERROR or init_error()


def version():
    return wp.__version__ if wp else None


_WP_TYPES = {}

if wp is not None:
    _WP_TYPES = {np.dtype(np.float64): wp.float64, np.dtype(np.float32): wp.float32,
                 np.dtype(np.int32): wp.int32}

    @wp.kernel
    def _axpy(a: wp.float64, x: wp.array(dtype=wp.float64), y: wp.array(dtype=wp.float64)):
        i = wp.tid()
        y[i] = a * x[i] + y[i]


def view(a):
    """A Warp array on the CPU sharing ``a``'s memory."""
    return wp.array(a, dtype=_WP_TYPES[a.dtype], device=DEVICE, copy=False)


def axpy(a, xw, yw):
    """``run()``: y = a*x + y on Warp arrays."""
    n = xw.shape[0]
    a = wp.float64(a)
    return lambda: wp.launch(_axpy, dim=n, inputs=[a, xw, yw], device=DEVICE)


def can_sum(dtype):
    """Warp's array_sum takes float32 and float64 arrays only."""
    return np.dtype(dtype).kind == "f"


def summer(xw):
    """``run()``: warp.utils.array_sum of a Warp array (a Python number; a
    float32 array is summed in float32)."""
    from warp.utils import array_sum
    return lambda: array_sum(xw)


def sync():
    wp.synchronize_device(DEVICE)
