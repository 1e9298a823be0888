"""Loop nests with known answers for pcompute.parallelize: each is a plain
Python function, its arguments (``make(dtype, rng)``) and how its nests must
run (``plans``: launch / host / serial per top-level nest, in order).

Includes ALPyNA's listing 1 and 2 and its benchmarks (vadd, saxpy, conway,
hilbert, jacobi, gemver, black-scholes, fbcorr, conv-2d, gemm, mandelbrot,
syr2k) at small sizes.
"""
from dataclasses import dataclass
from math import exp, log, sqrt

import numpy as np

NESTS = {}


@dataclass(frozen=True)
class Nest:
    func: object
    make: object
    plans: tuple
    exact: bool = True       # integer results compared exactly


def nest(make, plans, **kw):
    def register(func):
        NESTS[func.__name__] = Nest(func, make, tuple(plans), **kw)
        return func
    return register


def R(rng, shape, dtype):
    return rng.uniform(-1.0, 1.0, shape).astype(dtype)


# ---------------------------------------------------------------- ALPyNA listing 1
def listing1(a, b, k, n):
    for i in range(n):
        a[i + k] = a[i] + b


for _k, _plan in ((0, "launch"), (3, "serial"), (20, "launch")):
    NESTS["listing1_k%d" % _k] = Nest(
        listing1, lambda dt, rng, k=_k: [R(rng, 40, dt), 1.5, k, 20],
        (_plan,))


def listing1_shifted(a, b, k, n):
    for i in range(3, n):
        a[i + k] = a[i] + b


NESTS["listing1_k-3"] = Nest(listing1_shifted,
                             lambda dt, rng: [R(rng, 40, dt), 1.5, -3, 20], ("serial",))


# ---------------------------------------------------------------- ALPyNA listing 2
def listing2(a, p, q, r, n):
    for i in range(n):
        for j in range(n):
            for k in range(n):
                for l in range(2, n):
                    a[i + p, j + q, k, l + r] = a[i, j, k, l] + 1.0


for _inv, _plan in (((0, 1, -2), "launch"), ((1, 1, -1), "host"),
                    ((5, 0, 1), "launch")):
    NESTS["listing2_%d_%d_%d" % _inv] = Nest(
        listing2, lambda dt, rng, v=_inv: [R(rng, (10, 8, 5, 6), dt)] + list(v) + [5],
        (_plan,))


# ---------------------------------------------------------------- benchmarks
@nest(lambda dt, rng: [R(rng, 64, dt), R(rng, 64, dt), np.zeros(64, dt), 64], ["launch"])
def vadd(a, b, c, n):
    for i in range(n):
        c[i] = a[i] + b[i]


@nest(lambda dt, rng: [2.5, R(rng, 64, dt), R(rng, 64, dt), 64], ["launch"])
def saxpy(alpha, x, y, n):
    for i in range(n):
        y[i] = alpha * x[i] + y[i]


@nest(lambda dt, rng: [(rng.random((12, 12)) < 0.4).astype(np.int32),
                       np.zeros((12, 12), np.int32), 12], ["launch"])
def conway(grid, out, n):
    for i in range(1, n - 1):
        for j in range(1, n - 1):
            alive = 0
            for di in range(-1, 2):
                for dj in range(-1, 2):
                    if di != 0 or dj != 0:
                        alive += grid[i + di, j + dj]
            if grid[i, j] == 1 and (alive == 2 or alive == 3):
                out[i, j] = 1
            elif grid[i, j] == 0 and alive == 3:
                out[i, j] = 1
            else:
                out[i, j] = 0


@nest(lambda dt, rng: [np.zeros((10, 10), dt), 10], ["launch"])
def hilbert(h, n):
    for i in range(n):
        for j in range(n):
            h[i, j] = 1.0 / (i + j + 1)


@nest(lambda dt, rng: [R(rng, (10, 10), dt), np.zeros((10, 10), dt), 10, 3],
      ["host"])
def jacobi(u, v, n, steps):
    for t in range(steps):
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                v[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1])
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                u[i, j] = v[i, j]


