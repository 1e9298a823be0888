"""Velocity Verlet and the skin's displacement test.

A step is a half-kick and a drift (one kernel), the forces, then a second
half-kick.  Within a run of steps the second half-kick of one step and the
first half-kick and drift of the next are one kernel (``kick_kick_drift``):
the same operations in the same order, so the trajectory is bit-for-bit the
one of separate kernels, with one pass over the particles less per step.
"""
from .arguments import Kept, geometry
from .kernels import elementwise, reduction
from .physics import min_image


def wrap_periodic(p, side):
    """``p`` moved into [0, side) (it is never more than one box away)."""
    if p < 0.0:
        return p + side
    if p >= side:
        return p - side
    return p


def kick_drift_2d(i, x, y, vx, vy, ax, ay, dt):
    """Half-kick, then drift."""
    vxi = vx[i] + 0.5 * dt * ax[i]
    vyi = vy[i] + 0.5 * dt * ay[i]
    vx[i] = vxi
    vy[i] = vyi
    x[i] += dt * vxi
    y[i] += dt * vyi


def kick_drift_3d(i, x, y, z, vx, vy, vz, ax, ay, az, dt, side, periodic):
    """Half-kick, then drift; wraps the positions into the box when periodic."""
    vxi = vx[i] + 0.5 * dt * ax[i]
    vyi = vy[i] + 0.5 * dt * ay[i]
    vzi = vz[i] + 0.5 * dt * az[i]
    vx[i] = vxi
    vy[i] = vyi
    vz[i] = vzi
    px = x[i] + dt * vxi
    py = y[i] + dt * vyi
    pz = z[i] + dt * vzi
    if periodic:
        px = wrap_periodic(px, side)
        py = wrap_periodic(py, side)
        pz = wrap_periodic(pz, side)
    x[i] = px
    y[i] = py
    z[i] = pz


def kick_kick_drift_2d(i, x, y, vx, vy, ax, ay, dt):
    """The last step's second half-kick, this step's half-kick, then drift."""
    vxi = vx[i] + 0.5 * dt * ax[i]
    vyi = vy[i] + 0.5 * dt * ay[i]
    vxi = vxi + 0.5 * dt * ax[i]
    vyi = vyi + 0.5 * dt * ay[i]
    vx[i] = vxi
    vy[i] = vyi
    x[i] += dt * vxi
    y[i] += dt * vyi


def kick_kick_drift_3d(i, x, y, z, vx, vy, vz, ax, ay, az, dt, side, periodic):
    """The last step's second half-kick, this step's half-kick, then drift
    (and wrap)."""
    vxi = vx[i] + 0.5 * dt * ax[i]
    vyi = vy[i] + 0.5 * dt * ay[i]
    vzi = vz[i] + 0.5 * dt * az[i]
    vxi = vxi + 0.5 * dt * ax[i]
    vyi = vyi + 0.5 * dt * ay[i]
    vzi = vzi + 0.5 * dt * az[i]
    vx[i] = vxi
    vy[i] = vyi
    vz[i] = vzi
    px = x[i] + dt * vxi
    py = y[i] + dt * vyi
    pz = z[i] + dt * vzi
    if periodic:
        px = wrap_periodic(px, side)
        py = wrap_periodic(py, side)
        pz = wrap_periodic(pz, side)
    x[i] = px
    y[i] = py
    z[i] = pz


def kick_2d(i, vx, vy, ax, ay, dt):
    """The second half-kick, with the new accelerations."""
    vx[i] += 0.5 * dt * ax[i]
    vy[i] += 0.5 * dt * ay[i]


def kick_3d(i, vx, vy, vz, ax, ay, az, dt):
    vx[i] += 0.5 * dt * ax[i]
    vy[i] += 0.5 * dt * ay[i]
    vz[i] += 0.5 * dt * az[i]


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
    """The two halves of a velocity Verlet step, and the rebuild test of the skin.

    The kernels' argument tuples are kept (:class:`examples.md.arguments.Kept`)
    while the simulation's ``positions``, ``velocities`` and
    ``accelerations`` (the sequence objects) and ``dt`` are the same objects:
    a step then builds no argument list and no numpy scalar.  Replacing any
    of them makes the tuples again (the decomposed run gives its owned
    particles a new positions list at every rebuild)."""

    def __init__(self, sim):
        self.sim = sim
        be, two = sim.backend, sim.dim == 2
        self._kick_drift = elementwise(kick_drift_2d if two else kick_drift_3d, be)
        self._kick = elementwise(kick_2d if two else kick_3d, be)
        self._kick_kick_drift = elementwise(kick_kick_drift_2d if two else kick_kick_drift_3d,
                                            be)
        self._copy = elementwise(copy_values, be)
        self._max_disp2 = reduction("max(a, b)", displacement2_2d if two else displacement2_3d,
                                    sim.dtype, be, neutral="0")
        self._geometry = geometry(sim)
        self._drift = Kept("drift", self._drift_args)
        self._second = Kept("kick", self._kick_args)

    def _drift_args(self):
        sim = self.sim
        return tuple(sim.positions) + tuple(sim.velocities) + tuple(sim.accelerations) \
            + (sim.real(sim.dt),) + self._geometry

    def _kick_args(self):
        sim = self.sim
        return tuple(sim.velocities) + tuple(sim.accelerations) + (sim.real(sim.dt),)

    def drift_args(self):
        """The arguments of the drift kernels (positions, velocities,
        accelerations, dt and, in 3-D, side and periodic)."""
        sim = self.sim
        return self._drift(sim.positions, sim.velocities, sim.accelerations, sim.dt)

    def first_half(self):
        """v += dt/2 a; x += dt v (and wrap)."""
        self._kick_drift(*self.drift_args())

    def second_and_first_half(self):
        """:meth:`second_half` of the last step, then :meth:`first_half` of the
        next, in one kernel (the forces are unchanged in between)."""
        self._kick_kick_drift(*self.drift_args())

    def second_half(self):
        """v += dt/2 a with the new accelerations."""
        sim = self.sim
        self._kick(*self._second(sim.velocities, sim.accelerations, sim.dt))

    def remember_positions(self, saved):
        """Copy the positions into ``saved`` (one array per coordinate)."""
        for x, x0 in zip(self.sim.positions, saved):
            self._copy(x, x0)

    def launches(self):
        """``(kernel, arguments)`` of each kernel :meth:`first_half`,
        :meth:`second_and_first_half`, :meth:`second_half` and, with a skin,
        :meth:`remember_positions` and :meth:`max_displacement2` launch (for
        :mod:`examples.md.prebuild`)."""
        sim = self.sim
        out = [(self._kick_drift, self.drift_args()),
               (self._kick_kick_drift, self.drift_args()),
               (self._kick, self._second(sim.velocities, sim.accelerations, sim.dt))]
        saved = sim.saved_positions
        if saved is not None:
            out.append((self._copy, (sim.positions[0], saved[0])))
            out.append((self._max_disp2, tuple(sim.positions) + tuple(saved)
                        + self._geometry))
        return out

    def max_displacement2(self, saved):
        """The largest squared distance moved since ``saved`` (a host number)."""
        return float(self._max_disp2(*self.sim.positions, *saved, *self._geometry))
