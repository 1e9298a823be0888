"""The accesses a helper called from a nest makes of an array handed to it.

An array handed whole to a call (``b[i] = get(a, i)``) may be read and
written anywhere, unless the helper's body says otherwise.  :func:`expand`
replaces that by the helper's own accesses of the array: each subscript of
its array parameter, affine in its integer parameters, with the call's
arguments (affine in the nest's counters) substituted (``def get(x, k):
return x[k + 1]`` reads ``a[i + 1]``).  The dependence tests
(:mod:`.analysis`), the bounds check (:mod:`.bounds`) and the race check of
Elementwise kernels (:mod:`.race`) then see those accesses as the nest's
own.  A helper handing the array on to another helper is followed, up to
:data:`MAX_DEPTH` calls deep.

An access is ``conditional`` unless it runs whenever the helper runs: at the
helper's top level or under ``if`` tests that compare affine expressions of
its integer parameters (kept, substituted, as guards of the access, and
named in its text: ``where i > 0``), not in a loop, after an ``and``/``or``
or in a conditional expression, and after no statement that may return
early.  A conditional access counts as possible.

What cannot be followed counts as anywhere (subscripts None), the reason
(the helper, its file and line) in the access's text:

- one subscript that is not affine in the helper's integer parameters (one
  of its loop variables, ``k * k``, an array element, a local of the helper
  unless one top-level statement sets it, once, to an affine value: ``j = 3
  * k + d``): that read, or that write, of any element;
- the whole array, read and written, when the callee is not a Python
  function whose source can be read, is called with keywords or other than
  its positional parameters, gets the array twice, assigns to the array
  parameter or uses it other than by subscripts, ``len``, ``.shape``,
  ``.ndim``, ``.size`` and as a helper's argument, calls itself, or is
  more than :data:`MAX_DEPTH` calls deep.
"""
import ast
import copy
import numbers
import types

from ..backends.pyreads import global_reads
from ..errors import KernelError
from ..frontend.source import read_function
from .affine import affine, subscript_indices
from .nest import Access, assigned_names

#: How many helper calls deep an array is followed (a deeper one: anywhere).
MAX_DEPTH = 4

_OPS = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">",
        ast.GtE: ">="}
_SIMPLE = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.Return)


def expand(accesses, lookup=None):
    """``accesses`` (of a nest, :class:`~.nest.Access`) with every array
    handed whole to a call replaced by the accesses the called helper makes
    of it (see the module docstring); the others as they are.
    ``lookup(name)``: a global of the user's function (None: no helper is
    read, every such array counts as read and written anywhere)."""
    out, done = [], set()
    for access in accesses:
        if access.call is None:
            out.append(access)
        elif not access.write and (id(access.call), access.array) not in done:
            # a call adds a read and a write of each array argument: one stands for
            # both, and for the array's other places in the call (passed twice)
            done.add((id(access.call), access.array))
            out.extend(_Expansion(access, lookup).accesses())
    return out


def helper_accesses(accesses):
    """``[(access, "reads" / "writes" / "reads and writes"), ...]``: the
    accesses of ``accesses`` made by helpers (for ``explain()``), one per
    text and line."""
    kinds, out = {}, []
    for access in accesses:
        if not access.via:
            continue
        key = (access.text, access.node.lineno)
        if key not in kinds:
            kinds[key] = set()
            out.append((key, access))
        kinds[key].add("writes" if access.write else "reads")
    return [(access, " and ".join(sorted(kinds[key]))) for key, access in out]


def module_reads(tree, lookup):
    """``[(module globals, name), ...]``: the names the helpers called in
    ``tree`` (a nest, or a kernel's source), and the helpers they call,
    read from their modules (none of their parameters or locals): the
    values a kernel compiles in as constants, as it does the nest's own
    globals; the python backend's copies key on the same reads
    (:func:`pcompute.backends.pyreads.global_reads`).  ``lookup(name)``: a
    global where ``tree`` is."""
    found = {}
    for call in ast.walk(tree):
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)):
            continue
        func = lookup(call.func.id)
        if not isinstance(func, types.FunctionType):
            continue
        try:
            reads = global_reads(func)
        except KernelError:         # told, located, where the kernel is translated
            continue
        for module, name in reads:
            found[id(module), name] = (module, name)
    return list(found.values())