@nest(lambda dt, rng: [R(rng, (8, 8), dt), R(rng, 8, dt), R(rng, 8, dt), R(rng, 8, dt),
                       R(rng, 8, dt), R(rng, 8, dt), np.zeros(8, dt), R(rng, 8, dt),
                       R(rng, 8, dt), 1.5, 1.2, 8], ["launch", "launch", "launch"])
def gemver(a, u1, v1, u2, v2, w, x, y, z, alpha, beta, n):
    for i in range(n):
        for j in range(n):
            a[i, j] = a[i, j] + u1[i] * v1[j] + u2[i] * v2[j]
    for i in range(n):
        acc = x[i]
        for j in range(n):
            acc += beta * a[j, i] * y[j]
        x[i] = acc + z[i]
    for i in range(n):
        acc = w[i]
        for j in range(n):
            acc += alpha * a[i, j] * x[j]
        w[i] = acc


def _bs_args(dt, rng):
    n = 32
    return [rng.uniform(5, 30, n).astype(dt), rng.uniform(1, 100, n).astype(dt),
            rng.uniform(0.25, 10, n).astype(dt), np.zeros(n, dt), np.zeros(n, dt),
            0.02, 0.30, n]


@nest(_bs_args, ["launch"], exact=False)
def black_scholes(price, strike, years, call, put, rate, vol, n):
    for i in range(n):
        s = price[i]
        x = strike[i]
        t = years[i]
        sq = sqrt(t)
        d1 = (log(s / x) + (rate + 0.5 * vol * vol) * t) / (vol * sq)
        d2 = d1 - vol * sq
        c1 = 1.0 / (1.0 + exp(-1.702 * d1))
        c2 = 1.0 / (1.0 + exp(-1.702 * d2))
        e = exp(-rate * t)
        call[i] = s * c1 - x * e * c2
        put[i] = x * e * (1.0 - c2) - s * (1.0 - c1)


@nest(lambda dt, rng: [R(rng, (6, 20), dt), R(rng, (6, 5), dt), np.zeros((6, 6, 16), dt),
                       6, 16, 5], ["launch"])
def fbcorr(sig, filt, out, m, n, w):
    for a in range(m):
        for b in range(m):
            for t in range(n):
                acc = 0.0
                for k in range(w):
                    acc += sig[a, t + k] * filt[b, k]
                out[a, b, t] = acc


@nest(lambda dt, rng: [R(rng, (12, 12), dt), R(rng, (3, 3), dt), np.zeros((10, 10), dt),
                       10], ["launch"])
def conv2d(img, ker, out, n):
    for i in range(n):
        for j in range(n):
            acc = 0.0
            for di in range(3):
                for dj in range(3):
                    acc += img[i + di, j + dj] * ker[di, dj]
            out[i, j] = acc


@nest(lambda dt, rng: [R(rng, (8, 6), dt), R(rng, (6, 7), dt), np.zeros((8, 7), dt),
                       8, 7, 6], ["launch"])
def gemm(a, b, c, n, m, p):
    for i in range(n):
        for j in range(m):
            acc = 0.0
            for k in range(p):
                acc += a[i, k] * b[k, j]
            c[i, j] = acc


@nest(lambda dt, rng: [np.zeros((16, 24), np.int32), 16, 24, 30], ["launch"])
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


@nest(lambda dt, rng: [R(rng, (8, 8), dt), R(rng, (8, 5), dt), R(rng, (8, 5), dt),
                       1.5, 0.5, 8, 5], ["launch"])
def syr2k(c, a, b, alpha, beta, n, m):
    for i in range(n):
        for j in range(i + 1):
            acc = c[i, j] * beta
            for k in range(m):
                acc += a[j, k] * alpha * b[i, k] + b[j, k] * alpha * a[i, k]
            c[i, j] = acc


@nest(lambda dt, rng: [R(rng, (6, 9), dt) - 0.5, np.zeros(6, dt), 6, 9], ["launch"])
def row_sums_of_positives(a, out, n, m):
    for i in range(n):
        acc = 0.0
        for j in range(m):
            if a[i, j] < 0.0:
                continue          # the inner loop's own: runs inside the kernel
            acc += a[i, j]
        out[i] = acc


