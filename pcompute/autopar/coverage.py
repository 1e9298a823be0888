"""Arrays a loop nest only writes, and writes whole (or a whole box of):
their values before the call are never seen, so a device backend need not
copy them to the device (:class:`~.residency.Residency` gives them a device
array without filling it, and copies back only the box written).

An array qualifies in a nest of a call (:func:`fresh_outputs`) when

- statically, among the nests that run between two plain Python statements
  (a *segment*: the arrays stay on the device through it), its name appears
  once: as the target of ``name[v0, v1, ...] = expr`` (one target, ``=``);
- that statement is a top-level statement of the innermost loop of a chain
  of perfectly nested ``for`` loops starting at the nest's loop (each loop
  the only statement of its parent's body, no ``else``), and no statement
  before it in that body can leave the iteration (``break``/``continue``
  outside a loop of their own, ``return``, ``raise``);
- at this call every loop of the chain has step 1, a known trip count and a
  start that is a number, no ``break`` or ``continue`` of its own, its
  variable is not assigned in the body, and the subscripts are distinct
  loop variables whose ranges lie within ``0 .. shape[d] - 1`` (the box
  written: the whole array when they are exactly that; jacobi's interior
  ``range(1, n - 1)`` otherwise);
- no other name the segment uses holds the same array (or memory of it).

Then the nest, run as plain Python would run it, writes every element of the
box; a parallel run writes the same elements, and no other.
"""
import ast

from .residency import is_array, same_memory


def segments(steps):
    """For each step index of a nest, the indices of the nests of its
    segment (the nests between two other statements)."""
    out, run = {}, []
    for k, step in enumerate(list(steps) + [None]):
        if step is not None and step.kind == "nest":
            run.append(k)
            continue
        for j in run:
            out[j] = tuple(run)
        run = []
    return out


def _name_count(trees, name):
    return sum(1 for tree in trees for n in ast.walk(tree)
               if isinstance(n, ast.Name) and n.id == name)


def sole_stores(nest, others):
    """Names whose only appearance in ``nest`` and the ``others`` nests of its
    segment is the one target of an ``=`` to a subscript of them."""
    out = set()
    for node in ast.walk(nest):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
                name = target.value.id
                if _name_count([nest] + list(others), name) == 1:
                    out.add(name)
    return frozenset(out)


def _leaves(node, in_loop=False):
    """True when running ``node`` may end the enclosing iteration early."""
    if isinstance(node, (ast.Return, ast.Raise)):
        return True
    if isinstance(node, (ast.Break, ast.Continue)):
        return not in_loop
    if isinstance(node, (ast.For, ast.While)):
        return any(_leaves(c, True) for c in node.body) or \
            any(_leaves(c, in_loop) for c in node.orelse)
    return any(_leaves(c, in_loop) for c in ast.iter_child_nodes(node))


def _stored_names(node):
    """The names stored anywhere in the body of the loop ``node`` (kept on
    the node: the source does not change between calls)."""
    names = getattr(node, "pc_stored_names", None)
    if names is None:
        names = node.pc_stored_names = frozenset(
            n.id for stmt in node.body for n in ast.walk(stmt)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
    return names


def _chain(loop):
    """The perfectly nested loops from ``loop`` inwards."""
    chain = [loop]
    while True:
        lp = chain[-1]
        body = lp.node.body
        if len(body) != 1 or not isinstance(body[0], ast.For):
            return chain
        inner = [c for c in lp.children if c.node is body[0]]
        if not inner:
            return chain
        chain.append(inner[0])


def _ranges(chain):
    """{variable: (start, count)} of the chain's loops, or None when one is
    not a plain counted loop at this call."""
    ranges = {}
    for lp in chain:
        if not isinstance(lp.node, ast.For) or lp.node.orelse or lp.var is None:
            return None
        if lp.step != 1 or lp.count is None or lp.lo is None or lp.lo.coeffs:
            return None
        if lp.has_break or lp.continue_line:
            return None
        ranges[lp.var] = (lp.lo.const, lp.count)
    return ranges


def covers(loop, name, shape):
    """True when the nest at ``loop`` (its :class:`~.nest.Loop`, evaluated
    at this call) writes every element of the array ``name`` of ``shape``
    through one unconditional ``name[v0, ...] = ...`` (see the module
    docstring)."""
    return covered_box(loop, name, shape) == full_box(shape)


def full_box(shape):
    """The box of every element of an array of ``shape``."""
    return tuple((0, extent) for extent in shape)


def covered_box(loop, name, shape):
    """``((start, stop), ...)`` per axis: the box of the array ``name`` of
    ``shape`` that the nest at ``loop`` (evaluated at this call) writes at
    every element, and outside which it writes none, through one
    unconditional ``name[v0, ...] = ...`` (see the module docstring); None
    when there is no such statement."""
    chain = _chain(loop)
    ranges = _ranges(chain)
    if ranges is None:
        return None
    body = chain[-1].node.body
    if not _stored_names(chain[-1].node).isdisjoint(ranges):
        return None                     # a loop variable changed in the body
    for k, stmt in enumerate(body):
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
            continue
        target = stmt.targets[0]
        if not (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)
                and target.value.id == name):
            continue
        index = target.slice
        subs = index.elts if isinstance(index, ast.Tuple) else [index]
        if len(subs) != len(shape) or not all(
                isinstance(s, ast.Name) and s.id in ranges for s in subs):
            return None
        indexed = {s.id for s in subs}
        if len(indexed) != len(subs):
            return None
        if any(count < 1 for var, (_, count) in ranges.items() if var not in indexed):
            return None                 # a loop around the store that never runs
        box = tuple((ranges[s.id][0], ranges[s.id][0] + ranges[s.id][1]) for s in subs)
        if any(not 0 <= lo <= hi <= extent for (lo, hi), extent in zip(box, shape)):
            return None
        return None if any(_leaves(s) for s in body[:k]) else box
    return None


def fresh_outputs(step, loop, scope, segment_names):
    """``[(name, box), ...]``: the arrays that the nest ``step`` (its loop
    ``loop`` evaluated at this call) writes whole in ``box`` (and nowhere
    else) and that nothing else of its segment uses (``segment_names``:
    every name of the segment's nests)."""
    out = []
    for name in step.sole_stores:
        value = scope.get(name)
        box = covered_box(loop, name, getattr(value, "shape", ())) if is_array(value) else None
        if box is None:
            continue
        if any(other != name and is_array(scope.get(other))
               and same_memory(scope[other], value) for other in segment_names):
            continue
        out.append((name, box))
    return out
