"""The pair potential and the walls, as kernel helper functions.

Lennard-Jones with sigma = epsilon = m = 1 and a cut-off of 3.  These are
module-level helpers in the kernel language: the force and neighbour kernels
call them, and pcompute translates them with the kernel.
"""

from pcompute import cast

#: Cut-off radius of the pair potential.
RC = 3.0
#: Stiffness of the harmonic walls and the distance within which they act.
WALL_K = 50.0
WALL_RANGE = 0.5


def lj_force(r2):
    """Force factor 24 r^-2 (2 r^-12 - r^-6): multiply by the separation."""
    inv2 = 1.0 / r2
    inv6 = inv2 * inv2 * inv2
    return 24.0 * inv2 * inv6 * (2.0 * inv6 - 1.0)


def lj_energy(r2):
    """Half of a pair's energy, 2 (r^-12 - r^-6), credited to each partner."""
    inv2 = 1.0 / r2
    inv6 = inv2 * inv2 * inv2
    return 2.0 * inv6 * (inv6 - 1.0)


def wall_force(p, side):
    """Force of the walls at 0 and ``side`` on a particle at coordinate ``p``."""
    if p < WALL_RANGE:
        return WALL_K * (WALL_RANGE - p)
    if p > side - WALL_RANGE:
        return -WALL_K * (WALL_RANGE - (side - p))
    return 0.0


def wall_energy(p, side):
    """Energy 0.5 k (range - distance)^2 of the walls, within range of a wall."""
    d = WALL_RANGE
    if p < WALL_RANGE:
        d = p
    if p > side - WALL_RANGE:
        d = side - p
    return 0.5 * WALL_K * (WALL_RANGE - d) * (WALL_RANGE - d)


def min_image(d, side):
    """The periodic image of a separation ``d`` nearest to zero."""
    if d > 0.5 * side:
        return d - side
    if d < -0.5 * side:
        return d + side
    return d


def neighbour_cell(c, d, nc, periodic):
    """The cell ``d`` (-1, 0 or 1) steps from cell ``c`` along one axis:
    wrapped around when ``periodic``, else -1 when it lies outside the box.
    (Wrapped by a comparison, not ``(k + nc) % nc``: an integer division for
    each of the 39 cells looked up per particle was a sizeable share of the
    3-D periodic force kernel.)"""
    k = c + d
    if periodic:
        if k < 0:
            return k + nc
        if k >= nc:
            return k - nc
        return k
    if k < 0 or k >= nc:
        return -1
    return k


def cell_of(p, cell_size, nc):
    """Cell index (0 .. nc-1) along one axis of coordinate ``p``: the first
    or last cell outside the box, the first for NaN.  Only a quotient in
    range is converted to an int (where truncation is the floor): a NaN
    reaching ``floor`` or ``int`` is an error in Python and undefined in C, so
    every backend bins a NaN position alike."""
    q = p / cell_size
    if not q >= 0.0:         # negative or NaN
        return 0
    if q >= nc:
        return nc - 1
    return cast(q, 'int')
