"""The race check of Elementwise kernels.

A kernel ``f(i, ...)`` runs its items in any order, at once.  Two items that
touch the same element of an argument array, one of them writing, race.  The
check models the items as the iterations of a loop around the kernel body
(``for i in range(n)``: ``f(i, j, ...)`` gets one loop per index), collects
the array accesses with the loop-nest analysis of :mod:`.nest`, lets the
dependence tests of :mod:`.deptest` rule out the pairs that can never meet,
and searches the rest for a concrete counterexample: two item indices, and
iterations of the loops inside the kernel, that access the same element
while the affine ``if`` conditions around the accesses hold.  A warning is
given only with such a counterexample, so a race-free kernel is never
flagged; accesses whose subscripts are not affine in the item indices and
loop counters (``x[idx[i]]``, ``x[i + k]`` with ``k`` a run-time scalar) are
not judged statically.  An array handed to a helper is judged through the
helper's own accesses of it (:mod:`.callee`: ``put(x, i)`` writing ``x[k +
1]`` writes ``x[i + 1]``).  Arguments of ``atomic_*`` calls (in the kernel
or its helpers), the element a ``prefetch`` names (not accessed), and kernels
marked ``@serial``, are exempt.
"""
import ast
import warnings

import numpy as np

from ..errors import RaceError, RaceWarning
from . import callee
from .deptest import LoopSpan, test_pair
from .nest import collect

#: Items searched per index dimension (1-D, 2-D, 3-D index spaces).
_ITEM_RANGE = {1: 16, 2: 8, 3: 4}
_INNER_RANGE = 6
_MAX_POINTS = 1 << 21
_HUGE = 1 << 40


def _virtual_nest(tree, dims, extents=None):
    """``for i in range(N): for j in ...: <body>`` over the index parameters
    (N: the call's extent of that index, or a huge bound without a call)."""
    params = [a.arg for a in tree.args.args[:dims]]
    body = tree.body
    sizes = list(extents) if extents is not None else [_HUGE] * dims
    for name, size in reversed(list(zip(params, sizes))):
        loop = ast.For(target=ast.Name(name, ast.Store()),
                       iter=ast.Call(ast.Name("range", ast.Load()),
                                     [ast.Constant(int(size))], []),
                       body=body, orelse=[], lineno=tree.lineno, col_offset=0)
        body = [loop]
    return body[0], params


def _atomic_nodes(tree):
    nodes = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) \
                and (n.func.id.startswith("atomic_") or n.func.id == "prefetch"):
            nodes.update(id(a) for a in n.args)
    return nodes


def find_races(src, dims, ints=None, extents=None):
    """[(first access, second access, witness dict)] of the races found in the
    kernel ``src`` (a :class:`~pcompute.frontend.source.FunctionSource`) with
    ``dims`` index parameters; at most one per pair of access sites.

    With a call's values, ``ints`` ({parameter: int} of its integer scalar
    arguments) makes subscripts such as ``x[i + k]`` affine, and ``extents``
    (the index space) bounds the items: the races of that call."""
    tree = src.tree
    nest, params = _virtual_nest(tree, dims, extents)
    arrays = {a.arg for a in tree.args.args[dims:]}
    lines = src.lines

    def segment(node):
        return ast.get_source_segment("\n".join(_dedent(lines, src.indent)), node) or ""

    env = {k: v for k, v in (ints or {}).items() if k not in params}
    _, accesses = collect(nest, env, lambda name: name in arrays, segment)
    accesses = callee.expand(accesses, src.func.__globals__.get)    # the helpers' accesses
    atomic = _atomic_nodes(tree)
    accesses = [a for a in accesses if id(a.node) not in atomic and not a.atomic and
                a.subs is not None]
    races = []
    for x, a in enumerate(accesses):
        for b in accesses[x:]:
            if a.array != b.array or not (a.write or b.write):
                continue
            witness = _race(a, b, dims)
            if witness is not None:
                races.append((a, b, witness))
    return races, params


def _dedent(lines, indent):
    return [line[indent:] for line in lines]


def _race(a, b, dims):
    items = a.loops[:dims]
    spans = [LoopSpan(lp.counter, lp.count if lp.count is not None and lp.count < _HUGE
                      else None) for lp in items]
    free_a = {lp.counter: lp.count for lp in a.loops[dims:]}
    rename = {lp.counter: lp.counter + "'" for lp in b.loops[dims:]}
    subs_b = tuple(_rename(s, rename) for s in b.subs)
    free_b = {rename[lp.counter]: lp.count for lp in b.loops[dims:]}
    dep = test_pair(a.subs, subs_b, spans, free_a, free_b)
    if not any(any(d != "=" for d in v) for v in dep.vectors):
        return None
    return _witness(a, b, subs_b, rename, items, free_a, free_b)


