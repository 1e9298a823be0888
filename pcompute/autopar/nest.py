"""The structure of one loop nest: its loops and its array accesses.

:func:`collect` walks a ``for`` statement once per call (with the call's
values in ``env``) and returns the loops (with normalised bounds: ``v = lo +
step*t``, ``0 <= t < count``) and every access of an array (subscripts as
Affine expressions over the counters of the enclosing loops, or None when not
affine).  Which names are arrays is decided by ``is_array(name)``.
"""
import ast
from dataclasses import dataclass, field

from .affine import Affine, affine, constant, subscript_indices


@dataclass(eq=False)
class Loop:
    """One ``for`` (or ``while``) loop of a nest."""
    node: object
    var: str                # the loop variable (None for while)
    counter: str            # unique counter name used in subscripts
    depth: int
    parent: object = None
    count: object = None    # trip count at this call, None when unknown
    lo: object = None       # Affine start (over outer counters) or None
    hi: object = None       # Affine stop (over outer counters) or None
    step: object = None     # int step or None
    children: list = field(default_factory=list)
    has_break: bool = False
    continue_line: int = 0  # line of a continue of this loop (0: none)

    @property
    def lineno(self):
        return self.node.lineno

    def ancestors(self):
        """Enclosing loops, outermost first, this loop last."""
        chain, loop = [], self
        while loop is not None:
            chain.append(loop)
            loop = loop.parent
        return chain[::-1]


@dataclass(eq=False)
class Access:
    """One read or write of an array element (or an array passed whole)."""
    array: str
    node: object
    write: bool
    loops: tuple            # enclosing Loop objects, outermost first
    subs: object            # tuple of Affine, or None (not affine / whole array)
    order: int              # position in execution order within the nest
    text: str = ""
    guards: tuple = ()      # (Affine lhs - rhs, comparison op, holds) of enclosing ifs
    conditional: bool = False   # under a condition that is not an affine guard (bounds.py)
    call: object = None     # an array handed whole: the ast.Call it is an argument of
    call_args: tuple = ()   # that call's positional arguments, Affine over counters or None
    via: str = ""           # made by a helper (callee.py): the calls, "f(a, i) -> g(x, k)"
    atomic: bool = False    # an argument of an atomic_* call in a helper (race.py)


#: The atomics of the kernel language (pcompute.types), by name.
ATOMICS = ("atomic_inc", "atomic_dec", "atomic_max")


def atomic_called(call, namespace):
    """The name of the pcompute atomic that ``call`` calls, resolved in
    ``namespace`` (a function's globals: ``atomic_inc``, an alias of it, or
    ``pcompute.atomic_inc``), else None."""
    from .. import types
    func = call.func
    if isinstance(func, ast.Name):
        target = namespace.get(func.id)
    elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        target = getattr(namespace.get(func.value.id), func.attr, None)
    else:
        return None
    for name in ATOMICS:
        if target is not None and target is getattr(types, name):
            return name
    return None


def range_args(node):
    """The arguments of ``range(...)`` in ``for v in range(...)``, or None."""
    it = node.iter
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) \
            and it.func.id == "range" and 1 <= len(it.args) <= 3 and not it.keywords:
        return it.args
    return None


