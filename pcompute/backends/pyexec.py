"""Python-backend execution of kernels that use atomics.

``atomic_inc(a[i])`` cannot change ``a[i]`` when called as a plain Python
function (it receives the value).  For kernels that use atomics (directly or
in a helper), the python backend runs a copy of the function whose AST calls
``pc_atomic_inc(a, i)`` instead, compiled with the user's file name and line
numbers so tracebacks and breakpoints still point at the user's code.
"""
import ast
import copy

from ..frontend.callgraph import Resolver
from ..frontend.source import read_function

_CACHE = {}


def pc_atomic_inc(array, index):
    old = array[index]
    array[index] = old + 1
    return old


def pc_atomic_dec(array, index):
    old = array[index]
    array[index] = old - 1
    return old


class _Rewrite(ast.NodeTransformer):
    def visit_Call(self, node):
        self.generic_visit(node)
        func = node.func
        if isinstance(func, ast.Name) and func.id in ("atomic_inc", "atomic_dec") \
                and len(node.args) == 1 and isinstance(node.args[0], ast.Subscript):
            sub = node.args[0]
            return ast.copy_location(ast.Call(
                func=ast.Name("pc_" + func.id, ast.Load()),
                args=[sub.value, sub.slice], keywords=[]), node)
        return node


def _user_helpers(func, src):
    resolver = Resolver(src)
    found = {}
    for node in ast.walk(src.tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            try:
                kind, target = resolver.call_target(node)
            except Exception:
                continue
            if kind == "helper" and target is not func:
                found[node.func.id] = target
    return found


def python_callable(func, _seen=None):
    """``func`` itself, or a rewritten copy when it (or a helper) uses atomics."""
    if func in _CACHE:
        return _CACHE[func]
    seen = _seen if _seen is not None else set()
    seen.add(func)
    src = read_function(func)
    helpers = {name: python_callable(h, seen) for name, h in _user_helpers(func, src).items()
               if h not in seen}
    uses_atomics = any(isinstance(n, ast.Name) and n.id in ("atomic_inc", "atomic_dec")
                       for n in ast.walk(src.tree))
    changed = {n: h for n, h in helpers.items() if h is not getattr(func, "__globals__",
                                                                     {}).get(n)}
    if not uses_atomics and not changed:
        _CACHE[func] = func
        return func
    tree = _Rewrite().visit(copy.deepcopy(src.tree))
    ast.increment_lineno(tree, src.first_line - 1)
    module = ast.fix_missing_locations(ast.Module(body=[tree], type_ignores=[]))
    namespace = dict(func.__globals__)
    namespace.update(Resolver(src).closure)
    namespace.update(changed)
    namespace["pc_atomic_inc"] = pc_atomic_inc
    namespace["pc_atomic_dec"] = pc_atomic_dec
    exec(compile(module, src.filename, "exec"), namespace)
    result = namespace[tree.name]
    _CACHE[func] = result
    return result
