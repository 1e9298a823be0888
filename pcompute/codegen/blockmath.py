"""Straight-line items with math calls, run in blocks of items by phases.

A 1-D Elementwise whose item is straight-line code (assignments only: no
``if``, loop, helper call or ``return``) and calls math functions that the C
library computes in a call (``exp``, ``log``, ... : :data:`.lanemath.LANE_FUNCS`)
is printed, on the Cython backend for the host CPU, as a function over a
range of items that takes them :data:`BLOCK` at a time.  The item is cut at
each such call (in Python's evaluation order, innermost first) into phases,
each a loop over the block's items:

- a phase runs the item's statements up to a call and stores the call's
  arguments, one array slot per item;
- a call loop calls the C library's scalar function on each slot;
- the next phase reads the results from the slots and goes on.

Locals used in more than one phase live in one slot per item; integer locals
computed from the item index and scalar arguments alone are computed again in
every phase (kept out of memory, so that the phases' array accesses stay
contiguous and vectorise).  GCC vectorises the phases' arithmetic; the call
loops call the scalar functions directly, one after the other on
independent slots, so the processor overlaps them, and no value is spilled
around a call.  Every call receives the argument the item loop would give it
and the statements run in the same order for each item, so the results are
bit-identical to the item-by-item loop (and to the lane wrappers' build).

Against the lane wrappers (:mod:`.lanemath`), whose vector loop calls one
wrapper per call and 4 lanes (a realigned frame, the loop's vectors spilled
around each call), black-scholes (3 exp and 1 log per item, 2^20 items) ran in
0.84x the CPU time (blocks of 64; 16: 0.88x, 256: 0.86x), one thread, AMD EPYC,
GCC 12, a C copy of both loops alternated in one process.

Items of one block run phase by phase, so item k + 1's first phase runs
before item k's last: only kernels each of whose items reads and writes its
own elements of the arrays it writes take this form (see :func:`plan`), and
no @serial kernel (the backend's choice).
"""
import ast
from dataclasses import dataclass

from .cfamily import Code
from .lanemath import LANE_FUNCS

#: Items per block (see the module's figures).
BLOCK = 64

_EXPRS = (ast.Name, ast.Constant, ast.BinOp, ast.UnaryOp, ast.Subscript, ast.Tuple,
          ast.Attribute, ast.Compare, ast.IfExp, ast.BoolOp, ast.Call,
          ast.operator, ast.unaryop, ast.cmpop, ast.boolop, ast.expr_context)
#: Builtins an item may call besides math functions (pure, printed inline).
_PURE_BUILTINS = frozenset(("min", "max", "abs", "int", "float"))


@dataclass(frozen=True)
class Plan:
    """How a kernel's item runs in blocks: ``phases`` (one more than
    ``calls``) hold ``("args", j)`` (store call j's arguments) and
    ``("stmt", node)`` entries; ``calls`` the lane calls in evaluation order;
    ``slots`` the locals kept one per item; ``recomputed`` the assignments of
    the integer locals computed again at the start of every phase."""
    phases: tuple
    calls: tuple
    slots: tuple
    recomputed: tuple


def plan(program, lane_math):
    """The :class:`Plan` of ``program``'s item, or None when it does not run
    in blocks (not built with lane math, not 1-D, helpers, bounds checks, a
    statement other than an assignment, an argument assigned, a lane call
    under a condition, an array written at an element other items may touch
    (:func:`_own_elements`), no lane call)."""
    fn = program.entry
    if not lane_math or program.index_dims != 1 or program.bounds_check or \
            len(program.functions) != 1 or fn.features or fn.chains or fn.swaps or \
            fn.declares or any(t.shape for _, t in fn.locals):
        return None
    index = fn.args[0][0]
    body = [s for s in fn.tree.body if not _docstring(s)]
    for stmt in body:
        if not _straight(fn, stmt, index):
            return None
    if not _own_elements(fn, body, index):
        return None
    phases, calls = [[]], []
    for stmt in body:
        for call in _lane_calls(fn, stmt):
            phases[-1].append(("args", len(calls)))
            calls.append(call)
            phases.append([])
        phases[-1].append(("stmt", stmt))
    if not calls:
        return None
    seen = {}
    for p, phase in enumerate(phases):
        for entry in phase:
            node = calls[entry[1]] if entry[0] == "args" else entry[1]
            for name in _names(fn, node, entry[0] == "args"):
                seen.setdefault(name, set()).add(p)
    crossing = [name for name, ps in seen.items() if len(ps) > 1 and name != index]
    recomputed = _recomputable(fn, body, index, crossing)
    drop = {id(s) for s in recomputed}
    phases = tuple(tuple(e for e in phase if e[0] == "args" or id(e[1]) not in drop)
                   for phase in phases)
    defined = {s.targets[0].id for s in recomputed}
    slots = tuple(sorted(name for name in crossing if name not in defined))
    return Plan(phases, tuple(calls), slots, tuple(recomputed))