class _Expansion:
    """The accesses made of one array handed whole to one call of a nest."""

    def __init__(self, access, lookup):
        self.access = access
        self.lookup = lookup
        self.out = []

    def accesses(self):
        call, node = self.access.call, self.access.node
        position = next((k for k, arg in enumerate(call.args) if arg is node), None)
        ints = list(self.access.call_args) or [None] * len(call.args)
        self._call(call, position, ints, list(call.args), [], (), True, (), self.lookup, "")
        return self.out

    def _call(self, call, position, ints, shown, chain, stack, certain, guards, lookup, site):
        """Follow the array into ``call``, its ``position``-th positional
        argument.  ``ints``: the call's arguments as Affine over the nest's
        counters (None: not affine); ``shown``: the same as expressions of
        the nest's names (for the texts); ``chain``: the calls followed so
        far; ``stack``: the helpers they called; ``certain`` and ``guards``:
        of the call site; ``lookup``: the globals there; ``site``: where the
        call is, in a helper (" at file:line"; "" in the nest)."""
        chain = chain + [ast.unparse(call)]
        func, src, why = _helper(call, position, stack, lookup, site)
        if why is None:
            frame = _Frame(src, func, position, ints, shown, self.access.array)
            uses = list(frame.walk(src.tree.body, certain, guards))
            why = frame.refusal(uses)
        if why is not None:
            self._anywhere(chain, certain, guards, why)
            return
        for kind, node, sure, more, extra in uses:
            if kind == "call":
                self._call(node, extra, [frame.affine(a) for a in node.args],
                           [frame.show(a) for a in node.args], chain, stack + (func,),
                           sure, more, func.__globals__.get, " at " + frame.where(node))
            else:
                self._subscript(frame, node, kind == "write", sure, more, extra, chain)

    def _subscript(self, frame, node, write, certain, guards, atomic, chain):
        subs = []
        for index in subscript_indices(node):
            expr = frame.affine(index)
            if expr is None:
                why = "%s at %s is not affine in the integer parameters of %s()" % (
                    ast.unparse(node), frame.where(node), frame.name)
                self._add(None, write, certain, guards, chain, atomic,
                          self._anywhere_text(chain, why))
                return
            subs.append(expr)
        text = "%s via %s [%s at %s]" % (ast.unparse(frame.show(node)), " -> ".join(chain),
                                         ast.unparse(node), frame.where(node))
        if guards:
            text += " where " + " and ".join(g[3] for g in guards)
        self._add(tuple(subs), write, certain, guards, chain, atomic, text)

    def _anywhere(self, chain, certain, guards, why):
        for write in (False, True):
            self._add(None, write, certain, guards, chain, False,
                      self._anywhere_text(chain, why))

    def _anywhere_text(self, chain, why):
        return "%s via %s [anywhere: %s]" % (self.access.array, " -> ".join(chain), why)

    def _add(self, subs, write, certain, guards, chain, atomic, text):
        a = self.access
        self.out.append(Access(a.array, a.call, write, a.loops, subs, a.order, text,
                               a.guards + tuple(g[:3] for g in guards),
                               a.conditional or not certain,
                               via=" -> ".join(chain), atomic=atomic))


def _helper(call, position, stack, lookup, site):
    """``(func, source, None)`` of the helper ``call`` calls when its
    accesses of its ``position``-th argument can be followed, else
    ``(None, None, why not)``."""
    name = call.func.id if isinstance(call.func, ast.Name) else None
    if lookup is None:
        return None, None, "handed whole to a call"
    func = lookup(name) if name is not None else None
    if not isinstance(func, types.FunctionType):
        return None, None, "%s%s is not a Python function whose source pcompute reads" % (
            name or ast.unparse(call.func), site)
    if func in stack:
        return None, None, "%s() calls itself%s: recursion is not followed" % (name, site)
    if len(stack) >= MAX_DEPTH:
        return None, None, "%s()%s is more than %d helper calls deep: not followed" % (
            name, site, MAX_DEPTH)
    try:
        src = read_function(func)
    except KernelError as exc:      # told again, located, where the nest is translated
        return None, None, "the source of %s() was not read (%s)" % (name, exc.message)
    args = src.tree.args
    if position is None or call.keywords or args.vararg or args.kwonlyargs or \
            len(call.args) != len(args.args):
        return None, None, "%s() is called with other than its positional parameters" % name
    array = call.args[position].id
    if sum(_named(a, array) for a in call.args) > 1:
        return None, None, "%s is passed twice to %s() (%s:%d)" % (
            array, name, src.filename, src.first_line + src.tree.lineno - 1)
    return func, src, None


