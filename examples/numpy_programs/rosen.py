"""The Rosenbrock function of a long vector (shifted slices, then a sum)."""
import numpy as np


def rosen(x):
    head, tail = x[:-1], x[1:]
    return np.sum(100.0 * (tail - head ** 2) ** 2 + (1 - head) ** 2)


def inputs(n, seed=0):
    rng = np.random.default_rng(seed)
    return [np.asarray(rng.random(n) * 2)]


MAIN = rosen