# ---------------------------------------------------------------- sequential / mixed
@nest(lambda dt, rng: [R(rng, 30, dt), 30], ["serial"])
def prefix_sum(a, n):
    for i in range(1, n):
        a[i] = a[i] + a[i - 1]


@nest(lambda dt, rng: [R(rng, 20, dt), R(rng, 20, dt), 20], ["serial"])
def skip_small(x, y, n):
    for i in range(n):
        if y[i] < 0.5:
            continue              # the launched loop's own: runs sequentially
        x[i] = 2.0 * y[i]


@nest(lambda dt, rng: [R(rng, (6, 10), dt), 6, 10], ["launch"])
def row_running_sum(a, n, m):
    for i in range(n):
        for j in range(1, m):
            a[i, j] = a[i, j] + a[i, j - 1]


@nest(lambda dt, rng: [R(rng, (6, 10), dt), 6, 10], ["host"])
def column_sweep(a, n, m):
    for i in range(1, n):
        for j in range(m):
            a[i, j] = a[i, j] + 0.5 * a[i - 1, j]


@nest(lambda dt, rng: [R(rng, 24, dt), np.zeros(24, dt), 24], ["launch", "launch"])
def python_between(x, y, n):
    for i in range(n):
        y[i] = 2.0 * x[i]
    half = n // 2
    for i in range(half):
        x[i] = y[i + half] - y[i]
    return half


@nest(lambda dt, rng: [R(rng, 20, dt), 20], ["serial"])
def scalar_carried(a, n):
    prev = 0.0
    for i in range(n):
        cur = a[i]
        a[i] = cur - prev
        prev = cur
    return prev


