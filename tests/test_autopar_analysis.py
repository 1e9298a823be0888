"""The dependence analysis of pcompute.autopar: verdicts and reasons on
known loop nests (ALPyNA's listings 1 and 2, the classic tests)."""
import ast

import pytest

from pcompute.autopar.affine import affine
from pcompute.autopar.analysis import analyse
from pcompute.autopar.deptest import LoopSpan, test_pair as dep_test
# looked up by name (helper_verdict's lookup=globals().get)
from tests.autopar_nests import _elt, _store, _store_at, _store_next, _twice  # noqa: F401


def verdicts(src, env, arrays=("a",), live_out=(), lookup=None):
    nest = ast.parse(src).body[0]
    report = analyse(nest, env, lambda name: name in arrays, live_out=live_out,
                     segment=ast.unparse, lookup=lookup)
    return {v.loop.var: (v.kind, v.reasons) for v in report.verdicts}


LISTING1 = """
for i in range(n):
    a[i + k] = a[i] + b
"""


@pytest.mark.parametrize("k, kind, word", [
    (0, "parallel", "no dependence"),
    (1, "sequential", "flow dependence"),
    (3, "sequential", "distance 3"),
    (-2, "sequential", "anti dependence"),
    (10, "parallel", "no dependence"),     # |k| >= n: never the same element
    (-10, "parallel", "no dependence"),
    (-11, "parallel", "no dependence"),
])
def test_alpyna_listing1(k, kind, word):
    got = verdicts(LISTING1, dict(n=10, k=k, b=1.0))
    assert got["i"][0] == kind
    assert word in " ".join(got["i"][1])


LISTING2 = """
for i in range(n):
    for j in range(n):
        for k in range(n):
            for l in range(n):
                a[i + p, j + q, k, l + r] = a[i, j, k, l] + 1.0
"""


@pytest.mark.parametrize("inv, expected", [
    ((0, 1, -2), ("parallel", "sequential", "parallel", "parallel")),
    ((1, 1, -1), ("sequential", "parallel", "parallel", "parallel")),
    ((10, 99, -1), ("parallel", "parallel", "parallel", "parallel")),
])
def test_alpyna_listing2(inv, expected):
    p, q, r = inv
    got = verdicts(LISTING2, dict(n=8, p=p, q=q, r=r))
    assert tuple(got[v][0] for v in "ijkl") == expected


def test_gcd_proves_even_odd_independent():
    got = verdicts("for i in range(n):\n    a[2*i] = a[2*i + 1]\n", dict(n=50))
    assert got["i"][0] == "parallel"
    s = [affine(ast.parse("2*t").body[0].value, {"t"}, {})]
    d = [affine(ast.parse("2*t + 1").body[0].value, {"t"}, {})]
    dep = dep_test(s, d, [LoopSpan("t", 50)])
    assert not dep.exists and dep.test == "GCD"


def test_weak_zero_siv_in_and_out_of_bounds():
    src = "for i in range(n):\n    a[i] = a[c] + 1.0\n"
    assert verdicts(src, dict(n=10, c=4))["i"][0] == "sequential"
    assert verdicts(src, dict(n=10, c=12))["i"][0] == "parallel"


def test_banerjee_miv_bounds():
    # a[i + 10*j] written (0..99), a[i + 10*j + 200] read (200..299)
    src = ("for i in range(10):\n    for j in range(10):\n"
           "        a[i + 10*j] = a[i + 10*j + 200]\n")
    got = verdicts(src, {})
    assert got["i"][0] == "parallel" and got["j"][0] == "parallel"
    src2 = src.replace("+ 200", "+ 5")
    assert verdicts(src2, {})["i"][0] == "sequential"


def test_2d_jacobi_like_nest_is_parallel_with_two_arrays():
    src = ("for i in range(1, n - 1):\n    for j in range(1, n - 1):\n"
           "        b[i, j] = 0.25*(a[i-1, j] + a[i+1, j] + a[i, j-1] + a[i, j+1])\n")
    got = verdicts(src, dict(n=16), arrays=("a", "b"))
    assert got["i"][0] == "parallel" and got["j"][0] == "parallel"


def test_in_place_stencil_is_sequential():
    src = "for i in range(1, n):\n    a[i] = a[i - 1] * 0.5\n"
    kind, reasons = verdicts(src, dict(n=16))["i"]
    assert kind == "sequential" and "flow dependence" in reasons[0]
    assert "distance 1" in reasons[0] and "line 2" in reasons[0]


def test_scalars_private_reduction_carried_liveout():
    gemm = ("for i in range(n):\n    for j in range(n):\n        acc = 0.0\n"
            "        for k in range(n):\n            acc += a[i, k] * b[k, j]\n"
            "        c[i, j] = acc\n")
    got = verdicts(gemm, dict(n=4), arrays=("a", "b", "c"))
    assert [got[v][0] for v in "ijk"] == ["parallel", "parallel", "reduction"]
    total = "for i in range(n):\n    s += a[i]\n"
    assert verdicts(total, dict(n=4))["i"][0] == "reduction"
    assert verdicts("for i in range(n):\n    s = max(s, a[i])\n",
                    dict(n=4))["i"][0] == "reduction"
    carried = "for i in range(n):\n    a[i] = s\n    s = a[i] * 2.0\n"
    kind, reasons = verdicts(carried, dict(n=4))["i"]
    assert kind == "sequential" and "scalar s" in reasons[0]
    private = "for i in range(n):\n    t = a[i] * 2.0\n    a[i] = t\n"
    assert verdicts(private, dict(n=4))["i"][0] == "parallel"
    assert verdicts(private, dict(n=4), live_out=("t",))["i"][0] == "sequential"


