"""Kernel-language functions for the loop nests of a parallelised function.

A parallel nest ``for i in range(lo, hi, st): for j in ...: body`` becomes
an Elementwise kernel over the counters of its parallel loops::

    def autopar_nest_<hash>(autopar_t0, autopar_t1, a, b, n, autopar_lo0, ...
        i = autopar_lo0 + autopar_st0 * autopar_t0
        j = autopar_lo1 + autopar_st1 * autopar_t1
        body                       # the user's lines, sequential loops inside

and a sequential nest becomes a one-item kernel holding the whole nest, with
the scalars it updates passed in (and back) through one-element arrays.  The
user's lines keep their line numbers in the generated text (blank lines pad
it), so the kernel language's errors point at the user's file.  Only Python
text in the kernel subset is written here: the front end and the backends do
the rest.
"""
import ast
import hashlib
import textwrap
from dataclasses import dataclass

from ..codegen.work import long_loop
from .nest import range_args

INDEX = "autopar_t%d"
LO, STEP = "autopar_lo%d", "autopar_st%d"
BOX = "autopar_box_%s"


@dataclass(frozen=True)
class KernelText:
    """A generated kernel: its source, name, index count and parameters."""
    source: str
    name: str
    dims: int
    params: tuple            # user names passed as arguments, in order
    boxes: tuple             # scalars passed through one-element arrays
    serial: bool
    order: tuple = ()        # launch dimension d runs loop prefix[order[d]]
    parallel_items: bool = False  # few long items, one per thread (speculation)
    uneven: bool = False     # items may do unequal work (see :func:`uneven_items`)
    heavy: bool = False      # items run loops of non-constant length
    early_exit: bool = False  # items run a loop with a ``break``


def _segment(lines, first, last):
    """Lines ``first..last`` (1-based, inclusive) of ``lines``, dedented."""
    return textwrap.dedent("\n".join(lines[first - 1:last])).splitlines()


def _loaded(nodes):
    out = []
    for node in nodes:
        for n in ast.walk(node):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id not in out:
                out.append(n.id)
    return out


def _stored(nodes):
    return {n.id for node in nodes for n in ast.walk(node)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def _layout(pieces, first_line):
    """Source text placing (line, text) pieces at their line numbers when they
    fit, else one after the other."""
    out = []
    aligned = first_line > 1 and all(
        b[0] > a[0] for a, b in zip(pieces, pieces[1:])) and pieces[0][0] >= 1
    if not aligned:
        return "\n".join(text for _, text in pieces) + "\n"
    for line, text in pieces:
        while len(out) < line - 1:
            out.append("")
        out.append(text)
    return "\n".join(out) + "\n"


def fastest_last(prefix):
    """The launch order of the ``prefix`` loops (all parallel, so any order is
    legal): the loop whose variable appears most in the last subscript of the
    array accesses goes last (the fastest axis), the others keep their order.
    This is the loop interchange that makes ``for j: for i: a[i, j]`` walk
    memory contiguously."""
    body = prefix[-1].node.body
    score = {lp.var: 0 for lp in prefix}
    for stmt in body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Subscript):
                index = node.slice
                last = index.elts[-1] if isinstance(index, ast.Tuple) else index
                for n in ast.walk(last):
                    if isinstance(n, ast.Name) and n.id in score:
                        score[n.id] += 1
    order = list(range(len(prefix)))
    best = max(order, key=lambda k: (score[prefix[k].var], k))
    order.remove(best)
    return tuple(order + [best])