class _Frame:
    """One helper followed: its array parameter and the call's arguments."""

    def __init__(self, src, func, position, ints, shown, array):
        tree = src.tree
        params = [a.arg for a in tree.args.args]
        self.src, self.name, self.param = src, tree.name, params[position]
        self.stored, self.atomic, self.augmented, once = _static(src)
        # integer parameters given an affine argument, and not assigned in the helper
        subst = {p: a for p, a in zip(params, ints) if a is not None and p not in self.stored}
        # one given a number (a loop invariant of the nest) is that number:
        # v[r * m + c] is affine when m is
        self.subst = {p: a for p, a in subst.items() if a.coeffs}
        self.env = _Constants(func.__globals__, self.stored | set(params),
                              {p: a.const for p, a in subst.items() if not a.coeffs})
        self.shown = dict(zip(params, shown))
        self.shown[self.param] = ast.Name(array, ast.Load())
        # a local set once, by a top-level statement, to an affine value
        # (j = 3 * k + d): that value wherever it is read
        for stmt in tree.body:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and \
                    isinstance(stmt.targets[0], ast.Name) and stmt.targets[0].id in once:
                value = self.affine(stmt.value)
                if value is not None:
                    self.subst[stmt.targets[0].id] = value
                    self.shown[stmt.targets[0].id] = self.show(stmt.value)

    def refusal(self, uses):
        """Why the helper's accesses of its array parameter are not followed
        (``uses``: :meth:`walk`'s), or None."""
        if self.param in self.stored:
            return "%s() assigns to its parameter %s (%s)" % (
                self.name, self.param, self.where(self.src.tree))
        for use in uses:
            if use[0] == "bare":
                return "%s() uses its parameter %s other than by subscripts, its " \
                       "length or shape and as a helper's argument (%s)" % (
                           self.name, self.param, self.where(use[1]))
        return None

    def where(self, node):
        return "%s:%d" % (self.src.filename, self.src.first_line + node.lineno - 1)

    def affine(self, node):
        """The Affine over the nest's counters of the helper's expression
        ``node``, or None."""
        expr = affine(node, set(self.subst), self.env)
        if expr is None:
            return None
        for var in expr.variables:
            expr = expr.substitute(var, self.subst[var])
        return expr

    def show(self, node):
        """``node`` with the parameters replaced by the call's arguments (a
        new tree sharing their nodes: for ``ast.unparse``)."""
        if isinstance(node, ast.Name):
            return self.shown.get(node.id, node)
        new = copy.copy(node)
        for name, value in ast.iter_fields(node):
            if isinstance(value, ast.AST):
                setattr(new, name, self.show(value))
            elif isinstance(value, list):
                setattr(new, name, [self.show(v) if isinstance(v, ast.AST) else v
                                    for v in value])
        return new

    def guard(self, test):
        """``(Affine left - right, op)`` of an affine comparison, else None."""
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
            return None
        op = _OPS.get(type(test.ops[0]))
        left, right = self.affine(test.left), self.affine(test.comparators[0])
        if op is None or left is None or right is None:
            return None
        return left + right.scale(-1), op

    # ---- the uses of the array parameter: (kind, node, certain, guards, extra)
    def walk(self, body, certain, guards):
        leaves = False              # a statement before may return early
        for stmt in body:
            now = certain and not leaves
            if isinstance(stmt, ast.If):
                yield from self.expr(stmt.test, now, guards)
                guard = self.guard(stmt.test)
                for branch, holds in ((stmt.body, True), (stmt.orelse, False)):
                    if guard is None:
                        yield from self.walk(branch, False, guards)
                    else:
                        text = ast.unparse(self.show(stmt.test))
                        yield from self.walk(branch, now, guards + (
                            (guard[0], guard[1], holds, text if holds else "not " + text),))
            elif isinstance(stmt, _SIMPLE):
                yield from self.expr(stmt, now, guards)
            else:                   # a loop (or anything else): may run any number of times
                for child in ast.iter_child_nodes(stmt):
                    yield from (self.walk([child], False, guards) if isinstance(child, ast.stmt)
                                else self.expr(child, False, guards))
            if isinstance(stmt, ast.Return):
                return
            if any(isinstance(n, ast.Return) for n in ast.walk(stmt)):
                leaves = True

    def expr(self, node, certain, guards):
        param = self.param
        if isinstance(node, ast.Subscript) and _named(node.value, param):
            store = isinstance(node.ctx, ast.Store)
            atomic = id(node) in self.atomic
            if not store or id(node) in self.augmented:
                yield "read", node, certain, guards, atomic
            if store or atomic:
                yield "write", node, certain, guards, atomic
            for index in subscript_indices(node):
                yield from self.expr(index, certain, guards)
            return
        if _named(node, param):
            yield "bare", node, certain, guards, None
            return
        if isinstance(node, ast.Attribute) and _named(node.value, param) and \
                node.attr in ("shape", "ndim", "size"):
            return                  # its extents, none of its elements
        if isinstance(node, ast.Call):
            if _named(node.func, "len") and len(node.args) == 1 and \
                    _named(node.args[0], param):
                return              # its length, none of its elements
            for k, arg in enumerate(node.args):
                if _named(arg, param):
                    yield "call", node, certain, guards, k
                else:
                    yield from self.expr(arg, certain, guards)
            for keyword in node.keywords:
                if _named(keyword.value, param):
                    yield "call", node, certain, guards, None
                else:
                    yield from self.expr(keyword.value, certain, guards)
            yield from self.expr(node.func, certain, guards)    # v.method(): a bare use
            return
        if isinstance(node, (ast.IfExp, ast.BoolOp)):
            first, rest = (node.test, [node.body, node.orelse]) if isinstance(node, ast.IfExp) \
                else (node.values[0], node.values[1:])
            yield from self.expr(first, certain, guards)
            for child in rest:
                yield from self.expr(child, False, guards)
            return
        for child in ast.iter_child_nodes(node):
            yield from self.expr(child, certain, guards)


