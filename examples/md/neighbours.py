"""Neighbour lists, built in two passes: count, exclusive scan, fill.

The same kernel runs both passes: with ``fill == 0`` it counts particle i's
neighbours into ``counts[i]``; after the scan has turned the counts into
``offsets`` it runs again with ``fill == 1`` and writes them into
``nbrs[offsets[i] ..]``.  Candidates come from all particles (O(N^2), the
``simple`` strategy) or from the 3^dim cells around the particle.  Lists are
full (each pair appears in both particles' lists), so the force kernel needs
no atomics.  The fill pass writes at most ``counts[i]`` entries (the count
pass's) into particle i's slots, whatever its distance tests decide: the
two passes evaluate the same expression, but nothing in the language
promises that a kernel built with FMA contraction rounds it alike in both,
and a store past the slots would overwrite the next particle's (or the end
of ``nbrs``).  One test does both jobs: a pair is stored while
``n < room``, and ``room`` is ``counts[i]`` in the fill pass and 0 in the
count pass (which so stores nothing): the inner loop has the instructions
and branches of an unguarded kernel's (``if fill:`` around the store).  An
``if fill:`` around a guarded store (a second branch on every accepted
pair) made the 3-D list build 6-12 % slower on one AMD EPYC core.  The 3-D
kernels test ``periodic`` once per cell (or particle), not once per pair:
two copies of the pair loop, as the C reference has one per geometry.  The
pair kernels, like the force kernels, are built with
``build_options(fma=True)`` (the squared distances may use FMA instructions).
"""
import numpy as np

from pcompute import build_options, empty, zeros

from .physics import cell_of, neighbour_cell, min_image
from .scans import Offsets

#: The ``fill`` argument of the two passes.
COUNT, FILL = np.int32(0), np.int32(1)


@build_options(fma=True)
def all_pairs_2d(i, x, y, n_all, rl2, counts, offsets, nbrs, fill):
    xi = x[i]
    yi = y[i]
    n = 0
    first = offsets[i]       # read once: the stores into nbrs may alias it
    room = 0                 # the count pass stores nothing
    if fill:
        room = counts[i]     # the slots the count pass gave particle i
    for j in range(n_all):
        dx = xi - x[j]
        dy = yi - y[j]
        if dx * dx + dy * dy < rl2 and j != i:
            if n < room:
                nbrs[first + n] = j
            n += 1
    if fill == 0:
        counts[i] = n


@build_options(fma=True)
def all_pairs_3d(i, x, y, z, n_all, rl2, side, periodic, counts, offsets, nbrs, fill):
    xi = x[i]
    yi = y[i]
    zi = z[i]
    n = 0
    first = offsets[i]       # read once: the stores into nbrs may alias it
    room = 0                 # the count pass stores nothing
    if fill:
        room = counts[i]     # the slots the count pass gave particle i
    if periodic:             # two loops: no test of `periodic` per pair
        for j in range(n_all):
            dx = min_image(xi - x[j], side)
            dy = min_image(yi - y[j], side)
            dz = min_image(zi - z[j], side)
            if dx * dx + dy * dy + dz * dz < rl2 and j != i:
                if n < room:
                    nbrs[first + n] = j
                n += 1
    else:
        for j in range(n_all):
            dx = xi - x[j]
            dy = yi - y[j]
            dz = zi - z[j]
            if dx * dx + dy * dy + dz * dz < rl2 and j != i:
                if n < room:
                    nbrs[first + n] = j
                n += 1
    if fill == 0:
        counts[i] = n


@build_options(fma=True)
def cell_pairs_2d(i, x, y, cell_start, cell_particles, cell_size, nc, rl2, counts,
                  offsets, nbrs, fill):
    xi = x[i]
    yi = y[i]
    cx = cell_of(xi, cell_size, nc)
    cy = cell_of(yi, cell_size, nc)
    n = 0
    first = offsets[i]       # read once: the stores into nbrs may alias it
    room = 0                 # the count pass stores nothing
    if fill:
        room = counts[i]     # the slots the count pass gave particle i
    for ix in range(max(cx - 1, 0), min(cx + 2, nc)):
        for iy in range(max(cy - 1, 0), min(cy + 2, nc)):
            c = ix * nc + iy
            for k in range(cell_start[c], cell_start[c + 1]):
                j = cell_particles[k]
                dx = xi - x[j]
                dy = yi - y[j]
                if dx * dx + dy * dy < rl2 and j != i:
                    if n < room:
                        nbrs[first + n] = j
                    n += 1
    if fill == 0:
        counts[i] = n


