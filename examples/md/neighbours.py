"""Neighbour lists, built in two passes: count, exclusive scan, fill.

The same kernel runs both passes: with ``fill == 0`` it counts particle i's
neighbours into ``counts[i]``; after the scan has turned the counts into
``offsets`` it runs again with ``fill == 1`` and writes them into
``nbrs[offsets[i] ..]``.  Candidates come from all particles (O(N^2), the
``simple`` strategy) or from the 3^dim cells around the particle.  Lists are
full (each pair appears in both particles' lists), so the force kernel needs
no atomics.

The two passes evaluate the same distance test, but nothing in the language
promises that they round it alike: the kernels are built with
``build_options(fma=True)`` (the squared distances may use FMA instructions),
and a compiler may contract (or vectorise) one pass's loop and not the
other's.  A pair at the reach could so be counted and not found by the fill
or the reverse.  Two rules make that harmless:

* The fill pass writes at most ``counts[i]`` entries (the count pass's)
  into particle i's slots: a store past them would overwrite the next
  particle's (or the end of ``nbrs``).  One test does both jobs: a pair is
  stored while ``n < room``, and ``room`` is ``counts[i]`` in the fill pass
  and 0 in the count pass (which so stores nothing): the inner loop has the
  instructions and branches of an unguarded kernel's.  (An ``if fill:``
  around a guarded store, a second branch on every accepted pair, made the
  3-D list build 6-12 % slower on one AMD EPYC core.)
* The fill pass reports its own count: where it found another number than
  ``counts[i]`` it writes its number into ``counts[i]`` and increments
  ``status[0]``.  :meth:`NeighbourList.build` reads ``status[0]`` once per
  build; when it is not 0 it scans the fill pass's counts and fills again
  (the same code, so the same pairs: the lists are then exact), counted in
  ``NeighbourList.refills`` and logged (or an error with ``strict``).
  Without this a fill finding fewer pairs than counted would leave a stale
  index in the particle's last slot: a duplicate neighbour, a wrong force.

``all_pairs_2d`` has a count loop of its own (no store in it: the C
compiler vectorises it); particle i itself (distance 0) is counted there
with the others and taken off after the loop, so the vectorised loop has no
integer test (with ``j == i`` in it gcc widened the indices to compare them:
0.61x against 0.39x the time of the shared loop, one AMD EPYC core, N =
10^4).  Its fill loop rejects a candidate with ``continue`` (``if not d2 <
rl2 or j == i``; written ``if d2 < rl2 and j != i:`` gcc laid it out with a
second taken branch per candidate, 1.5x slower).  Every kernel here takes a
pair as neighbours when ``d2 < rl2``, so a NaN distance (a NaN position) is
no neighbour in any strategy, as in benchmarks/reference/md.c.  The 3-D
kernels test ``periodic`` once per cell (or particle), not once per pair:
two copies of the pair loop, as the C reference has one per geometry.
"""
import logging

import numpy as np

from pcompute import atomic_inc, build_options, empty, zeros

from .physics import cell_of, neighbour_cell, min_image
from .scans import Offsets

log = logging.getLogger("examples.md.neighbours")

#: The ``fill`` argument of the two passes.
COUNT, FILL = np.int32(0), np.int32(1)


@build_options(fma=True)
def all_pairs_2d(i, x, y, n_all, rl2, counts, offsets, nbrs, status, fill):
    xi = x[i]
    yi = y[i]
    n = 0
    if fill == 0:            # a loop with no store: vectorised by the C compiler
        for j in range(n_all):
            dx = xi - x[j]
            dy = yi - y[j]
            if not dx * dx + dy * dy < rl2:
                continue
            n += 1
        dx = xi - x[i]       # i itself (distance 0) was counted: taken off here
        dy = yi - y[i]
        if dx * dx + dy * dy < rl2:
            n -= 1
        counts[i] = n
        return
    first = offsets[i]       # read once: the stores into nbrs may alias it
    room = counts[i]         # the slots the count pass gave particle i
    for j in range(n_all):
        dx = xi - x[j]
        dy = yi - y[j]
        if not dx * dx + dy * dy < rl2 or j == i:
            continue
        if n < room:
            nbrs[first + n] = j
        n += 1
    if n != room:            # not the count pass's number: say so (see the module)
        counts[i] = n
        atomic_inc(status[0])