class _Collector(ast.NodeVisitor):
    def __init__(self, env, is_array, segment, opaque):
        self.env = env
        self.opaque = opaque     # names assigned in the nest: never read from env
        self.is_array = is_array
        self.segment = segment
        self.loops = []
        self.accesses = []
        self.stack = []
        self.subst = {}          # loop var -> Affine over counters
        self.order = 0
        self.guards = []
        self.unknown = 0         # depth of conditions not kept as guards

    # ---- loops
    def visit_For(self, node):
        loop = self._new_loop(node, node.target.id if isinstance(node.target, ast.Name)
                              else None)
        args = range_args(node)
        if args is not None and loop.var is not None:
            self._bounds(loop, args)
        for arg in ([node.iter] if args is None else args):
            self.visit(arg)
        self._body(loop, node.body)
        self._conditional(node.orelse)      # runs unless the loop breaks

    def visit_While(self, node):
        loop = self._new_loop(node, None)
        self.stack.append(loop)
        self.visit(node.test)
        self.stack.pop()
        self._body(loop, node.body)

    def _new_loop(self, node, var):
        parent = self.stack[-1] if self.stack else None
        loop = Loop(node, var, "t%d" % len(self.loops), len(self.stack), parent)
        if parent is not None:
            parent.children.append(loop)
        self.loops.append(loop)
        return loop

    def _body(self, loop, body):
        saved = self.subst.get(loop.var)
        self.stack.append(loop)
        if loop.var is not None:
            if loop.lo is not None and loop.step is not None:
                counter = Affine(((loop.counter, loop.step),), 0)
                self.subst[loop.var] = loop.lo + counter
            else:
                self.subst.pop(loop.var, None)
        for stmt in body:
            self.visit(stmt)
        self.stack.pop()
        if saved is not None:
            self.subst[loop.var] = saved
        elif loop.var is not None:
            self.subst.pop(loop.var, None)

    def _bounds(self, loop, args):
        vals = [self._affine(a) for a in args]
        if len(vals) == 1:
            lo, hi, step = constant(0), vals[0], constant(1)
        else:
            lo, hi = vals[0], vals[1]
            step = vals[2] if len(vals) == 3 else constant(1)
        if lo is None or step is None or step.coeffs or step.const == 0:
            return
        # an unknown stop leaves the trip count unknown, the counter still affine
        loop.lo, loop.step, loop.hi = lo, step.const, hi
        if hi is not None and not lo.coeffs and not hi.coeffs:
            loop.count = len(range(lo.const, hi.const, step.const))

    def _affine(self, node):
        """Affine over counters: loop variables replaced by their counters."""
        expr = affine(node, set(self.subst) | self.opaque, self.env)
        if expr is None or any(v not in self.subst for v in expr.variables):
            return None
        for var in expr.variables:
            expr = expr.substitute(var, self.subst[var])
        return expr

    def visit_If(self, node):
        self.visit(node.test)
        guard = self._guard(node.test)
        for body, holds in ((node.body, True), (node.orelse, False)):
            if guard is None:
                self._conditional(body)
                continue
            self.guards.append((guard[0], guard[1], holds))
            for stmt in body:
                self.visit(stmt)
            self.guards.pop()

    def visit_IfExp(self, node):
        self.visit(node.test)
        self._conditional([node.body, node.orelse])

    def visit_BoolOp(self, node):
        self.visit(node.values[0])
        self._conditional(node.values[1:])      # short-circuit: may not run

    def _conditional(self, nodes):
        """Visit ``nodes``, which run only under a condition not kept as an
        affine guard: their accesses are marked ``conditional``."""
        self.unknown += 1
        for child in nodes:
            self.visit(child)
        self.unknown -= 1

    def _guard(self, test):
        """(Affine left - right, op) of an affine comparison, else None."""
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
            return None
        ops = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=",
               ast.Gt: ">", ast.GtE: ">="}
        op = ops.get(type(test.ops[0]))
        left, right = self._affine(test.left), self._affine(test.comparators[0])
        if op is None or left is None or right is None:
            return None
        return left + right.scale(-1), op

    def visit_Break(self, node):
        if self.stack:
            self.stack[-1].has_break = True

    def visit_Continue(self, node):
        if self.stack and not self.stack[-1].continue_line:
            self.stack[-1].continue_line = node.lineno

    # ---- accesses
    def visit_Assign(self, node):
        self.visit(node.value)
        for target in node.targets:
            self._store(target)

    def visit_AugAssign(self, node):
        self.visit(node.value)
        if isinstance(node.target, ast.Subscript):
            self._subscript(node.target, write=False)
        self._store(node.target)

    def visit_AnnAssign(self, node):
        if node.value is not None:
            self.visit(node.value)
        self._store(node.target)

    def _store(self, target):
        if isinstance(target, ast.Subscript):
            self._subscript(target, write=True)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for elt in target.elts:
                self._store(elt)

    def visit_Subscript(self, node):
        self._subscript(node, write=False)

    def _subscript(self, node, write):
        name = node.value.id if isinstance(node.value, ast.Name) else None
        for index in subscript_indices(node):
            self.visit(index)
        if name is None or not self.is_array(name):
            self.visit(node.value)
            return
        subs = []
        for index in subscript_indices(node):
            expr = self._affine(index)
            if expr is None:
                subs = None
                break
            subs.append(expr)
        self._add(name, node, write, None if subs is None else tuple(subs))

    def visit_Call(self, node):
        if isinstance(node.func, ast.Name) and node.func.id == "len" and \
                self.is_array(getattr(node.args[0], "id", None) if node.args else None):
            return          # len(a) reads a's length, none of its elements
        if isinstance(node.func, ast.Name) and node.func.id == "prefetch" and \
                len(node.args) == 1 and isinstance(node.args[0], ast.Subscript):
            self.visit(node.args[0].slice)  # a hint: only its index is computed
            return
        args = None
        for arg in list(node.args) + [k.value for k in node.keywords]:
            if isinstance(arg, ast.Name) and self.is_array(arg.id):
                # an array handed to a function: read and written anywhere, until
                # callee.expand replaces the pair by the helper's own accesses
                if args is None:
                    args = tuple(self._affine(a) for a in node.args)
                self._add(arg.id, arg, False, None, node, args)
                self._add(arg.id, arg, True, None, node, args)
            else:
                self.visit(arg)
        self.visit(node.func)

    def _add(self, name, node, write, subs, call=None, call_args=()):
        self.accesses.append(Access(name, node, write, tuple(self.stack), subs,
                                    self.order, self.segment(node), tuple(self.guards),
                                    self.unknown > 0, call, call_args))
        self.order += 1


def collect(nest, env, is_array, segment=lambda node: ""):
    """(loops, accesses) of the ``for`` statement ``nest`` at this call."""
    collector = _Collector(env, is_array, segment, assigned_names(nest))
    collector.visit(nest)
    return collector.loops, collector.accesses


def assigned_names(tree):
    """Names stored anywhere in ``tree`` (loop targets included)."""
    return {n.id for n in ast.walk(tree)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
