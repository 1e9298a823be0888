"""A @dataparallel call's phases built together before it runs them
(pcompute/dataparallel/dry.py: a dry walk records the launches, then one
group module per set of build flags on the cython backend)."""
import operator

import numpy as np

from pcompute import use_config
from pcompute.build import cython_builder, cython_group
from pcompute.dataparallel import dataparallel, map, reduce, replicate, scan, split, sum
from pcompute.dataparallel import dry, phases


def three_phases(x, y, a):
    w = scan(operator.add, map(lambda u, v: a * u + v, x, y))       # map + scan
    s = sum(map(lambda u: u * u, w))                                # map + reduce
    return s, map(lambda u: u - s, w)           # a kernel's result as an argument


def counted(x):
    w = scan(operator.add, map(lambda v: v * 2, x))
    m = sum(map(lambda v: v + 1, w))
    total = reduce(operator.add, map(lambda v: v % 3, x), 0)   # decides a length:
    return m, sum(replicate(1, total))                           # known after a kernel


def _inputs(dtype, n=37):
    # multiples of 0.25: every sum exact in float32 and float64
    return (np.arange(n) % 5 * 0.5).astype(dtype), np.full(n, 0.25, dtype), 1.5


def _host(v):
    return np.asarray(v.get() if hasattr(v, "get") else v)


def test_phases_built_ahead_match_plain_python(backend):
    f = dataparallel(three_phases)
    for n in (37, 41):
        x, y, a = _inputs(backend.dtype, n)
        (s, d), (want_s, want_d) = f(x, y, a), f.py(x, y, a)
        assert s == want_s
        np.testing.assert_array_equal(_host(d), want_d)
    assert [kind for kind, _ in f.last_phases] == ["scan", "reduction", "elementwise"]
    x = np.arange(30, dtype=np.int64) * 7
    g = dataparallel(counted)
    assert g(x) == g.py(x)


def _as_a_new_process(monkeypatch):
    """No module built in this process: the builder's memo and the phases'
    primitives (each keeps the kernels it built) forgotten."""
    monkeypatch.setattr(cython_builder, "_memo", {})
    monkeypatch.setattr(phases, "_CACHE", {})


def _fresh_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PCOMPUTE_CACHE_DIR", str(tmp_path))
    _as_a_new_process(monkeypatch)
    return cython_group.stats["members"], cython_builder.stats["compiled"]


def test_cython_builds_the_phases_of_a_call_as_one_module(tmp_path, monkeypatch):
    members, compiled = _fresh_cache(tmp_path, monkeypatch)
    walks = dry.stats["dry_walks"]
    with use_config(backend="cython", use_double=True):
        x, y, a = _inputs(np.float64)
        # the phases' kernels listed by a dry walk, nothing built
        assert len(dataparallel(three_phases).kernels_ahead(x, y, a)) == 3
        assert cython_builder.stats["compiled"] == compiled
        s, d = dataparallel(three_phases)(x, y, a)
        want_s, want_d = dataparallel(three_phases).py(x, y, a)
        assert s == want_s and np.array_equal(_host(d), want_d)
        # scan, reduction and elementwise: one module, not three
        assert cython_group.stats["members"] == members + 3
        assert cython_builder.stats["compiled"] == compiled + 1
        assert dry.stats["dry_walks"] == walks + 2      # kernels_ahead's and the call's
        assert dataparallel(three_phases).kernels_ahead(x, y, a) == []     # all built
        # a later process finds each phase in the group module (cache index),
        # and walks no dry walk (nothing is compiled)
        _as_a_new_process(monkeypatch)
        s2, d2 = dataparallel(three_phases)(x, y, a)
        assert s2 == want_s and np.array_equal(_host(d2), want_d)
        assert cython_builder.stats["compiled"] == compiled + 1
        assert dry.stats["dry_walks"] == walks + 3


def test_a_length_from_a_result_stops_the_dry_walk_there(tmp_path, monkeypatch):
    members, compiled = _fresh_cache(tmp_path, monkeypatch)
    x = np.arange(30, dtype=np.int64) * 7
    with use_config(backend="cython"):
        f = dataparallel(counted)
        assert f(x) == f.py(x)
    # the three phases before `replicate(1, total)` together, the sum of the
    # replicated ones at its launch (the dry walk cannot know its length)
    assert cython_group.stats["members"] == members + 3
    assert cython_builder.stats["compiled"] == compiled + 2
    assert f.plan_stats["walked"] == 1


def checked_scan(x, offsets):
    return scan(operator.add, split(map(lambda v: v * 2, x), offsets))


def test_a_checked_call_lists_its_checks_kernels_too(monkeypatch):
    """Under bounds_check the dry walk goes past the checks of the offsets
    (their host check fails on the stand-in result: the value is unknown,
    not an error) and lists the kernels of the Scan's own checks."""
    _as_a_new_process(monkeypatch)      # no phase built by another test (same source)
    x, offsets = np.arange(12.0), np.array([0, 5, 5, 12], np.int32)
    with use_config(backend="cython", use_double=True):
        unchecked = dataparallel(checked_scan).kernels_ahead(x, offsets)
        with use_config(bounds_check=True):
            checked = dataparallel(checked_scan).kernels_ahead(x, offsets)
    assert [g.kind for g in unchecked] == ["scan"]
    # the offsets' summary, the input and segment functions' checks, the scan
    assert [g.kind for g in checked] == ["reduction"] * 3 + ["scan"]