_STATIC = {}


def _static(src):
    """(names assigned, ids of atomic_* arguments, ids of ``op=`` targets,
    locals assigned exactly once) of the helper ``src`` (memoised:
    read_function keeps ``src``)."""
    found = _STATIC.get(src)
    if found is None:
        tree = src.tree
        stores = [n.id for n in ast.walk(tree)
                  if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]
        params = {a.arg for a in tree.args.args}
        found = _STATIC[src] = (
            assigned_names(tree),
            {id(a) for n in ast.walk(tree) if isinstance(n, ast.Call) and
             isinstance(n.func, ast.Name) and n.func.id.startswith("atomic_") for a in n.args},
            {id(n.target) for n in ast.walk(tree) if isinstance(n, ast.AugAssign)},
            {name for name in stores if stores.count(name) == 1 and name not in params})
    return found


class _Constants:
    """The integers a helper's subscripts may use, as :func:`.affine.affine`
    reads them (``get``): its parameters given a number at the call
    (``values``), then the module-level ints, unless a parameter or a local
    hides them (``hidden``)."""

    def __init__(self, module, hidden, values):
        self.module, self.hidden, self.values = module, hidden, values

    def get(self, name):
        if name in self.values:
            return self.values[name]
        value = self.module.get(name) if name not in self.hidden else None
        ok = isinstance(value, numbers.Integral) and not isinstance(value, bool)
        return value if ok else None


def _named(node, name):
    return isinstance(node, ast.Name) and node.id == name


__all__ = ["MAX_DEPTH", "expand", "helper_accesses", "module_reads"]
