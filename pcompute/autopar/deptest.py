"""Classic dependence tests between two array accesses in a loop nest.

Subscripts are :class:`~pcompute.autopar.affine.Affine` expressions over
normalised loop counters ``t`` (``0 <= t < count``, in execution order).  For
a pair of accesses, the loops enclosing both (``common``) get a direction
each: ``<`` (the first access runs in an earlier iteration), ``=`` or ``>``.
Each subscript dimension is tested on its own (a dependence needs every
dimension to be solvable): the ZIV test for constant subscripts, the GCD test
for integer solutions, and Banerjee's inequalities (the extremes of the
subscript difference over the iteration space, per direction) for solutions
inside the loop bounds.  Single-variable (SIV) pairs are named strong or weak
and give exact distances.  The direction vectors are refined hierarchically
from ``*`` so that an impossible prefix prunes all its refinements.

The tests are conservative: "independent" is a proof, "dependent" may be a
false alarm (coupled subscripts, unknown bounds), never the other way round.
"""
import math
from dataclasses import dataclass

INF = float("inf")
DIRECTIONS = ("<", "=", ">")


@dataclass(frozen=True)
class LoopSpan:
    """A loop as the tests see it: counter name and trip count (None: unknown)."""
    var: str
    count: object


@dataclass(frozen=True)
class Dependence:
    """The feasible direction vectors of an access pair and how they were found.

    ``vectors``: tuples of ``<``/``=``/``>`` over the common loops;
    ``distance``: per common loop the exact distance when a strong SIV
    subscript fixes it, else None; ``test``: the test that decided."""
    vectors: tuple
    distance: tuple
    test: str

    @property
    def exists(self):
        return bool(self.vectors)


def _interval_mul(c, lo, hi):
    """The interval of ``c * x`` for ``x`` in ``[lo, hi]`` (hi may be inf)."""
    if c == 0:
        return 0, 0
    a, b = c * lo, (c * hi if hi != INF else (INF if c > 0 else -INF))
    return min(a, b), max(a, b)


def _pair_range(a, b, direction, count):
    """Extremes of ``a*t - b*t2`` for counters t (first access) and t2 (second)
    under ``direction``, both in ``[0, count)``."""
    if direction == "=":
        return _interval_mul(a - b, 0, INF if count is None else count - 1)
    if count is not None:
        u = count - 1
        if direction == "*":
            points = [(0, 0), (0, u), (u, 0), (u, u)]
        elif u < 1:
            return None                       # fewer than two iterations
        elif direction == "<":
            points = [(0, 1), (0, u), (u - 1, u)]
        else:
            points = [(1, 0), (u, 0), (u, u - 1)]
        values = [a * t - b * t2 for t, t2 in points]
        return min(values), max(values)
    # unknown trip count: t >= 0, and t2 = t + d (or t = t2 + d) with d >= 1
    if direction == "*":
        lo1, hi1 = _interval_mul(a, 0, INF)
        lo2, hi2 = _interval_mul(-b, 0, INF)
        return lo1 + lo2, hi1 + hi2
    lo1, hi1 = _interval_mul(a - b, 0, INF)
    lo2, hi2 = _interval_mul(-b if direction == "<" else a, 1, INF)
    return lo1 + lo2, hi1 + hi2


def _gcd_ok(coeffs, d):
    g = 0
    for c in coeffs:
        g = math.gcd(g, abs(int(c)))
    return d == 0 if g == 0 else d % g == 0


def _dimension_feasible(src, dst, common, directions, src_free, dst_free):
    """Can ``src == dst`` hold under ``directions`` (one per common loop,
    ``*`` allowed)?  GCD test, then Banerjee's bounds."""
    d = dst.const - src.const
    lo = hi = 0
    gcd_coeffs = []
    for loop, direction in zip(common, directions):
        a, b = src.coeff(loop.var), dst.coeff(loop.var)
        span = _pair_range(a, b, direction, loop.count)
        if span is None:
            return False
        lo, hi = lo + span[0], hi + span[1]
        gcd_coeffs.extend([a - b] if direction == "=" else [a, b])
    for expr, free, sign in ((src, src_free, 1), (dst, dst_free, -1)):
        for var, count in free.items():
            c = sign * expr.coeff(var)
            span = _interval_mul(c, 0, INF if count is None else count - 1)
            if count is not None and count < 1:
                return False
            lo, hi = lo + span[0], hi + span[1]
            gcd_coeffs.append(c)
    return _gcd_ok(gcd_coeffs, d) and lo <= d <= hi


