"""pcompute.parallelize builds the kernels of the nests a call knows ahead
together (pcompute/autopar/prebuild.py; on the cython backend one module)."""
import numpy as np
import pytest

from pcompute import get_config, parallelize, use_config
from pcompute.backends.registry import get_backend
from pcompute.profile import get_profile_info, reset_profile
from pcompute.build import cython_builder, cython_group
from pcompute.errors import KernelValueError


def four_nests(a, b, c, n):
    for i in range(n):
        b[i] = 2.0 * a[i]
    for i in range(n):
        c[i] = b[i] + a[i]
    m = n // 2
    for i in range(m):
        a[i] = c[i] - b[i] * 0.5
    for i in range(n):
        c[i] = c[i] * 3.0 + a[i]


def first_then_overlap(a, p, q, n, seen):
    for i in range(n):
        a[i] = 1.0
    seen.append(n)
    for i in range(n):
        p[i] = q[i] + 1.0


def _arrays(dtype, n=37):
    a = np.linspace(-1.0, 2.0, n).astype(dtype)
    return a, np.zeros(n, dtype), np.zeros(n, dtype)


def test_nests_planned_ahead_match_plain_python(backend):
    got, want = _arrays(backend.dtype), _arrays(backend.dtype)
    f = parallelize(four_nests)
    f(*got, 37)
    four_nests(*want, 37)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=backend.rtol)
    assert [p.kind for p in f.last_plans] == ["launch"] * 4


def test_cython_builds_the_nests_known_at_the_call_as_one_module(tmp_path, monkeypatch):
    monkeypatch.setenv("PCOMPUTE_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(cython_builder, "_memo", {})
    members, compiled = cython_group.stats["members"], cython_builder.stats["compiled"]
    reset_profile()
    with use_config(backend="cython", use_openmp=True, profile=True):
        got, want = _arrays(np.float64), _arrays(np.float64)
        # what the call will build ahead, listed without building anything
        ahead = parallelize(four_nests).kernels_ahead(*got, 37)
        assert len(ahead) == 3 and cython_builder.stats["compiled"] == compiled
        parallelize(four_nests)(*got, 37)
        again = parallelize(four_nests).kernels_ahead(*got, 37)
        assert get_backend().prebuild(again, get_config()) == 0     # found built
    info = get_profile_info()[0]
    reset_profile()
    # the group's build is profiled as a build (compile time kept apart)
    assert info["compile:four_nests (kernels built together)"]["calls"] == 1
    assert info["compile:four_nests (kernels built together)"]["kind"] == "compile"
    four_nests(*want, 37)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    # nests 1, 2 and 4 (nest 3 reads m, set by the statement before it: built
    # when the call gets there): two modules instead of four
    assert cython_group.stats["members"] == members + 3
    assert cython_builder.stats["compiled"] == compiled + 2


def test_an_error_of_a_later_nest_comes_when_the_call_reaches_it(backend):
    x = np.zeros(9, backend.dtype)
    seen = []
    f = parallelize(first_then_overlap)
    with pytest.raises(KernelValueError, match="overlap"):
        f(np.zeros(8, backend.dtype), x[:-1], x[1:], 8, seen)
    assert seen == [8]          # the statements before that nest ran
