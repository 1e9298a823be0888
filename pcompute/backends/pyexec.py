"""Python-backend execution: the user's functions, run with Python's meaning.

Every kernel function (and every helper it calls by name) runs as a copy
compiled from the user's own source, with the user's file name and line
numbers, so tracebacks and breakpoints point at the user's code.  The copy
differs from the original in these ways only:

* its globals give the kernel-language names their oracle meaning
  (:mod:`.pyvalues`: ``declare``/``cast`` giving Python numbers, ``trunc``
  taking NumPy floats, ``INFINITY``/``NAN``/``M_PI``... defined);
* ``atomic_inc(a[i])`` becomes ``pc_atomic_inc(a, i)`` (``atomic_max(a[i], v)``
  ``pc_atomic_max(a, i, v)``), since a plain call
  would receive the element's value and could not change it;
* a float literal is a :class:`~.pyvalues.Lit` (a name bound to it), the
  "weak" float that takes the precision of a float32 value it meets;
* a value assigned to a local name (not an argument or a declare()d name)
  goes through ``pc_local``: a literal's value becomes the typed value C's
  local holds (:func:`.pyvalues.local_value`).

The names ``range``, ``int``, ``min``, ``max``, ``float`` and the math
functions give values of the types the compiled backends give them
(:mod:`.pyints`, :mod:`.pyvalues`).
"""
import ast
import copy
import math

from .. import types as ktypes
from ..frontend.callgraph import NAMED_CONSTANTS, Resolver
from ..frontend.source import read_function
from . import pyints, pyvalues

_CACHE = {}


def _atomic(array, index, step):
    # debug mode (backends.pyrace): an atomic update is not a race
    recorder = getattr(getattr(array, "data", array), "pc_recorder", None)
    if recorder is not None:
        recorder.paused += 1
    try:
        old = array[index]
        array[index] = old + step
    finally:
        if recorder is not None:
            recorder.paused -= 1
    return old


def pc_atomic_inc(array, index):
    return _atomic(array, index, 1)


def pc_atomic_dec(array, index):
    return _atomic(array, index, -1)


def pc_atomic_max(array, index, value):
    recorder = getattr(getattr(array, "data", array), "pc_recorder", None)
    if recorder is not None:
        recorder.paused += 1
    try:
        old = array[index]
        if value > old:
            array[index] = value
    finally:
        if recorder is not None:
            recorder.paused -= 1
    return old


class _Rewrite(ast.NodeTransformer):
    def __init__(self, fixed=()):
        self.literals = {}
        self.fixed = frozenset(fixed)   # arguments and declare()d names

    def visit_Assign(self, node):
        # `k = 100000` makes k an int local in C (a literal's type), so k * k
        # wraps there: the value becomes a typed one (pyints.local_value)
        self.generic_visit(node)
        target = node.targets[0]
        if len(node.targets) == 1 and isinstance(target, ast.Name) and \
                target.id not in self.fixed:
            node.value = ast.copy_location(ast.Call(
                func=ast.Name("pc_local", ast.Load()), args=[node.value], keywords=[]),
                node.value)
        return node

    def visit_Constant(self, node):
        if type(node.value) is not float:
            return node
        name = "pc_lit_%d" % len(self.literals)
        self.literals[name] = pyvalues.Lit(node.value)
        return ast.copy_location(ast.Name(name, ast.Load()), node)

    def visit_Call(self, node):
        self.generic_visit(node)
        func = node.func
        if isinstance(func, ast.Name) and func.id in ("atomic_inc", "atomic_dec") \
                and len(node.args) == 1 and isinstance(node.args[0], ast.Subscript):
            sub = node.args[0]
            return ast.copy_location(ast.Call(
                func=ast.Name("pc_" + func.id, ast.Load()),
                args=[sub.value, sub.slice], keywords=[]), node)
        if isinstance(func, ast.Name) and func.id == "atomic_max" and len(node.args) == 2 \
                and isinstance(node.args[0], ast.Subscript):
            sub = node.args[0]
            return ast.copy_location(ast.Call(
                func=ast.Name("pc_atomic_max", ast.Load()),
                args=[sub.value, sub.slice, node.args[1]], keywords=[]), node)
        return node


def _fixed_names(tree):
    """Names whose type is given: the arguments and names assigned declare()."""
    names = {a.arg for a in tree.args.args}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and \
                isinstance(node.value.func, ast.Name) and node.value.func.id == "declare":
            for target in node.targets:
                names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
    return names


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


def _oracle_names(namespace):
    """Replace, in ``namespace``, the kernel-language functions by their
    python-backend versions and define the named constants."""
    for name, value in list(namespace.items()):
        if value is ktypes.declare:
            namespace[name] = pyvalues.declare
        elif value is ktypes.cast:
            namespace[name] = pyvalues.cast
        elif value is math:
            namespace[name] = pyvalues.math_module
        elif callable(value) and getattr(math, getattr(value, "__name__", ""),
                                         None) is value:
            namespace[name] = getattr(pyvalues.math_module, value.__name__)
    for name, value in NAMED_CONSTANTS.items():
        namespace.setdefault(name, value)
    # float(x) is a double, also next to float32 values (as C's float(x) on the
    # CPU, where float literals meeting float32 values stay single).
    namespace["float"] = pyvalues.F64
    namespace["int"] = pyints.int_
    namespace["range"] = pyints.typed_range
    namespace["min"] = pyvalues.min_
    namespace["max"] = pyvalues.max_


def python_callable(func, _seen=None):
    """The copy of ``func`` the python backend runs (see the module's text)."""
    if func in _CACHE:
        return _CACHE[func]
    seen = _seen if _seen is not None else set()
    seen.add(func)
    src = read_function(func)
    helpers = {name: python_callable(h, seen) for name, h in _user_helpers(func, src).items()
               if h not in seen}
    rewrite = _Rewrite(_fixed_names(src.tree))
    tree = rewrite.visit(copy.deepcopy(src.tree))
    ast.increment_lineno(tree, src.first_line - 1)
    module = ast.fix_missing_locations(ast.Module(body=[tree], type_ignores=[]))
    namespace = dict(func.__globals__)
    namespace.update(Resolver(src).closure)
    namespace.update(helpers)
    _oracle_names(namespace)
    namespace["pc_atomic_inc"] = pc_atomic_inc
    namespace["pc_atomic_dec"] = pc_atomic_dec
    namespace["pc_atomic_max"] = pc_atomic_max
    namespace.update(rewrite.literals)
    namespace["pc_local"] = pyvalues.local_value
    exec(compile(module, src.filename, "exec"), namespace)
    result = namespace[tree.name]
    _CACHE[func] = result
    return result


def python_source(*funcs):
    """The Python text of ``funcs`` (what the python backend runs)."""
    return "\n\n\n".join(ast.unparse(read_function(f).tree) + "\n" for f in funcs)
