"""Numba ``parallel=True`` version of the 2-D MD example: the ``cells``
strategy (counting sort into cells, force loop walking the 3x3 cells) and
the ``count`` strategy (the same cells, then full neighbour lists in two
passes).  Numba has no atomics, so the counting sort is a serial loop (O(N));
the force and list loops are ``prange``.  The step loop is Python calling
4-5 jitted functions per step (a few microseconds each).
"""
import math

import numpy as np

from .numba_peer import why_missing

RC = 3.0
WALL_K = 50.0
WALL_RANGE = 0.5

if not why_missing():
    from numba import njit, prange

    @njit(inline="always")
    def _cell(p, cs, nc):
        c = int(math.floor(p / cs))
        return 0 if c < 0 else (nc - 1 if c >= nc else c)

    @njit(inline="always")
    def _wall_f(p, side):
        if p < WALL_RANGE:
            return WALL_K * (WALL_RANGE - p)
        if p > side - WALL_RANGE:
            return -WALL_K * (WALL_RANGE - (side - p))
        return 0.0

    @njit(inline="always")
    def _wall_e(p, side):
        d = WALL_RANGE
        if p < WALL_RANGE:
            d = p
        if p > side - WALL_RANGE:
            d = side - p
        return 0.5 * WALL_K * (WALL_RANGE - d) * (WALL_RANGE - d)

    @njit
    def _bin(x, y, csz, nc, counts, start, parts, keys):
        n = x.shape[0]
        counts[:] = 0
        for i in range(n):
            k = _cell(x[i], csz, nc) * nc + _cell(y[i], csz, nc)
            keys[i] = k
            counts[k] += 1
        s = 0
        for c in range(counts.shape[0]):
            start[c] = s
            s += counts[c]
            counts[c] = 0
        start[counts.shape[0]] = s
        for i in range(n):
            k = keys[i]
            parts[start[k] + counts[k]] = i
            counts[k] += 1

    @njit(parallel=True)
    def _pairs(x, y, csz, nc, start, parts, rl2, ncount, offsets, nbrs, fill):
        for i in prange(x.shape[0]):
            xi, yi = x[i], y[i]
            cx, cy = _cell(xi, csz, nc), _cell(yi, csz, nc)
            cnt = 0
            for ix in range(max(cx - 1, 0), min(cx + 2, nc)):
                for iy in range(max(cy - 1, 0), min(cy + 2, nc)):
                    c = ix * nc + iy
                    for k in range(start[c], start[c + 1]):
                        j = parts[k]
                        dx, dy = xi - x[j], yi - y[j]
                        if dx * dx + dy * dy < rl2 and j != i:
                            if fill:
                                nbrs[offsets[i] + cnt] = j
                            cnt += 1
            if not fill:
                ncount[i] = cnt

    @njit(parallel=True)
    def _forces(x, y, ax, ay, pe, csz, nc, start, parts, offsets, nbrs, use_list, side):
        rc2 = RC * RC
        for i in prange(x.shape[0]):
            xi, yi = x[i], y[i]
            fx = fy = e = 0.0
            if use_list:
                for k in range(offsets[i], offsets[i + 1]):
                    j = nbrs[k]
                    dx, dy = xi - x[j], yi - y[j]
                    r2 = dx * dx + dy * dy
                    if r2 < rc2:
                        inv2 = 1.0 / r2
                        inv6 = inv2 * inv2 * inv2
                        f = 24.0 * inv2 * inv6 * (2.0 * inv6 - 1.0)
                        fx += f * dx
                        fy += f * dy
                        e += 2.0 * inv6 * (inv6 - 1.0)
            else:
                cx, cy = _cell(xi, csz, nc), _cell(yi, csz, nc)
                for ix in range(max(cx - 1, 0), min(cx + 2, nc)):
                    for iy in range(max(cy - 1, 0), min(cy + 2, nc)):
                        c = ix * nc + iy
                        for k in range(start[c], start[c + 1]):
                            j = parts[k]
                            dx, dy = xi - x[j], yi - y[j]
                            r2 = dx * dx + dy * dy
                            if r2 < rc2 and j != i:
                                inv2 = 1.0 / r2
                                inv6 = inv2 * inv2 * inv2
                                f = 24.0 * inv2 * inv6 * (2.0 * inv6 - 1.0)
                                fx += f * dx
                                fy += f * dy
                                e += 2.0 * inv6 * (inv6 - 1.0)
            ax[i] = fx + _wall_f(xi, side)
            ay[i] = fy + _wall_f(yi, side)
            pe[i] = e + _wall_e(xi, side) + _wall_e(yi, side)

    @njit(parallel=True)
    def _kick_drift(x, y, vx, vy, ax, ay, dt):
        for i in prange(x.shape[0]):
            vx[i] += 0.5 * dt * ax[i]
            vy[i] += 0.5 * dt * ay[i]
            x[i] += dt * vx[i]
            y[i] += dt * vy[i]

    @njit(parallel=True)
    def _kick(vx, vy, ax, ay, dt):
        for i in prange(vx.shape[0]):
            vx[i] += 0.5 * dt * ax[i]
            vy[i] += 0.5 * dt * ay[i]

    @njit(parallel=True)
    def _max_disp2(x, y, x0, y0):
        m = 0.0
        for i in prange(x.shape[0]):
            dx, dy = x[i] - x0[i], y[i] - y0[i]
            m = max(m, dx * dx + dy * dy)
        return m


