"""Harris corner response of an image (central differences on slices)."""
import numpy as np


def harris(image, k=0.05):
    dx = image[1:-1, 2:] - image[1:-1, :-2]
    dy = image[2:, 1:-1] - image[:-2, 1:-1]
    a, b, c = dx * dx, dy * dy, dx * dy
    trace = a + b
    return (a * b - c * c) - k * trace * trace


def inputs(n, seed=0):
    side = max(int(n ** 0.5), 3)
    rng = np.random.default_rng(seed)
    return [np.asarray(rng.random((side, side)))]


MAIN = harris
