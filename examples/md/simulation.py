"""The simulation: state on the device, the step loop, energies."""
import contextlib

import numpy as np

from pcompute import get_config, wrap, zeros
from pcompute.backends.registry import get_backend

from .energies import Energies
from .fused import fused_advance
from .integrator import Integrator
from .lattice import box_side, initial_velocities, lattice_positions
from .physics import RC, lj_energy
from .prebuild import build_together
from .profiling import Phases
from .strategies import STRATEGIES

NNPS = tuple(STRATEGIES)


class Simulation:
    """Lennard-Jones particles in a box, every array on the backend's device.

    ``n`` particles in ``dim`` (2 or 3) dimensions, walls or (3-D only)
    ``periodic`` boundaries, neighbour search ``nnps`` (see
    :mod:`examples.md.strategies`), time step ``dt``, neighbour ``skin``
    (0: rebuild every step), ``shift`` for the shifted potential, initial
    ``temperature`` with random velocities from ``seed``.  ``dtype`` is the
    floating point type (default float64, or float32 where the backend
    stores doubles as floats); ``backend`` defaults to the configured one.
    ``positions`` / ``velocities`` ((n, dim) arrays) replace the default
    lattice and initial velocities.

    The neighbour search and the forces of the initial state run at
    construction (:meth:`start`); ``start=False`` leaves them to a later
    :meth:`start` (a tool that lists the kernels of several simulations
    before any runs: :mod:`examples.md.prebuild`).  Where the backend builds
    kernels together (cython), the first kernel :meth:`start` must compile
    first builds every kernel of the run as one group module
    (:func:`examples.md.prebuild.build_together`); ``prebuild=False`` builds
    each at its first launch instead (fewer builds for a simulation that
    never steps).
    """

    def __init__(self, n=10000, dim=2, periodic=False, nnps="cells", dt=0.02, skin=0.0,
                 shift=False, temperature=0.0, seed=1, dtype=None, backend=None,
                 positions=None, velocities=None, start=True, prebuild=True):
        if dim not in (2, 3):
            raise ValueError("dim must be 2 or 3, not %r" % (dim,))
        if periodic and dim != 3:
            raise ValueError("periodic boundaries are only available in 3-D (--dim 3)")
        if nnps not in STRATEGIES:
            raise ValueError("unknown neighbour search %r; choose one of %s"
                             % (nnps, ", ".join(NNPS)))
        if n < 1:
            raise ValueError("the number of particles must be at least 1, not %d" % n)
        if not dt > 0:
            raise ValueError("the time step must be positive, not %r" % (dt,))
        if skin < 0:
            raise ValueError("the skin must be >= 0, not %r" % (skin,))
        self.backend = get_backend(backend).name
        be = get_backend(self.backend)
        be.require()
        if dtype is None:
            dtype = np.float32 if be.demote_double(get_config()) else np.float64
        self.n, self.dim, self.periodic = int(n), dim, bool(periodic)
        self.nnps, self.dt, self.skin = nnps, float(dt), float(skin)
        self.rc = RC
        self.shift = bool(shift)
        self.energy_shift = lj_energy(RC * RC) if shift else 0.0
        self.side = box_side(n, dim)
        self.phase = Phases(self.backend)

        positions = lattice_positions(n, dim) if positions is None \
            else self._columns(positions, "positions")
        velocities = initial_velocities(n, dim, temperature, seed) if velocities is None \
            else self._columns(velocities, "velocities")
        # Tuples, replaced only as a whole: the kernels' argument tuples are
        # kept while these are the same objects (examples/md/arguments.py);
        # new values put into the arrays (``.set``) cost nothing, a new tuple
        # makes the argument tuples again at the next launch.
        self.positions = tuple(wrap(p.astype(dtype), backend=self.backend)
                               for p in positions)
        self.dtype = self.positions[0].dtype
        self.velocities = tuple(wrap(v.astype(self.dtype), backend=self.backend)
                                for v in velocities)
        self.accelerations = tuple(zeros(n, self.dtype, backend=self.backend)
                                   for _ in range(dim))
        self.pe = zeros(n, self.dtype, backend=self.backend)
        self.saved_positions = [zeros(n, self.dtype, backend=self.backend)
                                for _ in range(dim)] if self.skin > 0 else None

        self.integrator = Integrator(self)
        self.energies = Energies(self)
        self.strategy = STRATEGIES[nnps](self, self.rc + self.skin)
        self._advance = fused_advance(self) or self._advance_apart
        self.steps_done = 0
        self.rebuilds = 0
        self.prebuild = prebuild
        if start:
            self.start()

    def start(self):
        """The neighbour search and the forces of the current positions (run
        by the constructor unless ``start=False``); the kernels of the run
        are built together before the first one compiled here (unless
        ``prebuild`` is False)."""
        hook = get_backend(self.backend).before_compile(lambda: build_together([self])) \
            if self.prebuild else contextlib.nullcontext()
        with hook:
            self._rebuild()
            with self.phase("md: forces"):
                self.strategy.forces()

    def launches(self):
        """``(kernel, arguments)`` of every kernel a run launches: the
        integrator's (with the separate kick-kick-drift also where a fused
        kernel replaces it), the fused one, the neighbour search's, the
        forces' and the energies' (:mod:`examples.md.prebuild`)."""
        fused = getattr(self._advance, "__self__", None)
        return self.integrator.launches() \
            + (fused.launches() if fused is not self else []) \
            + self.strategy.launches() + self.energies.launches()

    def _columns(self, values, what):
        values = np.asarray(values, dtype=np.float64)
        if values.shape != (self.n, self.dim):
            raise ValueError("%s must have shape (%d, %d), not %s"
                             % (what, self.n, self.dim, values.shape))
        return [values[:, d] for d in range(self.dim)]

    def real(self, value):
        """A scalar argument in the simulation's floating point type."""
        return self.dtype.type(value)

    @property
    def time(self):
        return self.steps_done * self.dt

    def _rebuild(self):
        with self.phase("md: neighbour search"):
            self.strategy.rebuild()
            self.rebuilds += 1
            if self.saved_positions is not None:
                self.integrator.remember_positions(self.saved_positions)

    def _stale(self, timed):
        """True if the neighbour structures must be rebuilt before the forces
        (``timed``: see :meth:`examples.md.profiling.Phases.run`)."""
        if self.saved_positions is None:
            return True
        half = 0.5 * self.skin
        moved2 = self.phase.run(timed, "md: skin check", self._moved2)
        return moved2 > half * half

    def _moved2(self):
        return self.integrator.max_displacement2(self.saved_positions)

    def step(self, steps=1):
        """Advance ``steps`` velocity Verlet steps.

        Between two of them the second half-kick and the next half-kick and
        drift are one kernel (see :mod:`examples.md.integrator`), with the
        skin's rebuild test or the binning's count pass where they fuse
        (:mod:`examples.md.fused`); after the last one the velocities are
        those of the full step.  Whether the phases are timed (``--profile``)
        is decided once, at the start."""
        phase = self.phase
        timed = phase.on()
        for k in range(steps):
            if k == 0:
                with phase("md: kick + drift"):
                    self.integrator.first_half()
                stale = self._stale(timed)
            else:
                stale = self._advance(timed)
            if stale:
                self._rebuild()
            phase.run(timed, "md: forces", self.strategy.forces)
            self.steps_done += 1
        if steps > 0:
            with phase("md: kick"):
                self.integrator.second_half()

    def _advance_apart(self, timed):
        """Kick-kick-drift, then the rebuild test, as separate launches (where
        :func:`examples.md.fused.fused_advance` has no fused kernel)."""
        self.phase.run(timed, "md: kick + kick + drift", self.integrator.second_and_first_half)
        return self._stale(timed)

    def energy(self):
        """``(kinetic, potential, total)`` energy now, as host floats."""
        with self.phase("md: energies"):
            return self.energies()

    def host_positions(self):
        """The positions as an (n, dim) numpy array (copied from the device)."""
        return np.column_stack([p.get() for p in self.positions])

    def host_velocities(self):
        return np.column_stack([v.get() for v in self.velocities])

    def host_accelerations(self):
        return np.column_stack([a.get() for a in self.accelerations])

    def neighbour_lists(self):
        """Each particle's neighbours within cut-off + skin, sorted (host arrays)."""
        return self.strategy.neighbour_lists()
