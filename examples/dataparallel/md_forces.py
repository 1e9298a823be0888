"""The molecular-dynamics force loop over a CSR neighbour list (the pair part
of ``examples/md``'s ``forces_list_2d``), as a data-parallel function.

Particle ``i``'s neighbours are ``nbrs[offsets[i]:offsets[i + 1]]``; its
acceleration (m = 1) and potential energy sum Lennard-Jones pairs within
the cut-off ``rc2`` (the list may hold pairs a little beyond it: a skin).
The pair physics is the MD example's own kernel helpers (``lj_force``,
``lj_energy``).  The three results share one kernel: a map over the
neighbour segments with an inner sequential loop per result.
"""
from pcompute.dataparallel import dataparallel, map, split, sum

from examples.md.physics import lj_energy, lj_force


@dataparallel
def lj_forces_2d(x, y, offsets, nbrs, rc2, eshift):
    def force(dx, dy):
        r2 = dx * dx + dy * dy
        return lj_force(r2) if r2 < rc2 else 0.0

    def energy(dx, dy):
        r2 = dx * dx + dy * dy
        return lj_energy(r2) - eshift if r2 < rc2 else 0.0

    def ax(row, xi, yi):
        return sum(map(lambda j: force(xi - x[j], yi - y[j]) * (xi - x[j]), row))

    def ay(row, xi, yi):
        return sum(map(lambda j: force(xi - x[j], yi - y[j]) * (yi - y[j]), row))

    def pe(row, xi, yi):
        return sum(map(lambda j: energy(xi - x[j], yi - y[j]), row))

    rows = split(nbrs, offsets)
    return map(ax, rows, x, y), map(ay, rows, x, y), map(pe, rows, x, y)
