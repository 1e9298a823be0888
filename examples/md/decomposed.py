"""The MD simulation over MPI ranks: spatial domain decomposition.

Each rank owns the particles in its region of a Cartesian grid of ranks
(:class:`pcompute.distributed.Decomposition`) and keeps ghost copies of its
neighbours' particles within the reach (cut-off + skin).  A step is the
single-process step on the owned particles: kick + drift, then either a
rebuild (migration to the owning rank, new ghosts, new cells) when the skin
is used up, or a refresh of the ghosts' positions; then forces and the
second kick.  Energies and the rebuild test are reduced over all ranks, so
every rank takes the same decisions as one process would.

Positions are not wrapped into a periodic box between rebuilds (ghost
images stay continuous); migration wraps them.  Per rank the kernels run on
the configured backend, with OpenMP threads per rank (OMP_NUM_THREADS).
"""
import numpy as np

from pcompute import Elementwise, Reduction, get_config, wrap, zeros
from pcompute.backends.registry import get_backend
from pcompute.distributed import Decomposition, allreduce, allreduce_ints
from pcompute.distributed.halo import Halo

from .binning import scatter_to_cells
from .energies import Energies
from .integrator import Integrator
from .lattice import box_side, initial_velocities, lattice_positions
from .local_cells import bin_local_2d, bin_local_3d, forces_local_2d, forces_local_3d
from .physics import RC, lj_energy
from .profiling import Phases
from .scans import Offsets


class _Owned:
    """What the single-process Integrator and Energies read: the owned
    particles (positions as views of the local arrays), never wrapped."""

    def __init__(self, sim):
        self.backend, self.dim, self.dtype = sim.backend, sim.dim, sim.dtype
        self.dt, self.side, self.periodic = sim.dt, sim.side, False
        self.real = sim.real
        self.positions = []
        self.velocities = sim.velocities
        self.accelerations = sim.accelerations
        self.pe = sim.pe


class LocalCells:
    """Cells of side >= reach over the rank's region grown by the reach."""

    def __init__(self, sim):
        self.sim = sim
        dec, be = sim.decomposition, sim.backend
        reach = sim.reach
        self.lo = dec.owned_lo - reach
        extent = dec.owned_hi - dec.owned_lo + 2 * reach
        self.nc = np.maximum(1, np.floor(extent / reach)).astype(int)
        self.cs = extent / self.nc
        ncells = int(np.prod(self.nc))
        self.counts = zeros(ncells, np.int32, backend=be)
        self.cell_start = zeros(ncells + 1, np.int32, backend=be)
        self.cell_particles = zeros(1, np.int32, backend=be)
        self.keys = zeros(1, np.int32, backend=be)
        self.ranks = zeros(1, np.int32, backend=be)
        self._bin = Elementwise(bin_local_2d if sim.dim == 2 else bin_local_3d, backend=be)
        self._scan = Offsets(backend=be)
        self._scatter = Elementwise(scatter_to_cells, backend=be)

    def grid_args(self):
        real = self.sim.real
        return ([real(v) for v in self.lo] + [real(v) for v in self.cs]
                + [np.int32(v) for v in self.nc])

    def __call__(self):
        sim = self.sim
        n = len(sim.local_positions[0])
        for a in (self.cell_particles, self.keys, self.ranks):
            a.resize(n)
        self.counts.fill(0)
        self._bin(*sim.local_positions, self.keys, self.ranks, self.counts,
                  *self.grid_args())
        self._scan(self.counts, self.cell_start)
        self._scatter(self.keys, self.ranks, self.cell_start, self.cell_particles)


