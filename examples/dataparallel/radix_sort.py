"""LSD radix sort of non-negative integer keys from scan + permute.

Each pass (one bit) is two phases: an exclusive scan of the bit flags (the
map computing the flags fused into it), and the permute (positions and keys
fused into the scatter kernel)."""
import operator

import numpy as np

from pcompute.dataparallel import dataparallel, exclusive_scan, indices, len, map, permute


@dataparallel
def radix_pass(keys, bit):
    flags = map(lambda k: (k >> bit) & 1, keys)
    ones_before = exclusive_scan(operator.add, flags, 0)
    n = len(keys)

    def position(k, f, o, i):
        zeros = n - (ones_before[n - 1] + ((keys[n - 1] >> bit) & 1))
        return zeros + o if f == 1 else i - o
    return permute(keys, map(position, keys, flags, ones_before, indices(keys)))


def radix_sort(keys, bits=None):
    """``keys`` (non-negative integers) sorted, one :func:`radix_pass` per bit."""
    keys = np.asarray(keys)
    if keys.size and keys.min() < 0:
        raise ValueError("radix_sort: keys must not be negative")
    if bits is None:
        bits = int(keys.max()).bit_length() if keys.size else 0
    for bit in range(bits):
        keys = radix_pass(keys, bit)
    return np.asarray(keys.get() if hasattr(keys, "get") else keys)
