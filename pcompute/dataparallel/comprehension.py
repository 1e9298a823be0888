"""List comprehensions (and generator expressions) in @dataparallel code.

``[f(a, b) for a, b in zip(x, y)]`` is ``map(lambda a, b: f(a, b), x, y)``
and ``[g(i) for i in range(n)]`` is a map over the indices: a comprehension
becomes a lambda over its target names, applied by ``map`` to its
iterables.  The caller (the host-level walk or the element-function
inliner) evaluates the iterables and maps the lambda in its own way.
"""
import ast
import builtins

from ..errors import KernelSyntaxError
from . import prelude
from .source import Closure, located

ZIPS = (builtins.zip, prelude.zip)


def parts(node, closure, env, evaluate):
    """``(lambda closure, iterable values)`` of the comprehension ``node``;
    ``evaluate(expr_node)`` gives the caller's value of an expression.
    ``range(...)`` calls come back as ``("range", [argument values])``."""
    where = closure.where
    if len(node.generators) != 1:
        raise located(KernelSyntaxError, "a comprehension with several 'for' clauses "
                      "is not supported", where(node), "map over zip(...) of the "
                      "sequences, or nest a map in the function")
    gen = node.generators[0]
    if gen.ifs:
        raise located(KernelSyntaxError, "a filter ('if') in a comprehension is not "
                      "supported", where(gen.ifs[0]), "compute 0/1 flags with map, "
                      "their positions with exclusive_scan, then scatter (compaction)")
    if gen.is_async:
        raise located(KernelSyntaxError, "async comprehensions are not supported",
                      where(node), None)
    names = _names(gen.target, where)
    iterables = [gen.iter]
    if isinstance(gen.iter, ast.Call) and not gen.iter.keywords:
        func = evaluate(gen.iter.func)
        if func in ZIPS:
            iterables = gen.iter.args
        elif func is builtins.range:
            values = [evaluate(a) for a in gen.iter.args]
            if len(names) != 1 or not 1 <= len(values) <= 2:
                raise located(KernelSyntaxError, "write range(stop) or range(start, "
                              "stop) with one name", where(gen.iter), None)
            return _lambda(node, names, closure, env), [("range", values)]
    if len(iterables) != len(names):
        raise located(KernelSyntaxError, "the comprehension unpacks %d name(s) from %d "
                      "sequence(s)" % (len(names), len(iterables)), where(gen.target),
                      "iterate over zip(a, b, ...) with one name per sequence")
    return _lambda(node, names, closure, env), [evaluate(it) for it in iterables]


def _names(target, where):
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, ast.Tuple) and all(isinstance(t, ast.Name) for t in target.elts):
        return [t.id for t in target.elts]
    raise located(KernelSyntaxError, "a comprehension target must be a name or a tuple "
                  "of names", where(target), None)


def _lambda(node, names, closure, env):
    args = ast.arguments(posonlyargs=[], args=[ast.arg(arg=n) for n in names],
                         vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
                         defaults=[])
    fn = ast.copy_location(ast.Lambda(args=args, body=node.elt), node)
    return Closure(fn, env, closure.globals, closure.filename, closure.firstline,
                   closure.lines)
