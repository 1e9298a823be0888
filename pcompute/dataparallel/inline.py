"""Inlining element functions (lambdas, nested and module-level ``def``) into
a kernel body.

An element function is lowered by substitution: its parameters become the
expressions of the elements it is applied to, its body (assignments, then
``return``) becomes lines of the kernel.  Each value carries a *proto* (a
NumPy scalar of its type) computed with the same Python operators, so the
types are the plain-Python oracle's.  Inside an element function a segment
(from ``split``) may be reduced (``sum``, ``len``, ``reduce`` with any
operator or function of two scalars), also after ``map``/``gather`` or a
comprehension over it: that becomes a sequential loop over the segment
(``segments.py``).  Tuples (several values of one element) are Python tuples
of Elems (``elems.py``).
"""
import ast
import builtins
import math
import operator
import types

import numpy as np

from ..errors import KernelSyntaxError, KernelTypeError
from . import comprehension, prelude
from .elems import Elem, proto_of, typed, typed_zero
from .plan import value_of
from .segments import SEG_PRIMS, seg_map
from .source import Closure, closure_of, located
from .values import Seq, SegView

_BINOPS = {ast.Add: ("+", operator.add), ast.Sub: ("-", operator.sub),
           ast.Mult: ("*", operator.mul), ast.Div: ("/", operator.truediv),
           ast.FloorDiv: ("//", operator.floordiv), ast.Mod: ("%", operator.mod),
           ast.Pow: ("**", operator.pow), ast.BitAnd: ("&", operator.and_),
           ast.BitOr: ("|", operator.or_), ast.BitXor: ("^", operator.xor),
           ast.LShift: ("<<", operator.lshift), ast.RShift: (">>", operator.rshift)}
_CMPOPS = {ast.Lt: ("<", operator.lt), ast.LtE: ("<=", operator.le),
           ast.Gt: (">", operator.gt), ast.GtE: (">=", operator.ge),
           ast.Eq: ("==", operator.eq), ast.NotEq: ("!=", operator.ne)}

#: Python/NumPy functions an element function may call, by kernel name.
MATH = {}
for _name in ("exp", "log", "log10", "sqrt", "sin", "cos", "tan", "asin", "acos", "atan",
              "sinh", "cosh", "tanh", "floor", "ceil", "fabs", "atan2", "hypot", "pow"):
    _kname = _name
    for _mod, _attr in ((math, _name), (np, {"asin": "arcsin", "acos": "arccos",
                                             "atan": "arctan"}.get(_name, _name))):
        if hasattr(_mod, _attr):
            MATH[getattr(_mod, _attr)] = (_kname, getattr(np, {"asin": "arcsin",
                                          "acos": "arccos", "atan": "arctan",
                                          "pow": "power"}.get(_name, _name)))
MATH[builtins.abs] = ("abs", np.abs)
MATH[np.abs] = ("abs", np.abs)


def _is_self_call(name, node):
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
        node.func.id == name


def _tail_calls(name, stmts):
    """True when a return among ``stmts`` (on any if/else path) is ``name(...)``
    or an ``a if c else name(...)``."""
    for st in stmts:
        if isinstance(st, ast.Return) and st.value is not None:
            v = st.value
            if _is_self_call(name, v) or (isinstance(v, ast.IfExp) and (
                    _is_self_call(name, v.body) or _is_self_call(name, v.orelse))):
                return True
        if isinstance(st, ast.If) and (_tail_calls(name, st.body) or
                                       _tail_calls(name, st.orelse)):
            return True
    return False


