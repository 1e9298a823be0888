"""Force kernels: Lennard-Jones pairs plus walls, from a neighbour list or from cells.

Each kernel computes, for particle ``i``, its acceleration (m = 1) and its
potential energy (half of each pair's energy plus its wall energy) and
overwrites ``a*`` and ``pe``.  There is one kernel per dimension so the
inner loops stay as short as hand-written code; the physics lives in the
helpers of :mod:`examples.md.physics`.  ``eshift`` is the energy shift of
the shifted potential (0 without ``--shift``), taken once per particle as
``npair * eshift`` rather than per pair (one live value fewer in the pair
loop: the C compiler no longer spills there); ``periodic`` (3-D) switches
from walls to minimum-image separations.  The walls' force and energy start
the sums, before the pair loop, for the same reason: ``side`` is then not
live across the loop, and gcc no longer parks a value of the pair loop in a
general register (2-D cells at N = 10^4, one thread, AMD EPYC: CPU time per
step 1.12x -> 1.06x the C reference's, both built -march=native).  The 3-D
kernels test ``periodic`` once per particle: two copies of the pair loop
(of the whole cell walk in ``forces_cells_3d``), as the C reference has one
per geometry (one thread, N = 2 * 10^4, AMD EPYC, kernel CPU time
alternated in one process, against a test per pair: list forces 0.85x
periodic, 0.90x walls; cell forces 0.82x walls, 1.00x periodic).
``forces_cells_2d`` walks three strips of cells, not nine cells: the cells
of one column (``ix * nc + y0`` .. ``ix * nc + y1 - 1``) are adjacent in
``cell_particles``, so one loop covers them (the same pairs in the same
order, so the same forces).  With nine cell loops gcc kept one more value
live than it had registers for and stored a separation (and a force sum) to
the stack for every candidate pair; ``unroll=True`` (``-funroll-loops``)
removed that spill and was 0.90x on the bench's 25 steps from the lattice,
but 1.14x on a melted state (the README's main job spends nearly all its
steps there), so it was a bad trade.  The strip walk has no spill and needs
no unroll (one thread, N = 10^4, skin 0.3, AMD EPYC, CPU time of 25 steps
alternated in one process, ratio to md.c's nine-cell walk: lattice 1.10
(nine cells) / 0.98 (unrolled) / 1.03 (strips); melted by 400 steps 1.05 /
1.21 / 0.97; with unroll the strips read 0.85 / 1.02, the same loss on the
melted state).

The 2-D pair loop is one helper, ``pair_sums_2d`` (the neighbour list's
range, each strip of cells, and the decomposed run's strips in
:mod:`examples.md.local_cells`): kernel functions return one value, so it
adds the force and energy sums into the caller's ``declare('matrix(3)')``
and returns the pair count.  gcc inlines it and keeps the three sums in
registers: the cell kernel's pair loop is the same instructions as with the
loop written out (objdump), and its forces are bitwise the same (kernel CPU
time, one thread, N = 10^4 melted by 400 steps, alternated in one process,
AMD EPYC, load 4: cells 0.91-0.96x, list 0.98-1.01x of the written-out
kernels).

The pair kernels are built with ``build_options(fma=True)``: multiplies and
adds may be fused into FMA instructions, as gcc fuses them by default in the
benchmarks' C reference (``-O3 -march=native``), so the forces may differ
from the python backend's in the last bits (the tests compare them with a
tolerance).
"""
from pcompute import build_options, declare

from .physics import (cell_of, lj_energy, lj_force, min_image, neighbour_cell, wall_energy,
                      wall_force)


def pair_sums_2d(xi, yi, i, x, y, particles, k0, k1, rc2, sums):
    """Adds to ``sums`` (force x, force y, energy) what the particles
    ``particles[k0:k1]`` within the cut-off do to particle ``i`` at
    ``(xi, yi)`` (``i`` itself skipped); returns how many they are."""
    npair = 0
    for k in range(k0, k1):
        j = particles[k]
        dx = xi - x[j]
        dy = yi - y[j]
        r2 = dx * dx + dy * dy
        if r2 < rc2 and j != i:
            f = lj_force(r2)
            sums[0] += f * dx
            sums[1] += f * dy
            sums[2] += lj_energy(r2)
            npair += 1
    return npair


@build_options(fma=True)
def forces_list_2d(i, x, y, ax, ay, pe, nbr_start, nbrs, rc2, eshift, side):
    xi = x[i]
    yi = y[i]
    sums = declare('matrix(3)')
    sums[0] = wall_force(xi, side)
    sums[1] = wall_force(yi, side)
    sums[2] = wall_energy(xi, side) + wall_energy(yi, side)
    npair = pair_sums_2d(xi, yi, i, x, y, nbrs, nbr_start[i], nbr_start[i + 1], rc2, sums)
    ax[i] = sums[0]
    ay[i] = sums[1]
    pe[i] = sums[2] - npair * eshift


