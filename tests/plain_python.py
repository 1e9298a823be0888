"""The plain Python meaning of a kernel, the reference of tests/test_python_meaning.py.

A kernel is called as an ordinary Python function on Python numbers: every
array becomes a :class:`TypedList` of Python ints, floats or bools, and each
scalar argument a Python number.  A ``TypedList`` stores a value as an array
of its dtype stores it in Python and NumPy (a float into an integer element is
truncated towards zero with ``int()``, an integer is reduced to the width of
the element, anything into a bool element is its truth value), but reading it
gives a Python number, so arithmetic is Python's: exact integers, bools as
0/1, double-precision floats.  Nothing of pcompute is used here.
"""
import numpy as np


def _store(dtype, value):
    if dtype.kind == "b":
        return bool(value)
    if dtype.kind in "iu":
        value = int(value)
        bits = 8 * dtype.itemsize
        value &= (1 << bits) - 1
        if dtype.kind == "i" and value >= 1 << (bits - 1):
            value -= 1 << bits
        return value
    return float(np.array(value, dtype=dtype))


class TypedList(list):
    """A list of Python numbers that stores values as an array of ``dtype``."""

    def __init__(self, array):
        self.dtype = np.dtype(array.dtype)
        list.__init__(self, array.tolist())

    def __setitem__(self, k, value):
        list.__setitem__(self, k, _store(self.dtype, value))

    def to_array(self):
        return np.array(list(self), dtype=self.dtype)


def plain_call(func, n, args):
    """Call ``func(i, *args)`` for i < n on Python numbers; return the arrays
    after the calls (numpy arrays of the original dtypes) and scalars as given."""
    values = [TypedList(a) if isinstance(a, np.ndarray) else
              (a.item() if isinstance(a, np.generic) else a) for a in args]
    for i in range(n):
        func(i, *values)
    return [v.to_array() if isinstance(v, TypedList) else v for v in values]