class DistributedSimulation:
    """Lennard-Jones particles on the ranks of ``comm`` (default COMM_WORLD).

    The arguments of :class:`examples.md.Simulation` (``nnps`` must be
    ``'cells'``) plus ``grid`` (ranks per axis, e.g. ``'2x2'``; None lets MPI
    choose).  Every rank builds the same global initial state and keeps the
    particles of its region; ``ids`` are the particles' global indices.
    """

    def __init__(self, n=10000, dim=2, periodic=False, nnps="cells", dt=0.02, skin=0.0,
                 shift=False, temperature=0.0, seed=1, dtype=None, backend=None,
                 positions=None, velocities=None, grid=None, comm=None):
        if dim not in (2, 3):
            raise ValueError("dim must be 2 or 3, not %r" % (dim,))
        if periodic and dim != 3:
            raise ValueError("periodic boundaries are only available in 3-D (--dim 3)")
        if nnps != "cells":
            raise ValueError("a decomposed run searches neighbours with cells; use "
                             "--nnps cells (not %s) with --decompose" % nnps)
        if n < 1 or not dt > 0 or skin < 0:
            raise ValueError("need n >= 1, dt > 0 and skin >= 0")
        self.backend = get_backend(backend).name
        be = get_backend(self.backend)
        be.require()
        if dtype is None:
            dtype = np.float32 if be.demote_double(get_config()) else np.float64
        self.n, self.dim, self.periodic = int(n), dim, bool(periodic)
        self.nnps, self.dt, self.skin = nnps, float(dt), float(skin)
        self.rc, self.shift = RC, bool(shift)
        self.energy_shift = lj_energy(RC * RC) if shift else 0.0
        self.reach = RC + self.skin
        self.side = box_side(n, dim)
        self.decomposition = dec = Decomposition(np.zeros(dim), np.full(dim, self.side),
                                                 grid=grid, periodic=periodic, comm=comm)
        dec.check_reach(self.reach)
        self.comm = dec.comm
        self.rank, self.size = dec.rank, dec.size
        self.phase = Phases(self.backend)

        pos = np.column_stack(lattice_positions(n, dim)) if positions is None \
            else np.asarray(positions, dtype=np.float64)
        vel = np.column_stack(initial_velocities(n, dim, temperature, seed)) \
            if velocities is None else np.asarray(velocities, dtype=np.float64)
        if pos.shape != (n, dim) or vel.shape != (n, dim):
            raise ValueError("positions and velocities must have shape (%d, %d)" % (n, dim))
        mine = np.flatnonzero(dec.owners(pos) == self.rank)
        self.local_positions = [wrap(pos[mine, d].astype(dtype), backend=self.backend)
                                for d in range(dim)]
        self.dtype = self.local_positions[0].dtype
        self.velocities = [wrap(vel[mine, d].astype(self.dtype), backend=self.backend)
                           for d in range(dim)]
        self.accelerations = [zeros(len(mine), self.dtype, backend=self.backend)
                              for _ in range(dim)]
        self.ids = wrap(mine.astype(np.int64), backend=self.backend)
        self.pe = zeros(len(mine), self.dtype, backend=self.backend)
        self.saved_positions = [zeros(len(mine), self.dtype, backend=self.backend)
                                for _ in range(dim)] if self.skin > 0 else None

        self.halo = Halo(dec, backend=self.backend)
        self.halo.n_owned = len(mine)
        self.owned = _Owned(self)
        self.integrator = Integrator(self.owned)
        self.energies = Energies(self.owned)
        self.cells = LocalCells(self)
        self._forces = Elementwise(forces_local_2d if dim == 2 else forces_local_3d,
                                   backend=self.backend)
        self._id_sum = Reduction("a+b", dtype_out=np.int64, backend=self.backend)
        self.steps_done = 0
        self.rebuilds = 0
        self._rebuild()
        self._compute_forces()

    # -- helpers ----------------------------------------------------------------------
    def real(self, value):
        return self.dtype.type(value)

    @property
    def time(self):
        return self.steps_done * self.dt

    @property
    def is_root(self):
        return self.rank == 0

    @property
    def n_owned(self):
        return self.halo.n_owned

    @property
    def positions(self):
        """The owned particles' positions (views of the local arrays)."""
        return self.owned.positions

    # -- the step --------------------------------------------------------------------
    def _rebuild(self):
        with self.phase("md: migrate + ghosts + cells"):
            fields = self.velocities + self.accelerations + [self.ids]
            for x in self.local_positions:
                x.resize(self.halo.n_owned)
            n = self.halo.migrate(self.local_positions, fields)
            self.pe.resize(n)
            self.halo.build_ghosts(self.local_positions, self.reach)
            self.owned.positions = [x.get_view(0, n) for x in self.local_positions]
            self.cells()
            if self.saved_positions is not None:
                for x0 in self.saved_positions:
                    x0.resize(n)
                self.integrator.remember_positions(self.saved_positions)
            self.rebuilds += 1

    def _stale(self):
        if self.saved_positions is None:
            return True
        half = 0.5 * self.skin
        with self.phase("md: skin check"):
            local = self.integrator.max_displacement2(self.saved_positions) \
                if self.n_owned else 0.0
            moved2 = allreduce(local, "max", self.comm)
        return moved2 > half * half

    def _compute_forces(self):
        c = self.cells
        args = list(self.accelerations) + [self.pe] + list(self.local_positions) + [
            c.cell_start, c.cell_particles] + c.grid_args() + [
            self.real(self.rc * self.rc), self.real(self.energy_shift),
            self.real(self.side), np.int32(not self.periodic)]
        if self.n_owned:
            self._forces(*args)

    def step(self, steps=1):
        """Advance ``steps`` velocity Verlet steps (collective)."""
        phase = self.phase
        for _ in range(steps):
            with phase("md: kick + drift"):
                if self.n_owned:
                    self.integrator.first_half()
            if self._stale():
                self._rebuild()
            else:
                with phase("md: ghost refresh"):
                    self.halo.refresh(self.local_positions)
            with phase("md: forces"):
                self._compute_forces()
            with phase("md: kick"):
                if self.n_owned:
                    self.integrator.second_half()
            self.steps_done += 1

    # -- global quantities (collective) ------------------------------------------------
    def energy(self):
        """``(kinetic, potential, total)`` over all ranks, as host floats."""
        with self.phase("md: energies"):
            ke, pe = self.energies() [:2] if self.n_owned else (0.0, 0.0)
            ke, pe = allreduce([ke, pe], "sum", self.comm)
        return float(ke), float(pe), float(ke + pe)

    def census(self):
        """``(number of particles, sum of their ids)`` over all ranks: a
        particle lost or counted twice changes them."""
        local = int(self._id_sum(self.ids)) if self.n_owned else 0
        count, total = allreduce_ints([self.n_owned, local], "sum", self.comm)
        return int(count), int(total)

    def _gather(self, arrays):
        """(n, dim) host array ordered by id on rank 0; None on the others."""
        ids = self.ids.get()
        values = np.column_stack([a.get()[:self.n_owned] for a in arrays]) \
            if self.n_owned else np.empty((0, self.dim), self.dtype)
        parts = self.comm.gather((ids, values), root=0)
        if self.rank != 0:
            return None
        out = np.empty((self.n, self.dim), self.dtype)
        for part_ids, part in parts:
            out[part_ids] = part
        return out

    def host_positions(self):
        """All positions, (n, dim) in id order, on rank 0 (None elsewhere; collective)."""
        return self._gather(self.local_positions)

    def host_velocities(self):
        return self._gather(self.velocities)

    def host_accelerations(self):
        return self._gather(self.accelerations)
