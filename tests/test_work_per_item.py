"""Kernels whose items run inner loops go parallel from fewer items
(pcompute/codegen/work.py): which kernels count, what the cython backend
generates for them, and that such a kernel is right on every backend at a
size where only that threshold makes it parallel."""
import numpy as np
import pytest

import pcompute as pc
from pcompute import Elementwise, Reduction, build_options
from pcompute.backends.cython_launch import SERIAL_BELOW, SERIAL_BELOW_LOOPS
from pcompute.codegen.work import has_inner_loops
from pcompute.frontend import type_kernel
from pcompute.types import annotate


@annotate(i="int", x="doublep")
def short_loop(i, x):
    for k in range(3):
        x[i] += k
    while False:
        pass


@annotate(i="int", x="doublep", n="int")
def data_loop(i, x, n):
    for k in range(n):
        x[i] += k


@annotate(i="int", x="doublep")
def long_constant_loop(i, x):
    for k in range(64):
        x[i] += k


@annotate(i="int", x="doublep")
def while_loop(i, x):
    v = x[i]
    while v > 1.0:
        v = v / 2.0
    x[i] = v


@annotate(k="int", return_="double")
def helper_with_loop(k):
    s = 0.0
    for j in range(k):
        s += j
    return s


@annotate(i="int", x="doublep")
def calls_a_looping_helper(i, x):
    x[i] = helper_with_loop(i)


@pytest.mark.parametrize("func, loops", [(short_loop, False), (data_loop, True),
                                         (long_constant_loop, True), (while_loop, True),
                                         (calls_a_looping_helper, True)])
def test_which_kernels_have_inner_loops(func, loops):
    assert has_inner_loops(type_kernel(func)) is loops


def test_cython_threshold_follows_the_work_per_item():
    assert SERIAL_BELOW_LOOPS < SERIAL_BELOW
    x = np.zeros(4)
    with pc.use_config(use_openmp=True):
        light = Elementwise(short_loop).generate("cython", x)
        heavy = Elementwise(data_loop).generate("cython", x, 3)
    assert "pc_n < %d:" % SERIAL_BELOW in light
    assert "pc_n < %d:" % SERIAL_BELOW_LOOPS in heavy


def row_total(i, offsets, values):
    s = 0.0
    for j in range(offsets[i], offsets[i + 1]):
        s += values[j]
    return s


def row_first(i, offsets, values):
    return values[offsets[i]]


def square(i, values):
    return values[i] * values[i]


@build_options(serial_below=64)
def square_from_64(i, values):
    return values[i] * values[i]


def test_cython_reduction_threshold_follows_the_work_per_item():
    """A Reduction goes parallel where an Elementwise with the same items
    would: from SERIAL_BELOW_LOOPS items when its map loops (a tuple
    Reduction when any of its maps does), at the map's serial_below build
    option when it has one (it always ran serially below SERIAL_BELOW)."""
    offsets, values = np.zeros(5, np.int32), np.zeros(4)
    serial = "if pc_n < %d or pc_nt == 1:"
    with pc.use_config(use_openmp=True):
        light = Reduction("a+b", map_func=square).generate("cython", values)
        heavy = Reduction("a+b", map_func=row_total).generate("cython", offsets, values)
        chosen = Reduction("a+b", map_func=square_from_64).generate("cython", values)
        pair = Reduction(("a0+b0", "a1+b1"), map_func=(row_first, row_total),
                         dtype_out=(np.float64, np.float64), neutral=("0", "0"))
        tuple_heavy = pair.generate("cython", offsets, values)
    assert serial % SERIAL_BELOW in light
    assert serial % SERIAL_BELOW_LOOPS in heavy
    assert serial % 64 in chosen
    assert serial % SERIAL_BELOW_LOOPS in tuple_heavy


def row_sums(i, out, offsets, values):
    s = 0.0
    for j in range(offsets[i], offsets[i + 1]):
        s += values[j]
    out[i] = s


def test_inner_loop_kernel_between_the_thresholds(backend):
    """1000 rows of 0-40 entries: parallel on cython+OpenMP (1000 is between
    the two thresholds), serial before; every backend against numpy."""
    n = (SERIAL_BELOW_LOOPS + SERIAL_BELOW) // 2
    rng = np.random.default_rng(5)
    counts = rng.integers(0, 40, n)
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)
    values = rng.random(offsets[-1]).astype(backend.dtype)
    out = np.zeros(n, backend.dtype)
    o, v, r = pc.wrap(offsets, values, out)
    Elementwise(row_sums)(r, o, v)
    want = np.array([values[offsets[k]:offsets[k + 1]].sum(dtype=np.float64)
                     for k in range(n)])
    np.testing.assert_allclose(r.get(), want, rtol=backend.rtol, atol=1e-6)