def _docstring(stmt):
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)


def _is_lane(fn, node):
    if not isinstance(node, ast.Call):
        return False
    kind, name = fn.calls.get(id(node), ("", ""))
    return kind == "math" and name in LANE_FUNCS and fn.type_of(node).base in (
        "float", "double")


def _straight(fn, stmt, index):
    """True if ``stmt`` is an assignment of pure expressions to a local or an
    array element (not the index), with no lane call under a condition."""
    if isinstance(stmt, ast.Pass):
        return True
    if isinstance(stmt, ast.Assign):
        if len(stmt.targets) != 1:
            return False
        target = stmt.targets[0]
    elif isinstance(stmt, ast.AugAssign):
        if any(fn.augs.get(id(stmt)) or ()):
            return False
        target = stmt.target
    else:
        return False
    if isinstance(target, ast.Name):
        if any(target.id == name for name, _ in fn.args) or \
                not fn.type_of(target).is_scalar:
            return False          # an argument: one per item in the item function
    elif not isinstance(target, ast.Subscript):
        return False
    for node in ast.walk(stmt):
        if node is stmt:
            continue
        if not isinstance(node, _EXPRS):
            return False
        if isinstance(node, ast.Call):
            kind, name = fn.calls.get(id(node), ("", ""))
            if kind != "math" and not (kind == "builtin" and name in _PURE_BUILTINS):
                return False
        if isinstance(node, (ast.IfExp, ast.BoolOp)) and any(
                _is_lane(fn, sub) for sub in ast.walk(node)):
            return False          # a call Python may not make
    return True


def _own_elements(fn, body, index):
    """True if each array the item writes is read and written only at one
    element of the item's own: every subscript of it is one name, the same,
    holding the index or the index plus a constant.  Items of a block then
    never touch an element another item touches, and running them phase by
    phase changes no value, whatever order items are run in (an item reading
    the element an earlier item wrote keeps the item loop: the serial build
    then still runs the items in order)."""
    stores = _store_counts(body)
    own = {index}
    for stmt in body:
        if isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name) and \
                stores[stmt.targets[0].id] == 1 and _shifted(stmt.value, own):
            own.add(stmt.targets[0].id)
    subscripts = {}
    for stmt in body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
                subscripts.setdefault(node.value.id, []).append(node)
    for stmt in body:
        target = stmt.targets[0] if isinstance(stmt, ast.Assign) else \
            getattr(stmt, "target", None)
        if isinstance(target, ast.Subscript):
            names = {getattr(s.slice, "id", None) for s in subscripts[target.value.id]}
            if len(names) != 1 or names.pop() not in own:
                return False
    return True


def _store_counts(body):
    """``{name: how many times the statements of ``body`` store it}``."""
    count = {}
    for stmt in body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                count[node.id] = count.get(node.id, 0) + 1
    return count


def _shifted(value, own):
    """True if ``value`` is a name of ``own``, plus or minus an int literal."""
    if isinstance(value, ast.Name):
        return value.id in own
    if isinstance(value, ast.BinOp) and isinstance(value.op, (ast.Add, ast.Sub)):
        a, b = value.left, value.right
        lit = lambda n: isinstance(n, ast.Constant) and type(n.value) is int  # noqa: E731
        return (isinstance(a, ast.Name) and a.id in own and lit(b)) or (
            isinstance(value.op, ast.Add) and lit(a) and isinstance(b, ast.Name)
            and b.id in own)
    return False


def _lane_calls(fn, stmt):
    """The lane calls of ``stmt`` in evaluation order (arguments first)."""
    out = []

    def visit(node):
        for child in ast.iter_child_nodes(node):
            visit(child)
        if _is_lane(fn, node):
            out.append(node)
    value = stmt.value if not isinstance(stmt, ast.Pass) else None
    if value is not None:
        visit(value)
    return out


