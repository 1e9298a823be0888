"""Exclusive prefix sums of counts into offsets (neighbour lists, cell starts)."""
import numpy as np

from .kernels import scan


def count_input(i, counts):
    return counts[i]


def offsets_output(i, item, prev_item, N, offsets):
    offsets[i] = prev_item
    if i == N - 1:
        offsets[N] = item


class Offsets:
    """``offsets[0..n]`` = exclusive scan of ``counts[0..n-1]``, total at ``offsets[n]``."""

    def __init__(self, backend=None):
        self._scan = scan(count_input, offsets_output, "a+b", np.int32, backend)

    def launches(self, counts, offsets):
        """``[(kernel, arguments)]`` of a call with ``counts``, ``offsets``
        (for :mod:`examples.md.prebuild`)."""
        return [(self._scan, (counts, offsets))]

    def __call__(self, counts, offsets):
        self._scan(counts, offsets)
