"""@dataparallel: list comprehensions / generator expressions (over zip,
range, sequences and segments), the operators of reduce and the scans
(operator.add/mul/and_/or_/xor, min, max; any function over a segment),
segmented scans and scatter_add, on every backend against NumPy and the
plain-Python oracle."""
import operator

import numpy as np
import pytest

from pcompute import get_config, use_config
from pcompute.dataparallel import (dataparallel, exclusive_scan, indices, len, map, max,
                                   min, reduce, replicate, rscan, scan, scatter_add, split,
                                   sum, zip)
from pcompute.errors import KernelSyntaxError, KernelTypeError

from conftest import AheadGroups


def host(x):
    return np.asarray(x.get() if hasattr(x, "get") else x)


def kinds(f):
    return [kind for kind, _ in f.last_phases]


def checked():
    return use_config(bounds_check=True, use_double=get_config().use_double)


@dataparallel
def comprehensions(a, x, y, data, offsets, w):
    axpy = [a * u + v for u, v in zip(x, y)]
    rows = [sum(v * v for v in row) for row in split(data, offsets)]
    windows = [sum([x[k] for k in range(i, i + w)]) for i in range(len(x) - w + 1)]
    return axpy, rows, windows, sum(u * v for u, v in zip(x, y))


@dataparallel
def extremes(x, k):
    return (reduce(min, x, 100), reduce(max, map(lambda v: v * k, x), -100),
            scan(max, x), rscan(min, x), exclusive_scan(max, x, -1000))


@dataparallel
def bitwise(x):
    return reduce(operator.xor, x, 5), scan(operator.or_, x), reduce(operator.and_, x, -1)


def larger(a, b):
    return a if abs(a) > abs(b) else b


@dataparallel
def row_reductions(data, offsets):
    rows = split(data, offsets)
    return ([reduce(larger, row, 0) for row in rows],
            [reduce(min, row, 99) for row in rows],
            map(lambda row: reduce(lambda a, b: a * 2 + b, row, 1), rows))


def comprehension_inputs(dtype):
    rng = np.random.default_rng(30)
    x, y = (rng.random(60).astype(dtype) for _ in range(2))
    return x, y, np.array([0, 4, 4, 31, 60], dtype=np.int32)


def test_comprehensions_are_maps(backend):
    x, y, offsets = comprehension_inputs(backend.dtype)
    axpy, rows, windows, dot = comprehensions(2.5, x, y, x, offsets, 3)
    xf, yf = x.astype(float), y.astype(float)
    tol = dict(rtol=backend.rtol * 10, atol=backend.rtol * 10)
    np.testing.assert_allclose(host(axpy), 2.5 * xf + yf, **tol)
    np.testing.assert_allclose(host(rows), [np.sum(xf[a:b] ** 2) for a, b in
                                            zip(offsets[:-1], offsets[1:])], **tol)
    np.testing.assert_allclose(host(windows), np.convolve(xf, np.ones(3), "valid"), **tol)
    np.testing.assert_allclose(dot, xf @ yf, **tol)
    for got, want in zip((axpy, rows, windows, dot), comprehensions.py(2.5, x, y, x,
                                                                       offsets, 3)):
        np.testing.assert_allclose(host(got), np.asarray(want, dtype=float), **tol)
    # axpy, rows and windows have different lengths: one kernel per length
    assert kinds(comprehensions) == ["reduction", "elementwise", "elementwise",
                                     "elementwise"]


def extremes_inputs(dtype):
    rng = np.random.default_rng(31)
    return rng.integers(-50, 50, 77).astype(np.int64), rng.normal(size=77).astype(dtype)


def test_min_max_reductions_and_scans(backend):
    for x in extremes_inputs(backend.dtype):
        lo, hi, smax, rmin, emax = extremes(x, 3)
        assert lo == min(100, x.min()) and hi == max(-100, 3 * x.max())
        assert host(smax).tolist() == np.maximum.accumulate(x).tolist()
        assert host(rmin).tolist() == np.minimum.accumulate(x[::-1])[::-1].tolist()
        want = np.maximum.accumulate(np.concatenate([[-1000], x[:-1]]))
        assert host(emax).tolist() == want.astype(host(emax).dtype).tolist()
        for got, ref in zip((lo, hi, smax, rmin, emax), extremes.py(x, 3)):
            assert host(got).tolist() == np.asarray(ref).tolist()
        assert kinds(extremes) == ["reduction", "reduction", "scan", "scan", "scan"]


