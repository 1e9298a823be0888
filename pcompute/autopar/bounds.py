"""Index ranges of a nest's subscripts at a call, against the arrays' shapes.

A compiled kernel does not check its indices (unless ``bounds_check`` is on):
an index out of range reads or writes memory outside the array, where plain
Python raises ``IndexError`` (or, for a negative index, counts from the end).
Before a nest runs, :func:`check` computes, for every affine subscript
(:mod:`.nest`: ``sum(c * t) + c0`` over the counters of its loops), the
exact range of each index over the iteration domain at this call:

- loops with constant bounds and no affine ``if`` around the access: the
  box ``0 <= t < count`` per counter, so the minimum and maximum of the
  affine form are its constant plus, per counter, ``c * (count - 1)`` where
  that is negative (minimum) or positive (maximum);
- otherwise (bounds affine in outer loops, affine guards, ``!=`` included):
  the image of the subscript over the integer set of the counters, its
  lexicographic minimum and maximum found by isl (:mod:`.exact`).

An index range inside ``0 .. length - 1`` is proven in range.  A range that
leaves it, for an access that runs at every point of that domain (no
condition the analysis cannot follow, no ``break``/``continue`` in its
loops), is an index plain Python reaches: a :class:`Finding` the caller
raises as a located error before anything runs.  What cannot be decided (a
subscript that is not affine, loop bounds unknown at the call, a range
leaving the array under a condition the analysis cannot follow) is a note
for ``explain()``, and runs as before.
"""
from dataclasses import dataclass

from . import callee
from .exact import _isl, _loop_constraints, _term

_NEGATED = {"==": "!=", "!=": "==", "<": ">=", "<=": ">", ">": "<=", ">=": "<"}


@dataclass(frozen=True)
class Finding:
    """A subscript that reaches an index outside its array at this call."""
    access: object      # the Access (nest.py)
    axis: int
    low: int            # the smallest index it takes over the loops
    high: int           # the largest
    length: int         # the array's extent on that axis

    @property
    def index(self):
        """The offending index: above the array first, else the negative one."""
        return self.high if self.high >= self.length else self.low


def check(accesses, shapes, lookup=None):
    """``(findings, notes)`` of the ``accesses`` of a nest (nest.Access),
    ``shapes``: ``{array name: shape}`` at this call.  ``findings``: the
    :class:`Finding` of the first subscript that plain Python would take
    out of range, if any (a list of at most one); ``notes``: what could not
    be decided, one text per access (for ``explain()``).  An array handed
    whole to a helper is checked through the helper's subscripts
    (:func:`.callee.expand`, unless ``accesses`` are expanded already;
    ``lookup(name)``: a global of the user's function)."""
    notes = []
    for access in callee.expand(accesses, lookup):
        shape = shapes.get(access.array)
        if shape is None:
            continue
        if access.subs is None and access.via:
            note = ("%s (line %d): the indices a called function takes of it are not "
                    "checked against its shape (bounds_check checks them while the kernel "
                    "runs)" % (access.text, access.node.lineno))
            if note not in notes:       # read and written anywhere: one note
                notes.append(note)
            continue
        finding = _check_subscripts(access, shape, notes)
        if finding is not None:
            return [finding], notes
    return [], notes


def _check_subscripts(access, shape, notes):
    """The :class:`Finding` of ``access`` (a subscript of an array of
    ``shape``) if plain Python takes it out of range, else None (with a note
    on what could not be decided)."""
    where = "%s (line %d)" % (access.text or access.array, access.node.lineno)
    if access.subs is None:
        notes.append("%s: a subscript that is not affine in the loop counters is not "
                     "checked against the array's shape (bounds_check checks it while "
                     "the kernel runs)" % where)
        return None
    if len(access.subs) != len(shape):
        return None
    domain = _domain(access)
    if domain is None:
        notes.append("%s: the bounds of its loops are not known at the call, so its "
                     "indices are not checked against the array's shape" % where)
        return None
    for axis, (sub, length) in enumerate(zip(access.subs, shape)):
        span = _span(access, sub, domain)
        if span is None:            # the access never runs at this call
            return None
        low, high = span
        if 0 <= low and high < length:
            continue
        if _certain(access):
            return Finding(access, axis, low, high, length)
        notes.append("%s: indices %d to %d on axis %d (length %d) under a condition "
                     "or a break the analysis cannot follow: not checked before the "
                     "launch" % (where, low, high, axis, length))
    return None


def _certain(access):
    """True when ``access`` runs at every point of its loops' domain (its
    affine guards holding): no condition the analysis does not follow and
    no loop of it that may stop or skip early."""
    return not access.conditional and not any(lp.has_break or lp.continue_line
                                              for lp in access.loops)


def _domain(access):
    """``("box", counts)`` when every loop of ``access`` has a constant trip
    count and no affine guard surrounds it; ``("isl", None)`` when every
    loop's bounds are affine; None when one is unknown (a while loop, a
    bound read from an array)."""
    loops = access.loops
    if all(lp.count is not None for lp in loops) and not access.guards:
        return ("box", tuple(lp.count for lp in loops))
    for lp in loops:
        if lp.var is None or lp.lo is None or lp.step is None:
            return None
        if lp.count is None and lp.hi is None:
            return None
    return ("isl", None)


def _span(access, sub, domain):
    """``(min, max)`` of the affine ``sub`` over ``domain``, None when the
    domain is empty (the access does not run)."""
    kind, counts = domain
    if kind == "box":
        if any(c <= 0 for c in counts):
            return None
        top = {lp.counter: c - 1 for lp, c in zip(access.loops, counts)}
        low = high = sub.const
        for var, c in sub.coeffs:
            low += min(0, c * top[var])
            high += max(0, c * top[var])
        return low, high
    return _isl_span(access, sub)


def _isl_span(access, sub):
    isl, ctx = _isl()
    names = {lp.counter: "s%d" % k for k, lp in enumerate(access.loops)}
    out = []
    for lp in access.loops:
        _loop_constraints(lp, names, out)
    for expr, op, holds in access.guards:
        text = _term(expr.coeffs, expr.const, names)
        rel = op if holds else _NEGATED[op]
        if text is None:
            return None
        out.append("(%s < 0 or %s > 0)" % (text, text) if rel == "!=" else
                   "%s %s 0" % (text, "=" if rel == "==" else rel))
    value = _term(sub.coeffs, sub.const, names)
    if value is None:
        return None
    out.append("x = %s" % value)
    counters = sorted(names.values())
    text = "{ [x, %s] : %s }" % (", ".join(counters), " and ".join(out)) if counters \
        else "{ [x] : %s }" % " and ".join(out)
    image = isl.Set.read_from_str(ctx, text).project_out(isl.dim_type.set, 1, len(counters))
    if image.is_empty():
        return None

    def coordinate(point_set):
        point = point_set.sample_point()
        return int(point.get_coordinate_val(isl.dim_type.set, 0).to_python())
    return coordinate(image.lexmin()), coordinate(image.lexmax())


__all__ = ["Finding", "check"]
