"""Compyle-compatible sorting module: ``radix_sort`` and ``sort_by_keys``."""
from .primitives.sort import argsort, sort_by_keys


def radix_sort(ary_list, out_list=None, max_key_bits=None, backend=None):
    """Compyle's ``radix_sort``: (arrays sorted by the first, the permutation).

    The first Array holds integer keys; every Array is permuted by the stable
    ascending order of the keys.  ``max_key_bits`` limits the digits sorted.
    """
    order = argsort(ary_list[0], backend=backend)
    from .primitives.sort import align
    out = align(list(ary_list), order, out_list=out_list, backend=backend)
    return out, order


__all__ = ["radix_sort", "sort_by_keys", "argsort"]
