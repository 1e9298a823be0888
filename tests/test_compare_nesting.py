"""A comparison used as an operand of another comparison keeps Python's
meaning on every backend: ``(a < b) == (b < c)`` compares two truth values.
Cython reads an unparenthesised ``a < b == (b < c)`` as a chain, so its
printer must keep the parentheses."""
import numpy as np

from pcompute import Elementwise, wrap


def nested(i, a, b, out):
    x = a[i]
    y = b[i]
    out[i] = 0
    if (x < y) == (y < 2.0):
        out[i] += 1
    if (x == y) != (x <= 1.0):
        out[i] += 2
    if ((x > y) == (y > x)) == (x >= y):
        out[i] += 4


def test_comparison_of_comparisons(backend):
    a = np.array([0.0, 1.0, 3.0, 3.0, 1.0], dtype=backend.dtype)
    b = np.array([1.0, 0.0, 3.0, 4.0, 1.0], dtype=backend.dtype)
    out = np.zeros(5, dtype=np.int32)
    want = (((a < b) == (b < 2.0)) * 1 + ((a == b) != (a <= 1.0)) * 2
            + (((a > b) == (b > a)) == (a >= b)) * 4)
    wa, wb, wo = wrap(a, b, out)
    Elementwise(nested)(wa, wb, wo)
    np.testing.assert_array_equal(wo.get(), want)
