"""NumPy re-computations of Compyle's molecular-dynamics examples
(tests/compyle_examples/molecular_dynamics), written from their kernels.

One velocity-Verlet step of the examples is: ``step1`` (positions and half
velocities from the old forces, then the boundary: wall forces or the
periodic wrap, which also reset the potential energy), ``step2`` (pair forces
added to those, second half of the velocities).  The pair terms are the
examples' Lennard-Jones form; which pairs count is given by ``pairs``:
``'<= 9'`` for md_simple (``if rij2 > 9: continue``), ``'< h2'`` for the
neighbour-search versions (``rij2 < h*h`` when the lists are built).
"""
import numpy as np

STIFFNESS = 50.0


def pair_terms(pos, include, box=None):
    """(forces per dimension, potential energy) of every particle from the
    pairs ``include(r2)`` selects; ``box`` (lengths) applies the minimum
    image as the periodic example does (``|d| < L/2`` else ``d - sign*L``)."""
    n = len(pos[0])
    d = []
    for k, p in enumerate(pos):
        dk = p[:, None] - p[None, :]
        if box is not None:
            sign = np.where(dk > 0, 1.0, -1.0)
            dk = np.where(np.abs(dk) < 0.5 * box[k], dk, dk - sign * box[k])
        d.append(dk)
    r2 = sum(dk * dk for dk in d)
    mask = include(r2) & ~np.eye(n, dtype=bool)
    with np.errstate(divide="ignore"):
        ir2 = np.where(mask, 1.0 / np.where(mask, r2, 1.0), 0.0)
    ir6 = ir2 * ir2 * ir2
    ir12 = ir6 * ir6
    pe = np.where(mask, 2 * (ir12 - ir6), 0.0).sum(axis=1)
    fbase = np.where(mask, 24 * ir2 * (2 * ir12 - ir6), 0.0)
    return [(fbase * dk).sum(axis=1) for dk in d], pe


def walls(pos, box):
    """Wall forces and energies of md_simple's boundary_condition."""
    f, pe = [], np.zeros_like(pos[0])
    for p, width in zip(pos, box):
        lo = p < 0.5
        hi = ~lo & (p > width - 0.5)
        f.append(np.where(lo, STIFFNESS * (0.5 - p),
                          np.where(hi, STIFFNESS * (width - 0.5 - p), 0.0)))
        pe = pe + np.where(lo, 0.5 * STIFFNESS * (0.5 - p) ** 2,
                           np.where(hi, 0.5 * STIFFNESS * (width - 0.5 - p) ** 2, 0.0))
    return f, pe


def run(pos, vel, box, dt, steps, include, periodic=False):
    """Positions, velocities, forces, potential energies after ``steps``
    steps, and the total energies the examples print (steps 0, 100, ...)."""
    pos = [np.array(p, dtype=np.float64) for p in pos]
    vel = [np.array(v, dtype=np.float64) for v in vel]
    image = box if periodic else None
    f, pe = pair_terms(pos, include, image)
    energies = []
    for step in range(steps):
        for k in range(len(pos)):
            pos[k] = pos[k] + (vel[k] * dt + 0.5 * f[k] * dt * dt)
            vel[k] = vel[k] + 0.5 * f[k] * dt
        if periodic:
            f = [np.zeros_like(p) for p in pos]
            pe = np.zeros_like(pos[0])
            pos = [p - np.floor(p / L) * L for p, L in zip(pos, box)]
        else:
            f, pe = walls(pos, box)
        df, dpe = pair_terms(pos, include, image)
        f = [a + b for a, b in zip(f, df)]
        pe = pe + dpe
        for k in range(len(pos)):
            vel[k] = vel[k] + 0.5 * f[k] * dt
        if step % 100 == 0:
            energies.append(float(np.sum(pe + 0.5 * sum(v * v for v in vel))))
    return pos, vel, f, pe, energies
