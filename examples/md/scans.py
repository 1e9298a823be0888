"""Exclusive prefix sums of counts into offsets (neighbour lists, cell starts)."""
import numpy as np

from pcompute import Scan


def count_input(i, counts):
    return counts[i]


def offsets_output(i, item, prev_item, N, offsets):
    offsets[i] = prev_item
    if i == N - 1:
        offsets[N] = item


class Offsets:
    """``offsets[0..n]`` = exclusive scan of ``counts[0..n-1]``, total at ``offsets[n]``."""

    def __init__(self, backend=None):
        self._scan = Scan(input=count_input, output=offsets_output, scan_expr="a+b",
                          dtype=np.int32, backend=backend)

    def __call__(self, counts, offsets):
        self._scan(counts, offsets)
