"""Regression tests of what the independent generator (tests/indepgen/) found.

Each kernel runs on every backend through the ``backend`` fixture and is
compared with the plain Python call of the same function (:mod:`plain_python`),
not with the python backend.
"""
import numpy as np
import pytest

from plain_check import check


# -- a negative literal meeting an unsigned value (semantics.rst) -------------------
def negative_literal_and_unsigned(i, u, out, cmp):
    out[i] = (-5) + u[i] + (u[i] + (-7)) * 2
    cmp[i] = 1 if (u[i] + (-5)) < 0 else 0


@pytest.mark.integer_data
def test_negative_literal_with_uint32_is_the_exact_signed_value(backend):
    u = np.array([0, 3, 5, 4294967295], np.uint32)
    got = check(negative_literal_and_unsigned,
                [u, np.zeros(4, np.int64), np.zeros(4, np.int32)], backend)
    assert got[1][0] == -5 - 14 and list(got[2]) == [1, 1, 0, 0]


# -- a conditional expression with a comparison in one branch -----------------------
def comparison_in_a_branch(i, a, x, out, fout, flags):
    t = a[i] > 1
    out[i] = (i if a[i] > 0 else (a[i] != i)) + ((a[i] < 0) if x[i] > 1.0 else a[i] * 2)
    fout[i] = (x[i] * 0.5 if a[i] > 0 else (x[i] >= 1.5)) - (a[i] > 1)
    flags[i] = ((a[i] // 5 > t) if a[i] < i else t) + (t if x[i] > 0.0 else not t)


def test_comparison_and_number_as_the_two_branches(backend):
    # Cython typed `i if c else a != i` (and `t if c else a != i` for a local t
    # holding a truth value) as a Python object: a build error, not a value
    a = np.array([3, -1, 0, 2, -7], np.int64)
    x = np.array([0.5, 2.0, 1.5, 3.0, -1.0], backend.dtype)
    got = check(comparison_in_a_branch, [a, x, np.zeros(5, np.int64), np.zeros(5, backend.dtype),
                                         np.zeros(5, np.int32)], backend)
    assert list(got[2]) == [6, 2, 1, 3, -13]


# -- and/or of a comparison and an int local holding a truth value ------------------
def truth_local_in_and_or(i, x, out):
    b1 = x[i] > 2
    out[i] = ~(i >= x[i] or b1) + 4 * (b1 and i < x[i]) + 16 * (x[i] == 1 or b1)


def test_and_or_of_a_comparison_and_a_truth_local(backend):
    # Cython typed `i >= x[i] or b1` (b1 an int local holding a truth value) as
    # a Python object: a build error, not a value (found by test_fuzz)
    x = np.array([0, 5, 1, 2, 7], np.int64)
    got = check(truth_local_in_and_or, [x, np.zeros(5, np.int64)], backend)
    assert list(got[1]) == [-2, 18, 14, -2, 18]


# -- a bitwise operator between a number and a comparison ---------------------------
def bitwise_with_a_truth_value(i, a, out):
    out[i] = ((a[i] | (i != 3)) if i > 1 else i) + (a[i] ^ (a[i] > 2)) * 4 + ((i == 0) & a[i]) * 16


def test_bitwise_operator_between_a_number_and_a_comparison(backend):
    # Cython typed `a[i] | (i != 3)` as a Python object: a build error, not a
    # value (independent generator, case 9122)
    a = np.array([1, 4, 6, 3, 0], np.int32)
    got = check(bitwise_with_a_truth_value, [a, np.zeros(5, np.int64)], backend)
    assert list(got[1]) == [20, 21, 35, 11, 1]