def test_unknown_subscripts_and_break_are_sequential():
    scatter = "for i in range(n):\n    a[idx[i]] = 1.0\n"
    kind, reasons = verdicts(scatter, dict(n=4), arrays=("a", "idx"))["i"]
    assert kind == "sequential" and "not affine" in reasons[0]
    search = ("for i in range(n):\n    for j in range(n):\n        if a[i, j] > 0:\n"
              "            break\n        a[i, j] = 1.0\n")
    got = verdicts(search, dict(n=4))
    assert got["i"][0] == "parallel" and got["j"][0] == "sequential"
    assert "break at line 4" in got["j"][1][0]


def test_invariant_assigned_in_the_nest_is_not_read_from_env():
    # k has a value before the nest, but the nest reassigns it: unknown
    src = "for i in range(n):\n    k = idx[i]\n    a[i + k] = a[i]\n"
    kind, _ = verdicts(src, dict(n=8, k=0), arrays=("a", "idx"))["i"]
    assert kind == "sequential"


def test_triangular_and_strided_loops():
    tri = ("for i in range(n):\n    for j in range(i + 1, n):\n"
           "        a[i, j] = a[j, i]\n")
    got = verdicts(tri, dict(n=6))
    assert got["j"][0] == "parallel"
    strided = "for i in range(0, n, 2):\n    a[i + 1] = a[i]\n"
    assert verdicts(strided, dict(n=20))["i"][0] == "parallel"


# -- the exact integer test (isl): what the dimension-wise tests cannot prove

@pytest.mark.parametrize("src, env, classic_dependent", [
    # triangular bound: a[i, j] below the diagonal, a[j, i] above it
    ("for i in range(1, n):\n    for j in range(i):\n        a[i, j] = a[j, i] * 0.5\n",
     dict(n=8), True),
    # coupled subscripts: di + 2 dj = 1 and 2 di + dj = 0 have no integer
    # solution (di = -1/3), though each alone has one in direction (<, >)
    ("for i in range(n):\n    for j in range(n):\n"
     "        a[i + 2 * j, 2 * i + j] = a[i + 2 * j + 1, 2 * i + j] * 0.5\n",
     dict(n=8), True),
    # an affine guard: writes a[h..2h), reads a[0..h)
    ("for i in range(n):\n    if i < h:\n        a[i + h] = a[i] * 2.0\n",
     dict(n=12, h=6), True),
])
def test_exact_test_proves_what_the_classic_tests_cannot(src, env, classic_dependent):
    from pcompute.autopar import analysis
    got = verdicts(src, env)
    assert all(kind == "parallel" for kind, _ in got.values()), got
    # the classic tests alone keep a dependence (so the exact test decided)
    exact = analysis._exact
    analysis._exact = lambda a, b, common, dep: dep
    try:
        classic = verdicts(src, env)
    finally:
        analysis._exact = exact
    assert any(kind == "sequential" for kind, _ in classic.values()) is classic_dependent


def test_exact_test_keeps_real_dependences():
    src = ("for i in range(1, n):\n    for j in range(i):\n"
           "        a[i, j] = a[i - 1, j] + 1.0\n")
    got = verdicts(src, dict(n=8))
    assert got["i"][0] == "sequential" and "distance 1" in " ".join(got["i"][1])
    assert got["j"][0] == "parallel"
    # a guard that still lets both halves meet
    got = verdicts("for i in range(n):\n    if i < h:\n        a[i + 2] = a[i] * 2.0\n",
                   dict(n=12, h=6))
    assert got["i"][0] == "sequential"


# -- arrays handed to helpers: the helpers' own accesses (autopar/callee.py)

# the helpers of tests/autopar_nests.py's helper_calls, and more
def _squared(v, k):
    return v[k * k]


def _total(v, n):
    s = 0.0
    for t in range(n):
        s += v[t]
    return s


def _pair(v, w, k):
    return v[k] + w[k]


def _recurse(v, k):
    if k > 0:
        return _recurse(v, k - 1)
    return v[0]


def _from_end(v, k):
    return v[v.shape[0] - 1 - k] + len(v)


def _alias(v, k):
    w = v
    w[k] = 1.0


def _cell(v, r, c, m):
    return v[r * m + c]


def _at3(v, k, d):
    j = 3 * k + d
    return v[j]


def _at_moved(v, k):
    j = k
    j += 1
    return v[j]


def _mirror(v, k, h):
    if k < h:
        v[k + h] = v[k] * 2.0


def _line(func, offset):
    return "%s:%d" % (func.__code__.co_filename, func.__code__.co_firstlineno + offset)