def bitwise_input():
    return np.random.default_rng(32).integers(0, 1 << 20, 90).astype(np.int64)


@pytest.mark.integer_data
def test_bitwise_reductions_and_scans(backend):
    x = bitwise_input()
    xor, ors, ands = bitwise(x)
    assert xor == np.bitwise_xor.reduce(x) ^ 5 and ands == np.bitwise_and.reduce(x)
    assert host(ors).tolist() == np.bitwise_or.accumulate(x).tolist()


def row_inputs():
    rng = np.random.default_rng(33)
    return (rng.integers(-30, 30, 40).astype(np.int64),
            np.array([0, 3, 3, 12, 40], dtype=np.int32))


@pytest.mark.integer_data
def test_any_function_reduces_a_segment_in_order(backend):
    data, offsets = row_inputs()
    got = row_reductions(data, offsets)
    segments = [data[a:b] for a, b in zip(offsets[:-1], offsets[1:])]
    for got_one, ref in zip(got, row_reductions.py(data, offsets)):
        assert host(got_one).tolist() == np.asarray(ref).tolist()
    assert host(got[1]).tolist() == [min(s.tolist() + [99]) for s in segments]
    assert [abs(v) for v in host(got[0]).tolist()] == [
        np.abs(np.concatenate([s, [0]])).max() for s in segments]
    doubled = []
    for s in segments:
        acc = 1
        for v in s.tolist():
            acc = acc * 2 + v
        doubled.append(acc)
    assert host(got[2]).tolist() == doubled
    assert kinds(row_reductions) == ["elementwise"]


@dataparallel
def filtered(x):
    return [v for v in x if v > 0]


@dataparallel
def lambda_reduce(x):
    return reduce(lambda a, b: a + b, x, 0)


@dataparallel
def float_xor(x):
    return reduce(operator.xor, x, 0)


@dataparallel
def segment_min(data, offsets):
    return [min(row) for row in split(data, offsets)]


def test_unsupported_forms_are_located_errors():
    x = np.arange(5.0)
    cases = [(filtered, (x,), KernelSyntaxError, "filter"),
             (lambda_reduce, (x,), KernelTypeError, "operator.add/mul"),
             (float_xor, (x,), KernelTypeError, "needs integers"),
             (segment_min, (x, np.array([0, 2, 5], dtype=np.int32)), KernelTypeError,
              "reduce\\(min, segment, init\\)")]
    for f, args, cls, text in cases:
        with pytest.raises(cls, match=text) as info:
            f(*args)
        assert "test_dataparallel_ops.py" in str(info.value)


@dataparallel
def histogram(values, bins, out):
    return scatter_add(map(lambda v: v * 0.5, values), bins, out)


@dataparallel
def tally(values, bins, out):
    return scatter_add(values, bins, out)


def histogram_inputs(dtype):
    rng = np.random.default_rng(34)
    values = rng.normal(size=500).astype(dtype)
    bins = rng.integers(0, 23, 500).astype(np.int32)
    out = rng.normal(size=23).astype(dtype)
    return rng, values, bins, out


def test_scatter_add_is_deterministic_and_exact(backend):
    rng, values, bins, out = histogram_inputs(backend.dtype)
    first = host(histogram(values, bins, out))
    assert kinds(histogram) == ["elementwise", "sort", "elementwise"]
    # the oracle's sums, in the same order: equal bit for bit, on every backend
    assert first.tolist() == histogram.py(values, bins, out).tolist()
    want = out.astype(float).copy()
    np.add.at(want, bins, values.astype(float) * 0.5)
    np.testing.assert_allclose(first, want, rtol=backend.rtol * 10, atol=backend.rtol * 10)
    for _ in range(2):
        assert host(histogram(values, bins, out)).tolist() == first.tolist()
    ints = rng.integers(-9, 9, 50).astype(np.int64)
    got = tally(ints, bins[:50], np.zeros(23, np.int64))
    assert host(got).tolist() == np.bincount(bins[:50], ints, 23).astype(int).tolist()
    empty = histogram(values[:0], bins[:0], out)
    assert host(empty).tolist() == out.tolist()
    with checked():
        with pytest.raises(IndexError, match="2 position\\(s\\) outside \\[0, 23\\)") as info:
            histogram(values[:3], np.array([0, 23, 99], np.int32), out)
        assert "test_dataparallel_ops.py" in str(info.value)


