"""Neighbour search strategies: how the force kernel finds each particle's partners.

``simple``  neighbour lists from all pairs, O(N^2)
``sort``    cell keys sorted with ``sort_by_keys``, then lists from the cells
``count``   counting sort into cells (``atomic_inc`` + scan), then lists
``cells``   counting sort into cells; the force kernel walks the neighbouring
            cells directly, with no list

Lists and cells are built with a reach of cut-off + skin; the simulation calls
:meth:`Strategy.rebuild` when they are stale (every step without a skin).

The kernels' argument tuples are made once and kept while the arrays they
hold are the same objects (:class:`examples.md.arguments.Kept`): the
simulation's positions, accelerations and potential energies, the neighbour
list's ``nbrs`` (replaced when the list outgrows it) and the cells'
``cell_particles`` (``sort_by_keys`` gives the ``sort`` strategy a new one at
every rebuild).
"""
import numpy as np

from .arguments import Kept, geometry
from .binning import CellGrid, CountingSortBinning, SortBinning
from .forces import forces_cells_2d, forces_cells_3d, forces_list_2d, forces_list_3d
from .kernels import elementwise
from .neighbours import (NeighbourList, all_pairs_2d, all_pairs_3d, cell_pairs_2d,
                         cell_pairs_3d)


class Strategy:
    """Base class: ``rebuild()`` the search structures, ``forces()`` from them."""

    name = None

    def __init__(self, sim, reach):
        self.sim = sim
        self.reach = reach
        self._force_args = Kept("forces", self._make_force_args)
        self._pair_args = Kept("pairs", self._make_pair_args)


class ListStrategy(Strategy):
    """Forces from a full neighbour list."""

    def __init__(self, sim, reach):
        super().__init__(sim, reach)
        self.list = NeighbourList(sim)
        be = sim.backend
        self._forces = elementwise(forces_list_2d if sim.dim == 2 else forces_list_3d, be)

    def _make_force_args(self):
        sim, nlist = self.sim, self.list
        args = list(sim.positions) + list(sim.accelerations) + [
            sim.pe, nlist.offsets, nlist.nbrs, sim.real(sim.rc * sim.rc),
            sim.real(sim.energy_shift), sim.real(sim.side)]
        if sim.dim == 3:
            args.append(np.int32(sim.periodic))
        return args

    def forces(self):
        sim = self.sim
        self._forces(*self._force_args(sim.positions, sim.accelerations, sim.pe,
                                       self.list.nbrs))

    def launches(self):
        """``(kernel, arguments)`` of every kernel :meth:`rebuild` and
        :meth:`forces` launch (for :mod:`examples.md.prebuild`)."""
        sim = self.sim
        return self.list.launches(self._pairs, self.pair_args()) + [
            (self._forces, self._force_args(sim.positions, sim.accelerations, sim.pe,
                                            self.list.nbrs))]

    def neighbour_lists(self):
        """Host copy of the lists (built with the reach), each sorted."""
        return self.list.host_lists()


class SimpleStrategy(ListStrategy):
    name = "simple"

    def __init__(self, sim, reach):
        super().__init__(sim, reach)
        self._pairs = elementwise(all_pairs_2d if sim.dim == 2 else all_pairs_3d,
                                  sim.backend)

    def _make_pair_args(self):
        sim = self.sim
        return list(sim.positions) + [np.int32(sim.n), sim.real(self.reach ** 2)] \
            + list(geometry(sim))

    def pair_args(self):
        """The arguments of the pair kernel before ``counts, offsets, nbrs, fill``."""
        return self._pair_args(self.sim.positions)

    def rebuild(self):
        self.list.build(self._pairs, self.pair_args())


class CellMixin:
    """Bins particles into cells of side >= reach."""

    binning_class = CountingSortBinning

    def make_cells(self):
        sim = self.sim
        self.grid = CellGrid(sim.side, self.reach, sim.dim)
        if sim.periodic and self.grid.nc < 3:
            raise ValueError("the periodic box (side %.3g) is too small for cells of "
                             "side %.3g: it needs at least 3 cells per side"
                             % (sim.side, self.reach))
        self.binning = self.binning_class(sim, self.grid)

    def cell_args(self):
        b = self.binning
        return [b.cell_start, b.cell_particles] + list(b.grid_args)

    def _make_pair_args(self):
        sim = self.sim
        return list(sim.positions) + self.cell_args() + [sim.real(self.reach ** 2)] \
            + list(geometry(sim))

    def pair_args(self):
        """The arguments of the pair kernel before ``counts, offsets, nbrs, fill``."""
        return self._pair_args(self.sim.positions, self.binning.cell_particles)


class CellListStrategy(CellMixin, ListStrategy):
    """Lists built from the cells of a binning."""

    def __init__(self, sim, reach):
        super().__init__(sim, reach)
        self.make_cells()
        self._pairs = elementwise(cell_pairs_2d if sim.dim == 2 else cell_pairs_3d,
                                  sim.backend)

    def rebuild(self, binned=False):
        """Bin (unless the count pass ran already: ``binned``, see
        :mod:`examples.md.fused`), then build the lists."""
        if binned:
            self.binning.finish()
        else:
            self.binning()
        self.list.build(self._pairs, self.pair_args())

    def launches(self):
        return self.binning.launches() + super().launches()


class SortStrategy(CellListStrategy):
    name = "sort"
    binning_class = SortBinning


class CountStrategy(CellListStrategy):
    name = "count"
    binning_class = CountingSortBinning


class CellsStrategy(CellMixin, Strategy):
    """The force kernel walks the cells around each particle: no list."""

    name = "cells"

    def __init__(self, sim, reach):
        super().__init__(sim, reach)
        self.make_cells()
        self._forces = elementwise(forces_cells_2d if sim.dim == 2 else forces_cells_3d,
                                   sim.backend)

    def rebuild(self, binned=False):
        if binned:
            self.binning.finish()
        else:
            self.binning()

    def _make_force_args(self):
        sim = self.sim
        args = list(sim.positions) + list(sim.accelerations) + [sim.pe] \
            + self.cell_args() + [sim.real(sim.rc * sim.rc), sim.real(sim.energy_shift),
                                  sim.real(sim.side)]
        if sim.dim == 3:
            args.append(np.int32(sim.periodic))
        return args

    def forces(self):
        sim = self.sim
        self._forces(*self._force_args(sim.positions, sim.accelerations, sim.pe,
                                       self.binning.cell_particles))

    def launches(self):
        """``(kernel, arguments)`` of every kernel :meth:`rebuild` and
        :meth:`forces` launch (for :mod:`examples.md.prebuild`)."""
        sim = self.sim
        return self.binning.launches() + [
            (self._forces, self._force_args(sim.positions, sim.accelerations, sim.pe,
                                            self.binning.cell_particles))]

    def neighbour_lists(self):
        """Lists built from the current cells with the reach (for checks)."""
        sim = self.sim
        nlist = NeighbourList(sim)
        pairs = elementwise(cell_pairs_2d if sim.dim == 2 else cell_pairs_3d, sim.backend)
        nlist.build(pairs, self.pair_args())
        return nlist.host_lists()


STRATEGIES = {cls.name: cls for cls in (SimpleStrategy, SortStrategy, CountStrategy,
                                        CellsStrategy)}
