"""sin(a)^2 + cos(b)^2 (1 where a == b)."""
import numpy as np


def pythagorean_id(a, b):
    return np.sin(a) ** 2 + np.cos(b) ** 2


def inputs(n, seed=0):
    rng = np.random.default_rng(seed)
    return [np.asarray(rng.random(n)), np.asarray(rng.random(n))]


MAIN = pythagorean_id
