"""The data-parallel prelude (pcompute.dataparallel's plain functions) against
the plain-Python definitions the issue gives, on NumPy arrays and lists."""
import operator

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from pcompute import dataparallel as dp


def as_list(x):
    return [v.tolist() if hasattr(v, "tolist") else v for v in x]


# -- plain-Python definitions (the contract) ---------------------------------
def ref_scan(op, x):
    out, acc = [], None
    for k, v in enumerate(x):
        acc = v if k == 0 else op(acc, v)
        out.append(acc)
    return out


def ref_rscan(op, x):
    return [ref_reduce_right(op, x[i:]) for i in range(len(x))]


def ref_reduce_right(op, x):
    acc = x[-1]
    for v in reversed(x[:-1]):
        acc = op(v, acc)
    return acc


def ref_exclusive(op, x, init):
    out, acc = [], init
    for v in x:
        out.append(acc)
        acc = op(acc, v)
    return out


def test_basic_semantics():
    x = np.array([3, 1, 4, 1, 5], dtype=np.int32)
    assert dp.map(lambda a, b: a * b, x, [1, 2, 3, 4, 5]).tolist() == [3, 2, 12, 4, 25]
    assert dp.zip(x, [0] * 5)[2] == (4, 0)
    assert dp.gather(x, [4, 0]).tolist() == [5, 3]
    out = np.zeros(6, dtype=np.int32)
    y = dp.scatter([7, 8], [5, 0], out)
    assert y.tolist() == [8, 0, 0, 0, 0, 7] and out.sum() == 0      # out unchanged
    assert dp.permute([10, 20, 30], [2, 0, 1]).tolist() == [20, 30, 10]
    added = dp.scatter_add([7, 8, 1], [5, 0, 5], out)
    assert added.tolist() == [8, 0, 0, 0, 0, 8] and added.dtype == np.int64   # out + src
    assert dp.scatter_add([0.5], [1], out).tolist() == [0, 0.5, 0, 0, 0, 0]
    assert dp.reduce(operator.add, x, 100) == 114
    assert dp.sum(x) == 14 and dp.sum(x).dtype == np.int32          # integers stay
    assert (dp.min(x), dp.max(x), dp.len(x)) == (1, 5, 5)
    # shadowing the builtins keeps their other uses working
    assert (dp.min(3, 2), dp.max(3, 2, 7), dp.len({1, 2}), dp.sum(v for v in (1, 2))) \
        == (2, 7, 2, 3)
    assert dp.scan(operator.add, x).tolist() == [3, 4, 8, 9, 14]
    assert dp.rscan(operator.add, x).tolist() == [14, 11, 10, 6, 5]
    segs = dp.split(x, [0, 2, 2, 5])
    assert [s.tolist() for s in dp.scan(operator.add, segs)] == [[3, 4], [], [4, 5, 10]]
    assert dp.scan(operator.add, segs)[1].dtype == np.int32         # empty keeps its dtype
    assert [s.tolist() for s in dp.exclusive_scan(max, segs, 0)] == [[0, 3], [], [0, 4, 4]]
    assert dp.exclusive_scan(operator.add, x, 0).tolist() == [0, 3, 4, 8, 9]
    assert dp.sort(x).tolist() == [1, 1, 3, 4, 5]
    k, v = dp.sort_by_key([2, 1, 2, 0], ["a", "b", "c", "d"])
    assert k.tolist() == [0, 1, 2, 2] and v.tolist() == ["d", "b", "a", "c"]  # stable
    assert dp.indices(x).tolist() == [0, 1, 2, 3, 4]
    assert dp.replicate(2.5, 3).tolist() == [2.5] * 3
    assert dp.shift(x, 2, -1).tolist() == [4, 1, 5, -1, -1]
    assert dp.shift(x, -1, 0).tolist() == [0, 3, 1, 4, 1]
    assert dp.rotate(x, 2).tolist() == [4, 1, 5, 3, 1]
    assert dp.rotate(x, -1).tolist() == [5, 3, 1, 4, 1]
    segs = dp.split(np.arange(6), [0, 2, 2, 6])
    assert [s.tolist() for s in segs] == [[0, 1], [], [2, 3, 4, 5]]
    assert dp.map(lambda s: dp.sum(s), segs).tolist() == [1, 0, 14]


