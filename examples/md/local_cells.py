"""Kernels of one rank of a decomposed run: cells over the rank's own region
(owned + ghost layer), and forces on the owned particles from them.

The local region starts at ``lo*`` and has ``nc*`` cells of side ``cs*``
along each axis; ghosts are images already shifted across periodic
boundaries, so separations need no minimum image.  ``walls`` adds the walls
of the (global) box of side ``side``.  The force kernels are built with
the single-process ones' options (:mod:`examples.md.forces`):
``build_options(fma=True)``; the 2-D one walks the same strips of cells as
``forces_cells_2d``, with the same pair helper (``pair_sums_2d``).
"""
from pcompute import atomic_inc, build_options, declare

from .forces import pair_sums_2d
from .physics import cell_of, lj_energy, lj_force, wall_energy, wall_force


def local_cell(p, lo, cs, nc):
    """Cell index (0 .. nc-1) along one axis of the local grid: the
    single-process :func:`~examples.md.physics.cell_of` of the offset from
    ``lo`` (outside the region: the first or last cell; NaN: the first, on
    every backend)."""
    return cell_of(p - lo, cs, nc)


def bin_local_2d(i, x, y, keys, ranks, counts, lox, loy, csx, csy, ncx, ncy):
    key = local_cell(x[i], lox, csx, ncx) * ncy + local_cell(y[i], loy, csy, ncy)
    keys[i] = key
    ranks[i] = atomic_inc(counts[key])


def bin_local_3d(i, x, y, z, keys, ranks, counts, lox, loy, loz, csx, csy, csz, ncx, ncy,
                 ncz):
    key = (local_cell(x[i], lox, csx, ncx) * ncy + local_cell(y[i], loy, csy, ncy)) * ncz \
        + local_cell(z[i], loz, csz, ncz)
    keys[i] = key
    ranks[i] = atomic_inc(counts[key])


@build_options(fma=True)
def forces_local_2d(i, ax, ay, pe, x, y, cell_start, cell_particles, lox, loy, csx, csy,
                    ncx, ncy, rc2, eshift, side, walls):
    xi = x[i]
    yi = y[i]
    cx = local_cell(xi, lox, csx, ncx)
    cy = local_cell(yi, loy, csy, ncy)
    sums = declare('matrix(3)')
    sums[0] = 0.0
    sums[1] = 0.0
    sums[2] = 0.0
    if walls:
        sums[0] = wall_force(xi, side)
        sums[1] = wall_force(yi, side)
        sums[2] = wall_energy(xi, side) + wall_energy(yi, side)
    npair = 0
    y0 = max(cy - 1, 0)
    y1 = min(cy + 2, ncy)
    for ix in range(max(cx - 1, 0), min(cx + 2, ncx)):
        npair += pair_sums_2d(xi, yi, i, x, y, cell_particles, cell_start[ix * ncy + y0],
                              cell_start[ix * ncy + y1], rc2, sums)
    ax[i] = sums[0]
    ay[i] = sums[1]
    pe[i] = sums[2] - npair * eshift


@build_options(fma=True)
def forces_local_3d(i, ax, ay, az, pe, x, y, z, cell_start, cell_particles, lox, loy, loz,
                    csx, csy, csz, ncx, ncy, ncz, rc2, eshift, side, walls):
    xi = x[i]
    yi = y[i]
    zi = z[i]
    cx = local_cell(xi, lox, csx, ncx)
    cy = local_cell(yi, loy, csy, ncy)
    cz = local_cell(zi, loz, csz, ncz)
    fx = 0.0
    fy = 0.0
    fz = 0.0
    e = 0.0
    for ix in range(max(cx - 1, 0), min(cx + 2, ncx)):
        for iy in range(max(cy - 1, 0), min(cy + 2, ncy)):
            for iz in range(max(cz - 1, 0), min(cz + 2, ncz)):
                c = (ix * ncy + iy) * ncz + iz
                for k in range(cell_start[c], cell_start[c + 1]):
                    j = cell_particles[k]
                    dx = xi - x[j]
                    dy = yi - y[j]
                    dz = zi - z[j]
                    r2 = dx * dx + dy * dy + dz * dz
                    if r2 < rc2 and j != i:
                        f = lj_force(r2)
                        fx += f * dx
                        fy += f * dy
                        fz += f * dz
                        e += lj_energy(r2) - eshift
    if walls:
        fx += wall_force(xi, side)
        fy += wall_force(yi, side)
        fz += wall_force(zi, side)
        e += wall_energy(xi, side) + wall_energy(yi, side) + wall_energy(zi, side)
    ax[i] = fx
    ay[i] = fy
    az[i] = fz
    pe[i] = e
