"""Binning particles into cells: a counting sort (atomics + scan) or a key sort.

Both produce the same layout, on the device:

``cell_particles``  the particle indices grouped by cell (length N)
``cell_start``      ``cell_start[c] .. cell_start[c + 1]`` is cell ``c``'s range
                    in ``cell_particles`` (length ncells + 1)

Cells are numbered with the first coordinate slowest, like the particles of
the lattice, so neighbouring particles stay close in memory.
"""
import numpy as np

from pcompute import atomic_inc, sort_by_keys, zeros

from .kernels import elementwise
from .physics import cell_of
from .scans import Offsets


class CellGrid:
    """Square/cubic cells of side >= ``min_size`` covering a box of side ``side``."""

    def __init__(self, side, min_size, dim):
        self.dim = dim
        self.nc = max(1, int(side // min_size))
        self.cell_size = side / self.nc
        self.ncells = self.nc ** dim
        self.key_bits = max(1, int(self.ncells).bit_length())


# -- kernels -------------------------------------------------------------------

def bin_count_2d(i, x, y, keys, ranks, counts, cell_size, nc):
    key = cell_of(x[i], cell_size, nc) * nc + cell_of(y[i], cell_size, nc)
    keys[i] = key
    ranks[i] = atomic_inc(counts[key])


def bin_count_3d(i, x, y, z, keys, ranks, counts, cell_size, nc):
    key = (cell_of(x[i], cell_size, nc) * nc + cell_of(y[i], cell_size, nc)) * nc \
        + cell_of(z[i], cell_size, nc)
    keys[i] = key
    ranks[i] = atomic_inc(counts[key])


def scatter_to_cells(i, keys, ranks, cell_start, cell_particles):
    cell_particles[cell_start[keys[i]] + ranks[i]] = i


def cell_keys_2d(i, x, y, keys, ids, cell_size, nc):
    keys[i] = cell_of(x[i], cell_size, nc) * nc + cell_of(y[i], cell_size, nc)
    ids[i] = i


def cell_keys_3d(i, x, y, z, keys, ids, cell_size, nc):
    keys[i] = (cell_of(x[i], cell_size, nc) * nc + cell_of(y[i], cell_size, nc)) * nc \
        + cell_of(z[i], cell_size, nc)
    ids[i] = i


def starts_from_sorted(i, sorted_keys, cell_start):
    """Cells after the previous particle's, up to this one's, start at i.

    ``cell_start`` is filled with N beforehand, which ends the empty cells
    after the last particle.
    """
    first = 0
    if i > 0:
        first = sorted_keys[i - 1] + 1
    for c in range(first, sorted_keys[i] + 1):
        cell_start[c] = i


# -- the two binnings ----------------------------------------------------------------

class Binning:
    """Common state: the grid and the device arrays of the cell layout."""

    def __init__(self, sim, grid):
        self.sim = sim
        self.grid = grid
        n, be = sim.n, sim.backend
        self.cell_start = zeros(grid.ncells + 1, np.int32, backend=be)
        self.cell_particles = zeros(n, np.int32, backend=be)
        self.grid_args = (sim.real(grid.cell_size), np.int32(grid.nc))


class CountingSortBinning(Binning):
    """Count per cell with ``atomic_inc`` (which also ranks each particle in its
    cell), scan the counts into starts, scatter the indices."""

    def __init__(self, sim, grid):
        super().__init__(sim, grid)
        n, be = sim.n, sim.backend
        self.keys = zeros(n, np.int32, backend=be)
        self.ranks = zeros(n, np.int32, backend=be)
        self.counts = zeros(grid.ncells, np.int32, backend=be)
        self._count = elementwise(bin_count_2d if sim.dim == 2 else bin_count_3d, be)
        self._scan = Offsets(backend=be)
        self._scatter = elementwise(scatter_to_cells, be)
        #: The arguments of the count kernel after the positions.
        self.count_args = (self.keys, self.ranks, self.counts) + self.grid_args

    def launches(self):
        """``(kernel, arguments)`` of the count pass, the scan and the
        scatter (for :mod:`examples.md.prebuild`)."""
        return [(self._count, tuple(self.sim.positions) + self.count_args)] \
            + self._scan.launches(self.counts, self.cell_start) \
            + [(self._scatter, (self.keys, self.ranks, self.cell_start, self.cell_particles))]

    def __call__(self):
        self.start()
        self._count(*self.sim.positions, *self.count_args)
        self.finish()

    def start(self):
        """Zero the counts before the count pass."""
        with self.sim.phase("fill(cell counts)"):
            self.counts.fill(0)

    def finish(self):
        """After the count pass: the cell starts, then the particles by cell."""
        with self.sim.phase("scan(cell counts)"):
            self._scan(self.counts, self.cell_start)
        self._scatter(self.keys, self.ranks, self.cell_start, self.cell_particles)


class SortBinning(Binning):
    """Cell keys, ``sort_by_keys`` of (key, index), then where each cell starts."""

    def __init__(self, sim, grid):
        super().__init__(sim, grid)
        n, be = sim.n, sim.backend
        self.keys = zeros(n, np.int32, backend=be)
        self.ids = zeros(n, np.int32, backend=be)
        self._keys = elementwise(cell_keys_2d if sim.dim == 2 else cell_keys_3d, be)
        self._starts = elementwise(starts_from_sorted, be)

    def launches(self):
        """``(kernel, arguments)`` of the key and cell-start kernels (for
        :mod:`examples.md.prebuild`; ``sort_by_keys`` builds its own
        modules, shared by every sort of int32 keys and indices)."""
        return [(self._keys, tuple(self.sim.positions) + (self.keys, self.ids)
                 + self.grid_args),
                (self._starts, (self.keys, self.cell_start))]     # sorted keys: as keys

    def __call__(self):
        sim, phase = self.sim, self.sim.phase
        self._keys(*sim.positions, self.keys, self.ids, *self.grid_args)
        with phase("sort_by_keys"):
            sorted_keys, self.cell_particles = sort_by_keys(
                [self.keys, self.ids], key_bits=self.grid.key_bits, backend=sim.backend)
        with phase("fill(cell starts)"):
            self.cell_start.fill(sim.n)
        self._starts(sorted_keys, self.cell_start)
