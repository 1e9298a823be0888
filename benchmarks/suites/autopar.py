"""Suite: ``pcompute.parallelize`` on plain Python loop nests (ALPyNA's gemm,
jacobi, conv-2d, syr2k, mandelbrot and black-scholes at mid sizes) against the same nest written by
hand as an Elementwise kernel, and against Numba ``@njit(parallel=True)``
with ``prange`` when Numba is installed.

Rows, and what each compares (target, issue 18: parallelize within 1.3x of
its hand-written row; on the CPU backends also at least as fast as Numba):

- ``Elementwise by hand``: the nest as an Elementwise kernel over device
  Arrays (on the cython backend NumPy arrays, which are its device arrays).
- ``parallelize (NumPy arguments)``: the function called with NumPy arrays,
  what its user passes.  On cython against ``Elementwise by hand``; on OpenCL
  each call also moves arrays to the device and back, so its baseline is
- ``Elementwise by hand (NumPy arguments)`` (OpenCL only): the hand-written
  kernel called as a user holding NumPy arrays would: every array wrapped
  (copied to the device), the launch, the written array pulled back into
  its NumPy array.  The ratio to it is what parallelize adds or saves over
  that (it keeps its device arrays from call to call and copies into them).
- ``parallelize (device Arrays)`` (OpenCL only): the function called with
  device Arrays, against ``Elementwise by hand``: no transfers on either.

parallelize builds its Cython kernels for the host CPU (the ``host_cpu``
build option: ``-march=native``, no FMA contraction), as Numba compiles for
the host; the hand-written Elementwise is built with the same option, so the
hand ratio compares the generated code, not the flags.  For the nests that
call math functions (black-scholes) a row ``parallelize vector_math=True``
shows the opt-in vectorised math functions (results within a few ulp).
A last group times a warm call on a 4x4 grid: the per-call analysis
overhead, target under 1 ms.  Each sample of the kernel groups starts with
one untimed call (``ctx.group(..., warm=True)``): the rows are sampled in
turn, and each would otherwise start cold after another row's arrays.
"""
from math import exp, log, sqrt

import numpy as np

from pcompute import Elementwise, build_options, parallelize, wrap

from .. import pc
from ..context import close

NAME = "autopar"
#: The Numba row's label (issue 18: parallelize at least as fast as it, 2 threads).
NUMBA = "numba @njit(parallel=True) prange"
N_GEMM, MANDEL, N_BS, N_GRID, N_SYR = 256, (256, 384), 1 << 20, 1024, 192


def jacobi(u, v, n):
    for i in range(1, n - 1):
        for j in range(1, n - 1):
            v[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1])


def jacobi_ew(i, j, u, v, n):
    if i > 0 and j > 0 and i < n - 1 and j < n - 1:
        v[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1])


def conv2d(img, ker, out, n):
    for i in range(n):
        for j in range(n):
            acc = 0.0
            for di in range(3):
                for dj in range(3):
                    acc += img[i + di, j + dj] * ker[di, dj]
            out[i, j] = acc


def conv2d_ew(i, j, img, ker, out, n):
    acc = 0.0
    for di in range(3):
        for dj in range(3):
            acc += img[i + di, j + dj] * ker[di, dj]
    out[i, j] = acc


def syr2k(c, a, b, n):
    for i in range(n):
        for j in range(i + 1):
            acc = c[i, j] * 0.5
            for k in range(n):
                acc += a[j, k] * 1.5 * b[i, k] + b[j, k] * 1.5 * a[i, k]
            c[i, j] = acc


def syr2k_ew(i, c, a, b, n):
    for j in range(i + 1):
        acc = c[i, j] * 0.5
        for k in range(n):
            acc += a[j, k] * 1.5 * b[i, k] + b[j, k] * 1.5 * a[i, k]
        c[i, j] = acc


def gemm(a, b, c, n):
    for i in range(n):
        for j in range(n):
            acc = 0.0
            for k in range(n):
                acc += a[i, k] * b[k, j]
            c[i, j] = acc


