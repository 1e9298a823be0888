"""Kinetic and potential energy, summed on the device with Reductions."""
import numpy as np

from .kernels import reduction


def kinetic_2d(i, vx, vy):
    return 0.5 * (vx[i] * vx[i] + vy[i] * vy[i])


def kinetic_3d(i, vx, vy, vz):
    return 0.5 * (vx[i] * vx[i] + vy[i] * vy[i] + vz[i] * vz[i])


class Energies:
    """``(kinetic, potential, total)`` of a simulation, as host floats."""

    def __init__(self, sim):
        self.sim = sim
        be = sim.backend
        self._kinetic = reduction("a+b", kinetic_2d if sim.dim == 2 else kinetic_3d,
                                  np.float64, be)
        self._potential = reduction("a+b", None, np.float64, be)

    def launches(self):
        """``(kernel, arguments)`` of the two Reductions (for
        :mod:`examples.md.prebuild`)."""
        sim = self.sim
        return [(self._kinetic, tuple(sim.velocities)), (self._potential, (sim.pe,))]

    def __call__(self):
        sim = self.sim
        ke = float(self._kinetic(*sim.velocities))
        pe = float(self._potential(sim.pe))
        return ke, pe, ke + pe
