"""Array reductions carried by an outer loop, run by moving that loop inside.

``for i: for j: colsum[j] += a[i, j]`` carries a dependence on ``i`` (every
``i`` updates every ``colsum[j]``), so ``i`` is sequential, while ``j`` is
parallel.  When every dependence the outer loop carries is between updates
``x[s] op= e`` whose subscripts ``s`` do not use the outer loop's variable
(and ``x`` is accessed nowhere else in the nest), each element of ``x``
belongs to one iteration of the parallel inner loops: interchanging the
loops is legal and keeps every element's updates in their order.  The inner
parallel loops then go on the launch and the outer loop runs inside each
item (:func:`interchanged_kernel`), instead of one launch per outer
iteration or one sequential kernel.
"""
import ast

from .analysis import SEQUENTIAL
from .lower import (INDEX, LO, STEP, KernelText, _finish, _loaded, _segment, _stored,
                    counter, fastest_last)


def _update_targets(loop):
    """The Subscript nodes that are targets of ``x[s] op= e`` in ``loop``."""
    return {id(n.target) for n in ast.walk(loop.node)
            if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Subscript)}


def reduction_arrays(loop, report, canon):
    """The arrays whose updates are the only dependences ``loop`` carries, if
    the loop can move inside the parallel loops it encloses; else None."""
    verdict = report.verdict(loop)
    if verdict.kind != SEQUENTIAL or verdict.scalar_reasons or verdict.reductions \
            or not verdict.pairs or loop.var is None or loop.has_break:
        return None
    arrays = {canon(a.array) for pair in verdict.pairs for a in pair}
    targets = _update_targets(loop)
    for acc in report.accesses:
        if loop not in acc.loops or canon(acc.array) not in arrays:
            continue
        if id(acc.node) not in targets or acc.subs is None or any(
                loop.counter in s.variables for s in acc.subs):
            return None
    return sorted(arrays)


def interchanged_kernel(lines, outer, prefix, names_in_ns):
    """The kernel of ``outer`` (a range loop) around the perfectly nested
    parallel loops ``prefix``: the prefix loops are the launch (in
    :func:`fastest_last` order) and ``outer`` runs inside each item."""
    inner = prefix[-1].node
    body = inner.body
    first, last = body[0].lineno, max(s.end_lineno for s in body)
    assigned = _stored(body) | {lp.var for lp in prefix} | {outer.var}
    params = tuple(n for n in _loaded([outer.node.iter] + body)
                   if n in names_in_ns and n not in assigned)
    dims = len(prefix)
    order = fastest_last(prefix)
    sig = [INDEX % d for d in range(dims)] + list(params)
    sig += [p for d in range(dims) for p in (LO % d, STEP % d)]
    pieces = [(outer.node.lineno, "    for %s in %s:" % (outer.var,
                                                       ast.unparse(outer.node.iter)))]
    for k, lp in enumerate(prefix):
        pieces.append((lp.node.lineno, "        " + counter(lp.node, order.index(k))))
    for k, text in enumerate(_segment(lines, first, last)):
        pieces.append((first + k, "        " + text if text.strip() else ""))
    kernel = _finish(pieces, sig, dims, params, (), False)
    return KernelText(kernel.source, kernel.name, dims, params, (), False, order)


__all__ = ["reduction_arrays", "interchanged_kernel"]
