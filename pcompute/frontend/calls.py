"""Typing of calls: helpers, externs, math functions and kernel builtins."""
import ast

from ..errors import KernelSyntaxError, KernelTypeError
from ..types import BOOL, DOUBLE, FLOAT, INT, LONG, VOID, parse_type, promote
from .callgraph import BUILTINS, MATH_FUNCS
from .ir import _join


class CallTyper:
    """The call-typing methods of the function typer (a mixin)."""

    def expr_Call(self, node, allow_void=False):
        if isinstance(node.func, ast.Attribute):
            obj = self.struct_of(node.func.value)
            if obj is not None:
                return self.call_method(node, obj)
        kind, target = self.resolver.call_target(node)
        if kind == "helper":
            return self.call_helper(node, target)
        if kind == "extern":
            return self.call_extern(node, target)
        self.calls[id(node)] = (kind, target)
        nargs = len(node.args)
        if kind == "math":
            if nargs != MATH_FUNCS[target]:
                self.fail(KernelTypeError, node, "%s() takes %d argument(s), got %d"
                          % (target, MATH_FUNCS[target], nargs),
                          "call it as in C's math library: %s(%s)" % (
                              target, ", ".join("xyz"[:MATH_FUNCS[target]])))
            types = self.weak_floats(node.args, [self.expr(a) for a in node.args])
            for a, t in zip(node.args, types):
                if t is not None and not t.is_scalar:
                    self.fail(KernelTypeError, a, "%s() needs numbers, not a %s" % (target, t))
            if target in ("isnan", "isinf"):
                return BOOL
            known = [t for t in types if t is not None]
            if not known:
                return None
            if all(t == FLOAT or t.is_int for t in known) and FLOAT in known:
                return FLOAT
            if any(t == DOUBLE for t in known):
                return DOUBLE
            return self.program.float_type
        low, high = BUILTINS[target]
        if not low <= nargs <= high:
            self.fail(KernelTypeError, node, "%s() takes %s argument(s), got %d"
                      % (target, low if low == high else "%d to %d" % (low, high), nargs),
                      "pass %s positional argument(s)"
                      % (low if low == high else "%d to %d" % (low, high)))
        return getattr(self, "builtin_" + target)(node)

    def builtin_abs(self, node):
        t = self.expr(node.args[0])
        if t is not None and not t.is_scalar:
            self.fail(KernelTypeError, node, "abs() needs a number, not a %s" % t)
        return None if t is None else (promote(t, INT) if t.is_int else t)

    def weak_floats(self, args, types):
        """The types of a call's arguments, a float literal among them taking
        the float type of the others (NEP 50, as in arithmetic): ``hypot(x,
        0.5)`` and ``max(x, 0.5)`` compute in float32 for a float32 ``x``."""
        strong = [t for a, t in zip(args, types) if t is not None and t.is_scalar
                  and not _float_literal(a)]
        if not any(t.is_float for t in strong):
            return types
        other = DOUBLE if DOUBLE in strong else FLOAT
        return [self.weak_float(a, t, other) if t is not None else t
                for a, t in zip(args, types)]

    def builtin_min(self, node):
        result = None
        types = self.weak_floats(node.args, [self.expr(a) for a in node.args])
        for a, t in zip(node.args, types):
            if t is not None and not t.is_scalar:
                self.fail(KernelTypeError, a, "min()/max() need numbers, not a %s" % t)
            result = _join(result, t) if t is not None else result
        return None if result is None else promote(result, INT)

    builtin_max = builtin_min

    def builtin_int(self, node):
        """``int(x)`` loses no value that fits in 64 bits: an integer keeps its
        width (at least int), a float becomes a 64-bit integer."""
        t = self.expr(node.args[0])
        if t is None:
            return None
        if not t.is_scalar:
            self.fail(KernelTypeError, node, "int() needs a number, not a %s" % t)
        return promote(t, INT) if t.is_int else LONG

    def builtin_float(self, node):
        self.expr(node.args[0])
        return self.program.float_type

    def builtin_cast(self, node):
        self.expr(node.args[0])
        spec = node.args[1]
        if not isinstance(spec, ast.Constant) or not isinstance(spec.value, str):
            self.fail(KernelSyntaxError, spec, "cast() needs a type string, e.g. "
                      "cast(x, 'float')")
        try:
            t = self.program.fix(parse_type(spec.value))
        except KernelTypeError as exc:
            self.fail(KernelTypeError, spec, exc.message, exc.hint)
        if not t.is_scalar:
            self.fail(KernelTypeError, spec, "cast() converts to scalar types only")
        return t

    def builtin_address(self, node):
        arg = node.args[0]
        if not isinstance(arg, (ast.Name, ast.Subscript)):
            self.fail(KernelSyntaxError, arg, "address() takes a variable or an array "
                      "element")
        t = self.expr(arg)
        if t is None:
            return None
        if not t.is_scalar:
            self.fail(KernelTypeError, arg, "address() of a %s is not supported" % t)
        space = ""
        if isinstance(arg, ast.Subscript):
            base = self.types.get(id(arg.value))
            space = base.space if base is not None else ""
        return t.pointer_to(space or "private")

    def builtin_atomic_inc(self, node):
        arg = node.args[0]
        if not isinstance(arg, ast.Subscript):
            self.fail(KernelSyntaxError, arg, "atomic_inc()/atomic_dec() work on an "
                      "array element", "write atomic_inc(counts[k])")
        t = self.expr(arg)
        if t is not None and t.base not in ("int", "uint", "long", "ulong"):
            self.fail(KernelTypeError, arg, "atomics need an int, uint, long or ulong "
                      "array, not %s" % t)
        self.features.add("atomics")
        return t

    builtin_atomic_dec = builtin_atomic_inc

    def builtin_atomic_max(self, node):
        arg, value = node.args
        if not isinstance(arg, ast.Subscript):
            self.fail(KernelSyntaxError, arg, "atomic_max() works on an array element",
                      "write atomic_max(log[k], value)")
        t = self.expr(arg)
        if t is not None and t.base not in ("int", "uint", "long", "ulong"):
            self.fail(KernelTypeError, arg, "atomics need an int, uint, long or ulong "
                      "array, not %s" % t)
        v = self.expr(value)
        if v is not None and not (v.is_int or v.base == "bool"):
            self.fail(KernelTypeError, value, "atomic_max() takes an integer value, "
                      "not %s" % v, "cast it: atomic_max(log[k], int(x))")
        self.features.add("atomics")
        return t

    def builtin_prefetch(self, node):
        arg = node.args[0]
        if not isinstance(arg, ast.Subscript):
            self.fail(KernelSyntaxError, arg, "prefetch() takes an array element",
                      "write prefetch(a[k])")
        self.expr(arg)
        return VOID

    def builtin_local_barrier(self, node):
        self.features.add("work_items")
        return VOID

    def builtin_printf(self, node):
        fmt = node.args[0]
        if not isinstance(fmt, ast.Constant) or not isinstance(fmt.value, str):
            self.fail(KernelSyntaxError, fmt, "printf() needs a format string literal "
                      "as its first argument")
        for a in node.args[1:]:
            t = self.expr(a)
            if t is not None and not t.is_scalar:
                self.fail(KernelTypeError, a, "printf() prints numbers only")
        self.features.add("printf")
        return VOID

    def builtin_declare(self, node):
        self.fail(KernelSyntaxError, node, "declare() must be the whole right-hand side "
                  "of an assignment", "write x = declare('double')")

    def call_helper(self, node, func):
        arg_types = [self.expr(a) for a in node.args]
        for a, t in zip(node.args, arg_types):
            if t is not None and t.is_ndarray and not isinstance(a, ast.Name):
                self.fail(KernelTypeError, a, "an n-D array is passed to a helper by "
                          "its name only", "pass the array argument itself: f(a, i, j)")
        if any(t is None for t in arg_types):
            self.pending.append(node)
            return None
        typed = self.program.request(func, node, self.src, arg_types)
        key = self.program.version_key(func, arg_types)
        self.calls[id(node)] = ("helper", typed.c_name if typed is not None
                                else self.program.c_name_of(key))
        name = self.calls[id(node)][1]
        if name not in self.callees:
            self.callees.append(name)
        if typed is None:  # recursion: still being typed
            return self.program.current_ret(key)
        return typed.ret

    def call_extern(self, node, ext):
        for arg in node.args:
            self.expr(arg)
        self.calls[id(node)] = ("extern", ext)
        return self.program.fix(parse_type(getattr(ext, "return_type", "double")))


def _float_literal(node):
    """True for a float literal, signed or not (``0.5``, ``-0.5``)."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) is float
