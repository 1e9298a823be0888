"""Initial conditions: particles on a square (2-D) or cubic (3-D) lattice.

Host-side set-up with numpy, run once before the data goes to the device.
"""
import math

import numpy as np

#: Lattice spacing of the default set-up, by dimension.
SPACING = {2: 1.5, 3: 2.0}
#: The box side is this many times the lattice's extent (n * spacing).
BOX_FACTOR = 3.0


def per_side(n, dim):
    """The smallest k with k**dim >= n (ceil of the dim-th root, exactly)."""
    k = max(1, int(round(n ** (1.0 / dim))))
    while k ** dim < n:
        k += 1
    while k > 1 and (k - 1) ** dim >= n:
        k -= 1
    return k


def box_side(n, dim):
    """Side of the square/cube box holding ``n`` particles."""
    return BOX_FACTOR * per_side(n, dim) * SPACING[dim]


def lattice_positions(n, dim):
    """Positions, one array per coordinate, of ``n`` particles.

    ``k = ceil(n**(1/dim))`` particles per side, spacing ``SPACING[dim]``, the
    full k**dim lattice centred in the box with its corner at the origin,
    filled row by row (the first coordinate varies slowest).
    """
    k = per_side(n, dim)
    spacing = SPACING[dim]
    side = box_side(n, dim)
    offset = 0.5 * (side - (k - 1) * spacing)
    index = np.arange(n)
    coords = []
    for d in range(dim):
        stride = k ** (dim - 1 - d)
        coords.append(offset + spacing * ((index // stride) % k))
    return coords


def initial_velocities(n, dim, temperature, seed):
    """Velocities, one array per coordinate: zero, or random at ``temperature``.

    Normal deviates from a seeded generator, with the total momentum removed
    and rescaled so that the kinetic energy is ``dim/2 * n * temperature``
    (k_B = m = 1).
    """
    if temperature <= 0.0 or n < 2:
        return [np.zeros(n) for _ in range(dim)]
    rng = np.random.default_rng(seed)
    vel = rng.normal(0.0, math.sqrt(temperature), size=(dim, n))
    vel -= vel.mean(axis=1, keepdims=True)
    kinetic = 0.5 * np.sum(vel * vel)
    vel *= math.sqrt(0.5 * dim * n * temperature / kinetic)
    return [vel[d].copy() for d in range(dim)]
