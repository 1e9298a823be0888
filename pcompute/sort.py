"""Compyle-compatible sorting module: ``radix_sort`` and ``sort_by_keys``."""
from .array.sorting import align, argsort, sort_by_keys


def radix_sort(ary_list, out_list=None, max_key_bits=None, backend=None):
    """Compyle's ``radix_sort``: (arrays sorted by the first, the permutation).

    The first Array holds integer keys; every Array is permuted by the stable
    ascending order of the keys.  ``max_key_bits`` promises keys in
    ``[0, 2**max_key_bits)`` (checked: a larger key is an error) and limits
    the digits sorted.
    """
    order = argsort(ary_list[0], backend=backend, key_bits=max_key_bits)
    out = align(list(ary_list), order, out_list=out_list, backend=backend)
    return out, order


__all__ = ["radix_sort", "sort_by_keys", "argsort"]
