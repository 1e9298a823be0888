"""A plain-numpy reference of the MD physics in examples/md (for the tests).

Written independently of the example: O(N^2) pair distances with numpy, the
same set-up, walls and velocity Verlet as the issue describes.  Double only.
"""
import math

import numpy as np

RC = 3.0
WALL_K = 50.0
WALL_RANGE = 0.5


def lattice(n_particles, dim=2, spacing=None):
    """Positions (N, dim) and the box side of the default set-up."""
    spacing = (1.5 if dim == 2 else 2.0) if spacing is None else spacing
    per_side = int(math.ceil(round(n_particles ** (1.0 / dim), 9)))
    while per_side ** dim < n_particles:
        per_side += 1
    side = 3.0 * per_side * spacing
    offset = 0.5 * (side - (per_side - 1) * spacing)
    k = np.arange(n_particles)
    pos = np.empty((n_particles, dim))
    for d in range(dim):
        stride = per_side ** (dim - 1 - d)
        pos[:, d] = offset + spacing * ((k // stride) % per_side)
    return pos, side


def pair_terms(pos, side, periodic=False, rc=RC, shift=False):
    """Accelerations (N, dim) and per-particle LJ energies (N,)."""
    d = pos[:, None, :] - pos[None, :, :]
    if periodic:
        d -= side * np.round(d / side)
    r2 = np.einsum("ijk,ijk->ij", d, d)
    np.fill_diagonal(r2, np.inf)
    mask = r2 < rc * rc
    inv2 = np.where(mask, 1.0 / np.where(mask, r2, 1.0), 0.0)
    inv6 = inv2 ** 3
    fac = 24.0 * inv2 * (2.0 * inv6 * inv6 - inv6)
    acc = np.einsum("ij,ijk->ik", fac, d)
    pe = 2.0 * (inv6 * inv6 - inv6)
    if shift:
        c6 = rc ** -6
        pe = pe - np.where(mask, 2.0 * (c6 * c6 - c6), 0.0)
    return acc, pe.sum(axis=1)


def wall_terms(pos, side):
    """Wall accelerations and per-particle wall energies."""
    lo = np.clip(WALL_RANGE - pos, 0.0, None)
    hi = np.clip(WALL_RANGE - (side - pos), 0.0, None)
    acc = WALL_K * lo - WALL_K * hi
    pe = 0.5 * WALL_K * (lo * lo + hi * hi)
    return acc, pe.sum(axis=1)


def forces(pos, side, periodic=False, shift=False):
    acc, pe = pair_terms(pos, side, periodic, shift=shift)
    if not periodic:
        wacc, wpe = wall_terms(pos, side)
        acc = acc + wacc
        pe = pe + wpe
    return acc, pe


def run(n_particles, steps, dt=0.02, dim=2, periodic=False, shift=False,
        vel=None):
    """Energies (steps + 1,) total = kinetic + potential, and final positions."""
    pos, side = lattice(n_particles, dim)
    vel = np.zeros_like(pos) if vel is None else vel.copy()
    acc, pe = forces(pos, side, periodic, shift)
    energies = [0.5 * np.sum(vel * vel) + pe.sum()]
    for _ in range(steps):
        vel += 0.5 * dt * acc
        pos += dt * vel
        if periodic:
            pos -= side * np.floor(pos / side)
        acc, pe = forces(pos, side, periodic, shift)
        vel += 0.5 * dt * acc
        energies.append(0.5 * np.sum(vel * vel) + pe.sum())
    return np.array(energies), pos
