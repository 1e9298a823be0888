"""The static rules of pcompute/autopar/coverage.py (arrays a nest writes
whole are not copied to the device): which names are only stored, which
statements may end an iteration early, which nests share a segment.  The
behaviour on every backend is in test_autopar_residency.py."""
import ast

from pcompute.autopar.coverage import _leaves, covered_box, segments, sole_stores
from pcompute.autopar.nest import collect
from pcompute.autopar.plans import Step


def _stmt(text):
    return ast.parse(text).body[0]


def test_sole_stores_are_names_only_stored_once_in_the_segment():
    nest = _stmt("for i in range(n):\n    out[i] = a[i]\n    b[i] += 1.0\n    c[i] = c[i]\n")
    other = _stmt("for i in range(n):\n    d[i] = a[i]\n")
    assert sole_stores(nest, [other]) == {"out"}
    reader = _stmt("for i in range(n):\n    d[i] = out[i]\n")
    assert sole_stores(nest, [reader]) == frozenset()
    twice = _stmt("for i in range(n):\n    out[i] = 1.0\n    out[i] = 2.0\n")
    assert sole_stores(twice, []) == frozenset()


def test_statements_that_may_end_an_iteration():
    assert not _leaves(_stmt("for k in range(3):\n    if x:\n        break\n"))
    assert not _leaves(_stmt("while x:\n    continue\n"))
    assert _leaves(_stmt("if x:\n    continue\n"))
    assert _leaves(_stmt("for k in range(3):\n    pass\nelse:\n    break\n"))
    assert _leaves(_stmt("for k in range(3):\n    return 1\n"))
    assert not _leaves(_stmt("t = a[i] * 2.0\n"))


def test_segments_are_the_nests_between_other_statements():
    kinds = ["nest", "nest", "python", "nest", "return"]
    steps = [Step(kind, None) for kind in kinds]
    assert segments(steps) == {0: (0, 1), 1: (0, 1), 3: (3,)}


def _box(text, shape, **ints):
    loops, _ = collect(_stmt(text), ints, lambda name: name == "out")
    return covered_box(loops[0], "out", shape)


def test_the_box_a_nest_writes_whole():
    interior = "for i in range(1, n - 1):\n    for j in range(1, n - 1):\n        out[i, j] = 1.0\n"
    assert _box(interior, (5, 5), n=5) == ((1, 4), (1, 4))
    assert _box(interior, (5, 6), n=5) == ((1, 4), (1, 4))
    assert _box(interior, (3, 3), n=5) is None          # leaves the array: no box
    swapped = "for j in range(2):\n    for i in range(3):\n        out[i, j] = 1.0\n"
    assert _box(swapped, (4, 4)) == ((0, 3), (0, 2))
    extra = "for i in range(3):\n    for k in range(m):\n        out[i] = 1.0\n"
    assert _box(extra, (4,), m=2) == ((0, 3),)
    assert _box(extra, (4,), m=0) is None               # the store never runs
    strided = "for i in range(0, 6, 2):\n    out[i] = 1.0\n"
    assert _box(strided, (6,)) is None                  # not every element of a box
