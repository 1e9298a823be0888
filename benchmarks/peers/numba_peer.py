"""Numba ``parallel=True`` peers (optional: ``why_missing()`` says why not)."""
import numpy as np

try:
    import numba
    from numba import njit, prange
    _ERROR = None
except Exception as exc:  # not installed, or a broken install
    numba = None
    _ERROR = "numba is not importable (%s: %s); pip install numba to compare" % (
        type(exc).__name__, exc)


def why_missing():
    return _ERROR


def version():
    return numba.__version__ if numba else None


def threading_layer():
    """The threading layer Numba chose (None before a parallel function ran)."""
    try:
        return numba.threading_layer() if numba else None
    except Exception:
        return None


if numba is not None:
    @njit(parallel=True)
    def axpy(a, x, y):
        for i in prange(x.shape[0]):
            y[i] = a * x[i] + y[i]

    @njit(parallel=True)
    def sum_float(x):            # float64 accumulator, also for float32 data
        s = 0.0
        for i in prange(x.shape[0]):
            s += x[i]
        return s

    @njit(parallel=True)
    def sum_int(x):              # int64 accumulator
        s = 0
        for i in prange(x.shape[0]):
            s += x[i]
        return s

    @njit(parallel=True)
    def cumsum(x, y):
        """Inclusive scan: block sums, serial prefix, block scans."""
        n = x.shape[0]
        nb = numba.get_num_threads()
        sums = np.zeros(nb + 1)
        for b in prange(nb):
            s = 0.0
            for i in range(n * b // nb, n * (b + 1) // nb):
                s += x[i]
            sums[b + 1] = s
        for b in range(nb):
            sums[b + 1] += sums[b]
        for b in prange(nb):
            s = sums[b]
            for i in range(n * b // nb, n * (b + 1) // nb):
                s += x[i]
                y[i] = s

    @njit(parallel=True)
    def heavy_map(x, y):
        for i in prange(x.shape[0]):
            v = x[i]
            y[i] = np.sin(v) * np.exp(-v * v) + np.sqrt(v)

    @njit(parallel=True)
    def min_float(x):
        m = np.inf
        for i in prange(x.shape[0]):
            m = min(m, x[i])
        return m

    @njit(parallel=True)
    def segscan(x, flags, y):
        """Segmented inclusive scan: block tails, serial carry, block rescans."""
        n = x.shape[0]
        nb = numba.get_num_threads()
        tail = np.zeros(nb)
        has = np.zeros(nb, np.int32)
        for b in prange(nb):
            s = 0.0
            for i in range(n * b // nb, n * (b + 1) // nb):
                if flags[i]:
                    s = 0.0
                    has[b] = 1
                s += x[i]
            tail[b] = s
        carry = np.zeros(nb)
        c = 0.0
        for b in range(nb):
            carry[b] = c
            c = tail[b] if has[b] else c + tail[b]
        for b in prange(nb):
            s = carry[b]
            for i in range(n * b // nb, n * (b + 1) // nb):
                if flags[i]:
                    s = 0.0
                s += x[i]
                y[i] = s


def summer(dtype):
    return sum_int if np.dtype(dtype).kind in "iu" else sum_float
