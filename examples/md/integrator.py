"""Velocity Verlet, one coordinate at a time, and the skin's displacement test.

The kick and drift kernels do not depend on the dimension: the simulation
runs them once per coordinate array.
"""
import numpy as np

from pcompute import Elementwise
from pcompute.primitives.reduction import Reduction

from .physics import min_image


def kick_drift(i, x, v, a, dt, side, periodic):
    """Half-kick then drift; wraps the position into [0, side) when periodic."""
    vi = v[i] + 0.5 * dt * a[i]
    v[i] = vi
    p = x[i] + dt * vi
    if periodic:
        if p < 0.0:
            p += side
        elif p >= side:
            p -= side
    x[i] = p


def kick(i, v, a, dt):
    """The second half-kick, with the new accelerations."""
    v[i] += 0.5 * dt * a[i]


def copy_values(i, src, dst):
    dst[i] = src[i]


def displacement2_2d(i, x, y, x0, y0):
    dx = x[i] - x0[i]
    dy = y[i] - y0[i]
    return dx * dx + dy * dy


def displacement2_3d(i, x, y, z, x0, y0, z0, side, periodic):
    dx = x[i] - x0[i]
    dy = y[i] - y0[i]
    dz = z[i] - z0[i]
    if periodic:
        dx = min_image(dx, side)
        dy = min_image(dy, side)
        dz = min_image(dz, side)
    return dx * dx + dy * dy + dz * dz


class Integrator:
    """The two halves of a velocity Verlet step, and the rebuild test of the skin."""

    def __init__(self, sim):
        self.sim = sim
        be = sim.backend
        self._kick_drift = Elementwise(kick_drift, backend=be)
        self._kick = Elementwise(kick, backend=be)
        self._copy = Elementwise(copy_values, backend=be)
        self._max_disp2 = Reduction(
            "max(a, b)", map_func=displacement2_2d if sim.dim == 2 else displacement2_3d,
            dtype_out=sim.dtype, neutral="0", backend=be)

    def first_half(self):
        """v += dt/2 a; x += dt v (and wrap)."""
        sim = self.sim
        dt, side, periodic = sim.real(sim.dt), sim.real(sim.side), np.int32(sim.periodic)
        for x, v, a in zip(sim.positions, sim.velocities, sim.accelerations):
            self._kick_drift(x, v, a, dt, side, periodic)

    def second_half(self):
        """v += dt/2 a with the new accelerations."""
        sim = self.sim
        dt = sim.real(sim.dt)
        for v, a in zip(sim.velocities, sim.accelerations):
            self._kick(v, a, dt)

    def remember_positions(self, saved):
        """Copy the positions into ``saved`` (one array per coordinate)."""
        for x, x0 in zip(self.sim.positions, saved):
            self._copy(x, x0)

    def max_displacement2(self, saved):
        """The largest squared distance moved since ``saved`` (a host number)."""
        sim = self.sim
        args = list(sim.positions) + list(saved)
        if sim.dim == 3:
            args += [sim.real(sim.side), np.int32(sim.periodic)]
        return float(self._max_disp2(*args))