def _rename(expr, mapping):
    from .affine import Affine
    return Affine.make({mapping.get(v, v): c for v, c in expr.coeffs}, expr.const)


def _witness(a, b, subs_b, rename, items, free_a, free_b):
    """The first point of a small grid where two different items meet."""
    dims = len(items)
    names = ([lp.counter for lp in items] + list(free_a)
             + [lp.counter + "''" for lp in items] + list(free_b))
    item_sizes = [min(_ITEM_RANGE[dims], lp.count if lp.count is not None else _HUGE)
                  for lp in items]
    sizes = (item_sizes
             + [min(c, _INNER_RANGE) if c is not None else _INNER_RANGE
                for c in free_a.values()]
             + item_sizes
             + [min(c, _INNER_RANGE) if c is not None else _INNER_RANGE
                for c in free_b.values()])
    if not sizes or int(np.prod(sizes, dtype=np.int64)) > _MAX_POINTS or min(sizes) < 1:
        return None
    grids = np.meshgrid(*[np.arange(s) for s in sizes], indexing="ij")
    values = {n: g.ravel() for n, g in zip(names, grids)}
    item_b = {lp.counter: lp.counter + "''" for lp in items}

    def ev(expr, side_b):
        out = np.full(values[names[0]].shape, expr.const, dtype=np.int64)
        for v, c in expr.coeffs:
            out = out + c * values[item_b.get(v, v) if side_b else v]
        return out

    mask = np.zeros(values[names[0]].shape, dtype=bool)
    for lp in items:
        mask |= values[lp.counter] != values[item_b[lp.counter]]
    for sa, sb in zip(a.subs, subs_b):
        mask &= ev(sa, False) == ev(sb, True)
    for access, side_b in ((a, False), (b, True)):
        for diff, op, holds in access.guards:
            expr = _rename(diff, rename) if side_b else diff
            mask &= _compare(ev(expr, side_b), op) == holds
    hits = np.flatnonzero(mask)
    if hits.size == 0:
        return None
    k = hits[0]
    point = {n: int(values[n][k]) for n in names}
    return dict(
        item_a=tuple(point[lp.counter] for lp in items),
        item_b=tuple(point[item_b[lp.counter]] for lp in items),
        element=tuple(int(ev(s, False)[k]) for s in a.subs))


def _compare(value, op):
    return {"==": value == 0, "!=": value != 0, "<": value < 0, "<=": value <= 0,
            ">": value > 0, ">=": value >= 0}[op]


def _item_text(params, item):
    return ", ".join("%s = %d" % (p, v) for p, v in zip(params, item))


def race_message(name, params, a, b, witness, line=lambda node: node.lineno):
    """One line describing a race with its counterexample (``line(node)``:
    the line of a node in the user's file)."""
    if not a.write:
        a, b = b, a
        witness = dict(witness, item_a=witness["item_b"], item_b=witness["item_a"])
    element = "%s[%s]" % (a.array, ", ".join(str(e) for e in witness["element"]))
    how = "both write" if a.write and b.write else "both access"
    first = "item (%s) %s %s (line %d)" % (
        _item_text(params, witness["item_a"]), "writes" if a.write else "reads",
        a.text, line(a.node))
    second = "item (%s) %s %s (line %d)" % (
        _item_text(params, witness["item_b"]), "writes" if b.write else "reads",
        b.text, line(b.node))
    return ("race in the Elementwise kernel %s(): two items %s %s: %s, %s"
            % (name, how, element, first, second))


HINT = ("write only elements that belong to the item (x[i]), read neighbours from "
        "another array, use atomic_inc/atomic_dec for counters, or mark the kernel "
        "@serial")


def check_kernel(func, dims, strict=False, ints=None, extents=None):
    """Warn (:class:`RaceWarning`) or, with ``strict``, raise
    (:class:`RaceError`) for the first race found in kernel ``func``; with
    a call's integer arguments ``ints`` and index space ``extents``, the
    races of that call (see :func:`find_races`)."""
    from ..backends.base import is_serial
    from ..frontend.source import read_function
    if is_serial(func):
        return
    src = read_function(func)
    races, params = find_races(src, dims, ints, extents)
    if not races:
        return
    races.sort(key=lambda r: not (r[0].write and r[1].write))
    a, b, witness = races[0]
    message = race_message(src.name, params, a, b, witness,
                           line=lambda node: src.location(node).lineno)
    used = sorted({n.id for access in (a, b) for n in ast.walk(access.node)
                   if isinstance(n, ast.Name) and n.id in (ints or {})
                   and n.id not in params})
    if used:
        message += " (with this call's %s)" % ", ".join(
            "%s = %d" % (name, ints[name]) for name in used)
    node = a.node if a.write else b.node
    error = src.error(RaceError, node, message, hint=HINT)
    if strict:
        raise error
    warnings.warn(RaceWarning(str(error)), stacklevel=4)
