"""A conjugate-gradient solver with a diagonal (Jacobi) preconditioner on a
2-D Laplacian in CSR form.  The loop runs in Python; each step is a
``@dataparallel`` function: the CSR product and ``p.q`` (1 kernel: the
product is returned, so the reduction stores it), the updates of x and r
with the new ``r.z`` and ``r.r`` (2 kernels: ``r.z`` and ``r.r`` are one
reduction of pairs, which stores the new r; then x), the new direction (1)."""
import numpy as np

from pcompute.dataparallel import dataparallel, indices, map, reduce, split, sum

from .spmv import spmv_csr


@dataparallel
def product_and_curvature(data, cols, offsets, p):
    q = spmv_csr(data, cols, offsets, p)
    return q, sum(map(lambda a, b: a * b, p, q))


@dataparallel
def norms(r, dinv):
    """``(r.z, r.r)`` with ``z = dinv * r``, in one pass."""
    return reduce(lambda s, t: (s[0] + t[0], s[1] + t[1]),
                  map(lambda a, d: (a * a * d, a * a), r, dinv), (0.0, 0.0))


@dataparallel
def update(x, r, p, q, alpha, dinv):
    r2 = map(lambda a, b: a - alpha * b, r, q)
    rz, rr = norms(r2, dinv)
    return map(lambda a, b: a + alpha * b, x, p), r2, rz, rr


@dataparallel
def direction(r, dinv, p, beta):
    return map(lambda a, d, b: a * d + beta * b, r, dinv, p)


@dataparallel
def diagonal_inverse(data, cols, offsets, b):
    def inv_diag(row, row_cols, i):
        return 1.0 / sum(map(lambda v, j: v if j == i else 0.0 * v, row, row_cols))
    return map(inv_diag, split(data, offsets), split(cols, offsets), indices(b))


def laplacian_2d(m, dtype=np.float64):
    """The 5-point Laplacian of an m x m grid (Dirichlet) as CSR arrays
    (columns ascending within each row)."""
    grid = np.arange(m * m).reshape(m, m)
    rows, cols, data = [], [], []
    for di, dj, v in ((-1, 0, -1.0), (0, -1, -1.0), (0, 0, 4.0), (0, 1, -1.0),
                      (1, 0, -1.0)):
        inner = grid[max(0, -di):m - max(0, di), max(0, -dj):m - max(0, dj)].ravel()
        rows.append(inner)
        cols.append(inner + di * m + dj)
        data.append(np.full(inner.size, v))
    rows, cols, data = (np.concatenate(a) for a in (rows, cols, data))
    order = np.lexsort((cols, rows))
    offsets = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=m * m))])
    return (data[order].astype(dtype), cols[order].astype(np.int32),
            offsets.astype(np.int32))


def pcg(data, cols, offsets, b, tol=1e-6, maxiter=1000):
    """Solve ``A x = b`` (A symmetric positive definite, in CSR) to a relative
    residual ``tol``; returns ``(x, iterations)`` (x a pcompute Array)."""
    dinv = diagonal_inverse(data, cols, offsets, b)
    x, r = np.zeros_like(b), b
    p = direction(r, dinv, r, 0.0)
    rz, rr = norms(r, dinv)
    stop = tol * tol * float(rr)
    for it in range(1, maxiter + 1):
        q, pq = product_and_curvature(data, cols, offsets, p)
        alpha = float(rz) / float(pq)
        x, r, rz_new, rr = update(x, r, p, q, alpha, dinv)
        if float(rr) <= stop:
            return x, it
        p = direction(r, dinv, p, float(rz_new) / float(rz))
        rz = rz_new
    return x, maxiter