def gemm_ew(i, j, a, b, c, n):
    acc = 0.0
    for k in range(n):
        acc += a[i, k] * b[k, j]
    c[i, j] = acc


def mandelbrot(out, h, w, max_iter):
    for y in range(h):
        for x in range(w):
            cr = -2.0 + 2.5 * x / w
            ci = -1.0 + 2.0 * y / h
            zr = 0.0
            zi = 0.0
            count = 0
            for k in range(max_iter):
                if zr * zr + zi * zi > 4.0:
                    break
                t = zr * zr - zi * zi + cr
                zi = 2.0 * zr * zi + ci
                zr = t
                count += 1
            out[y, x] = count


def mandelbrot_ew(y, x, out, h, w, max_iter):
    cr = -2.0 + 2.5 * x / w
    ci = -1.0 + 2.0 * y / h
    zr = 0.0
    zi = 0.0
    count = 0
    for k in range(max_iter):
        if zr * zr + zi * zi > 4.0:
            break
        t = zr * zr - zi * zi + cr
        zi = 2.0 * zr * zi + ci
        zr = t
        count += 1
    out[y, x] = count


def black_scholes(price, strike, years, call, rate, vol, n):
    for i in range(n):
        s = price[i]
        sq = sqrt(years[i])
        d1 = (log(s / strike[i]) + (rate + 0.5 * vol * vol) * years[i]) / (vol * sq)
        d2 = d1 - vol * sq
        c1 = 1.0 / (1.0 + exp(-1.702 * d1))
        c2 = 1.0 / (1.0 + exp(-1.702 * d2))
        call[i] = s * c1 - strike[i] * exp(-rate * years[i]) * c2


def black_scholes_ew(i, price, strike, years, call, rate, vol):
    s = price[i]
    sq = sqrt(years[i])
    d1 = (log(s / strike[i]) + (rate + 0.5 * vol * vol) * years[i]) / (vol * sq)
    d2 = d1 - vol * sq
    c1 = 1.0 / (1.0 + exp(-1.702 * d1))
    c2 = 1.0 / (1.0 + exp(-1.702 * d2))
    call[i] = s * c1 - strike[i] * exp(-rate * years[i]) * c2


def _mandel_ref(h, w, max_iter):
    """The iteration counts of :func:`mandelbrot`, computed with NumPy."""
    y, x = np.mgrid[0:h, 0:w]
    cr, ci = -2.0 + 2.5 * x / w, -1.0 + 2.0 * y / h
    zr, zi = np.zeros((h, w)), np.zeros((h, w))
    count = np.zeros((h, w), np.int32)
    alive = np.ones((h, w), bool)
    for _ in range(max_iter):
        alive &= zr * zr + zi * zi <= 4.0
        t = zr * zr - zi * zi + cr
        zi = np.where(alive, 2.0 * zr * zi + ci, zi)
        zr = np.where(alive, t, zr)
        count += alive
    return count


