"""How much work one item of a kernel does, as far as its text tells.

OpenMP launches of few items run serially (starting the threads costs more
than the work).  An item that runs a loop of unknown or long trip count
(``while``, ``for j in range(start, end)`` over data, ``range(64)``), or a
recursive helper, can do enough work that a few hundred items already gain
from the threads: :func:`has_inner_loops` tells them apart.
"""
import ast

#: A ``for`` over ``range`` of constants with fewer passes than this is short.
SHORT_LOOP = 16


def _constant(node):
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and \
            not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        value = _constant(node.operand)
        return None if value is None else -value
    return None


def _trip_count(loop):
    """The passes of ``for v in range(<constants>)``, else None."""
    call = loop.iter
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
            and call.func.id == "range" and not call.keywords):
        return None
    values = [_constant(a) for a in call.args]
    if None in values or not 1 <= len(values) <= 3 or (len(values) == 3 and not values[2]):
        return None
    return len(range(*values))


def long_loop(node):
    """True if ``node`` is a loop that may run many times: a ``while`` (not
    ``while False``), or a ``for`` whose trip count is not a constant below
    :data:`SHORT_LOOP`."""
    if isinstance(node, ast.While):
        return not (isinstance(node.test, ast.Constant) and not node.test.value)
    if isinstance(node, ast.For):
        count = _trip_count(node)
        return count is None or count >= SHORT_LOOP
    return False


def has_inner_loops(program):
    """True if an item of ``program`` (its entry or any helper it calls) may
    loop many times: a :func:`long_loop`, or recursion."""
    if program.recursive:
        return True
    return any(long_loop(node) for fn in program.functions for node in ast.walk(fn.tree))