def _literal(node):
    """The int of a literal range argument (``3``, ``-1``), else None."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        value = _literal(node.operand)
        return None if value is None else -value
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    return None


def counter(node, d):
    """The statement setting the variable of loop ``node`` (a range loop
    launched on dimension ``d``) from the item index.  Its start and step
    are arguments of the kernel (``autopar_lo<d>``, ``autopar_st<d>``),
    except where the user's ``range`` spells them as literals: those are
    written as literals, as the user wrote them (a literal start, a step of
    1 left out), so that the C compiler sees unit-stride accesses it can
    vectorise (``for j in range(1, n - 1)``: ``j = 1 + autopar_t1``)."""
    args = range_args(node)
    lo = _literal(args[0]) if len(args) > 1 else 0
    step = _literal(args[2]) if len(args) == 3 else 1
    var, index = node.target.id, INDEX % d
    start = LO % d if lo is None else str(lo)
    if step is None:
        return "%s = %s + %s * %s" % (var, start, STEP % d, index)
    scaled = index if step == 1 else "%d * %s" % (step, index)
    return "%s = %s + %s" % (var, start, scaled) if start != "0" else "%s = %s" % (var, scaled)


def uneven_items(body, launched):
    """True when the items of a kernel running ``body`` over the launched
    loop variables ``launched`` may do unequal work: an inner ``range`` loop
    whose bounds name a launched variable (a triangular nest), a ``while``,
    or a ``break`` (an early exit)."""
    for stmt in body:
        for node in ast.walk(stmt):
            if isinstance(node, (ast.While, ast.Break)):
                return True
            if isinstance(node, ast.For) and any(
                    isinstance(n, ast.Name) and n.id in launched
                    for n in ast.walk(node.iter)):
                return True
    return False


def parallel_kernel(lines, prefix, names_in_ns):
    """The kernel of a nest whose loops ``prefix`` (outermost first, perfectly
    nested, range loops) run on the launch domain, in :func:`fastest_last`
    order."""
    inner = prefix[-1].node
    body = inner.body
    first, last = body[0].lineno, max(s.end_lineno for s in body)
    assigned = _stored(body) | {lp.var for lp in prefix}
    params = tuple(n for n in _loaded(body) if n in names_in_ns and n not in assigned)
    dims = len(prefix)
    order = fastest_last(prefix)
    sig = [INDEX % d for d in range(dims)] + list(params)
    sig += [p for d in range(dims) for p in (LO % d, STEP % d)]
    pieces = []
    for k, lp in enumerate(prefix):
        pieces.append((lp.node.lineno, "    " + counter(lp.node, order.index(k))))
    for k, text in enumerate(_segment(lines, first, last)):
        pieces.append((first + k, "    " + text if text.strip() else ""))
    kernel = _finish(pieces, sig, dims, params, (), False)
    return KernelText(
        kernel.source, kernel.name, dims, params, (), False, order,
        uneven=uneven_items(body, {lp.var for lp in prefix}),
        heavy=any(long_loop(n) for stmt in body for n in ast.walk(stmt)),
        early_exit=any(isinstance(n, ast.Break) for stmt in body for n in ast.walk(stmt)))


def sequential_kernel(lines, nest, names_in_ns, boxes):
    """A one-item kernel running the whole ``nest``; ``boxes`` are the scalars
    it reads and updates, passed through one-element arrays."""
    first, last = nest.lineno, nest.end_lineno
    assigned = _stored([nest])
    params = tuple(n for n in _loaded([nest]) if n in names_in_ns and n not in assigned)
    sig = [INDEX % 0] + list(params) + [BOX % b for b in boxes]
    pieces = [(first - len(boxes) + k, "    %s = %s[0]" % (b, BOX % b))
              for k, b in enumerate(boxes)]
    for k, text in enumerate(_segment(lines, first, last)):
        pieces.append((first + k, "    " + text if text.strip() else ""))
    for k, b in enumerate(boxes):
        pieces.append((last + 1 + k, "    %s[0] = %s" % (BOX % b, b)))
    return _finish(pieces, sig, 1, params, tuple(boxes), True)


def _finish(pieces, sig, dims, params, boxes, serial):
    first = pieces[0][0]
    body = _layout(pieces, first)
    digest = hashlib.sha1((",".join(sig) + body).encode()).hexdigest()[:10]
    name = "autopar_nest_%s" % digest
    header = "def %s(%s):" % (name, ", ".join(sig))
    if body.startswith("\n" * (first - 1)) and first > 1:
        lines = body.split("\n")
        lines[first - 2] = header
        source = "\n".join(lines)
    else:
        source = header + "\n" + body
    return KernelText(source, name, dims, params, boxes, serial)


def perfect_prefix(loop, ok, max_dims=3):
    """The loops from ``loop`` inwards accepted by ``ok`` while each is the
    only statement of its parent's body (at most ``max_dims``)."""
    prefix = []
    while loop is not None and ok(loop) and len(prefix) < max_dims:
        prefix.append(loop)
        body = loop.node.body
        nxt = [c for c in loop.children if c.node is body[0]] if len(body) == 1 else []
        loop = nxt[0] if nxt and range_args(nxt[0].node) is not None else None
    return prefix


PART, INIT = "autopar_part_%s", "autopar_init_%s"


def reduction_kernel(lines, loop, names_in_ns, reductions):
    """The kernel of a loop whose only carried values are the scalar
    ``reductions`` (names): each item starts them from the neutral element
    (an argument), runs the body, and stores its partial value in
    ``autopar_part_<name>[item]``; the partials are reduced afterwards."""
    body = loop.node.body
    first, last = body[0].lineno, max(s.end_lineno for s in body)
    assigned = _stored(body) | {loop.var}
    params = tuple(n for n in _loaded(body)
                   if n in names_in_ns and n not in assigned)
    sig = [INDEX % 0] + list(params) + [LO % 0, STEP % 0]
    sig += [INIT % r for r in reductions] + [PART % r for r in reductions]
    head = "; ".join([counter(loop.node, 0)]
                     + ["%s = %s" % (r, INIT % r) for r in reductions])
    pieces = [(loop.node.lineno, "    " + head)]
    for k, text in enumerate(_segment(lines, first, last)):
        pieces.append((first + k, "    " + text if text.strip() else ""))
    tail = "; ".join("%s[%s] = %s" % (PART % r, INDEX % 0, r) for r in reductions)
    pieces.append((last + 1, "    " + tail))
    return _finish(pieces, sig, 1, params, tuple(reductions), False)


def aligned_store(text):
    """``(array, row start, column start)`` of a 2-D kernel of
    :func:`counter`-written loop variables (literal starts, step 1, launched
    in loop order) whose body stores ``array[i, j]`` of its two loop
    variables as a top-level statement, and runs no inner loop: the
    ``align_rows`` build option that aligns each row's store stream (see
    :mod:`pcompute.kernel_options`); None for any other kernel (items that
    run loops store rarely: gemm and conv-2d gained nothing, and the few
    items before the aligned one cost their share)."""
    if text.dims != 2 or tuple(text.order) != (0, 1):
        return None
    fdef = ast.parse(text.source).body[0]
    if any(isinstance(n, (ast.For, ast.While)) for n in ast.walk(fdef)):
        return None
    starts = {}
    for stmt in fdef.body:
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
            continue
        target, value = stmt.targets[0], stmt.value
        if isinstance(target, ast.Name):
            start, index = 0, value
            if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add) and \
                    isinstance(value.left, ast.Constant) and type(value.left.value) is int:
                start, index = value.left.value, value.right
            for d in (0, 1):
                if isinstance(index, ast.Name) and index.id == INDEX % d:
                    starts[d] = (target.id, start)
        elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and \
                target.value.id in text.params and len(starts) == 2 and \
                isinstance(target.slice, ast.Tuple) and \
                [getattr(e, "id", None) for e in target.slice.elts] == \
                [starts[0][0], starts[1][0]]:
            return (target.value.id, starts[0][1], starts[1][1])
    return None
