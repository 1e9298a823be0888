"""Suite: one 2-D Jacobi sweep on a 4096 x 4096 float64 grid, written with n-D
indexing ``u[i, j]`` over a 2-D index space, against the same kernel written
with flat 1-D indexing ``u[k - nx]`` (the way 2-D grids were written before
n-D arrays) and with flat indexing over a 2-D index space ``u[i * nx + j]``.

The n-D row's targets: within 1.1x of each flat row, measured in the same run
(issue 15).  ``--n`` is ignored: the grid is fixed by the target.
"""
import numpy as np

from pcompute import Elementwise

from .. import pc
from ..context import close

NAME = "jacobi2d"
CASE = "float64 4096x4096"
SIDE = 4096
FLAT = "flat 1-D u[k - nx]"


def jacobi_nd(i, j, u, v):
    if i > 0 and j > 0 and i < u.shape[0] - 1 and j < u.shape[1] - 1:
        v[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1])


def jacobi_flat(k, u, v, nx, ny):
    i = k // nx
    j = k - i * nx
    if i > 0 and j > 0 and i < ny - 1 and j < nx - 1:
        v[k] = 0.25 * (u[k - nx] + u[k + nx] + u[k - 1] + u[k + 1])


def jacobi_flat2(i, j, u, v, nx):
    if i > 0 and j > 0 and i < v.shape[0] - 1 and j < nx - 1:
        v[i, j] = 0.25 * (u[i * nx + j - nx] + u[i * nx + j + nx] + u[i * nx + j - 1]
                          + u[i * nx + j + 1])


def run(ctx):
    if not ctx.sizes(2 * 8, NAME):
        return
    n = SIDE * SIDE
    u = np.random.default_rng(3).random((SIDE, SIDE))
    want = u.copy()
    want[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
    with ctx.group(NAME, CASE, n) as g:
        for variant in (pc.OMP, pc.SERIAL, pc.OPENCL):
            why = variant.why_unavailable()
            if why:
                ctx.rec.note("%s skipped: %s" % (variant.label, why))
                continue
            ud, vd = (u, u.copy()) if variant.on_host else variant.put(u, u)
            flat_u, flat_v = ud.reshape(n), vd.reshape(n)   # views, no copy
            check = lambda vd=vd: close(pc.host(vd), want)
            flat = "%s %s" % (variant.label, FLAT)
            with g.guard(flat, "pcompute"):
                k = Elementwise(jacobi_flat)
                g.time(flat, "pcompute", lambda k=k, a=flat_u, b=flat_v: k(a, b, SIDE, SIDE),
                       sync=variant.sync(), verify=check, using=variant.use)
            flat2 = "%s flat 2-D u[i * nx + j]" % variant.label
            label = "%s u[i, j]" % variant.label
            with g.guard(label, "pcompute"):
                k = Elementwise(jacobi_nd)
                g.time(label, "pcompute", lambda k=k, a=ud, b=vd: k(a, b), sync=variant.sync(),
                       verify=check, using=variant.use,
                       target=[("vs", flat, 1.1), ("vs", flat2, 1.1)])
            label = flat2
            with g.guard(label, "pcompute"):
                k = Elementwise(jacobi_flat2)
                g.time(label, "pcompute", lambda k=k, a=flat_u, b=vd: k(a, b, SIDE,
                                                                 shape=(SIDE, SIDE)),
                       sync=variant.sync(), verify=check, using=variant.use)