def _cases():
    rng = np.random.default_rng(5)
    a, b = rng.random((N_GEMM, N_GEMM)), rng.random((N_GEMM, N_GEMM))
    h, w = MANDEL
    bs = [rng.uniform(5, 30, N_BS), rng.uniform(1, 100, N_BS), rng.uniform(0.25, 10, N_BS)]
    s, x, t = bs
    sq = np.sqrt(t)
    d1 = (np.log(s / x) + (0.02 + 0.5 * 0.09) * t) / (0.3 * sq)
    c1, c2 = 1 / (1 + np.exp(-1.702 * d1)), 1 / (1 + np.exp(-1.702 * (d1 - 0.3 * sq)))
    g = N_GRID
    u = rng.random((g, g))
    jac = np.zeros((g, g))
    jac[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
    img, ker = rng.random((g + 2, g + 2)), rng.random((3, 3))
    conv = sum(img[di:di + g, dj:dj + g] * ker[di, dj] for di in range(3) for dj in range(3))
    sa, sb, sc = (rng.random((N_SYR, N_SYR)) for _ in range(3))
    syr = sc.copy()
    full = 0.5 * sc + 1.5 * (sb @ sa.T + sa @ sb.T)
    syr[np.tril_indices(N_SYR)] = full[np.tril_indices(N_SYR)]
    return [
        ("jacobi", "float64 %dx%d sweep" % (g, g), jacobi, jacobi_ew,
         [u, np.zeros((g, g))], [g], 1, jac, None, False),
        ("conv-2d", "float64 %dx%d, 3x3" % (g, g), conv2d, conv2d_ew,
         [img, ker, np.zeros((g, g))], [g], 2, conv, None, False),
        ("syr2k", "float64 n=%d (lower triangle)" % N_SYR, syr2k, syr2k_ew,
         [sc, sa, sb], [N_SYR], 0, syr, None, False),
        ("gemm", "float64 %dx%d" % (N_GEMM, N_GEMM), gemm, gemm_ew,
         [a, b, np.zeros((N_GEMM, N_GEMM))], [N_GEMM], 2, a @ b, None, False),
        ("mandelbrot", "%dx%d, 60 iterations" % MANDEL, mandelbrot, mandelbrot_ew,
         [np.zeros(MANDEL, np.int32)], [h, w, 60], 0, _mandel_ref(h, w, 60), None, False),
        ("black-scholes", "float64 n=%d" % N_BS, black_scholes, black_scholes_ew,
         bs + [np.zeros(N_BS)], [0.02, 0.3], 3, s * c1 - x * np.exp(-0.02 * t) * c2, N_BS,
         True),
    ]


def run(ctx):
    if not ctx.sizes(8, NAME):
        return
    for name, case, func, kernel, arrays, scalars, out, want, n, math in _cases():
        # warm: each ~2 ms sample starts with an untimed call (every row alike),
        # so rows compare steady states, not the cold call after another row's
        # 16 MB (a slower row, fewer calls per sample, would weigh it more).
        with ctx.group("%s %s" % (NAME, name), case, arrays[out].size, warm=True) as g:
            for variant in (pc.OMP, pc.OPENCL):
                why = variant.why_unavailable()
                if why:
                    ctx.rec.note("%s skipped: %s" % (variant.label, why))
                    continue
                _pcompute(g, variant, func, kernel, arrays, scalars, out, want, n)
                if math and variant.on_host:
                    _vector_math(g, variant, func, arrays, scalars, out, want, n)
            _numba(g, ctx, func, arrays, scalars, out, want, n)
    _warm_call(ctx)


def _warm_call(ctx):
    """A warm call on a 4x4 jacobi (2x2 items): the per-call analysis (cache
    lookup on the call's values), launch and dispatch, which the issue wants
    under 1 ms."""
    u = np.random.default_rng(6).random((4, 4))
    want = np.zeros((4, 4))
    jacobi(u, want, 4)
    with ctx.group("%s warm call" % NAME, "jacobi 4x4: analysis + one launch", 4) as g:
        for variant in (pc.OMP, pc.OPENCL):
            if variant.why_unavailable():
                continue
            label = "%s parallelize warm call" % variant.label
            with g.guard(label, "pcompute"):
                v = np.zeros((4, 4))
                f = parallelize(jacobi)
                g.time(label, "pcompute", lambda: f(u, v, 4),
                       verify=lambda: close(v, want, rtol=1e-12), using=variant.use,
                       target=("time", 1e-3))


def _check(result, want):
    if want.dtype.kind == "i":
        bad = np.count_nonzero(result != want)
        # float rounding may move a point on the set's border by one iteration
        return None if bad <= want.size // 1000 else "%d iteration counts differ" % bad
    return close(result, want, rtol=1e-8)      # OpenCL's exp/log differ in the last bits


def _pcompute(g, variant, func, kernel, arrays, scalars, out, want, n):
    hand = "%s Elementwise by hand" % variant.label
    with g.guard(hand, "pcompute"):
        if variant.on_host:
            dev = [a.copy() for a in arrays]
        else:
            dev = variant.put(*arrays)
            dev = list(dev) if len(arrays) > 1 else [dev]
        k = Elementwise(build_options(kernel, host_cpu=True))
        dims = kernel.__code__.co_argcount - len(arrays) - len(scalars)
        shape = arrays[out].shape if dims > 1 else None      # the output's index space
        g.time(hand, "pcompute", lambda: k(*dev, *scalars, shape=shape), sync=variant.sync(),
               verify=lambda: _check(pc.host(dev[out]), want), using=variant.use)
    # on a device backend the NumPy-argument row's baseline has its transfers
    base = hand if variant.on_host else _hand_numpy(g, variant, kernel, arrays, scalars,
                                                    out, want)
    label = "%s parallelize (NumPy arguments)" % variant.label
    with g.guard(label, "pcompute"):
        host = [a.copy() for a in arrays]
        f = parallelize(func)
        extra = [n] if n is not None else []
        # On the CPU the parallelised function must also be at least as fast
        # as Numba's prange (the row below, when numba is installed).
        target = [("vs", base, 1.3)] + ([("vs", NUMBA, 1.0)] if variant.on_host else [])
        g.time(label, "pcompute", lambda: f(*host, *scalars, *extra),
               verify=lambda: _check(host[out], want), using=variant.use,
               target=target)
    if variant.on_host:
        return
    label = "%s parallelize (device Arrays)" % variant.label
    with g.guard(label, "pcompute"):
        dev = variant.put(*arrays)
        dev = list(dev) if len(arrays) > 1 else [dev]
        f = parallelize(func)
        g.time(label, "pcompute", lambda: f(*dev, *scalars, *extra), sync=variant.sync(),
               verify=lambda: _check(pc.host(dev[out]), want), using=variant.use,
               target=[("vs", hand, 1.3)])


def _hand_numpy(g, variant, kernel, arrays, scalars, out, want):
    """The hand-written Elementwise called with NumPy arrays on a device
    backend, as its user would: wrap every array (a copy to the device), launch,
    pull the written one back into its NumPy array.  Returns the row's label:
    the baseline of parallelize's NumPy-argument row (the same transfers)."""
    label = "%s Elementwise by hand (NumPy arguments)" % variant.label
    with g.guard(label, "pcompute"):
        host = [a.copy() for a in arrays]
        k = Elementwise(build_options(kernel, host_cpu=True))
        dims = kernel.__code__.co_argcount - len(arrays) - len(scalars)
        shape = arrays[out].shape if dims > 1 else None

        def call():
            dev = wrap(*host)           # the NumPy arrays become the Arrays' host mirrors
            dev = list(dev) if len(host) > 1 else [dev]
            k(*dev, *scalars, shape=shape)
            dev[out].pull()

        g.time(label, "pcompute", call, verify=lambda: _check(host[out], want),
               using=variant.use)
    return label


def _vector_math(g, variant, func, arrays, scalars, out, want, n):
    """parallelize(vector_math=True): math functions vectorised (libmvec)."""
    label = "%s parallelize vector_math=True" % variant.label
    with g.guard(label, "pcompute"):
        host = [a.copy() for a in arrays]
        f = parallelize(func, vector_math=True)
        extra = [n] if n is not None else []
        g.time(label, "pcompute", lambda: f(*host, *scalars, *extra),
               verify=lambda: _check(host[out], want), using=variant.use,
               target=[("vs", NUMBA, 1.0)])


def _numba(g, ctx, func, arrays, scalars, out, want, n):
    try:
        import numba
    except ImportError:
        ctx.rec.note("numba prange peer missing: pip install numba (the [bench] extra)")
        return
    import inspect
    import textwrap
    src = textwrap.dedent(inspect.getsource(func)).replace("for i in range", "for i in prange",
                                                           1)
    src = src.replace("for y in range", "for y in prange", 1)
    namespace = {"prange": numba.prange, "sqrt": sqrt, "log": log, "exp": exp}
    exec(src, namespace)
    jitted = numba.njit(parallel=True)(namespace[func.__name__])
    host = [a.copy() for a in arrays]
    extra = [n] if n is not None else []
    with g.guard("numba prange", "peer"):
        g.time(NUMBA, "peer",
               lambda: jitted(*host, *scalars, *extra),
               verify=lambda: _check(host[out], want))
