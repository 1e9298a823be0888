"""The exact integer dependence test: is there a pair of iterations touching
one element, under a direction vector?  Answered by isl (islpy).

The classic tests of :mod:`.deptest` look at one subscript at a time with
rectangular bounds, so coupled subscripts and triangular loops
(``for j in range(i)``) leave false dependences.  Here the whole question is
one Presburger set: the counters of both accesses (``0 <= t``, each loop's
own bounds, affine in the outer counters: ``lo + step*t < hi``), the affine
``if`` guards around each access, every subscript equal, and the direction
vector's order on the common loops.  The dependence exists exactly when the
set has an integer point, which isl decides.  With the call's values
substituted every coefficient is an integer, so nothing is approximated;
what is not affine (a subscript, a bound) leaves that constraint out, which
only keeps a dependence (never drops one).
"""
from .affine import Affine

_ISL = []          # [(islpy, its Context)] once imported: not at ``import pcompute``


def _isl():
    """islpy and the one isl context, imported on the first exact test (a
    dependency of pcompute: a failed import is said, never skipped)."""
    if not _ISL:
        try:
            import islpy
        except ImportError as exc:
            raise ImportError(
                "pcompute.parallelize needs islpy (a dependency of pcompute) for its "
                "exact dependence test, and it cannot be imported: %s; pip install islpy"
                % exc) from exc
        _ISL.append((islpy, islpy.Context()))
    return _ISL[0]


def _term(coeffs, const, names):
    """``sum(c * name) + const`` as isl text, or None if not integral."""
    text = "%d" % int(const)
    if int(const) != const:
        return None
    for var, c in coeffs:
        if var not in names or int(c) != c:
            return None
        text += " %s %d*%s" % ("-" if c < 0 else "+", abs(int(c)), names[var])
    return text


def _affine_text(expr, names):
    return _term(expr.coeffs, expr.const, names)


def _loop_constraints(loop, names, out):
    """Bounds of ``loop``'s counter (``names`` maps counters to isl names)."""
    t = names[loop.counter]
    out.append("%s >= 0" % t)
    if loop.count is not None:
        out.append("%s <= %d" % (t, loop.count - 1))
        return
    hi = getattr(loop, "hi", None)
    if loop.lo is None or loop.step is None or hi is None:
        return
    value = loop.lo + _counter(loop)
    diff = _affine_text(hi + value.scale(-1), names) if loop.step > 0 else \
        _affine_text(value + hi.scale(-1), names)
    if diff is not None:
        out.append("%s >= 1" % diff)     # v < hi (step > 0) or v > hi (step < 0)


def _counter(loop):
    return Affine(((loop.counter, loop.step),), 0)


_OPS = {"==": "=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}
_NEGATED = {"!=": "=", "<": ">=", "<=": ">", ">": "<=", ">=": "<"}


def _guard_constraints(access, names, out):
    for expr, op, holds in access.guards:
        rel = _OPS.get(op) if holds else _NEGATED.get(op)
        text = _affine_text(expr, names)
        if rel is not None and text is not None:    # '!=' (a disjunction) is left out
            out.append("%s %s 0" % (text, rel))


def feasible(a, b, common, vector):
    """True unless isl proves that no iteration of access ``a`` and one of
    access ``b`` (both of one array, subscripts affine) touch one element
    with the order ``vector`` (``<``, ``=``, ``>``, ``*`` per common loop:
    ``<`` means ``a``'s iteration comes first)."""
    src = {lp.counter: "s%d" % k for k, lp in enumerate(a.loops)}
    dst = {lp.counter: "d%d" % k for k, lp in enumerate(b.loops)}
    out = []
    for lp in a.loops:
        _loop_constraints(lp, src, out)
    for lp in b.loops:
        _loop_constraints(lp, dst, out)
    _guard_constraints(a, src, out)
    _guard_constraints(b, dst, out)
    for s, d in zip(a.subs, b.subs):
        left, right = _affine_text(s, src), _affine_text(d, dst)
        if left is None or right is None:
            continue
        out.append("%s = %s" % (left, right))
    for lp, direction in zip(common, vector):
        if direction in ("<", "=", ">"):
            rel = {"<": "<", "=": "=", ">": ">"}[direction]
            out.append("%s %s %s" % (src[lp.counter], rel, dst[lp.counter]))
    isl, ctx = _isl()
    variables = sorted(src.values()) + sorted(dst.values())
    text = "{ [%s] : %s }" % (", ".join(variables), " and ".join(out) or "true")
    return not isl.BasicSet.read_from_str(ctx, text).is_empty()


__all__ = ["feasible"]
