"""Dependence analysis of one loop nest: a verdict and its reasons per loop.

:func:`analyse` combines the array dependences (:mod:`.deptest` on the
accesses :mod:`.nest` collects) and the scalar uses (:mod:`.scalars`) into
a :class:`NestReport`: for every loop, ``parallel`` (no dependence carried by
it: its iterations may run in any order once the outer loops are fixed),
``reduction`` (only reduction updates of scalars are carried) or
``sequential``, each with the reasons that decided it.
"""
import ast
from dataclasses import dataclass, field

from . import callee, exact
from .deptest import Dependence, LoopSpan, carried_level, test_pair
from .nest import collect
from .scalars import scalar_uses

PARALLEL, REDUCTION, SEQUENTIAL = "parallel", "reduction", "sequential"


@dataclass
class LoopVerdict:
    """The verdict on one loop: ``kind`` and the reasons (strings)."""
    loop: object
    kind: str
    reasons: list = field(default_factory=list)
    reductions: list = field(default_factory=list)    # ScalarUse of reductions
    pairs: list = field(default_factory=list)         # (Access, Access) it carries
    scalar_reasons: int = 0                           # reasons not about arrays

    @property
    def lineno(self):
        return self.loop.lineno


@dataclass
class NestReport:
    """Verdicts of every loop of a nest (outermost first, pre-order)."""
    nest: object
    loops: list
    verdicts: list
    accesses: list = field(default_factory=list)     # as collected (nest.py)
    expanded: list = field(default_factory=list)     # with the helpers' (callee.py)

    def verdict(self, loop):
        for v in self.verdicts:
            if v.loop is loop:
                return v
        raise KeyError(loop)

    @property
    def root(self):
        return self.loops[0]


def _kind(first, second):
    if first.write and second.write:
        return "output"
    return "flow" if first.write else "anti"


def _describe(a, b, vector, dep, common):
    level = carried_level(vector)
    first, second = (a, b) if vector[level] == "<" else (b, a)
    dist = dep.distance[level]
    if dist is not None:
        how = "distance %d" % abs(dist)
    else:
        how = "direction (%s)" % ", ".join(vector)
    return "%s dependence %s (line %d, %s) -> %s (line %d, %s): %s [%s]" % (
        _kind(first, second), first.text or first.array, first.node.lineno,
        "write" if first.write else "read", second.text or second.array,
        second.node.lineno, "write" if second.write else "read", how, dep.test)


def array_dependences(accesses, same_array, pairs=None):
    """{loop: [reason, ...]} of the dependences each loop carries (and, in
    ``pairs`` when given, {loop: [(access, access), ...]})."""
    carried = {}
    for x, a in enumerate(accesses):
        for b in accesses[x:]:
            if not (a.write or b.write) or not same_array(a.array, b.array):
                continue
            common = []
            for la, lb in zip(a.loops, b.loops):
                if la is not lb:
                    break
                common.append(la)
            spans = [LoopSpan(lp.counter, lp.count) for lp in common]
            free_a = {lp.counter: lp.count for lp in a.loops[len(common):]}
            free_b = {lp.counter: lp.count for lp in b.loops[len(common):]}
            dep = _exact(a, b, common, test_pair(a.subs, b.subs, spans, free_a, free_b))
            seen = set()
            for vector in dep.vectors:
                level = carried_level(vector)
                if level is None or level in seen:
                    continue
                seen.add(level)
                carried.setdefault(common[level], []).append(
                    _describe(a, b, vector, dep, common))
                if pairs is not None:
                    pairs.setdefault(common[level], []).append((a, b))
    return carried


def _exact(a, b, common, dep):
    """``dep`` without the direction vectors that the exact integer test
    (:mod:`.exact`) proves impossible (coupled subscripts, triangular
    bounds, affine guards)."""
    if not dep.vectors or a.subs is None or b.subs is None or len(a.subs) != len(b.subs):
        return dep
    vectors = tuple(v for v in dep.vectors if exact.feasible(a, b, common, v))
    if len(vectors) == len(dep.vectors):
        return dep
    return Dependence(vectors, dep.distance, dep.test + ", exact (isl)")


def analyse(nest, env, is_array, same_array=lambda a, b: a == b, live_out=(),
            segment=lambda node: "", lookup=None):
    """The :class:`NestReport` of the ``for`` statement ``nest`` at this call.

    ``env``: the values of the names at the call (loop invariants);
    ``is_array(name)``; ``same_array(a, b)`` (aliasing: the same array under
    two names); ``live_out``: names read after the nest; ``segment(node)``:
    the source text of a node, for the reasons; ``lookup(name)``: a global
    of the user's function (the helpers whose accesses of the arrays handed
    to them are followed: :mod:`.callee`)."""
    loops, accesses = collect(nest, env, is_array, segment)
    expanded = callee.expand(accesses, lookup)
    pairs = {}
    carried = array_dependences(expanded, same_array, pairs)
    arrays = {a.array for a in accesses}
    verdicts = []
    for loop in loops:
        verdict = _verdict(loop, carried.get(loop, []), arrays, live_out)
        verdict.pairs = pairs.get(loop, [])
        verdicts.append(verdict)
    return NestReport(nest, loops, verdicts, accesses, expanded)


def _verdict(loop, array_reasons, arrays, live_out):
    reasons, reductions = [], []
    if isinstance(loop.node, ast.While):
        reasons.append("a while loop runs its iterations in order")
    elif loop.var is None:
        reasons.append("the loop target is not a single name")
    if loop.has_break:
        reasons.append("break at line %d: later iterations depend on earlier ones"
                       % _break_line(loop.node))
    if loop.continue_line:
        reasons.append("continue at line %d: a loop that continues is not launched in "
                       "parallel yet (write the rest of its body under if/else to "
                       "parallelise it)" % loop.continue_line)
    for use in scalar_uses(loop.node, arrays):
        if use.kind == "private" and use.name in live_out:
            reasons.append("scalar %s (line %d) is read after the loop nest: its last "
                           "value is needed" % (use.name, use.lineno))
        elif use.kind == "carried":
            reasons.append("scalar %s (line %d) carries a value from one iteration to "
                           "the next" % (use.name, use.lineno))
        elif use.kind == "reduction":
            reductions.append(use)
    others = len(reasons)
    reasons.extend(array_reasons)
    if reasons:
        return LoopVerdict(loop, SEQUENTIAL, reasons, reductions, scalar_reasons=others)
    if reductions:
        return LoopVerdict(loop, REDUCTION, ["%s reduction of scalar %s (line %d)"
                                             % (r.op, r.name, r.lineno)
                                             for r in reductions], reductions)
    return LoopVerdict(loop, PARALLEL, ["no dependence is carried by this loop"])


def _break_line(node):
    for n in ast.walk(node):
        if isinstance(n, ast.Break):
            return n.lineno
    return node.lineno
