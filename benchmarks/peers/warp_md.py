"""NVIDIA Warp (CPU device) version of the 2-D MD example's ``cells``
strategy (walls, no lists), as the C reference does it: cell keys with
atomic ranks (``wp.atomic_add`` returns the old count), an exclusive scan of
the counts (``warp.utils.array_scan``), a scatter into the cells, the force
loop walking the 3x3 cells, and the two half kicks.  float64 throughout
(Warp's ``HashGrid`` takes float32 points only, which would not reproduce
the C energies).  Warp's CPU device runs each launch on one thread.
"""
import numpy as np

from .warp_peer import why_missing

RC = 3.0
LABEL = "warp cpu cells (1 thread)"

if not why_missing():
    import warp as wp
    from warp.utils import array_scan

    F1 = wp.array(dtype=wp.float64)
    I1 = wp.array(dtype=wp.int32)

    @wp.func
    def _cell(p: wp.float64, csz: wp.float64, nc: int):
        c = int(wp.floor(p / csz))
        if c < 0:
            c = 0
        if c >= nc:
            c = nc - 1
        return c

    @wp.func
    def _wall_f(p: wp.float64, side: wp.float64):
        f = wp.float64(0.0)
        if p < wp.float64(0.5):
            f = wp.float64(50.0) * (wp.float64(0.5) - p)
        elif p > side - wp.float64(0.5):
            f = wp.float64(-50.0) * (wp.float64(0.5) - (side - p))
        return f

    @wp.func
    def _wall_e(p: wp.float64, side: wp.float64):
        d = wp.float64(0.5)
        if p < wp.float64(0.5):
            d = p
        if p > side - wp.float64(0.5):
            d = side - p
        return wp.float64(25.0) * (wp.float64(0.5) - d) * (wp.float64(0.5) - d)

    @wp.kernel
    def _keys(x: F1, y: F1, keys: I1, ranks: I1, counts: I1, csz: wp.float64, nc: int):
        i = wp.tid()
        k = _cell(x[i], csz, nc) * nc + _cell(y[i], csz, nc)
        keys[i] = k
        ranks[i] = wp.atomic_add(counts, k, 1)

    @wp.kernel
    def _scatter(keys: I1, ranks: I1, start: I1, parts: I1):
        i = wp.tid()
        parts[start[keys[i]] + ranks[i]] = i

    @wp.kernel
    def _forces(x: F1, y: F1, ax: F1, ay: F1, pe: F1, start: I1, parts: I1,
                csz: wp.float64, nc: int, side: wp.float64):
        i = wp.tid()
        xi = x[i]
        yi = y[i]
        fx = wp.float64(0.0)
        fy = wp.float64(0.0)
        e = wp.float64(0.0)
        rc2 = wp.float64(RC * RC)
        cx = _cell(xi, csz, nc)
        cy = _cell(yi, csz, nc)
        for ix in range(wp.max(cx - 1, 0), wp.min(cx + 2, nc)):
            for iy in range(wp.max(cy - 1, 0), wp.min(cy + 2, nc)):
                c = ix * nc + iy
                for k in range(start[c], start[c + 1]):
                    j = parts[k]
                    dx = xi - x[j]
                    dy = yi - y[j]
                    r2 = dx * dx + dy * dy
                    if r2 < rc2 and j != i:
                        inv2 = wp.float64(1.0) / r2
                        inv6 = inv2 * inv2 * inv2
                        f = wp.float64(24.0) * inv2 * inv6 * (wp.float64(2.0) * inv6
                                                              - wp.float64(1.0))
                        fx += f * dx
                        fy += f * dy
                        e += wp.float64(2.0) * inv6 * (inv6 - wp.float64(1.0))
        ax[i] = fx + _wall_f(xi, side)
        ay[i] = fy + _wall_f(yi, side)
        pe[i] = e + _wall_e(xi, side) + _wall_e(yi, side)

    @wp.kernel
    def _kick_drift(x: F1, y: F1, vx: F1, vy: F1, ax: F1, ay: F1, dt: wp.float64):
        i = wp.tid()
        h = wp.float64(0.5) * dt
        vx[i] = vx[i] + h * ax[i]
        vy[i] = vy[i] + h * ay[i]
        x[i] = x[i] + dt * vx[i]
        y[i] = y[i] + dt * vy[i]

    @wp.kernel
    def _kick(vx: F1, vy: F1, ax: F1, ay: F1, dt: wp.float64):
        i = wp.tid()
        h = wp.float64(0.5) * dt
        vx[i] = vx[i] + h * ax[i]
        vy[i] = vy[i] + h * ay[i]


class WarpMD:
    label = LABEL

    def __init__(self, positions, side, dt=0.02):
        n = len(positions[0])
        self.n, self.side, self.dt = n, wp.float64(side), wp.float64(dt)
        nc = max(1, int(side // RC))
        self.nc, self.csz = nc, wp.float64(side / nc)
        self.pos0 = [np.ascontiguousarray(p, dtype=np.float64) for p in positions]
        dev = "cpu"
        f = lambda: wp.zeros(n, dtype=wp.float64, device=dev)
        self.x, self.y, self.vx, self.vy, self.ax, self.ay, self.pe = (f() for _ in range(7))
        i = lambda m: wp.zeros(m, dtype=wp.int32, device=dev)
        self.keys, self.ranks, self.parts = i(n), i(n), i(n)
        self.counts, self.start = i(nc * nc + 1), i(nc * nc + 1)   # counts[-1] stays 0
        self.reset()

    def _launch(self, kernel, *inputs):
        wp.launch(kernel, dim=self.n, inputs=list(inputs), device="cpu")

    def _rebuild(self):
        self.counts.zero_()
        self._launch(_keys, self.x, self.y, self.keys, self.ranks, self.counts, self.csz,
                     self.nc)
        array_scan(self.counts, self.start, inclusive=False)
        self._launch(_scatter, self.keys, self.ranks, self.start, self.parts)

    def _forces(self):
        self._launch(_forces, self.x, self.y, self.ax, self.ay, self.pe, self.start,
                     self.parts, self.csz, self.nc, self.side)

    def reset(self):
        self.x.assign(self.pos0[0])
        self.y.assign(self.pos0[1])
        for a in (self.vx, self.vy, self.ax, self.ay):
            a.zero_()
        self._rebuild()
        self._forces()
        wp.synchronize_device("cpu")

    def step(self, count):
        for _ in range(count):
            self._launch(_kick_drift, self.x, self.y, self.vx, self.vy, self.ax, self.ay,
                         self.dt)
            self._rebuild()
            self._forces()
            self._launch(_kick, self.vx, self.vy, self.ax, self.ay, self.dt)
        wp.synchronize_device("cpu")

    def energy(self):
        vx, vy = self.vx.numpy(), self.vy.numpy()
        ke = 0.5 * float(np.sum(vx * vx) + np.sum(vy * vy))
        pe = float(np.sum(self.pe.numpy()))
        return ke, pe, ke + pe
