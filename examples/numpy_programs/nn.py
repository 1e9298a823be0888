"""A tiny neural-network layer trained for a few steps: the learning rate
and the step change every iteration (a new scalar must not recompile)."""
import numpy as np


def nn(x, w, steps):
    for step in range(steps):
        rate = 0.5 / (step + 1)
        hidden = np.tanh(x * w)
        error = hidden - 0.25
        w = w - rate * np.mean(error * (1 - hidden ** 2) * x)
    return w + hidden


def inputs(n, seed=0):
    rng = np.random.default_rng(seed)
    return [np.asarray(rng.standard_normal(n)), 0.3, 4]


MAIN = nn