class Inliner:
    """Lowers element-level expressions of one kernel into ``builder``."""

    def __init__(self, builder):
        self.b = builder
        self.stack = []          # the function nodes being inlined (recursion check)

    # -- calls of element functions ------------------------------------------
    def apply(self, func, args, where):
        """``func(*args)`` inlined; ``args`` are Elem, SegView or host values."""
        if isinstance(func, Closure):
            return self.inline(func, args)
        if hasattr(func, "closure"):                   # a @dataparallel function
            return self.inline(func.closure, args)
        if func in MATH:
            kname, npf = MATH[func]
            elems = [self.elem(a, where) for a in args]
            with np.errstate(all="ignore"):
                proto = npf(*[e.proto for e in elems])
            return Elem(self.b.temp("%s(%s)" % (kname, ", ".join(e.text for e in elems))),
                        proto)
        if func in (builtins.min, builtins.max, prelude.min, prelude.max) and \
                len(args) == 2:
            elems = [self.elem(a, where) for a in args]
            proto = func(*[e.proto for e in elems])
            return Elem(self.b.temp("%s(%s, %s)" % (func.__name__, elems[0].text,
                                                    elems[1].text)), proto)
        if func in SEG_PRIMS:
            return SEG_PRIMS[func](self, args, where)
        if isinstance(func, types.FunctionType) and \
                getattr(func, "__module__", None) != prelude.__name__:
            return self.inline(closure_of(func), args)
        raise located(KernelTypeError, "cannot call %r inside an element function"
                      % getattr(func, "__name__", func), where,
                      "call a lambda, a def, a math function (exp, sqrt, ...) or "
                      "sum/len/reduce/map/gather over a segment")

    def inline(self, func, args):
        node = func.node
        params = [a.arg for a in node.args.args]
        if len(params) != len(args):
            raise located(KernelTypeError, "%s takes %d argument(s), got %d"
                          % (func.name, len(params), len(args)), func.where(node))
        if any(f is node for f in self.stack):
            raise located(KernelSyntaxError, "%s calls itself other than as its last "
                          "step" % func.name, func.where(node),
                          "recursion is compiled only as a self tail call: "
                          "'return %s(...)' on a path of if/else" % func.name)
        env = dict(func.env)
        env.update(zip(params, args))
        if isinstance(node, ast.Lambda):
            return self.expr(node.body, env, func)
        stmts = [st for st in node.body if not (isinstance(st, ast.Expr) and
                                                isinstance(st.value, ast.Constant))]
        self.stack.append(node)
        try:
            res, protos, pos = self.b.fresh("r"), [], len(self.b.lines)
            if _tail_calls(func.name, stmts):
                loop = self._loop_vars(params, env, func)
                pos = len(self.b.lines)
                self.b.line("while True:")
                with self.b.scope():
                    self.block(stmts, env, func, res, protos, loop)
            else:
                value = self.block(stmts, env, func, res, protos, None)
                if value is not None:
                    return value
            proto = np.result_type(*protos).type(0)
            self.b.lines.insert(pos, self.b.indent + "%s = %s" % (res, typed_zero(proto)))
            return Elem(res, proto)
        finally:
            self.stack.pop()

    def _loop_vars(self, params, env, func):
        """Loop variables for a self tail call, typed by the first call's values."""
        names = []
        for p in params:
            e = self.elem(env[p], func.where(func.node))
            name = self.b.fresh("v")
            self.b.line("%s = %s" % (name, typed(e)))
            env[p] = Elem(name, e.proto)
            names.append(name)
        return names

    def block(self, stmts, env, func, res, protos, loop, branch=False):
        """Lower ``stmts``; the value of a plain final return is given back
        (an Elem); on branches and in a loop each return assigns ``res``."""
        for k, stmt in enumerate(stmts):
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and \
                    isinstance(stmt.targets[0], ast.Name):
                value = self.expr(stmt.value, env, func)
                if isinstance(value, Elem):
                    value = Elem(self.b.temp(value.text), value.proto)
                env[stmt.targets[0].id] = value
            elif isinstance(stmt, ast.FunctionDef):
                env[stmt.name] = Closure(stmt, env, func.globals, func.filename,
                                         func.firstline, func.lines)
            elif isinstance(stmt, ast.Return) and stmt.value is not None:
                value = stmt.value
                if loop is not None and isinstance(value, ast.IfExp) and \
                        _tail_calls(func.name, [ast.Return(value.body),
                                                ast.Return(value.orelse)]):
                    split = ast.If(value.test, [ast.Return(value.body)],
                                   [ast.Return(value.orelse)])
                    ast.copy_location(split, stmt)
                    return self.block([split], env, func, res, protos, loop, True)
                if loop is not None and _is_self_call(func.name, value):
                    news = [self.elem(self.expr(a, env, func), func.where(a))
                            for a in value.args]
                    news = [Elem(self.b.temp(e.text), e.proto) for e in news]
                    for name, e in zip(loop, news):
                        self.b.line("%s = %s" % (name, typed(e)))
                    return None
                got = self.expr(value, env, func)
                if loop is None and not branch and isinstance(got, tuple):
                    return tuple(self.elem(v, func.where(value)) for v in got)
                e = self.elem(got, func.where(value))
                if loop is None and not branch:
                    return e
                protos.append(e.proto)
                self.b.line("%s = %s" % (res, e.text))
                if loop is not None:
                    self.b.line("break")
                return None
            elif isinstance(stmt, ast.If):
                test = self.elem(self.expr(stmt.test, env, func), func.where(stmt.test))
                rest = stmts[k + 1:]            # what runs after the if, on both paths
                self.b.line("if %s:" % test.text)
                with self.b.scope():
                    self.block(stmt.body + rest, dict(env), func, res, protos, loop, True)
                self.b.line("else:")
                with self.b.scope():
                    self.block(stmt.orelse + rest, dict(env), func, res, protos, loop,
                               True)
                return None
            else:
                raise located(KernelSyntaxError, "%s is not supported in an element "
                              "function" % type(stmt).__name__, func.where(stmt),
                              "write assignments, if/else that return on every path "
                              "and return (a self tail call makes a loop)")
        raise located(KernelSyntaxError, "a path of the element function %s does not "
                      "return a value" % func.name, func.where(func.node),
                      "end every path with return")

    # -- expressions -----------------------------------------------------------
    def elem(self, value, where):
        """``value`` (Elem or host scalar) as an Elem."""
        if isinstance(value, Elem):
            return value
        if isinstance(value, tuple):
            raise located(KernelTypeError, "expected a scalar here, got a tuple of %d "
                          "values" % len(value), where,
                          "take a component (t[0]); a function returning tuples on "
                          "if/else paths is written 'a if c else b'")
        if isinstance(value_of(value), (bool, int, float, np.number, np.bool_)):
            return Elem(self.b.scalar(value), proto_of(value))
        raise located(KernelTypeError, "expected a scalar here, got a %s"
                      % type(value).__name__, where,
                      "reduce a segment with sum/len/reduce first")

    def expr(self, node, env, func):
        where = func.where(node)
        method = getattr(self, "expr_" + type(node).__name__, None)
        if method is None:
            raise located(KernelSyntaxError, "%s is not supported in an element "
                          "function" % type(node).__name__, where,
                          "use arithmetic, comparisons, 'a if c else b', calls and x[j]")
        return method(node, env, func, where)

    def expr_Constant(self, node, env, func, where):
        if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
            raise located(KernelTypeError, "the constant %r is not supported"
                          % (node.value,), where, "use int or float constants")
        return Elem(repr(node.value), node.value)

    def expr_Name(self, node, env, func, where):
        if node.id in env:
            return env[node.id]
        return func.lookup(node.id, where)

    def expr_BinOp(self, node, env, func, where):
        sym, op = _BINOPS.get(type(node.op), (None, None))
        if sym is None:
            raise located(KernelSyntaxError, "operator not supported", where, "")
        left = self.elem(self.expr(node.left, env, func), where)
        right = self.elem(self.expr(node.right, env, func), where)
        with np.errstate(all="ignore"):
            proto = op(left.proto, right.proto if not (sym in "/%//" and not right.proto)
                       else type(right.proto)(1))
        return Elem("(%s %s %s)" % (left.text, sym, right.text), proto)

    def expr_UnaryOp(self, node, env, func, where):
        val = self.elem(self.expr(node.operand, env, func), where)
        if isinstance(node.op, ast.USub):
            return Elem("(-%s)" % val.text, -val.proto)
        if isinstance(node.op, ast.UAdd):
            return val
        if isinstance(node.op, ast.Not):
            return Elem("(not %s)" % val.text, np.bool_(True))
        raise located(KernelSyntaxError, "operator not supported", where, "")

    def expr_Compare(self, node, env, func, where):
        parts, left = [], self.elem(self.expr(node.left, env, func), where)
        for op, comp in zip(node.ops, node.comparators):
            if type(op) not in _CMPOPS:
                raise located(KernelSyntaxError, "comparison not supported", where,
                              "use <, <=, >, >=, == or !=")
            right = self.elem(self.expr(comp, env, func), where)
            parts.append("(%s %s %s)" % (left.text, _CMPOPS[type(op)][0], right.text))
            left = right
        return Elem("(%s)" % " and ".join(parts), np.bool_(True))

    def expr_BoolOp(self, node, env, func, where):
        vals = [self.elem(self.expr(v, env, func), where) for v in node.values]
        if any(np.asarray(v.proto).dtype.kind != "b" for v in vals):
            raise located(KernelTypeError, "'and'/'or' need comparisons on both sides",
                          where, "compare explicitly, e.g. (x != 0) and (y > 1)")
        sym = " and " if isinstance(node.op, ast.And) else " or "
        return Elem("(%s)" % sym.join(v.text for v in vals), np.bool_(True))

    def expr_Tuple(self, node, env, func, where):
        return tuple(self.elem(self.expr(e, env, func), func.where(e)) for e in node.elts)

    def expr_IfExp(self, node, env, func, where):
        # Both branches are computed (they are pure), then one is chosen.
        test = self.elem(self.expr(node.test, env, func), where)
        a, b = self.expr(node.body, env, func), self.expr(node.orelse, env, func)
        if isinstance(a, tuple) or isinstance(b, tuple):
            if not (isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b)):
                raise located(KernelTypeError, "both branches must be tuples of one "
                              "length, or scalars", where, None)
            test = Elem(self.b.temp(test.text), test.proto)
            return tuple(self._choose(test, x, y, where) for x, y in zip(a, b))
        return self._choose(test, a, b, where)

    def _choose(self, test, a, b, where):
        a, b = self.elem(a, where), self.elem(b, where)
        # NumPy's promotion (NEP 50): a Python float beside a float32 stays float32
        proto = np.result_type(a.proto, b.proto).type(0) \
            if type(a.proto) is not type(b.proto) else a.proto
        return Elem("(%s if %s else %s)" % (a.text, test.text, b.text), proto)

    def expr_Subscript(self, node, env, func, where):
        seq = self.expr(node.value, env, func)
        if isinstance(seq, tuple):
            k = node.slice.value if isinstance(node.slice, ast.Constant) else None
            if not isinstance(k, int) or isinstance(k, bool) or not -len(seq) <= k < len(seq):
                raise located(KernelTypeError, "a tuple is indexed by a constant in "
                              "[0, %d)" % len(seq), where, "write t[0], t[1], ...")
            return seq[k]
        index = self.elem(self.expr(node.slice, env, func), where)
        if isinstance(seq, Seq):
            text, proto = seq.element(self.b, index.text)
            return Elem(text, proto)
        if isinstance(seq, SegView):
            return seq.elem(self, "(%s + %s)" % (seq.start, index.text))
        raise located(KernelTypeError, "only sequences can be indexed here", where,
                      "index a sequence argument or a segment")

    def expr_Call(self, node, env, func, where):
        if node.keywords:
            raise located(KernelSyntaxError, "keyword arguments are not supported here",
                          where, "pass arguments by position")
        callee = self.expr(node.func, env, func)
        args = [self.expr(a, env, func) for a in node.args]
        return self.apply(callee, args, where)

    def expr_ListComp(self, node, env, func, where):
        """A comprehension over segments (or sequences, or ``range(a, b)``):
        a map over them, reduced later by sum/len/reduce."""
        fn, iterables = comprehension.parts(node, func, env,
                                            lambda n: self.expr(n, env, func))
        segs = []
        for it in iterables:
            if isinstance(it, tuple) and it[0] == "range":
                bounds = [self.elem(v, where) for v in it[1]]
                lo, hi = ("0", bounds[0].text) if len(bounds) == 1 else \
                    (bounds[0].text, bounds[1].text)
                segs.append(SegView(lo, hi, lambda il, k: Elem(k, np.int64(0)),
                                    np.int64(0)))
            else:
                segs.append(it)
        return seg_map(self, [fn] + segs, where)

    expr_GeneratorExp = expr_ListComp

    def expr_Lambda(self, node, env, func, where):
        return Closure(node, env, func.globals, func.filename, func.firstline)
