"""Straight-line items with math calls run in blocks of items, phase by phase
(pcompute/codegen/blockmath.py): results against plain Python on every
backend, bit for bit on the cython backend, and which kernels take that form."""
from math import atan2, exp, log, pow, sqrt
import types

import numpy as np
import pytest

from pcompute import (Elementwise, build_options, get_backend, serial, use_config,
                      wrap)

# The form is chosen for kernels built for the host CPU, at -O3.
pytestmark = pytest.mark.optimised_build


def phases(i, x, y, rate):
    k = i + 1                       # an integer computed again in every phase
    t = exp(-x[i])                  # a local living across phases, assigned twice
    t = t + log(1.0 + t * x[k - 1])
    s = sqrt(x[i])
    t *= exp(atan2(s, t))           # a call in a call's argument
    y[i] = t * pow(x[i], rate) - exp(exp(-s)) + k * 0.5


def guarded(i, x, y, rate):
    y[i] = exp(x[i]) if x[i] < rate else log(x[i])      # a call Python may not make


def rebinds(i, x, y, rate):
    rate = rate + x[i]              # an argument: one copy per item
    y[i] = exp(-rate) + rate


def carried(i, x, y, rate):
    j = i + 1
    y[j] = exp(-y[i] * rate) + x[i]  # reads the element the item before wrote


def shifted(i, x, y, rate):
    j = i + 1
    y[j] = exp(-x[i] * rate) + 1.0  # y[j] its own; x may be y (passed twice)


def _python(func, x, rate):
    y = np.zeros_like(x)
    for i in range(len(x)):
        func(i, x, y, rate)
    return y


def _fresh(func):
    return types.FunctionType(func.__code__, func.__globals__, func.__name__)


@pytest.mark.parametrize("n", [0, 5, 64, 4099])
def test_host_cpu_items_match_python(backend, n):
    """A kernel built for the host CPU gives plain Python's values; on the
    cython backend in float64 the same bits (the C library's functions on
    the same arguments, in the same order per item), with OpenMP too (4099
    items: a share per thread, neither a multiple of the block)."""
    func = phases
    x = np.random.default_rng(n).uniform(0.01, 5.0, n)
    want = _python(func, x, 1.5)
    xs, ys = wrap(x.astype(backend.dtype), np.zeros(n, backend.dtype))
    Elementwise(build_options(_fresh(func), host_cpu=True))(xs, ys, 1.5)
    y = np.asarray(ys.get())
    if backend.name == "cython" and backend.use_double:
        np.testing.assert_array_equal(y, want)
    else:
        np.testing.assert_allclose(y, want, rtol=backend.rtol * 10)


def _source(func, **config):
    """The generated source of ``func`` built for the host CPU, after a run
    checked against plain Python (bit for bit: float64)."""
    x = np.linspace(0.5, 2.0, 3000)
    y = np.zeros_like(x)
    with use_config(backend="cython", **config):
        k = Elementwise(build_options(_fresh(func), host_cpu=True))
        k(x, y, 1.5)
    np.testing.assert_array_equal(y, _python(func, x, 1.5))
    return k.built.generated.source


def _cython():
    why = get_backend("cython").why_unavailable()
    if why:
        pytest.skip(why)


@pytest.mark.parametrize("openmp", [False, True])
def test_straight_line_items_run_in_blocks(openmp):
    """A straight-line item with math calls is printed as a function over a
    range of items by blocks: the calls in loops of their own calling the C
    library's function (no lane wrapper; exp and log of doubles without
    glibc's errno wrapper, codegen/nowrap.py), the locals living across phases
    kept one per item, the integer computed from the index computed again."""
    _cython()
    source = _source(phases, use_openmp=openmp, use_double=True)
    assert "phases_block(" in source and "pc_lane_" not in source
    for call in ("pc_bc0[pc_k] = pc_nw_exp(pc_bc0[pc_k])",
                 "pc_bc1[pc_k] = pc_nw_log(pc_bc1[pc_k])",
                 "pc_bc2[pc_k] = atan2(pc_bc2[pc_k], pc_bc2_1[pc_k])",
                 "pc_bc3[pc_k] = pc_nw_exp(pc_bc3[pc_k])", "pow(pc_bc4[pc_k], pc_bc4_1[pc_k])"):
        assert call in source
    assert "cdef double pc_bk_t[64]" in source and "pc_bk_k" not in source
    assert source.count("k = i + 1") == 8            # one per phase (7 calls)


