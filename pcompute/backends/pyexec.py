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
  local holds (:func:`.pyvalues.local_value`);
* given the typed program of the compiled backends (:class:`Typing`), a
  value assigned to a scalar local (``=``, ``+=``), a parameter on entry and
  a returned value are converted to that name's C type (``pc_as``), and a bool
  operand of arithmetic becomes the int C computes with (``pc_bool_int``).

The names ``range``, ``int``, ``min``, ``max``, ``float`` and the math
functions give values of the types the compiled backends give them
(:mod:`.pyints`, :mod:`.pyvalues`).
"""
import ast
import copy
import math

from .. import types as ktypes
from ..frontend.callgraph import NAMED_CONSTANTS, Resolver
from ..frontend.calls import _float_literal
from ..bounds import negative_shift_error
from ..frontend.source import read_function
from . import pyints, pyvalues
from .pyreads import GONE, global_reads, global_values, user_helpers

_CACHE = {}
_LAST = {}       # func -> (((globals, name, value), ...), its untyped copy)


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


def _as(node, base):
    """``node`` converted to the C type ``base`` (pyvalues.as_ctype), by the
    base's own converter where it has one (no dispatch per assignment)."""
    if base in pyvalues.AS_CTYPE:
        return _call("pc_as_" + base, node)
    return _call("pc_as", node, base)


def _call(name, node, *extra):
    return ast.copy_location(ast.Call(func=ast.Name(name, ast.Load()),
                                      args=[node] + [ast.Constant(e) for e in extra],
                                      keywords=[]), node)


def _is_declare(value):
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and \
        value.func.id == "declare"


def _position(node):
    return (type(node).__name__, node.lineno, node.col_offset,
            getattr(node, "end_lineno", None), getattr(node, "end_col_offset", None))


class Typing:
    """What the compiled backends' types say about one function, as far as all
    its typed versions (one per call signature) agree: the C type of each
    scalar local, parameter and the return value (``as_ctype`` converts to
    them, as C's assignments do), and the positions of the bool-typed
    expressions (an arithmetic operand there is C's int 0 or 1)."""

    def __init__(self, functions, skip_args=0, checked=False):
        def agreed(pairs_per_fn):
            out = dict(pairs_per_fn[0])
            for pairs in pairs_per_fn[1:]:
                other = dict(pairs)
                out = {k: v for k, v in out.items() if other.get(k) == v}
            return out

        def scalar(pairs):
            return [(n, t.base) for n, t in pairs if t.is_scalar and not t.pointer
                    and not t.shape]
        self.locals = agreed([scalar(f.locals) for f in functions])
        self.args = [(n, b) for n, b in agreed([scalar(f.args[skip_args:])
                                                for f in functions]).items()]
        rets = {f.ret.base if f.ret.is_scalar else None for f in functions}
        self.ret = rets.pop() if len(rets) == 1 else None
        self.bools = frozenset(
            _position(node) for f in functions for node in ast.walk(f.tree)
            if isinstance(node, ast.expr) and hasattr(node, "lineno") and
            getattr(f.types.get(id(node)), "base", None) == "bool")
        self.joins = agreed([_joins(f) for f in functions]) if functions else {}
        # bounds checks on (pcompute/bounds.py): a negative shift count raises
        self.checked = bool(checked)
        self.key = (tuple(sorted(self.locals.items())), tuple(self.args), self.ret,
                    self.bools, tuple(sorted(self.joins.items())), self.checked)


def _joins(f):
    """``(position, type)`` of each ``a if c else b`` of ``f`` whose branches
    have different scalar types: its value has the joined type in C (an
    ``int16`` branch beside a ``uint16`` one is an ``int``, an ``int64`` or a
    float literal beside a ``float32`` a float32), whichever branch gives it."""
    out = []
    for node in ast.walk(f.tree):
        if not isinstance(node, ast.IfExp) or not hasattr(node, "lineno"):
            continue
        t, a, b = (f.types.get(id(n)) for n in (node, node.body, node.orelse))
        differ = a != b or _float_literal(node.body) or _float_literal(node.orelse)
        if t is not None and a is not None and b is not None and differ and \
                t.is_scalar and a.is_scalar and b.is_scalar:
            out.append((_position(node), t.base))
    return out


def _typing(func, program):
    if program is None:
        return None
    src = read_function(func)
    functions = [f for f in program.functions if f.src is src]
    if not functions:
        return None
    skip = program.index_dims if program.entry.src is src else 0
    return Typing(functions, skip, program.bounds_check)


def _count_check(location, where):
    """The check of one shift's count under bounds checks: a negative count
    raises the located error the compiled backends raise after the launch."""
    def check(count):
        if count < 0:
            raise negative_shift_error(int(count), location, where)
        return count
    return check