@build_options(fma=True)
def forces_list_3d(i, x, y, z, ax, ay, az, pe, nbr_start, nbrs, rc2, eshift, side,
                   periodic):
    xi = x[i]
    yi = y[i]
    zi = z[i]
    fx = 0.0
    fy = 0.0
    fz = 0.0
    e = 0.0
    if periodic == 0:
        fx = wall_force(xi, side)
        fy = wall_force(yi, side)
        fz = wall_force(zi, side)
        e = wall_energy(xi, side) + wall_energy(yi, side) + wall_energy(zi, side)
    npair = 0
    if periodic:             # two loops: no test of `periodic` per pair
        for k in range(nbr_start[i], nbr_start[i + 1]):
            j = nbrs[k]
            dx = min_image(xi - x[j], side)
            dy = min_image(yi - y[j], side)
            dz = min_image(zi - z[j], side)
            r2 = dx * dx + dy * dy + dz * dz
            if r2 < rc2:
                f = lj_force(r2)
                fx += f * dx
                fy += f * dy
                fz += f * dz
                e += lj_energy(r2)
                npair += 1
    else:
        for k in range(nbr_start[i], nbr_start[i + 1]):
            j = nbrs[k]
            dx = xi - x[j]
            dy = yi - y[j]
            dz = zi - z[j]
            r2 = dx * dx + dy * dy + dz * dz
            if r2 < rc2:
                f = lj_force(r2)
                fx += f * dx
                fy += f * dy
                fz += f * dz
                e += lj_energy(r2)
                npair += 1
    ax[i] = fx
    ay[i] = fy
    az[i] = fz
    pe[i] = e - npair * eshift


@build_options(fma=True)
def forces_cells_2d(i, x, y, ax, ay, pe, cell_start, cell_particles, cell_size, nc,
                    rc2, eshift, side):
    xi = x[i]
    yi = y[i]
    cx = cell_of(xi, cell_size, nc)
    cy = cell_of(yi, cell_size, nc)
    sums = declare('matrix(3)')
    sums[0] = wall_force(xi, side)
    sums[1] = wall_force(yi, side)
    sums[2] = wall_energy(xi, side) + wall_energy(yi, side)
    npair = 0
    y0 = max(cy - 1, 0)
    y1 = min(cy + 2, nc)
    for ix in range(max(cx - 1, 0), min(cx + 2, nc)):
        # cells ix * nc + y0 .. ix * nc + y1 - 1 lie next to each other in
        # cell_particles: one strip of particles per column of cells
        npair += pair_sums_2d(xi, yi, i, x, y, cell_particles, cell_start[ix * nc + y0],
                              cell_start[ix * nc + y1], rc2, sums)
    ax[i] = sums[0]
    ay[i] = sums[1]
    pe[i] = sums[2] - npair * eshift


@build_options(fma=True)
def forces_cells_3d(i, x, y, z, ax, ay, az, pe, cell_start, cell_particles, cell_size,
                    nc, rc2, eshift, side, periodic):
    xi = x[i]
    yi = y[i]
    zi = z[i]
    cx = cell_of(xi, cell_size, nc)
    cy = cell_of(yi, cell_size, nc)
    cz = cell_of(zi, cell_size, nc)
    fx = 0.0
    fy = 0.0
    fz = 0.0
    e = 0.0
    npair = 0
    if periodic:             # two walks: no test of `periodic` per cell or pair
        for ddx in range(-1, 2):
            ix = neighbour_cell(cx, ddx, nc, 1)
            for ddy in range(-1, 2):
                iy = neighbour_cell(cy, ddy, nc, 1)
                for ddz in range(-1, 2):
                    iz = neighbour_cell(cz, ddz, nc, 1)
                    c = (ix * nc + iy) * nc + iz
                    for k in range(cell_start[c], cell_start[c + 1]):
                        j = cell_particles[k]
                        dx = min_image(xi - x[j], side)
                        dy = min_image(yi - y[j], side)
                        dz = min_image(zi - z[j], side)
                        r2 = dx * dx + dy * dy + dz * dz
                        if r2 < rc2 and j != i:
                            f = lj_force(r2)
                            fx += f * dx
                            fy += f * dy
                            fz += f * dz
                            e += lj_energy(r2)
                            npair += 1
    else:
        fx = wall_force(xi, side)
        fy = wall_force(yi, side)
        fz = wall_force(zi, side)
        e = wall_energy(xi, side) + wall_energy(yi, side) + wall_energy(zi, side)
        for ix in range(max(cx - 1, 0), min(cx + 2, nc)):
            for iy in range(max(cy - 1, 0), min(cy + 2, nc)):
                for iz in range(max(cz - 1, 0), min(cz + 2, nc)):
                    c = (ix * nc + iy) * nc + iz
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
                            e += lj_energy(r2)
                            npair += 1
    ax[i] = fx
    ay[i] = fy
    az[i] = fz
    pe[i] = e - npair * eshift