def classify(src, dst, common_vars):
    """The name of the test a subscript pair falls under (ZIV, strong SIV,
    weak-zero SIV, weak-crossing SIV, MIV)."""
    variables = set(src.variables) | set(dst.variables)
    if not variables:
        return "ZIV"
    if len(variables) == 1:
        (v,) = variables
        a, b = src.coeff(v), dst.coeff(v)
        if v not in common_vars:
            return "SIV"
        if a == b:
            return "strong SIV"
        if a == 0 or b == 0:
            return "weak-zero SIV"
        if a == -b:
            return "weak-crossing SIV"
        return "SIV"
    return "MIV"


def _strong_distance(src_subs, dst_subs, common):
    """Per common loop, the exact distance t2 - t fixed by a strong SIV
    subscript (None where no subscript fixes it)."""
    result = []
    for loop in common:
        dist = None
        for s, t in zip(src_subs, dst_subs):
            a = s.coeff(loop.var)
            if a != 0 and s.variables == (loop.var,) and t.variables == (loop.var,) \
                    and t.coeff(loop.var) == a and (s.const - t.const) % a == 0:
                dist = (s.const - t.const) // a
        result.append(dist)
    return tuple(result)


def test_pair(src_subs, dst_subs, common, src_free=None, dst_free=None):
    """The :class:`Dependence` between two accesses of one array.

    ``src_subs``/``dst_subs``: one Affine per dimension, or None for the
    whole access when a subscript is not affine (every direction is then
    assumed possible); ``common``: :class:`LoopSpan` of the loops around both
    accesses, outermost first; ``*_free``: ``{counter: count}`` of loops
    around one access only (their counters appear in that side only)."""
    src_free = src_free or {}
    dst_free = dst_free or {}
    if src_subs is None or dst_subs is None or len(src_subs) != len(dst_subs):
        vectors = _refine(common, lambda dirs: _possible(common, dirs))
        return Dependence(vectors, (None,) * len(common), "subscript not affine")
    names = {c.var for c in common}
    tests = [classify(s, t, names) for s, t in zip(src_subs, dst_subs)]

    def feasible(dirs):
        if not _possible(common, dirs):
            return False
        return all(_dimension_feasible(s, t, common, dirs, src_free, dst_free)
                   for s, t in zip(src_subs, dst_subs))

    vectors = _refine(common, feasible)
    distance = _strong_distance(src_subs, dst_subs, common)
    if not vectors:
        test = _deciding_test(src_subs, dst_subs, common, tests, src_free, dst_free)
    else:
        test = ", ".join(sorted(set(tests)))
    return Dependence(tuple(vectors), distance, test)


def _deciding_test(src_subs, dst_subs, common, tests, src_free, dst_free):
    """Which test proved independence (for the report)."""
    star = ("*",) * len(common)
    for s, t, name in zip(src_subs, dst_subs, tests):
        if name == "ZIV" and s.const != t.const:
            return "ZIV"
        coeffs = [c for loop in common for c in (s.coeff(loop.var), t.coeff(loop.var))]
        coeffs += [s.coeff(v) for v in src_free] + [t.coeff(v) for v in dst_free]
        if not _gcd_ok(coeffs, t.const - s.const):
            return "GCD"
        if not _dimension_feasible(s, t, common, star, src_free, dst_free):
            return name + (" (Banerjee bounds)" if name == "MIV" else " (bounds)")
    return "Banerjee (direction vectors)"


def _possible(common, dirs):
    """A direction vector is impossible when a loop of fewer than two
    iterations would need two different iterations."""
    for loop, d in zip(common, dirs):
        if d in "<>" and loop.count is not None and loop.count < 2:
            return False
        if loop.count is not None and loop.count < 1:
            return False
    return True


def _refine(common, feasible):
    """All full direction vectors accepted by ``feasible``, refining ``*``
    position by position (a rejected prefix prunes its refinements)."""
    out = []

    def walk(prefix):
        dirs = tuple(prefix) + ("*",) * (len(common) - len(prefix))
        if not feasible(dirs):
            return
        if len(prefix) == len(common):
            out.append(tuple(prefix))
            return
        for d in DIRECTIONS:
            walk(prefix + [d])

    walk([])
    return out


def carried_level(vector):
    """The index of the loop carrying a dependence with direction ``vector``
    (the first non-``=``), or None for a loop-independent one."""
    for k, d in enumerate(vector):
        if d != "=":
            return k
    return None