@nest(lambda dt, rng: [R(rng, 40, dt), R(rng, 40, dt), 40], ["launch"])
def even_odd(a, b, n):
    for i in range(n // 2):
        a[2 * i] = a[2 * i + 1] + b[i]


# ---------------------------------------------------------------- reductions
@nest(lambda dt, rng: [R(rng, 50, dt), R(rng, 50, dt), 50], ["reduce"], exact=False)
def dot(x, y, n):
    s = 0.0
    for i in range(n):
        s += x[i] * y[i]
    return s


@nest(lambda dt, rng: [R(rng, 50, dt), 50], ["reduce"])
def largest(x, n):
    m = -1000.0
    for i in range(n):
        m = max(m, x[i])
    return m


@nest(lambda dt, rng: [R(rng, (6, 7), dt), np.zeros(6, dt), 6, 7], ["reduce"])
def sum_and_row_sums(a, rows, n, m):
    total = 1.0
    count = 0
    for i in range(n):
        r = 0.0
        for j in range(m):
            r += a[i, j]
            if a[i, j] > 0:
                count += 1
        rows[i] = r
        total += r
    return total, count


# ---------------------------------------------------------------- more shapes
@nest(lambda dt, rng: [R(rng, (6, 7, 8), dt), np.zeros((6, 7, 8), dt), 6, 7, 8],
      ["launch"])
def heat3d(u, v, nx, ny, nz):
    for i in range(1, nx - 1):
        for j in range(1, ny - 1):
            for k in range(1, nz - 1):
                v[i, j, k] = (u[i - 1, j, k] + u[i + 1, j, k] + u[i, j - 1, k]
                              + u[i, j + 1, k] + u[i, j, k - 1] + u[i, j, k + 1]) / 6.0


@nest(lambda dt, rng: [R(rng, 30, dt), np.zeros(30, dt), 30], ["launch"])
def reverse_copy(a, b, n):
    for i in range(n - 1, -1, -1):
        b[n - 1 - i] = a[i]


@nest(lambda dt, rng: [R(rng, (7, 9), dt), np.zeros((9, 7), dt), 7, 9], ["launch"])
def transpose(a, t, n, m):
    for i in range(n):
        for j in range(m):
            t[j, i] = a[i, j]


# Race-free (a[i, j] below the diagonal, a[j, i] above), but the triangular
# bound j < i couples the two subscripts: the dimension-wise tests cannot
# prove it, the exact integer test (isl) does.
@nest(lambda dt, rng: [R(rng, (8, 8), dt), 8], ["launch"])
def lower_triangle(a, n):
    for i in range(1, n):
        for j in range(i):
            a[i, j] = a[j, i] * 0.5


# Coupled subscripts with no integer solution (di + 2 dj = 1 and
# 2 di + dj = 0 give di = -1/3): parallel only by the exact test.
@nest(lambda dt, rng: [R(rng, (24, 24), dt), 8], ["launch"])
def coupled_thirds(a, n):
    for i in range(n):
        for j in range(n):
            a[i + 2 * j, 2 * i + j] = a[i + 2 * j + 1, 2 * i + j] * 0.5


# An affine guard separates the written half from the read half.
@nest(lambda dt, rng: [R(rng, 12, dt), 6, 12], ["launch"])
def guarded_halves(a, h, n):
    for i in range(n):
        if i < h:
            a[i + h] = a[i] * 2.0


@nest(lambda dt, rng: [R(rng, (8, 8), dt), 8], ["serial"])
def wavefront(a, n):
    for i in range(1, n):
        for j in range(1, n):
            a[i, j] = 0.5 * (a[i - 1, j] + a[i, j - 1])


@nest(lambda dt, rng: [rng.integers(0, 5, 40).astype(np.int32), np.zeros(5, np.int32), 40],
      ["serial"])
def histogram(keys, counts, n):
    for i in range(n):
        counts[keys[i]] += 1


# Column-order loops: the launch puts j (the last subscript) on the fastest axis.
@nest(lambda dt, rng: [R(rng, (5, 9), dt), np.zeros((5, 9), dt), 5, 9], ["launch"])
def column_order(a, b, n, m):
    for j in range(m):
        for i in range(n):
            b[i, j] = a[i, j] * 2.0 + i - j


# Array reductions carried by the outer loop: every i updates every s[j].
# The updates' subscripts do not use i, so i moves inside the items and the
# j loop (two loops in the second nest) is the launch: loop interchange.
@nest(lambda dt, rng: [R(rng, (9, 7), dt), R(rng, 7, dt), 9, 7], ["launch"])
def column_sums(a, s, n, m):
    for i in range(n):
        for j in range(m):
            s[j] += a[i, j]


@nest(lambda dt, rng: [R(rng, (7, 6, 5), dt), R(rng, (6, 5), dt), 7], ["launch"])
def slab_sums(a, s, n):
    for i in range(n):
        for j in range(6):
            for k in range(5):
                s[j, k] += a[i, j, k] * 0.5


# The updated element depends on i (s[i + j]): not an interchange (the host
# loop over i launches the j loop once per i).
@nest(lambda dt, rng: [R(rng, (6, 6), dt), R(rng, 12, dt), 6], ["host"])
def antidiagonal_sums(a, s, n):
    for i in range(n):
        for j in range(n):
            s[i + j] += a[i, j]


# ---------------------------------------------------------------- arrays handed to helpers
def _elt(v, k):
    return v[k]


def _twice(v, k):
    return _elt(v, k) * 2.0


def _store(v, k, value):
    v[k] = value


def _store_next(v, k, value):
    v[k + 1] = value


def _store_at(v, idx, k, value):
    v[idx[k]] = value


# The helpers' own accesses decide (autopar/callee.py): reading a[i] through a
# helper calling a helper and writing c's own element run in parallel; writing
# a[i + 1] where the next iteration reads a[i] (a flow dependence), and a write
# at an index read from an array (anywhere), run sequentially.
@nest(lambda dt, rng: [R(rng, 13, dt), R(rng, 12, dt), np.zeros(12, dt),
                       rng.permutation(12).astype(np.int32), 12], ["launch", "serial"])
def helper_calls(a, b, c, idx, n):
    for i in range(n):
        b[i] = _twice(a, i) + 1.0
        _store(c, i, b[i] - a[i])
    for i in range(n):
        _store_next(a, i, a[i] * 0.5)
        _store_at(b, idx, i, c[i])