@build_options(fma=True)
def all_pairs_3d(i, x, y, z, n_all, rl2, side, periodic, counts, offsets, nbrs, status,
                 fill):
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
    elif n != room:          # not the count pass's number: say so (see the module)
        counts[i] = n
        atomic_inc(status[0])


@build_options(fma=True)
def cell_pairs_2d(i, x, y, cell_start, cell_particles, cell_size, nc, rl2, counts,
                  offsets, nbrs, status, fill):
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
    elif n != room:          # not the count pass's number: say so (see the module)
        counts[i] = n
        atomic_inc(status[0])


@build_options(fma=True)
def cell_pairs_3d(i, x, y, z, cell_start, cell_particles, cell_size, nc, rl2, side,
                  periodic, counts, offsets, nbrs, status, fill):
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
    elif n != room:          # not the count pass's number: say so (see the module)
        counts[i] = n
        atomic_inc(status[0])


class NeighbourList:
    """Device arrays ``offsets`` (N + 1) and ``nbrs`` of a full neighbour list."""

    #: Extra room allocated when the list outgrows ``nbrs``.
    GROWTH = 1.25
    #: True: a fill pass that finds another number of pairs than its count
    #: pass raises instead of being filled again (see the module docstring).
    strict = False

    def __init__(self, sim):
        self.sim = sim
        be = sim.backend
        self.counts = zeros(sim.n, np.int32, backend=be)
        self.offsets = zeros(sim.n + 1, np.int32, backend=be)
        self.nbrs = zeros(max(16, 8 * sim.n), np.int32, backend=be)
        self.status = zeros(1, np.int32, backend=be)   # fill passes that miscounted
        self.total = 0
        #: Builds whose fill pass found another number of pairs than the count
        #: pass for some particle, and were filled again.
        self.refills = 0
        self._scan = Offsets(backend=be)

    def build(self, kernel, args):
        """Run ``kernel(*args, counts, offsets, nbrs, status, fill)``: count,
        scan, fill; filled again from the fill pass's own counts if it found
        another number of pairs than the count pass for some particle."""
        kernel(*args, self.counts, self.offsets, self.nbrs, self.status, COUNT)
        self._offsets()
        kernel(*args, self.counts, self.offsets, self.nbrs, self.status, FILL)
        if int(self.status[0]):
            self._refill(kernel, args)

    def launches(self, kernel, args):
        """``(kernel, arguments)`` of the kernels :meth:`build` launches
        (for :mod:`examples.md.prebuild`: both passes have the same types)."""
        return [(kernel, tuple(args) + (self.counts, self.offsets, self.nbrs, self.status,
                                        COUNT))] + self._scan.launches(self.counts, self.offsets)

    def _offsets(self):
        """Scan the counts into offsets; a larger ``nbrs`` if they need it."""
        with self.sim.phase("scan(neighbour counts)"):
            self._scan(self.counts, self.offsets)
            self.total = int(self.offsets[self.sim.n])
        if self.total > len(self.nbrs) or self.total < 0:
            if self.total >= 2 ** 31 or self.total < 0:
                raise OverflowError("the neighbour list has %d entries, more than int32 "
                                    "indices can address" % self.total)
            self.nbrs = empty(int(self.total * self.GROWTH) + 16, np.int32,
                              backend=self.sim.backend)

    def _refill(self, kernel, args):
        """The fill pass found another number of pairs than the count pass for
        ``status[0]`` particles and wrote its own numbers into ``counts``:
        scan those and fill again (the same code finds the same pairs)."""
        missed = int(self.status[0])
        self.status[0] = 0
        what = ("the fill pass of %s found another number of neighbours than its count "
                "pass for %d particle(s) (a distance at the reach rounded differently)"
                % (getattr(kernel, "name", kernel), missed))
        if self.strict:
            raise RuntimeError(what)
        self.refills += 1
        log.warning("%s: lists filled again from the fill pass's counts (%d time(s) so far)",
                    what, self.refills)
        self._offsets()
        kernel(*args, self.counts, self.offsets, self.nbrs, self.status, FILL)
        if int(self.status[0]):
            raise RuntimeError("%s: filled again from its own counts it found yet another "
                               "number (%d particle(s)): the fill pass does not repeat its "
                               "results" % (what, int(self.status[0])))

    def host_lists(self):
        """The list as a Python list of sorted numpy arrays (for tests and checks)."""
        offsets = self.offsets.get()
        nbrs = self.nbrs.get()
        return [np.sort(nbrs[offsets[i]:offsets[i + 1]]) for i in range(self.sim.n)]
