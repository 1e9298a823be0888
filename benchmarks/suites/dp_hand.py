"""The dataparallel samples' algorithms written by hand as pcompute kernels
(Elementwise / Reduction, preallocated arrays updated in place): what the
``dataparallel`` suite times the fused ``@dataparallel`` functions against,
and what its lines-of-code table counts."""
from pcompute import Elementwise, Reduction


def spmv_by_hand(i, y, data, cols, offsets, x):
    # y first: the first array argument gives the number of items (rows)
    s = 0.0
    for k in range(offsets[i], offsets[i + 1]):
        s += data[k] * x[cols[k]]
    y[i] = s


def dot_map(i, a, b):
    return a[i] * b[i]


def weighted_square_map(i, r, d):
    return r[i] * r[i] * d[i]


def square_map(i, r):
    return r[i] * r[i]


def update_xr(i, x, r, p, q, alpha):
    x[i] += alpha * p[i]
    r[i] -= alpha * q[i]


def new_direction(i, p, r, dinv, beta):
    p[i] = r[i] * dinv[i] + beta * p[i]


def inverse_diagonal(i, dinv, data, cols, offsets):
    d = 0.0
    for k in range(offsets[i], offsets[i + 1]):
        if cols[k] == i:
            d += data[k]
    dinv[i] = 1.0 / d


def copy_into(i, dst, src):
    dst[i] = src[i]


class HandPCG:
    """Jacobi-preconditioned conjugate gradients, the loop of
    ``examples/dataparallel/pcg.py`` with one kernel per step: A p, p.q,
    the x and r update, r.z, r.r, the new direction (6 per iteration)."""

    def __init__(self):
        self.spmv = Elementwise(spmv_by_hand)
        self.dot = Reduction("a+b", dot_map)
        self.rz = Reduction("a+b", weighted_square_map)
        self.rr = Reduction("a+b", square_map)
        self.update = Elementwise(update_xr)
        self.direction = Elementwise(new_direction)
        self.diagonal = Elementwise(inverse_diagonal)
        self.copy = Elementwise(copy_into)

    def __call__(self, data, cols, offsets, b, x, r, p, q, dinv, tol=1e-6, maxiter=1000):
        """Solve into ``x`` (``r``, ``p``, ``q``, ``dinv``: work arrays the
        size of ``b``, all overwritten); returns the iterations."""
        self.diagonal(dinv, data, cols, offsets)
        x.fill(0)
        self.copy(r, b)
        self.direction(p, r, dinv, 0.0)
        rz = float(self.rz(r, dinv))
        stop = tol * tol * float(self.rr(r))
        for it in range(1, maxiter + 1):
            self.spmv(q, data, cols, offsets, p)
            alpha = rz / float(self.dot(p, q))
            self.update(x, r, p, q, alpha)
            rz_new = float(self.rz(r, dinv))
            if float(self.rr(r)) <= stop:
                return it
            self.direction(p, r, dinv, rz_new / rz)
            rz = rz_new
        return maxiter