@dataparallel
def segmented_scans(x, offsets, width):
    rows = split(map(lambda v: v * 2, x), offsets)
    uniform = split(x, map(lambda r: r * width, indices(replicate(0, len(x) // width + 1))))
    return (scan(operator.add, rows), rscan(max, rows),
            exclusive_scan(operator.add, split(x, offsets), 10), scan(min, uniform))


def segmented_inputs(dtype):
    rng = np.random.default_rng(35)
    offsets = np.array([0, 3, 3, 9, 40, 41, 60], dtype=np.int32)    # an empty segment
    return offsets, (rng.integers(-9, 9, 60).astype(np.int64),
                     rng.normal(size=60).astype(dtype))


def test_segmented_scans_restart_at_every_offset(backend):
    offsets, xs = segmented_inputs(backend.dtype)
    for x in xs:
        got = [host(g) for g in segmented_scans(x, offsets, 4)]
        assert kinds(segmented_scans) == ["scan", "scan", "scan", "scan"]
        pieces = [x[a:b] for a, b in zip(offsets[:-1], offsets[1:])]
        xs = x.dtype.type(2) * x
        want = [np.concatenate([np.cumsum(xs[a:b], dtype=xs.dtype) for a, b in
                                zip(offsets[:-1], offsets[1:])]),
                np.concatenate([np.maximum.accumulate(xs[a:b][::-1])[::-1]
                                for a, b in zip(offsets[:-1], offsets[1:]) if b > a]),
                np.concatenate([10 + np.concatenate([[0], np.cumsum(p)[:-1]])
                                for p in pieces if len(p)]),
                np.concatenate([np.minimum.accumulate(x[k:k + 4]) for k in range(0, 60, 4)])]
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=backend.rtol * 10, atol=backend.rtol * 10)
        for g, r in zip(got, segmented_scans.py(x, offsets, 4)):
            np.testing.assert_allclose(g, np.concatenate(r), rtol=backend.rtol * 10,
                                       atol=backend.rtol * 10)


# -- the kernels of this file's tests, built as group modules on the Cython
# cases ahead of the first test of one in each process (conftest.AheadGroups)
def _kernels(case, name):
    """The kernels the test of ``name`` builds on ``case``."""
    integer_only = case.precision != "float64"      # integer_data tests: float64 only
    if name == "comprehensions":
        x, y, offsets = comprehension_inputs(case.dtype)
        return comprehensions.kernels_ahead(2.5, x, y, x, offsets, 3)
    if name == "extremes":
        return [g for x in extremes_inputs(case.dtype) for g in extremes.kernels_ahead(x, 3)]
    if name == "bitwise":
        return [] if integer_only else bitwise.kernels_ahead(bitwise_input())
    if name == "row_reductions":
        return [] if integer_only else row_reductions.kernels_ahead(*row_inputs())
    if name == "histogram":
        _, values, bins, out = histogram_inputs(case.dtype)
        with checked():
            out_kernels = histogram.kernels_ahead(values, bins, out)
        return out_kernels + histogram.kernels_ahead(values, bins, out) + \
            tally.kernels_ahead(np.zeros(50, np.int64), bins[:50], np.zeros(23, np.int64))
    offsets, xs = segmented_inputs(case.dtype)
    return [g for x in xs for g in segmented_scans.kernels_ahead(x, offsets, 4)]


GROUPS = AheadGroups(["comprehensions", "extremes", "bitwise", "row_reductions",
                      "histogram", "segmented_scans"], _kernels, chunk=6)


@pytest.fixture(autouse=True)
def _groups(request):
    if "backend" in request.fixturenames:
        GROUPS.ensure(request.getfixturevalue("backend"))