def helper_verdict(body, env, arrays=("a", "b")):
    src = "for i in range(n):\n    %s\n" % body
    kind, reasons = verdicts(src, dict(env, n=env.get("n", 8)), arrays, lookup=globals().get)["i"]
    return kind, " ".join(reasons)


@pytest.mark.parametrize("body", [
    "b[i] = _twice(a, i)",              # read-only, through a helper calling a helper
    "a[i] = _elt(a, i) + 1.0",          # reads the element the iteration writes
    "_store(b, i, a[i])",               # writes its own element
    "_store(a, i, _elt(a, i) * 0.5)",
    "b[i] = _squared(a, i)",            # reads anywhere (not affine), nothing writes a
    "b[i] = _total(a, n)",              # a loop inside: reads anywhere
    "b[i] = _from_end(a, i)",           # its shape: no element; reads anywhere
    "_store(a, i * m + 1, _cell(a, i, 0, m))",     # m = 4 at the call: a[4i] and a[4i + 1]
    "_store(a, 3 * i, _at3(a, i, 1))",  # a local set once: reads a[3i + 1]
    "_mirror(a, i, 4)",                 # writes a[i + 4] only where i < 4: isl
])
def test_a_helpers_accesses_keep_the_loop_parallel(body):
    kind, reasons = helper_verdict(body, {"m": 4})
    assert kind == "parallel", reasons
    # without the helpers' bodies, the arrays handed whole are written anywhere
    src = "for i in range(n):\n    %s\n" % body
    assert verdicts(src, dict(n=8, m=4), ("a", "b"))["i"][0] == "sequential"


def test_a_helper_writing_the_next_element_carries_a_flow_dependence():
    kind, reasons = helper_verdict("_store_next(a, i, a[i] * 0.5)", {})
    assert kind == "sequential"
    assert "flow dependence a[i + 1] via _store_next(a, i, a[i] * 0.5) [v[k + 1] at %s] " \
           "(line 2, write) -> a[i] (line 2, read): distance 1" % _line(_store_next, 1) \
        in reasons
    kind, reasons = helper_verdict("_store_next(b, 2 * i, a[i])", {})    # b[2i + 1]
    assert kind == "parallel", reasons
    kind, reasons = helper_verdict("_mirror(a, i, 3)\n    b[i] = a[i]", {})
    assert kind == "sequential"
    assert "flow dependence a[i + 3] via _mirror(a, i, 3) [v[k + h] at %s] where i < 3 " \
           "(line 2, write) -> a[i] (line 3, read): distance 3" % _line(_mirror, 2) in reasons


@pytest.mark.parametrize("body, why", [
    ("_store_at(a, b, i, 1.0)", "v[idx[k]] at %s is not affine in the integer parameters "
     "of _store_at()" % _line(_store_at, 1)),
    ("a[i] = _total(a, n)", "v[t] at %s is not affine" % _line(_total, 3)),
    ("a[i] = _at_moved(a, i)", "v[j] at %s is not affine" % _line(_at_moved, 3)),
    ("b[i] = _pair(a, a, i)", "a is passed twice to _pair() (%s)" % _line(_pair, 0)),
    ("_alias(a, i)", "_alias() uses its parameter v other than by subscripts, its length "
     "or shape and as a helper's argument (%s)" % _line(_alias, 1)),
    ("a[i] = _recurse(a, i)", "_recurse() calls itself at %s: recursion is not followed"
     % _line(_recurse, 2)),
])
def test_what_a_helper_does_not_tell_counts_anywhere_and_says_why(body, why):
    kind, reasons = helper_verdict(body, {})
    assert kind == "sequential"
    assert "[anywhere: %s" % why in reasons


def test_helpers_are_followed_to_a_limited_depth(monkeypatch):
    from pcompute.autopar import callee
    monkeypatch.setattr(callee, "MAX_DEPTH", 1)
    kind, reasons = helper_verdict("a[i] = _twice(a, i)", {})
    assert kind == "sequential"
    assert "a via _twice(a, i) -> _elt(v, k) [anywhere: _elt() at %s is more than 1 " \
           "helper calls deep" % _line(_twice, 1) in reasons


def explained_helpers(a, b, n):
    for i in range(n):
        b[i] = _pair(a, a, i) + _twice(b, i)


def test_explain_lists_the_arrays_handed_to_helpers():
    import numpy as np

    from pcompute import parallelize, use_config
    with use_config(backend="python"):
        text = parallelize(explained_helpers).explain(np.ones(4), np.zeros(4), 4)
    line = explained_helpers.__code__.co_firstlineno + 2
    lines = text.splitlines()
    assert lines.index("  arrays handed to helpers:") == len(lines) - 5
    assert text.count("dependence a via _pair(a, a, i)") == 2     # anti, output: once each
    assert "    - line %d: reads and writes a via _pair(a, a, i) [anywhere: a is passed " \
           "twice to _pair() (%s)]" % (line, _line(_pair, 0)) in lines    # one line
    assert "    - line %d: reads b[i] via _twice(b, i) -> _elt(v, k) [v[k] at %s]" % (
        line, _line(_elt, 1)) in lines
