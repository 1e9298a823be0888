"""The subscripts a helper called from a nest takes of an array handed to it.

``b[i] = get(a, i)`` with ``def get(x, k): return x[k + 1]`` reads ``a[i +
1]``: when the helper's subscripts of its array parameter are affine in its
integer parameters and the call's arguments are affine in the nest's
counters, :func:`accesses` gives each subscript as an access of the nest
(:class:`~.nest.Access`, subscripts over the counters), so that
:mod:`.bounds` checks it like one written in the nest.  An access is
``conditional`` unless it runs whenever the helper runs: at the helper's top
level (not in an ``if``, a loop, after an ``and``/``or`` or in a conditional
expression) and after no statement that may return early.
"""
import ast
import numbers
import types

from ..errors import KernelError
from ..frontend.source import read_function
from .affine import affine, subscript_indices
from .nest import Access, assigned_names


def accesses(access, lookup):
    """``(accesses, reason)``: the accesses the helper called at ``access``
    (an array handed whole to a call, :attr:`~.nest.Access.call` set) makes
    of the array, or None and why they cannot be found.  ``lookup(name)``:
    the value of a global of the user's function."""
    call = access.call
    func = lookup(call.func.id) if isinstance(call.func, ast.Name) else None
    if not isinstance(func, types.FunctionType):
        return None, "handed whole to a call"
    try:
        tree = read_function(func).tree
    except KernelError as exc:      # told again, located, where the nest is translated
        return None, "handed whole to %s(), whose source was not read (%s)" % (
            func.__name__, exc.message)
    params = [a.arg for a in tree.args.args]
    if call.keywords or tree.args.vararg or tree.args.kwonlyargs or \
            len(call.args) != len(params):
        return None, "handed whole to %s(), called with other than its positional " \
                     "parameters" % tree.name
    array_params = [p for p, arg in zip(params, call.args) if arg is access.node]
    ints = {p: a for p, a in zip(params, access.call_args) if a is not None}
    stored = assigned_names(tree)
    # module-level ints are constants, unless a parameter or a local hides them
    env = {k: v for k, v in func.__globals__.items() if k not in stored and
           k not in params and isinstance(v, numbers.Integral) and not isinstance(v, bool)}
    variables = set(ints) - stored
    found = []
    for node, certain in _subscripts(tree.body, set(array_params)):
        if isinstance(node, ast.Name):
            return None, "handed on by %s() to another call" % tree.name
        subs = []
        for index in subscript_indices(node):
            expr = affine(index, variables, env)
            if expr is None:
                return None, "subscript %s in %s() is not affine in its integer " \
                             "parameters" % (ast.unparse(node), tree.name)
            for var in expr.variables:
                expr = expr.substitute(var, ints[var])
            subs.append(expr)
        text = "%s of %s() called as %s" % (ast.unparse(node), tree.name,
                                             ast.unparse(call))
        found.append(Access(access.array, call, _stores(tree, node), access.loops,
                            tuple(subs), access.order, text, access.guards,
                            access.conditional or not certain))
    return found, None


def _stores(tree, node):
    """True when the subscript ``node`` is stored to."""
    return isinstance(node.ctx, ast.Store) or any(
        isinstance(n, ast.AugAssign) and n.target is node for n in ast.walk(tree))


def _subscripts(body, names):
    """``(node, certain)`` for each subscript of one of ``names`` (and each
    bare use of one, as a Name node: handed on) in the statements ``body``."""
    leaves = False              # a statement before may return early
    for stmt in body:
        top = isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr,
                                ast.Return))
        for node, sure in _uses(stmt, names, top and not leaves):
            yield node, sure
        if isinstance(stmt, ast.Return):
            return
        if not top and any(isinstance(n, ast.Return) for n in ast.walk(stmt)):
            leaves = True


def _uses(node, names, certain):
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and \
            node.value.id in names:
        yield node, certain
        for index in subscript_indices(node):
            yield from _uses(index, names, certain)
        return
    if isinstance(node, ast.Name) and node.id in names:
        yield node, certain
        return
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
            node.func.id == "len" and len(node.args) == 1 and \
            isinstance(node.args[0], ast.Name) and node.args[0].id in names:
        return              # its length, none of its elements
    if isinstance(node, (ast.IfExp, ast.BoolOp)):
        first, rest = (node.test, [node.body, node.orelse]) if isinstance(node, ast.IfExp) \
            else (node.values[0], node.values[1:])
        yield from _uses(first, names, certain)
        for child in rest:
            yield from _uses(child, names, False)
        return
    for child in ast.iter_child_nodes(node):
        yield from _uses(child, names, certain)