class NumbaMD:
    """2-D simulation (walls) with ``strategy`` 'cells' or 'count'."""

    def __init__(self, positions, side, strategy="cells", skin=0.0, dt=0.02):
        n = len(positions[0])
        self.n, self.side, self.dt, self.skin = n, float(side), float(dt), float(skin)
        self.use_list = strategy == "count"
        reach = RC + skin
        self.nc = max(1, int(side // reach))
        self.csz = side / self.nc
        self.pos0 = [np.array(p, dtype=np.float64) for p in positions]
        # state: x, y, vx, vy, ax, ay, x0, y0, pe
        self.s = np.zeros((9, n))
        nc2 = self.nc * self.nc
        self.counts = np.zeros(nc2, np.int64)
        self.start = np.zeros(nc2 + 1, np.int64)
        self.parts = np.zeros(n, np.int64)
        self.keys = np.zeros(n, np.int64)
        self.ncount = np.zeros(n, np.int64)
        self.offsets = np.zeros(n + 1, np.int64)
        self.nbrs = np.zeros(8 * n + 16, np.int64)
        self.rl2 = np.array([reach * reach, self.csz, float(self.nc)])
        self.reset()

    def _rebuild(self):
        s = self.s
        _bin(s[0], s[1], self.csz, self.nc, self.counts, self.start, self.parts, self.keys)
        if self.use_list:
            _pairs(s[0], s[1], self.csz, self.nc, self.start, self.parts, self.rl2[0],
                   self.ncount, self.offsets, self.nbrs, 0)
            self.offsets[0] = 0
            np.cumsum(self.ncount, out=self.offsets[1:])
            total = int(self.offsets[-1])
            if total > len(self.nbrs):
                self.nbrs = np.empty(total + total // 4 + 16, np.int64)
            _pairs(s[0], s[1], self.csz, self.nc, self.start, self.parts, self.rl2[0],
                   self.ncount, self.offsets, self.nbrs, 1)
        if self.skin > 0:
            s[6][:] = s[0]
            s[7][:] = s[1]
        self.rebuilds += 1

    def _forces(self):
        s = self.s
        _forces(s[0], s[1], s[4], s[5], s[8], self.csz, self.nc, self.start, self.parts,
                self.offsets, self.nbrs, self.use_list, self.side)

    def reset(self):
        self.s[:] = 0.0
        self.s[0][:], self.s[1][:] = self.pos0
        self.rebuilds = 0
        self._rebuild()
        self._forces()

    def step(self, count):
        s, dt, half = self.s, self.dt, 0.5 * self.skin
        for _ in range(count):
            _kick_drift(s[0], s[1], s[2], s[3], s[4], s[5], dt)
            if self.skin <= 0 or _max_disp2(s[0], s[1], s[6], s[7]) > half * half:
                self._rebuild()
            self._forces()
            _kick(s[2], s[3], s[4], s[5], dt)

    def energy(self):
        s = self.s
        ke = 0.5 * float(np.sum(s[2] * s[2]) + np.sum(s[3] * s[3]))
        pe = float(np.sum(s[8]))
        return ke, pe, ke + pe