class _Rewrite(ast.NodeTransformer):
    def __init__(self, fixed=(), typing=None, src=None):
        self.literals = {}
        self.fixed = frozenset(fixed)   # arguments and declare()d names
        self.typing = typing
        self.src = src
        self.counts = {}                # name -> count check (see checked_count)

    def checked_count(self, node, count):
        """``count`` (the count of the shift ``node``) through a check of its
        sign, under bounds checks; else ``count``."""
        if self.typing is None or not self.typing.checked or \
                isinstance(count, ast.Constant):
            return count
        name = "pc_count_%d" % len(self.counts)
        self.counts[name] = _count_check(self.src.location(node), "%s()" % self.src.name)
        return _call(name, count)

    def visit_FunctionDef(self, node):
        self.generic_visit(node)
        if self.typing is not None and self.typing.args:
            # parameters hold what C's parameters hold (a long passed to an int
            # parameter is narrowed, an int passed to a double one converted)
            start = [ast.copy_location(ast.Assign(
                targets=[ast.Name(name, ast.Store())],
                value=_as(ast.Name(name, ast.Load()), base)), node.body[0])
                for name, base in self.typing.args]
            node.body = start + node.body
        return node

    def visit_IfExp(self, node):
        self.generic_visit(node)
        base = None if self.typing is None else self.typing.joins.get(_position(node))
        return node if base is None else _as(node, base)

    def visit_Return(self, node):
        self.generic_visit(node)
        if node.value is not None and self.typing is not None and self.typing.ret:
            node.value = _as(node.value, self.typing.ret)
        return node

    def visit_BinOp(self, node):
        self.generic_visit(node)
        if self.typing is not None and _position(node.left) in self.typing.bools:
            node.left = _call("pc_bool_int", node.left)
        if isinstance(node.op, (ast.LShift, ast.RShift)):
            node.right = self.checked_count(node, node.right)
        return node

    def visit_AugAssign(self, node):
        self.generic_visit(node)
        if isinstance(node.op, (ast.LShift, ast.RShift)):
            node.value = self.checked_count(node, node.value)
        target = node.target
        base = None if self.typing is None or not isinstance(target, ast.Name) else \
            self.typing.locals.get(target.id, dict(self.typing.args).get(target.id))
        if base is None:
            return node
        # `t += v` stores t + v converted to t's C type (a wider sum wraps)
        value = ast.copy_location(ast.BinOp(ast.Name(target.id, ast.Load()), node.op,
                                            node.value), node)
        return ast.copy_location(ast.Assign(targets=[ast.Name(target.id, ast.Store())],
                                            value=_as(value, base)), node)

    def visit_Assign(self, node):
        # `k = 100000` makes k an int local in C (a literal's type), so k * k
        # wraps there: the value becomes a typed one (pyints.local_value); with
        # the compiled backends' types known, the local's own C type
        self.generic_visit(node)
        target = node.targets[0]
        if len(node.targets) != 1 or not isinstance(target, ast.Name) or \
                _is_declare(node.value):
            return node
        base = self.typing.locals.get(target.id) if self.typing is not None else None
        if base is not None:
            node.value = _as(node.value, base)
        elif target.id not in self.fixed:
            node.value = _call("pc_local", node.value)
        return node

    def visit_Constant(self, node):
        if type(node.value) is not float:
            return node
        name = "pc_lit_%d" % len(self.literals)
        self.literals[name] = pyvalues.Lit(node.value)
        return ast.copy_location(ast.Name(name, ast.Load()), node)

    def visit_Call(self, node):
        func = node.func
        if isinstance(func, ast.Name) and func.id == "prefetch":
            # a hint for compiled code: the argument is not evaluated
            return ast.copy_location(ast.Constant(None), node)
        self.generic_visit(node)
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


def python_callable(func, program=None, _seen=None):
    """The copy of ``func`` the python backend runs (see the module's text);
    ``program``: the typed program of the compiled backends, whose types of
    locals, parameters and bool values the copy then follows (:class:`Typing`).
    The copy holds the module-level values ``func`` and its helpers read as
    they are when it is made (:func:`.pyreads.global_values`)."""
    typing = _typing(func, program)
    # seen: func -> its copy (None while being made: a recursive call), so a
    # helper called by two functions is the same oracle copy in both
    seen = _seen if _seen is not None else {}
    if typing is None:
        # KernelObject asks for a method's copy at each access: the copy made
        # last is kept with the very objects it read
        last = _LAST.get(func)
        if last is not None:
            for module, name, value in last[0]:
                if module.get(name, GONE) is not value:
                    break
            else:
                seen[func] = last[1]
                return last[1]
    reads = global_reads(func)
    values = global_values(reads)
    if typing is None and (func, values) in _CACHE:
        return _untyped(func, reads, _CACHE[func, values], seen)
    seen.setdefault(func, None)
    src = read_function(func)
    helpers = {}
    for name, h in user_helpers(func, src).items():
        if h not in seen:
            helpers[name] = python_callable(h, program, seen)
        elif seen[h] is not None:
            helpers[name] = seen[h]
    # typed copies differ by their own types and by the copies of the helpers
    # they call (a helper typed float32 for one program, double for another)
    key = (func, values) if typing is None else \
        (func, values, typing.key, tuple(sorted((n, id(h)) for n, h in helpers.items())))
    if key in _CACHE:
        seen[func] = _CACHE[key]
        return _CACHE[key]
    rewrite = _Rewrite(_fixed_names(src.tree), typing, src)
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
    namespace.update(rewrite.counts)
    namespace["pc_local"] = pyvalues.local_value
    namespace["pc_as"] = pyvalues.as_ctype
    namespace.update(("pc_as_" + base, convert) for base, convert in
                     pyvalues.AS_CTYPE.items())
    namespace["pc_bool_int"] = pyvalues.bool_as_int
    exec(compile(module, src.filename, "exec"), namespace)
    result = namespace[tree.name]
    _CACHE[key] = result
    if typing is None:
        return _untyped(func, reads, result, seen)
    seen[func] = result
    return result


def _untyped(func, reads, copy_, seen):
    """``copy_``, the untyped copy of ``func`` for the values of ``reads``
    now, kept as the last one made (python_callable's first look)."""
    _LAST[func] = (tuple((module, name, module.get(name, GONE))
                         for module, name in reads), copy_)
    seen[func] = copy_
    return copy_


def python_source(*funcs):
    """The Python text of ``funcs`` (what the python backend runs)."""
    return "\n\n\n".join(ast.unparse(read_function(f).tree) + "\n" for f in funcs)