@build_options(fma=True)
def cell_pairs_3d(i, x, y, z, cell_start, cell_particles, cell_size, nc, rl2, side,
                  periodic, counts, offsets, nbrs, fill):
    xi = x[i]
    yi = y[i]
    zi = z[i]
    cx = cell_of(xi, cell_size, nc)
    cy = cell_of(yi, cell_size, nc)
    cz = cell_of(zi, cell_size, nc)
    n = 0
    first = offsets[i]       # read once: the stores into nbrs may alias it
    room = 0                 # the count pass stores nothing
    if fill:
        room = counts[i]     # the slots the count pass gave particle i
    for ddx in range(-1, 2):
        ix = neighbour_cell(cx, ddx, nc, periodic)
        if ix < 0:
            continue
        for ddy in range(-1, 2):
            iy = neighbour_cell(cy, ddy, nc, periodic)
            if iy < 0:
                continue
            for ddz in range(-1, 2):
                iz = neighbour_cell(cz, ddz, nc, periodic)
                if iz < 0:
                    continue
                c = (ix * nc + iy) * nc + iz
                if periodic:     # two loops: no test of `periodic` per pair
                    for k in range(cell_start[c], cell_start[c + 1]):
                        j = cell_particles[k]
                        dx = min_image(xi - x[j], side)
                        dy = min_image(yi - y[j], side)
                        dz = min_image(zi - z[j], side)
                        if dx * dx + dy * dy + dz * dz < rl2 and j != i:
                            if n < room:
                                nbrs[first + n] = j
                            n += 1
                else:
                    for k in range(cell_start[c], cell_start[c + 1]):
                        j = cell_particles[k]
                        dx = xi - x[j]
                        dy = yi - y[j]
                        dz = zi - z[j]
                        if dx * dx + dy * dy + dz * dz < rl2 and j != i:
                            if n < room:
                                nbrs[first + n] = j
                            n += 1
    if fill == 0:
        counts[i] = n


class NeighbourList:
    """Device arrays ``offsets`` (N + 1) and ``nbrs`` of a full neighbour list."""

    #: Extra room allocated when the list outgrows ``nbrs``.
    GROWTH = 1.25

    def __init__(self, sim):
        self.sim = sim
        be = sim.backend
        self.counts = zeros(sim.n, np.int32, backend=be)
        self.offsets = zeros(sim.n + 1, np.int32, backend=be)
        self.nbrs = zeros(max(16, 8 * sim.n), np.int32, backend=be)
        self.total = 0
        self._scan = Offsets(backend=be)

    def build(self, kernel, args):
        """Run ``kernel(*args, counts, offsets, nbrs, fill)``: count, scan, fill."""
        kernel(*args, self.counts, self.offsets, self.nbrs, COUNT)
        with self.sim.phase("scan(neighbour counts)"):
            self._scan(self.counts, self.offsets)
            self.total = int(self.offsets[self.sim.n])
        if self.total > len(self.nbrs) or self.total < 0:
            if self.total >= 2 ** 31 or self.total < 0:
                raise OverflowError("the neighbour list has %d entries, more than int32 "
                                    "indices can address" % self.total)
            self.nbrs = empty(int(self.total * self.GROWTH) + 16, np.int32,
                              backend=self.sim.backend)
        kernel(*args, self.counts, self.offsets, self.nbrs, FILL)

    def host_lists(self):
        """The list as a Python list of sorted numpy arrays (for tests and checks)."""
        offsets = self.offsets.get()
        nbrs = self.nbrs.get()
        return [np.sort(nbrs[offsets[i]:offsets[i + 1]]) for i in range(self.sim.n)]
