"""A 3x3 separable-like convolution written with shifted slices."""
import numpy as np


def specialconvolve(a):
    rows = a[:-2, :] + 2 * a[1:-1, :] + a[2:, :]
    return rows[:, :-2] - rows[:, 2:] + 0.5 * rows[:, 1:-1]


def inputs(n, seed=0):
    side = max(int(n ** 0.5), 3)
    rng = np.random.default_rng(seed)
    return [np.asarray(rng.random((side, side)))]


MAIN = specialconvolve
