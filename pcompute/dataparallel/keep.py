"""Lazy values stored by the reduction that first computes them.

A lazy sequence bound to a name that the function returns and reads again
before (``r2 = map(...)``; ``rz = sum(map(..., r2))``; ``return r2, rz``)
is computed by the reduction and then again by the kernel storing the
result: its inputs are read twice.  Such a value is marked ``keep``
(:func:`mark`): the first reduction phase that computes its item ``i`` in
the kernel's body also writes it to a new array (the reduction's map
function stores it, then returns its own value), and from then on the value
reads that array (:attr:`~.values.Lazy.stored`).  The CSR product of the PCG
sample and its ``p.q`` become one kernel this way, and the update of ``r``
is stored by the reduction of ``r.z`` and ``r.r``.

Writes from a reduction's map function happen once per item on every
backend (a tuple reduction writes from its first component's function).
"""
import ast

from .values import Lazy, Stored

#: Calls whose arguments are reduced (their maps run in a reduction phase).
REDUCERS = {"sum", "reduce", "min", "max"}


def mark(target, value, later):
    """Mark ``value`` (bound to ``target``) ``keep`` when the function's
    return gives it and it is read at least twice in the statements
    ``later``; a value whose element function loops (heavy) only when every
    other read is inside a reduction in the return statement (else it is
    better stored by its own kernel: returns False)."""
    ret = next((st for st in later if isinstance(st, ast.Return)), None)
    if ret is None or not isinstance(value, Lazy) or not _returned(target.id, ret.value):
        return False
    loads = [n for st in later for n in ast.walk(st) if _load(n, target.id)]
    if len(loads) < 2:
        return False
    if value.heavy:
        inside = {id(n) for call in ast.walk(ret.value) if _reducer(call)
                  for n in ast.walk(call) if _load(n, target.id)}
        top = ret.value.elts if isinstance(ret.value, ast.Tuple) else [ret.value]
        direct = {id(n) for n in top if _load(n, target.id)}
        if any(id(n) not in inside | direct for n in loads):
            return False
    value.keep = True
    return True


def writes(prog, b, n):
    """Lines storing the kept values computed at item ``i`` by the kernel
    being built in ``b`` (of ``n`` items), into new arrays; ``done()``
    (the second result), called after the kernel's launch, makes them
    stored."""
    lines, pending = [], []
    for lazy, name in b.kept.values():
        if lazy.stored is None and lazy.n == n:
            out = prog.trace.empty(n, lazy.dtype)
            lines.append("%s[i] = %s" % (b.array(out), name))
            pending.append((lazy, out))

    def done():
        for lazy, out in pending:
            lazy.stored = Stored(out)
    return lines, done


def _returned(name, value):
    elts = value.elts if isinstance(value, ast.Tuple) else [value]
    return any(isinstance(e, ast.Name) and e.id == name for e in elts)


def _load(node, name):
    return isinstance(node, ast.Name) and node.id == name


def _reducer(node):
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
        node.func.id in REDUCERS
