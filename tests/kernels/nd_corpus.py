"""The n-D kernels of the corpus: arrays indexed ``a[i, j]``, shapes read in
the kernel, and 2-D / 3-D index spaces (``f(i, j, ...)``).

Registered in :data:`kernels.corpus.CORPUS` like the others, so each is pinned
by a golden file in every dialect, compiled (Cython, OpenCL on the device here,
CUDA with nvcc) and run on every backend against the python backend.  ``n``
(the corpus's item count) sets the sizes: a grid of about ``n`` points.
"""
from dataclasses import dataclass

import numpy as np

import pcompute as pc

from .corpus import I32, Q, Z, case


@dataclass(frozen=True, eq=False)
class View:
    """A strided view ``base[key]`` as a kernel argument: made on the device by
    slicing a wrapped copy of ``base`` (no copy of the view itself)."""
    base: np.ndarray
    key: tuple

    def numpy(self):
        return self.base[self.key]

    def make(self):
        return pc.wrap(self.base.copy())[self.key]


def grid(n):
    """A 2-D grid shape of about ``n`` points (at least 3 x 3)."""
    cols = 17
    return max(3, n // cols), cols


def grid3(n):
    return max(3, n // 30), 5, 6


def Q2(rng, shape, dtype):
    """Multiples of 0.25 in [-8, 8] (exact in float32 and float64) of ``shape``."""
    size = int(np.prod(shape))
    return Q(rng, size, dtype).reshape(shape)


@case(lambda n, dt, rng: [Q2(rng, grid(n), dt), Z(grid(n), dt)], out="out", dims=2)
def stencil5(i, j, u, out):
    """The 5-point Laplacian on the interior (the border is left alone)."""
    if i > 0 and j > 0 and i < u.shape[0] - 1 and j < u.shape[1] - 1:
        out[i, j] = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j]


@case(lambda n, dt, rng: [Q2(rng, grid(n), dt), Z(grid(n), dt), 0.25], out="out",
      dims=2)
def stencil9(i, j, u, out, w):
    """A 9-point smoothing stencil with a scalar weight; the border is copied."""
    ni = u.shape[0]
    nj = u.shape[1]
    if i == 0 or j == 0 or i == ni - 1 or j == nj - 1:
        out[i, j] = u[i, j]
        return
    s = 0.0
    for di in range(-1, 2):
        for dj in range(-1, 2):
            s += u[i + di, j + dj]
    out[i, j] = (1.0 - w) * u[i, j] + w * s / 9.0


@case(lambda n, dt, rng: [Z((grid(n)[0], 11), dt), Q2(rng, (grid(n)[0], 7), dt),
                          Q2(rng, (7, 11), dt)], out="c", dims=2)
def gemm(i, j, c, a, b):
    """c = a @ b with the inner loop over the shared axis (the index space is
    the shape of c, the first 2-D array argument)."""
    acc = 0.0
    for k in range(a.shape[1]):
        acc += a[i, k] * b[k, j]
    c[i, j] = acc


@case(lambda n, dt, rng: [Q2(rng, grid(n), dt), Z(grid(n)[::-1], dt)], out="t", dims=2)
def transpose(i, j, a, t):
    t[j, i] = a[i, j]


@case(lambda n, dt, rng: [Q2(rng, grid3(n), dt), Z(grid3(n), dt)], out="out", dims=3)
def stencil3d(i, j, k, u, out):
    """The 7-point Laplacian of a 3-D grid, on the interior."""
    if 0 < i < u.shape[0] - 1 and 0 < j < u.shape[1] - 1 and 0 < k < u.shape[2] - 1:
        out[i, j, k] = (u[i - 1, j, k] + u[i + 1, j, k] + u[i, j - 1, k]
                        + u[i, j + 1, k] + u[i, j, k - 1] + u[i, j, k + 1]
                        - 6.0 * u[i, j, k])


@case(lambda n, dt, rng: [Q2(rng, grid(n), dt), Z(grid(n)[0], dt), Z(grid(n)[0], I32)],
      out="total info")
def row_shape(i, a, total, info):
    """A 1-D index over the rows of a 2-D array, reading its shape, size, rank
    and the length of 1-D arrays."""
    s = 0.0
    for j in range(a.shape[1]):
        s += a[i, j]
    total[i] = s
    info[i] = a.ndim * 1000 + len(total) - a.size // a.shape[1] + a.shape[0] + i


@case(lambda n, dt, rng: [View(Q2(rng, (grid(n)[0] + 2, 35), dt),
                               (slice(1, -1), slice(None, None, 2))),
                          View(Q2(rng, (35, grid(n)[0]), dt), (slice(None, None, -2),)),
                          Z(grid(n)[0] * 18, dt)], out="a flat", dims=2)
def strided_view(i, j, a, bt, flat):
    """A kernel on strided slice views: the interior rows and every other column
    of a grid (``g[1:-1, ::2]``), and a reversed every-other-row view read
    transposed; ``flat`` records the visit order of the items' values."""
    a[i, j] = 2.0 * a[i, j] + bt[j, i]
    flat[i * a.shape[1] + j] = a[i, j] - i