@pytest.mark.parametrize("func", [guarded, rebinds])
def test_other_items_keep_the_lane_wrappers(func):
    """A call under a condition, or an argument assigned in the item: the
    item stays one function call per item (with lane wrappers)."""
    _cython()
    source = _source(func, use_openmp=False, use_double=True)
    assert "_block(" not in source and "pc_lane_" in source


def test_float32_blocks_equal_the_plain_build():
    """float32: the blocks call the C library's float functions (expf, ...)
    on the same arguments as the plain build's scalar loop."""
    _cython()
    x = np.random.default_rng(3).uniform(0.01, 5.0, 4099).astype(np.float32)
    y, want = np.zeros_like(x), np.zeros_like(x)
    with use_config(backend="cython", use_openmp=False, use_double=False):
        blocks = Elementwise(build_options(_fresh(phases), host_cpu=True))
        blocks(x, y, 1.5)
        Elementwise(_fresh(phases))(x, want, 1.5)
    assert "expf(pc_bc0[pc_k])" in blocks.built.generated.source
    np.testing.assert_array_equal(y, want)


def test_items_reading_another_items_element_stay_items(backend):
    """A @serial kernel whose item reads what the item before wrote (a
    recurrence) keeps its items in order: not run in blocks (phase by phase,
    item 1 would read y[1] before item 0 wrote it), on every backend the
    values of the sequential Python loop.  Without @serial, the cython
    build without OpenMP keeps the item loop too (the item writes y[j], reads
    y[i]: not its own element), so it still runs the items in order."""
    n = 300
    x = np.random.default_rng(2).uniform(0.0, 1.0, n)
    want = np.zeros(n)
    for i in range(n - 1):
        carried(i, x, want, 0.5)
    xs, ys = wrap(x.astype(backend.dtype), np.zeros(n, backend.dtype))
    k = Elementwise(serial(build_options(_fresh(carried), host_cpu=True)))
    k(xs, ys, 0.5, shape=n - 1)
    y = np.asarray(ys.get())
    if backend.name == "cython":
        assert "_block(" not in k.built.generated.source
    if backend.name == "cython" and backend.use_double:
        np.testing.assert_array_equal(y, want)
    else:
        np.testing.assert_allclose(y, want, rtol=backend.rtol * 10)
    if backend.name == "cython" and not backend.openmp and backend.use_double:
        plain = Elementwise(build_options(_fresh(carried), host_cpu=True))
        ys = np.zeros(n)
        plain(x, ys, 0.5, shape=n - 1)
        assert "_block(" not in plain.built.generated.source
        np.testing.assert_array_equal(ys, want)


def two_nests(a, b, c, n):
    for i in range(n):
        b[i] = exp(-a[i]) + log(1.0 + a[i])
    for i in range(n):
        c[i] = exp(b[i] * 0.5) - a[i]


def test_block_functions_build_together():
    """parallelize's kernels are built as one group module on the cython
    backend: two kernels run in blocks, each with its own block function,
    merge (strict: a failed merge is an error) and give Python's values."""
    _cython()
    from pcompute import parallelize
    n = 5000
    a = np.random.default_rng(1).random(n)
    want_b, want_c = np.zeros(n), np.zeros(n)
    two_nests(a, want_b, want_c, n)
    b, c = np.zeros(n), np.zeros(n)
    with use_config(backend="cython", use_openmp=True, use_double=True, strict_groups=True):
        parallelize(_fresh(two_nests))(a, b, c, n)
    np.testing.assert_array_equal(b, want_b)
    np.testing.assert_array_equal(c, want_c)


def test_serial_items_through_one_array_passed_twice_stay_items(backend):
    """@serial, the same array as x and y: item i reads a[i], which item
    i - 1 wrote.  Nothing in the item's text shows it (y[j] is the item's
    own, x is only read), so @serial kernels never run in blocks: every
    backend gives the sequential loop's values."""
    n = 200
    a0 = np.random.default_rng(4).uniform(0.0, 1.0, n)
    want = a0.copy()
    for i in range(n - 1):
        shifted(i, want, want, 0.5)
    a = wrap(a0.astype(backend.dtype))
    k = Elementwise(serial(build_options(_fresh(shifted), host_cpu=True)))
    k(a, a, 0.5, shape=n - 1)
    got = np.asarray(a.get())
    if backend.name == "cython" and backend.use_double:
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=backend.rtol * 10)
