"""Scalars assigned inside a loop: private temporaries, reductions, or carried.

For a loop ``L`` and a scalar ``s`` assigned in its body:

- *private* when the first thing ``L``'s body does with ``s`` (in execution
  order) is an unconditional assignment: every iteration sets it before use;
- a *reduction* when every access of ``s`` in the body is an update
  ``s += e``, ``s *= e``, ``s = s + e``, ``s = max(s, e)``, ``s = min(s, e)``
  with one operator and ``e`` not reading ``s``;
- *carried* otherwise (an iteration reads what the previous one wrote).
"""
import ast
from dataclasses import dataclass

_AUG_OPS = {ast.Add: "+", ast.Mult: "*", ast.BitOr: "|", ast.BitAnd: "&"}
_CALL_OPS = ("max", "min")


@dataclass(frozen=True)
class ScalarUse:
    """How loop ``L`` uses scalar ``name``: kind is private/reduction/carried."""
    name: str
    kind: str
    op: str = None
    lineno: int = 0


def _reads(node, name):
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)
               for n in ast.walk(node))


def update_op(stmt):
    """(name, op) when ``stmt`` is a reduction update of a scalar, else None."""
    if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
        op = _AUG_OPS.get(type(stmt.op))
        name = stmt.target.id
        if op and not _reads(stmt.value, name):
            return name, op
        if isinstance(stmt.op, ast.Sub) and not _reads(stmt.value, name):
            return name, "+"          # s -= e is s += (-e)
        return None
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)):
        return None
    name, value = stmt.targets[0].id, stmt.value
    if isinstance(value, ast.BinOp) and type(value.op) in _AUG_OPS:
        left, right = value.left, value.right
        for mine, other in ((left, right), (right, left)):
            if isinstance(mine, ast.Name) and mine.id == name and not _reads(other, name):
                return name, _AUG_OPS[type(value.op)]
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) \
            and value.func.id in _CALL_OPS and len(value.args) == 2 and not value.keywords:
        a, b = value.args
        for mine, other in ((a, b), (b, a)):
            if isinstance(mine, ast.Name) and mine.id == name and not _reads(other, name):
                return name, value.func.id
    return None


def _events(stmts, top, out):
    """Append (name, event, op, top, lineno) in execution order; event is
    load, store or update."""
    for stmt in stmts:
        upd = update_op(stmt)
        if upd is not None:
            value = stmt.value
            for n in ast.walk(value):
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) \
                        and n.id != upd[0]:
                    out.append((n.id, "load", None, top, stmt.lineno))
            out.append((upd[0], "update", upd[1], top, stmt.lineno))
        elif isinstance(stmt, (ast.For, ast.While)):
            head = stmt.iter if isinstance(stmt, ast.For) else stmt.test
            _loads(head, top, out)
            if isinstance(stmt, ast.For):
                # a loop target is set before every use inside its loop
                _stores(stmt.target, True, out)
            _events(stmt.body, False, out)
            _events(stmt.orelse, False, out)
        elif isinstance(stmt, ast.If):
            _loads(stmt.test, top, out)
            _events(stmt.body, False, out)
            _events(stmt.orelse, False, out)
        elif isinstance(stmt, ast.Assign):
            _loads(stmt.value, top, out)
            for t in stmt.targets:
                _loads_in_target(t, top, out)
                _stores(t, top, out)
        elif isinstance(stmt, (ast.AugAssign, ast.AnnAssign)):
            if stmt.value is not None:
                _loads(stmt.value, top, out)
            if isinstance(stmt.target, ast.Name):
                if isinstance(stmt, ast.AugAssign):
                    out.append((stmt.target.id, "load", None, top, stmt.lineno))
                out.append((stmt.target.id, "store", None, top, stmt.lineno))
            else:
                _loads(stmt.target, top, out)
        else:
            _loads(stmt, top, out)


def _loads(node, top, out):
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
            out.append((n.id, "load", None, top, getattr(n, "lineno", 0)))


def _loads_in_target(target, top, out):
    if isinstance(target, ast.Subscript):
        _loads(target.slice, top, out)
    elif isinstance(target, (ast.Tuple, ast.List)):
        for elt in target.elts:
            _loads_in_target(elt, top, out)


def _stores(target, top, out):
    if isinstance(target, ast.Name):
        out.append((target.id, "store", None, top, target.lineno))
    elif isinstance(target, (ast.Tuple, ast.List)):
        for elt in target.elts:
            _stores(elt, top, out)


def scalar_uses(loop_node, arrays):
    """:class:`ScalarUse` of each scalar assigned in the body of ``loop_node``
    (names in ``arrays`` are skipped; the loop's own variable is private)."""
    events = []
    _events(loop_node.body, True, events)
    own = loop_node.target.id if isinstance(loop_node, ast.For) and \
        isinstance(loop_node.target, ast.Name) else None
    assigned = {e[0] for e in events if e[1] in ("store", "update")}
    result = []
    for name in sorted(assigned - set(arrays) - {own}):
        mine = [e for e in events if e[0] == name]
        first = mine[0]
        line = next(e[4] for e in mine if e[1] != "load")
        if (first[1] == "store" and first[3]) or _private_inside(loop_node, name):
            result.append(ScalarUse(name, "private", None, line))
        elif all(e[1] == "update" for e in mine) and len({e[2] for e in mine}) == 1:
            result.append(ScalarUse(name, "reduction", mine[0][2], line))
        else:
            result.append(ScalarUse(name, "carried", None, line))
    return result


def _count(node, name):
    return sum(1 for n in ast.walk(node) if isinstance(n, ast.Name) and n.id == name)


def _private_inside(loop_node, name):
    """True when a loop nested in ``loop_node`` holds every use of ``name`` and
    sets it, unconditionally, before any use in each of its iterations."""
    total = sum(_count(stmt, name) for stmt in loop_node.body)
    for inner in ast.walk(loop_node):
        if inner is loop_node or not isinstance(inner, (ast.For, ast.While)):
            continue
        if sum(_count(stmt, name) for stmt in inner.body) != total:
            continue
        events = []
        _events(inner.body, True, events)
        mine = [e for e in events if e[0] == name]
        if mine and mine[0][1] == "store" and mine[0][3]:
            return True
    return False


def live_after(stmts):
    """Names whose value on entry to ``stmts`` may be read: their first use
    in execution order is a read (a name first assigned is not live)."""
    events = []
    _events(stmts, True, events)
    first = {}
    for name, kind, _, _, _ in events:
        first.setdefault(name, kind)
    return {name for name, kind in first.items() if kind == "load"}
