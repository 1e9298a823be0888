"""Sort for the python backend: numpy's stable argsort, the reference the
radix sorts of the other backends are tested against."""
import numpy as np

from .sort_common import check_key_dtype, index_dtype


def sort_by_keys(backend, keys, values, key_bits, config, permutation=True):
    """Stable ascending sort of numpy ``keys``; returns (keys, values, permutation)
    (``permutation`` is accepted for the common interface: it is always made)."""
    check_key_dtype(keys.dtype)
    perm = np.argsort(keys, kind="stable").astype(index_dtype(len(keys)), copy=False)
    return keys[perm], [np.asarray(v)[perm] for v in values], perm
