"""Kick-kick-drift fused with the pass that follows it in a step.

Between two steps the simulation runs the second half-kick of one step and
the half-kick and drift of the next as one kernel (``kick_kick_drift_*``,
:mod:`examples.md.integrator`).  What comes next reads only the new
position of the same particle, so it can run in the same kernel, saving a
launch and a pass over the particles per step:

* with a skin, the rebuild test: a Reduction whose map moves particle i,
  then gives the squared distance it has moved since the last rebuild (the
  largest of them decides the rebuild);
* without a skin (a rebuild every step) and a counting-sort binning
  (``count``, ``cells``), the binning's count pass: particle i's cell and
  its rank in the cell (``atomic_inc``).

Each particle goes through the same operations on the same values as with
separate kernels, so the trajectory is the same bit for bit.  The kernels
call the separate kernels' functions, which stay the one definition of each
operation.
"""
from .binning import CountingSortBinning, bin_count_2d, bin_count_3d
from .integrator import (displacement2_2d, displacement2_3d, kick_kick_drift_2d,
                         kick_kick_drift_3d)
from .kernels import elementwise, reduction


def kick_kick_drift_moved_2d(i, x, y, vx, vy, ax, ay, dt, x0, y0):
    kick_kick_drift_2d(i, x, y, vx, vy, ax, ay, dt)
    return displacement2_2d(i, x, y, x0, y0)


def kick_kick_drift_moved_3d(i, x, y, z, vx, vy, vz, ax, ay, az, dt, side, periodic, x0, y0,
                             z0):
    kick_kick_drift_3d(i, x, y, z, vx, vy, vz, ax, ay, az, dt, side, periodic)
    return displacement2_3d(i, x, y, z, x0, y0, z0, side, periodic)


def kick_kick_drift_bin_2d(i, x, y, vx, vy, ax, ay, dt, keys, ranks, counts, cell_size, nc):
    kick_kick_drift_2d(i, x, y, vx, vy, ax, ay, dt)
    bin_count_2d(i, x, y, keys, ranks, counts, cell_size, nc)


def kick_kick_drift_bin_3d(i, x, y, z, vx, vy, vz, ax, ay, az, dt, side, periodic, keys,
                           ranks, counts, cell_size, nc):
    kick_kick_drift_3d(i, x, y, z, vx, vy, vz, ax, ay, az, dt, side, periodic)
    bin_count_3d(i, x, y, z, keys, ranks, counts, cell_size, nc)


def fused_advance(sim):
    """``advance(timed)`` of the simulation's steps after the first
    (``timed``: see :meth:`examples.md.profiling.Phases.run`): kick-kick-drift
    with what follows it, in one launch; it returns True when the neighbour
    structures must still be rebuilt.  None where nothing fuses (no skin and
    a key-sort binning or no cells: ``sort``, ``simple``)."""
    if sim.saved_positions is not None:
        return MovedAdvance(sim).advance
    if isinstance(getattr(sim.strategy, "binning", None), CountingSortBinning):
        return BinnedAdvance(sim).advance
    return None


class MovedAdvance:
    """Kick-kick-drift and the skin's rebuild test (a max Reduction)."""

    def __init__(self, sim):
        self.sim = sim
        self._limit = (0.5 * sim.skin) ** 2
        self._kernel = reduction(
            "max(a, b)", kick_kick_drift_moved_2d if sim.dim == 2 else kick_kick_drift_moved_3d,
            sim.dtype, sim.backend, neutral="0")

    def launches(self):
        """``(kernel, arguments)`` of the fused kernel (for
        :mod:`examples.md.prebuild`)."""
        sim = self.sim
        return [(self._kernel, tuple(sim.integrator.drift_args()) + tuple(sim.saved_positions))]

    def advance(self, timed):
        return self.sim.phase.run(timed, "md: kick + kick + drift + skin check",
                                  self._moved2) > self._limit

    def _moved2(self):
        sim = self.sim
        return float(self._kernel(*sim.integrator.drift_args(), *sim.saved_positions))


class BinnedAdvance:
    """Kick-kick-drift and the count pass of a counting-sort binning, then
    the rest of the rebuild (a rebuild every step: no skin)."""

    def __init__(self, sim):
        self.sim = sim
        self._kernel = elementwise(kick_kick_drift_bin_2d if sim.dim == 2
                                   else kick_kick_drift_bin_3d, sim.backend)

    def launches(self):
        """``(kernel, arguments)`` of the fused kernel (for
        :mod:`examples.md.prebuild`)."""
        sim = self.sim
        return [(self._kernel, tuple(sim.integrator.drift_args())
                 + tuple(sim.strategy.binning.count_args))]

    def advance(self, timed):
        sim = self.sim
        sim.strategy.binning.start()
        sim.phase.run(timed, "md: kick + kick + drift + binning", self._count)
        sim.phase.run(timed, "md: neighbour search", self._rebuild)
        sim.rebuilds += 1
        return False

    def _count(self):
        sim = self.sim
        self._kernel(*sim.integrator.drift_args(), *sim.strategy.binning.count_args)

    def _rebuild(self):
        self.sim.strategy.rebuild(binned=True)