def _names(fn, node, args_only):
    """Local names ``node`` reads or writes, not looking into lane calls (a
    call's result is its slot); with ``args_only`` those of call ``node``'s
    arguments."""
    out = set()
    local = {name for name, _ in fn.locals} | {fn.args[0][0]}

    def visit(n):
        if _is_lane(fn, n):
            return
        if isinstance(n, ast.Name) and n.id in local:
            out.add(n.id)
        for child in ast.iter_child_nodes(n):
            visit(child)
    for child in (node.args if args_only else [node]):
        visit(child)
    return out


def _recomputable(fn, body, index, crossing):
    """The assignments of the crossing integer locals assigned once, from the
    index, scalar arguments, constants and such locals (in body order)."""
    count = _store_counts(body)
    scalars = {name for name, t in fn.args if t.is_scalar}
    ok, out = {index}, []
    for stmt in body:
        if not isinstance(stmt, ast.Assign) or not isinstance(stmt.targets[0], ast.Name):
            continue
        name = stmt.targets[0].id
        if name not in crossing or count.get(name) != 1 or \
                not fn.type_of(stmt.targets[0]).is_int:
            continue
        nodes = list(ast.walk(stmt.value))
        if all(isinstance(n, (ast.Name, ast.Constant, ast.BinOp, ast.UnaryOp,
                              ast.operator, ast.unaryop, ast.expr_context)) for n in nodes) \
                and all(n.id in ok or n.id in scalars
                        for n in nodes if isinstance(n, ast.Name)):
            ok.add(name)
            out.append(stmt)
    return out


def block_source(printer, plan):
    """The Cython text of ``<entry>_block(pc_lo, pc_hi, <the entry's arguments
    after the index>)``: items pc_lo .. pc_hi - 1 by blocks (see the module)."""
    fn = printer.fn = printer.program.entry
    printer.note_structs(fn)
    index, itype = fn.args[0]
    code = Code()
    params = ", ".join(printer.param(fn.cname(n), t) for n, t in fn.args[1:])
    code.add("cdef inline void %s_block(long long pc_lo, long long pc_hi%s) noexcept nogil:"
             % (fn.c_name, ", " + params if params else ""))
    code.level += 1
    code.add("cdef long long pc_b, pc_k, pc_m")
    code.add("cdef %s %s" % (printer.type_name(itype), fn.cname(index)))
    slots = set(plan.slots)
    for name, t in fn.locals:
        if name in slots:
            code.add("cdef %s pc_bk_%s[%d]" % (printer.type_name(t), fn.cname(name), BLOCK))
        else:
            code.add("cdef %s %s" % (printer.type_name(t), fn.cname(name)))
    for j, call in enumerate(plan.calls):
        for a in range(len(call.args)):
            code.add("cdef %s %s[%d]" % (printer.type_name(fn.type_of(call)),
                                         _slot(j, a), BLOCK))
    printer.block_names = {name: "pc_bk_%s[pc_k]" % fn.cname(name) for name in slots}
    printer.block_calls = {id(call): "%s[pc_k]" % _slot(j, 0)
                           for j, call in enumerate(plan.calls)}
    code.add("for pc_b in range(pc_lo, pc_hi, %d):" % BLOCK)
    code.level += 1
    code.add("pc_m = min(%d, pc_hi - pc_b)" % BLOCK)
    for p, phase in enumerate(plan.phases):
        code.add("for pc_k in range(pc_m):")
        code.level += 1
        code.add("%s = pc_b + pc_k" % fn.cname(index))
        printer.block(code, plan.recomputed)
        for kind, what in phase:
            if kind == "stmt":
                printer.block(code, [what])
                continue
            call = plan.calls[what]
            result = fn.type_of(call)
            for a, arg in enumerate(call.args):
                code.add("%s[pc_k] = %s" % (_slot(what, a), printer.as_type(
                    printer.expr(arg), fn.type_of(arg), result)))
        code.level -= 1
        if p < len(plan.calls):
            call = plan.calls[p]
            result = fn.type_of(call)
            cname = printer.unwrapped_call(
                printer.c_math_name(fn.calls[id(call)][1], result.base), result.base)
            code.add("for pc_k in range(pc_m):")
            code.add("    %s[pc_k] = %s(%s)" % (_slot(p, 0), cname, ", ".join(
                "%s[pc_k]" % _slot(p, a) for a in range(len(call.args)))))
    printer.block_names, printer.block_calls = {}, {}
    return code.text()


def _slot(j, a):
    """The array of call j's argument a (a = 0 also holds the result)."""
    return "pc_bc%d" % j + ("" if a == 0 else "_%d" % a)
