"""Compyle version of the 2-D MD example's ``cells`` strategy (walls, no
lists): cell keys, force walk over the 3x3 cells, and the two half kicks are
Compyle ``Elementwise`` kernels on the cython backend with OpenMP.  Binning
(a stable sort of the particles by cell, and the cell starts) is numpy on
the host: Compyle's cython backend offers no atomics for a counting sort.
The step loop is Python calling 3-4 kernels per step, as the Numba version.

``CompyleMD`` has the interface the MD suite's ``_Timed`` adapter expects:
``reset()``, ``step(k)``, ``energy()`` -> (kinetic, potential, total).
"""
import numpy as np

from .compyle_peer import OMP, OMP_STATIC, why_missing

RC = 3.0

if not why_missing():
    from compyle.api import Elementwise, annotate, cast, declare, wrap

    @annotate(p="double", cs="double", nc="int", return_="int")
    def md_cell(p, cs, nc):
        c = declare("int")
        c = cast(floor(p / cs), "int")  # noqa: F821 (libm, in the generated code)
        if c < 0:
            c = 0
        if c >= nc:
            c = nc - 1
        return c

    @annotate(p="double", side="double", return_="double")
    def md_wall_f(p, side):
        if p < 0.5:
            return 50.0 * (0.5 - p)
        if p > side - 0.5:
            return -50.0 * (0.5 - (side - p))
        return 0.0

    @annotate(p="double", side="double", return_="double")
    def md_wall_e(p, side):
        d = declare("double")
        d = 0.5
        if p < 0.5:
            d = p
        if p > side - 0.5:
            d = side - p
        return 25.0 * (0.5 - d) * (0.5 - d)

    @annotate(i="int", x="gdoublep", y="gdoublep", keys="gintp", csz="double", nc="int")
    def md_keys(i, x, y, keys, csz, nc):
        keys[i] = md_cell(x[i], csz, nc) * nc + md_cell(y[i], csz, nc)

    @annotate(i="int", x="gdoublep", y="gdoublep", ax="gdoublep", ay="gdoublep",
              pe="gdoublep", start="gintp", parts="gintp", csz="double", nc="int",
              side="double")
    def md_forces(i, x, y, ax, ay, pe, start, parts, csz, nc, side):
        xi, yi, fx, fy, e, dx, dy, r2, inv2, inv6, f = declare("double", 11)
        cx, cy, ix, iy, c, k, j, lox, hix, loy, hiy = declare("int", 11)
        xi = x[i]
        yi = y[i]
        fx = 0.0
        fy = 0.0
        e = 0.0
        cx = md_cell(xi, csz, nc)
        cy = md_cell(yi, csz, nc)
        lox = cx - 1
        if lox < 0:
            lox = 0
        hix = cx + 2
        if hix > nc:
            hix = nc
        loy = cy - 1
        if loy < 0:
            loy = 0
        hiy = cy + 2
        if hiy > nc:
            hiy = nc
        for ix in range(lox, hix):
            for iy in range(loy, hiy):
                c = ix * nc + iy
                for k in range(start[c], start[c + 1]):
                    j = parts[k]
                    dx = xi - x[j]
                    dy = yi - y[j]
                    r2 = dx * dx + dy * dy
                    if r2 < 9.0 and j != i:
                        inv2 = 1.0 / r2
                        inv6 = inv2 * inv2 * inv2
                        f = 24.0 * inv2 * inv6 * (2.0 * inv6 - 1.0)
                        fx += f * dx
                        fy += f * dy
                        e += 2.0 * inv6 * (inv6 - 1.0)
        ax[i] = fx + md_wall_f(xi, side)
        ay[i] = fy + md_wall_f(yi, side)
        pe[i] = e + md_wall_e(xi, side) + md_wall_e(yi, side)

    @annotate(i="int", x="gdoublep", y="gdoublep", vx="gdoublep", vy="gdoublep",
              ax="gdoublep", ay="gdoublep", dt="double")
    def md_kick_drift(i, x, y, vx, vy, ax, ay, dt):
        vx[i] += 0.5 * dt * ax[i]
        vy[i] += 0.5 * dt * ay[i]
        x[i] += dt * vx[i]
        y[i] += dt * vy[i]

    @annotate(i="int", vx="gdoublep", vy="gdoublep", ax="gdoublep", ay="gdoublep",
              dt="double")
    def md_kick(i, vx, vy, ax, ay, dt):
        vx[i] += 0.5 * dt * ax[i]
        vy[i] += 0.5 * dt * ay[i]


class CompyleMD:
    """2-D simulation with walls, ``cells`` strategy, Compyle cython+OpenMP:
    with Compyle's default schedule (``dynamic, 64``), or with
    ``static=True`` its best one here (``omp_schedule = ('static', None)``:
    Compyle generates a kernel on its first call, which happens inside the
    variant's ``use_config``)."""

    def __init__(self, positions, side, dt=0.02, static=False):
        self.variant = OMP_STATIC if static else OMP
        self.label = "compyle cython+omp%s cells" % (" static" if static else "")
        n = len(positions[0])
        self.n, self.side, self.dt = n, float(side), float(dt)
        self.nc = max(1, int(side // RC))
        self.csz = side / self.nc
        self.pos0 = [np.array(p, dtype=np.float64) for p in positions]
        self.s = np.zeros((7, n))            # x, y, vx, vy, ax, ay, pe
        self.keys = np.zeros(n, np.int32)
        self.parts = np.zeros(n, np.int32)
        self.start = np.zeros(self.nc * self.nc + 1, np.int32)
        with self.variant.use():
            self.a = wrap(*self.s, backend="cython")    # views: no copies
            self.ka, self.pa, self.sa = wrap(self.keys, self.parts, self.start,
                                             backend="cython")
            self.k_keys = Elementwise(md_keys, backend="cython")
            self.k_forces = Elementwise(md_forces, backend="cython")
            self.k_kick_drift = Elementwise(md_kick_drift, backend="cython")
            self.k_kick = Elementwise(md_kick, backend="cython")
        self.rebuilds = 0
        self.reset()

    def _rebuild(self):
        a = self.a
        self.k_keys(a[0], a[1], self.ka, self.csz, self.nc)
        self.parts[:] = np.argsort(self.keys, kind="stable")
        counts = np.bincount(self.keys, minlength=self.nc * self.nc)
        self.start[0] = 0
        np.cumsum(counts, out=self.start[1:])
        self.rebuilds += 1

    def _forces(self):
        a = self.a
        self.k_forces(a[0], a[1], a[4], a[5], a[6], self.sa, self.pa, self.csz, self.nc,
                      self.side)

    def reset(self):
        with self.variant.use():
            self.s[:] = 0.0
            self.s[0][:], self.s[1][:] = self.pos0
            self.rebuilds = 0
            self._rebuild()
            self._forces()

    def step(self, count):
        a, dt = self.a, self.dt
        with self.variant.use():
            for _ in range(count):
                self.k_kick_drift(a[0], a[1], a[2], a[3], a[4], a[5], dt)
                self._rebuild()
                self._forces()
                self.k_kick(a[2], a[3], a[4], a[5], dt)

    def energy(self):
        s = self.s
        ke = 0.5 * float(np.sum(s[2] * s[2]) + np.sum(s[3] * s[3]))
        pe = float(np.sum(s[6]))
        return ke, pe, ke + pe
