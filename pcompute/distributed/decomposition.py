"""Spatial domain decomposition: a Cartesian grid of ranks over a box.

Rank ``r`` at grid coordinates ``(c_0, c_1, ...)`` owns the half-open slab
``lo_d + c_d w_d <= x_d < lo_d + (c_d + 1) w_d`` along each axis ``d``
(``w_d`` = box side / ranks along ``d``).  Along an axis with walls the first
and last ranks also own whatever lies beyond the box (a particle pushed past
a wall stays with its rank); along a periodic axis the ranks wrap around.
The grid is an MPI Cartesian communicator, so neighbours come from
``Cart_shift`` and MPI may place ranks to suit the network.
"""
import math

import numpy as np

from .mpi import get_comm, mpi


def parse_grid(text, dim=None):
    """``'2x2'`` -> ``(2, 2)``; ``'4'`` -> ``(4,)`` (a ValueError names the problem)."""
    parts = str(text).lower().replace("*", "x").split("x")
    try:
        grid = tuple(int(p) for p in parts)
    except ValueError:
        raise ValueError("%r is not a grid of ranks; write it like 4 (slabs), 2x2 or 2x2x1"
                         % (text,)) from None
    if any(g < 1 for g in grid):
        raise ValueError("the grid %r needs at least one rank along each axis" % (text,))
    if dim is not None:
        if len(grid) > dim:
            raise ValueError("the grid %r has %d axes but the box has %d"
                             % (text, len(grid), dim))
        grid = grid + (1,) * (dim - len(grid))
    return grid


class Decomposition:
    """A Cartesian grid of ranks over the box ``[lo, hi)`` (one pair per axis).

    ``grid``: ranks per axis (a tuple or a string like ``'2x2'``; missing
    trailing axes are 1; None lets MPI choose a balanced grid).
    ``periodic``: one bool, or one per axis.  The product of the grid must
    be the size of ``comm`` (default ``COMM_WORLD``).
    """

    def __init__(self, lo, hi, grid=None, periodic=False, comm=None):
        MPI = mpi()
        comm = get_comm(comm)
        self.lo = np.asarray(lo, dtype=np.float64).reshape(-1)
        self.hi = np.asarray(hi, dtype=np.float64).reshape(-1)
        self.dim = dim = len(self.lo)
        if len(self.hi) != dim or not np.all(self.hi > self.lo):
            raise ValueError("the box needs lo < hi along every axis (lo %s, hi %s)"
                             % (self.lo.tolist(), self.hi.tolist()))
        size = comm.Get_size()
        if grid is None:
            grid = tuple(MPI.Compute_dims(size, dim))
        elif isinstance(grid, str):
            grid = parse_grid(grid, dim)
        else:
            grid = tuple(int(g) for g in grid) + (1,) * (dim - len(tuple(grid)))
        if len(grid) != dim or any(g < 1 for g in grid):
            raise ValueError("the grid %s does not fit a %d-D box" % (grid, dim))
        if math.prod(grid) != size:
            raise ValueError("the grid %s needs %d ranks, but the job has %d; start it "
                             "with `mpiexec -n %d ...` or choose another grid"
                             % ("x".join(map(str, grid)), math.prod(grid), size,
                                math.prod(grid)))
        self.grid = grid
        if isinstance(periodic, (bool, np.bool_, int)):
            periodic = (bool(periodic),) * dim
        self.periodic = tuple(bool(p) for p in periodic)
        if len(self.periodic) != dim:
            raise ValueError("periodic needs one flag per axis (%d), got %d"
                             % (dim, len(self.periodic)))
        self.comm = comm.Create_cart(list(grid), periods=list(self.periodic),
                                     reorder=False)
        self.rank = self.comm.Get_rank()
        self.size = size
        self.coords = tuple(self.comm.Get_coords(self.rank))
        self.side = self.hi - self.lo
        self.width = self.side / np.array(grid)
        coords = np.array(self.coords)
        self.owned_lo = self.lo + self.width * coords
        self.owned_hi = self.lo + self.width * (coords + 1)
        # The exact upper bound of the last rank is the box's upper end.
        last = coords == np.array(grid) - 1
        self.owned_hi[last] = self.hi[last]
        self._ranks = np.zeros(grid, dtype=np.int64)
        for index in np.ndindex(*grid):
            self._ranks[index] = self.comm.Get_cart_rank(list(index))

    # -- geometry -------------------------------------------------------------

    def bounds(self, axis):
        """``(lo, hi)`` of the owned region along ``axis``; +-inf at walls."""
        lo, hi = self.owned_lo[axis], self.owned_hi[axis]
        if not self.periodic[axis]:
            if self.coords[axis] == 0:
                lo = -np.inf
            if self.coords[axis] == self.grid[axis] - 1:
                hi = np.inf
        return lo, hi

    def neighbours(self, axis):
        """``(lower, upper)`` ranks along ``axis``; ``MPI.PROC_NULL`` past a wall."""
        return self.comm.Shift(axis, 1)

    def shift(self, axis, direction):
        """What to add to a coordinate sent across the periodic boundary of
        ``axis`` in ``direction`` (-1 lower, +1 upper); 0 inside the box."""
        if not self.periodic[axis]:
            return 0.0
        if direction < 0 and self.coords[axis] == 0:
            return float(self.side[axis])
        if direction > 0 and self.coords[axis] == self.grid[axis] - 1:
            return -float(self.side[axis])
        return 0.0

    def check_reach(self, reach):
        """ValueError when a rank's side is shorter than ``reach`` along an
        axis that exchanges ghosts (split across ranks, or periodic)."""
        for axis in range(self.dim):
            if self.grid[axis] == 1 and not self.periodic[axis]:
                continue
            if self.width[axis] < reach:
                raise ValueError(
                    "the box is too small for a %s grid of ranks: along axis %d each rank "
                    "is %.4g wide, less than the reach %.4g (cut-off + skin); use fewer "
                    "ranks along that axis or more particles"
                    % ("x".join(map(str, self.grid)), axis, self.width[axis], reach))

    def owners(self, points):
        """The rank owning each point of ``points`` (an (n, dim) array)."""
        points = np.asarray(points, dtype=np.float64).reshape(-1, self.dim)
        index = []
        for axis in range(self.dim):
            # The same comparisons as the owned bounds (no rounding disagreement).
            inner = self.lo[axis] + self.width[axis] * np.arange(1, self.grid[axis])
            p = points[:, axis]
            if self.periodic[axis]:
                p = self.lo[axis] + np.mod(p - self.lo[axis], self.side[axis])
            index.append(np.searchsorted(inner, p, side="right"))
        return self._ranks[tuple(index)]

    def __repr__(self):
        return "Decomposition(grid=%s, rank %d at %s, owns %s .. %s)" % (
            "x".join(map(str, self.grid)), self.rank, self.coords,
            self.owned_lo.tolist(), self.owned_hi.tolist())