@pytest.mark.parametrize("call, error, words", [
    (lambda: dp.zip([1, 2], [1]), ValueError, "equal lengths, got 2, 1"),
    (lambda: dp.map(lambda a, b: a, [1, 2], [1]), ValueError, "equal lengths"),
    (lambda: dp.map([1], [1]), TypeError, "must be a function"),
    (lambda: dp.gather([1, 2], [2]), IndexError, "index 2 at position 0"),
    (lambda: dp.gather([1, 2], [-1]), IndexError, "outside [0, 2)"),
    (lambda: dp.gather([1, 2], [0.5]), TypeError, "must be integers"),
    (lambda: dp.permute([1, 2], [0, 0]), ValueError, "not a permutation"),
    (lambda: dp.scatter([1, 2], [0], [0, 0]), ValueError, "equal lengths"),
    (lambda: dp.scatter_add([1, 2], [0], [0, 0]), ValueError, "equal lengths"),
    (lambda: dp.scatter_add([1], [2], [0, 0]), IndexError, "scatter_add: index 2"),
    (lambda: dp.min([]), ValueError, "empty"),
    (lambda: dp.replicate(1, -1), ValueError, "negative"),
    (lambda: dp.replicate(1, 2.0), TypeError, "integer"),
    (lambda: dp.split([1, 2], [0, 3]), IndexError, "offsets must lie in [0, 2]"),
    (lambda: dp.split([1, 2], [1, 0]), ValueError, "must not decrease"),
    (lambda: dp.sum(5), TypeError, "expected a sequence"),
    (lambda: dp.sum(np.zeros((2, 2))), ValueError, "1-D"),
])
def test_clear_errors(call, error, words):
    with pytest.raises(error) as info:
        call()
    assert words in str(info.value)


OPS = [operator.add, lambda a, b: (a * b) % 1009, max, min]   # no int64 overflow
ints = st.lists(st.integers(-50, 50), min_size=1, max_size=20)


@settings(max_examples=150, deadline=None)
@given(ints, st.integers(0, 3), st.integers(-25, 25), st.booleans(), st.data())
def test_random_compositions_match_plain_python(xs, opi, k, as_array, data):
    """Random chains of the primitives on lists and arrays, against the
    definitions written as plain Python loops and comprehensions."""
    op = OPS[opi]
    n = len(xs)
    x = np.array(xs, dtype=np.int64) if as_array else list(xs)
    idx = data.draw(st.lists(st.integers(0, n - 1), min_size=0, max_size=12))
    perm = data.draw(st.permutations(range(n)))
    cuts = sorted(data.draw(st.lists(st.integers(0, n), max_size=4)))
    offsets = [0] + cuts + [n]
    m = dp.map(lambda a, b: a * 3 - b, x, dp.rotate(x, k))
    ref_m = [xs[i] * 3 - xs[(i + k) % n] for i in range(n)]
    assert as_list(m) == ref_m
    assert as_list(dp.gather(m, idx)) == [ref_m[i] for i in idx]
    ref_perm = [None] * n
    for i, p in enumerate(perm):
        ref_perm[p] = ref_m[i]
    assert as_list(dp.permute(m, perm)) == ref_perm
    assert as_list(dp.scan(op, m)) == ref_scan(op, ref_m)
    assert as_list(dp.rscan(op, m)) == ref_rscan(op, ref_m)
    assert as_list(dp.exclusive_scan(operator.add, m, 7)) == ref_exclusive(
        operator.add, ref_m, 7)
    assert dp.reduce(op, m, 1) == ref_exclusive(op, ref_m + [0], 1)[-1]
    assert (dp.sum(m), dp.min(m), dp.max(m)) == (sum(ref_m), min(ref_m), max(ref_m))
    assert as_list(dp.shift(m, k, 0)) == [ref_m[i + k] if 0 <= i + k < n else 0
                                         for i in range(n)]
    assert as_list(dp.sort(m)) == sorted(ref_m)
    keys, vals = dp.sort_by_key(m, dp.indices(m))
    ref_kv = sorted(zip(ref_m, range(n)), key=lambda t: t[0])
    assert as_list(keys) == [t[0] for t in ref_kv] and as_list(vals) == [t[1] for t in ref_kv]
    segs = dp.split(m, offsets)
    assert [as_list(s) for s in segs] == [ref_m[a:b] for a, b in zip(offsets, offsets[1:])]
    assert as_list(dp.map(lambda s: dp.sum(s), segs)) == [
        sum(ref_m[a:b]) for a, b in zip(offsets, offsets[1:])]
    out = [0] * (n + 3)
    ref_out = list(out)
    for i, j in enumerate(idx):
        ref_out[j] = ref_m[i % n]
    src = [ref_m[i % n] for i in range(len(idx))]
    assert as_list(dp.scatter(src, idx, out)) == ref_out
    ref_added = list(out)
    for i, j in enumerate(idx):
        ref_added[j] += src[i]
    assert as_list(dp.scatter_add(src, idx, out)) == ref_added
    assert as_list(dp.replicate(k, n)) == [k] * n
