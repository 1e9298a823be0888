"""Taichi (CPU backend) version of the 2-D MD example's ``cells`` strategy
(walls, no lists), as the C reference does it: cell keys with atomic ranks
(``ti.atomic_add`` returns the old count), an exclusive scan of the counts
(one serial loop: ``ti.loop_config(serialize=True)``), a scatter into the
cells, the force loop walking the 3x3 cells, and the two half kicks.  Taichi
parallelises each kernel's outermost loop over the CPU threads; the arrays
are Taichi ``ndarray``s that stay in Taichi between kernels.

``TaichiMD`` has the interface the MD suite's ``_Timed`` adapter expects:
``reset()``, ``step(k)``, ``energy()`` -> (kinetic, potential, total).
"""
import numpy as np

from .taichi_peer import threads, why_missing

RC = 3.0
LABEL = "taichi cpu cells"

if not why_missing():
    import taichi as ti

    F1 = ti.types.ndarray(dtype=ti.f64, ndim=1)
    I1 = ti.types.ndarray(dtype=ti.i32, ndim=1)

    @ti.func
    def _cell(p: ti.f64, csz: ti.f64, nc: ti.i32) -> ti.i32:
        c = ti.cast(ti.floor(p / csz), ti.i32)
        if c < 0:
            c = 0
        if c >= nc:
            c = nc - 1
        return c

    @ti.func
    def _wall_f(p: ti.f64, side: ti.f64) -> ti.f64:
        f = 0.0
        if p < 0.5:
            f = 50.0 * (0.5 - p)
        elif p > side - 0.5:
            f = -50.0 * (0.5 - (side - p))
        return f

    @ti.func
    def _wall_e(p: ti.f64, side: ti.f64) -> ti.f64:
        d = 0.5
        if p < 0.5:
            d = p
        if p > side - 0.5:
            d = side - p
        return 25.0 * (0.5 - d) * (0.5 - d)

    @ti.kernel
    def _clear(counts: I1):
        for c in counts:
            counts[c] = 0

    @ti.kernel
    def _keys(x: F1, y: F1, keys: I1, ranks: I1, counts: I1, csz: ti.f64, nc: ti.i32):
        for i in x:
            k = _cell(x[i], csz, nc) * nc + _cell(y[i], csz, nc)
            keys[i] = k
            ranks[i] = ti.atomic_add(counts[k], 1)

    @ti.kernel
    def _scan(counts: I1, start: I1):
        ti.loop_config(serialize=True)
        for c in range(counts.shape[0]):
            start[c + 1] = start[c] + counts[c]

    @ti.kernel
    def _scatter(keys: I1, ranks: I1, start: I1, parts: I1):
        for i in keys:
            parts[start[keys[i]] + ranks[i]] = i

    @ti.kernel
    def _forces(x: F1, y: F1, ax: F1, ay: F1, pe: F1, start: I1, parts: I1, csz: ti.f64,
                nc: ti.i32, side: ti.f64):
        for i in x:
            xi, yi = x[i], y[i]
            fx, fy, e = 0.0, 0.0, 0.0
            cx, cy = _cell(xi, csz, nc), _cell(yi, csz, nc)
            for ix in range(ti.max(cx - 1, 0), ti.min(cx + 2, nc)):
                for iy in range(ti.max(cy - 1, 0), ti.min(cy + 2, nc)):
                    c = ix * nc + iy
                    for k in range(start[c], start[c + 1]):
                        j = parts[k]
                        dx, dy = xi - x[j], yi - y[j]
                        r2 = dx * dx + dy * dy
                        if r2 < RC * RC and j != i:
                            inv2 = 1.0 / r2
                            inv6 = inv2 * inv2 * inv2
                            f = 24.0 * inv2 * inv6 * (2.0 * inv6 - 1.0)
                            fx += f * dx
                            fy += f * dy
                            e += 2.0 * inv6 * (inv6 - 1.0)
            ax[i] = fx + _wall_f(xi, side)
            ay[i] = fy + _wall_f(yi, side)
            pe[i] = e + _wall_e(xi, side) + _wall_e(yi, side)

    @ti.kernel
    def _kick_drift(x: F1, y: F1, vx: F1, vy: F1, ax: F1, ay: F1, dt: ti.f64):
        for i in x:
            vx[i] += 0.5 * dt * ax[i]
            vy[i] += 0.5 * dt * ay[i]
            x[i] += dt * vx[i]
            y[i] += dt * vy[i]

    @ti.kernel
    def _kick(vx: F1, vy: F1, ax: F1, ay: F1, dt: ti.f64):
        for i in vx:
            vx[i] += 0.5 * dt * ax[i]
            vy[i] += 0.5 * dt * ay[i]


class TaichiMD:
    label = LABEL

    def __init__(self, positions, side, dt=0.02):
        n = len(positions[0])
        self.n, self.side, self.dt = n, float(side), dt
        self.nc = max(1, int(side // RC))
        self.csz = side / self.nc
        self.pos0 = [np.ascontiguousarray(p, dtype=np.float64) for p in positions]
        f = lambda: ti.ndarray(ti.f64, shape=n)
        self.x, self.y, self.vx, self.vy, self.ax, self.ay, self.pe = (f() for _ in range(7))
        i = lambda m: ti.ndarray(ti.i32, shape=m)
        self.keys, self.ranks, self.parts = i(n), i(n), i(n)
        self.counts, self.start = i(self.nc * self.nc), i(self.nc * self.nc + 1)
        self.threads = threads()
        self.reset()

    def _rebuild(self):
        _clear(self.counts)
        _keys(self.x, self.y, self.keys, self.ranks, self.counts, self.csz, self.nc)
        _scan(self.counts, self.start)
        _scatter(self.keys, self.ranks, self.start, self.parts)

    def _forces(self):
        _forces(self.x, self.y, self.ax, self.ay, self.pe, self.start, self.parts, self.csz,
                self.nc, self.side)

    def reset(self):
        self.x.from_numpy(self.pos0[0])
        self.y.from_numpy(self.pos0[1])
        zero = np.zeros(self.n)
        for a in (self.vx, self.vy, self.ax, self.ay):
            a.from_numpy(zero)
        self.start.from_numpy(np.zeros(self.nc * self.nc + 1, np.int32))
        self._rebuild()
        self._forces()
        ti.sync()

    def step(self, count):
        for _ in range(count):
            _kick_drift(self.x, self.y, self.vx, self.vy, self.ax, self.ay, self.dt)
            self._rebuild()
            self._forces()
            _kick(self.vx, self.vy, self.ax, self.ay, self.dt)
        ti.sync()

    def energy(self):
        vx, vy = self.vx.to_numpy(), self.vy.to_numpy()
        ke = 0.5 * float(np.sum(vx * vx) + np.sum(vy * vy))
        pe = float(np.sum(self.pe.to_numpy()))
        return ke, pe, ke + pe
