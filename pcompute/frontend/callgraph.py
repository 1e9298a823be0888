"""Resolve the names a kernel uses: helpers, math functions, builtins, constants.

Names are looked up as Python would: the function's closure, then its module's
globals, then the kernel builtins.  A called user function becomes a helper to
translate too; a module-level number becomes a constant in the source.
"""
import ast
import builtins
import math
import types as pytypes

import numpy as np

from .. import types as ktypes
from ..errors import KernelSyntaxError, KernelTypeError

# Math functions kernels may call by bare name or as math.<name>: name -> arity.
MATH_FUNCS = {
    "sin": 1, "cos": 1, "tan": 1, "asin": 1, "acos": 1, "atan": 1, "atan2": 2,
    "sinh": 1, "cosh": 1, "tanh": 1, "asinh": 1, "acosh": 1, "atanh": 1,
    "exp": 1, "expm1": 1, "log": 1, "log10": 1, "log1p": 1, "log2": 1,
    "sqrt": 1, "pow": 2, "fabs": 1, "floor": 1, "ceil": 1, "trunc": 1,
    "fmod": 2, "hypot": 2, "copysign": 2, "erf": 1, "erfc": 1,
    "isnan": 1, "isinf": 1,
}

# Kernel builtins: name -> (min args, max args).
BUILTINS = {
    "abs": (1, 1), "min": (2, 16), "max": (2, 16), "int": (1, 1),
    "float": (1, 1), "printf": (1, 32), "declare": (1, 2), "cast": (2, 2),
    "address": (1, 1), "atomic_inc": (1, 1), "atomic_dec": (1, 1),
    "atomic_max": (2, 2), "prefetch": (1, 1),
    "local_barrier": (0, 0), "len": (1, 1),
}

NAMED_CONSTANTS = {"pi": math.pi, "M_PI": math.pi, "INFINITY": math.inf,
                   "NAN": math.nan, "inf": math.inf, "e": math.e,
                   "M_E": math.e}

_KTYPE_FUNCS = {getattr(ktypes, n): n for n in
                ("declare", "cast", "address", "atomic_inc", "atomic_dec", "atomic_max",
                 "prefetch", "printf")}

_MISSING = object()


class Resolver:
    """Name lookups for one user function."""

    def __init__(self, src):
        self.src = src
        func = src.func
        self.globals = getattr(func, "__globals__", {}) or {}
        self.closure = {}
        code = getattr(func, "__code__", None)
        if code is not None and func.__closure__:
            for name, cell in zip(code.co_freevars, func.__closure__):
                try:
                    self.closure[name] = cell.cell_contents
                except ValueError:
                    pass

    def lookup(self, name):
        if name in self.closure:
            return self.closure[name]
        if name in self.globals:
            return self.globals[name]
        return _MISSING

    def call_target(self, call):
        """Resolve a call: ('helper', function) | ('math', name) | ('builtin', name)."""
        func = call.func
        if isinstance(func, ast.Attribute):
            module = self.module_of(func)
            value = getattr(module, func.attr, _MISSING)
            if value is _MISSING:
                raise self.src.error(
                    KernelSyntaxError, func, "module %s has no function %r"
                    % (module.__name__, func.attr), _math_hint(func.attr))
            return self._classify_call(call, func.attr, value, module)
        name = func.id
        return self._classify_call(call, name, self.lookup(name), None)

    def module_of(self, node):
        """The module of ``module.attr`` (``node`` an ast.Attribute), or raise."""
        name = node.value.id
        module = self.lookup(name)
        if isinstance(module, pytypes.ModuleType):
            return module
        if module is _MISSING:
            raise self.src.error(
                KernelSyntaxError, node.value, "unknown name %r in %s.%s"
                % (name, name, node.attr),
                "kernels read attributes of imported modules only (math.pi); "
                "import the module at module level or pass the value as an argument")
        raise self.src.error(
            KernelSyntaxError, node,
            "%s.%s: attributes are only allowed on modules in kernels, and %s is %s"
            % (name, node.attr, name, _describe(module)),
            "copy the value into a module-level number (%s = %s.%s) or pass it as "
            "an argument" % (node.attr.upper(), name, node.attr))

    def _classify_call(self, call, name, value, module):
        qualified = (module.__name__ + ".") if module else ""
        builtin = getattr(value, "__pcompute_builtin__", None)
        if builtin in BUILTINS:
            return ("builtin", builtin)
        if value is not _MISSING:
            if value in _KTYPE_FUNCS if _hashable(value) else False:
                return ("builtin", _KTYPE_FUNCS[value])
            if isinstance(value, pytypes.FunctionType) and not _is_library(value):
                return ("helper", value)
            if getattr(value, "__pcompute_extern__", False):
                return ("extern", value)
            if name in MATH_FUNCS:
                return ("math", name)
            if name in BUILTINS and value in (getattr(builtins, name, None),):
                return ("builtin", name)
            if isinstance(value, pytypes.FunctionType) and name in BUILTINS:
                return ("builtin", name)
            if isinstance(value, type) and issubclass(value, np.generic):
                raise self.src.error(
                    KernelTypeError, call, "%s%s() is not available in kernels: "
                    "numpy scalar types cannot be called" % (qualified, name),
                    "convert with cast(v, '%s')" % _scalar_name(value))
            if isinstance(value, type):
                raise self.src.error(
                    KernelTypeError, call, "%s%s is a class: kernels cannot create "
                    "objects" % (qualified, name),
                    "kernels work on numbers and arrays; keep the fields in scalars "
                    "or arrays passed as arguments")
            raise self.src.error(
                KernelTypeError, call,
                "%s%s is %s, which kernels cannot call" % (
                    qualified, name, _describe(value)), _math_hint(name))
        if module is None and name in BUILTINS:
            return ("builtin", name)
        if module is None and name in MATH_FUNCS:
            return ("math", name)
        if name == "range":
            raise self.src.error(KernelSyntaxError, call,
                                 "range() can only be used as `for k in range(...)`",
                                 "write `for k in range(n):` and use k inside the loop")
        if hasattr(builtins, name):
            raise self.src.error(
                KernelSyntaxError, call, "the Python builtin %s() is not available in "
                "kernels" % name,
                "kernel builtins are %s; write other operations as loops"
                % ", ".join(sorted(BUILTINS)))
        raise self.src.error(
            KernelSyntaxError, call, "call to unknown function %r" % name,
            "define %s at module level (in the kernel subset) or import it into "
            "the kernel's module" % name)

    def constant(self, node, name):
        """The numeric value of a non-local name, or raise."""
        value = self.lookup(name)
        if value is _MISSING:
            if name in NAMED_CONSTANTS:
                return NAMED_CONSTANTS[name]
            if name in BUILTINS or name in MATH_FUNCS or hasattr(builtins, name):
                raise self.src.error(
                    KernelTypeError, node, "%s is a function, not a value: kernels "
                    "cannot store or pass functions" % name,
                    "call it: %s(...)" % name)
            raise self.src.error(
                KernelSyntaxError, node, "unknown name %r" % name,
                "assign %s before using it, or pass it as an argument" % name)
        return self._number(node, name, value)

    def attribute_constant(self, node):
        module = self.module_of(node)
        value = getattr(module, node.attr, _MISSING)
        if value is _MISSING:
            raise self.src.error(KernelSyntaxError, node, "module %s has no attribute %r"
                                 % (module.__name__, node.attr),
                                 "check the spelling; kernels read numbers such as "
                                 "math.pi from modules")
        return self._number(node, "%s.%s" % (node.value.id, node.attr), value)

    def _number(self, node, name, value):
        if isinstance(value, (bool, np.bool_)):
            return bool(value)
        if isinstance(value, (int, np.integer)):
            return int(value)
        if isinstance(value, (float, np.floating)):
            return float(value)
        if callable(value):
            hint = "call it: %s(...)" % name
        elif isinstance(value, (list, tuple, np.ndarray)):
            hint = "pass it as an array argument (a numpy array or pcompute Array)"
        else:
            hint = "pass it as an argument"
        raise self.src.error(
            KernelTypeError, node,
            "%s is %s; kernels can only read numbers from module level"
            % (name, _describe(value)), hint)


def _describe(value):
    """'a list', 'the class Holder', 'a numpy function', 'a module', ..."""
    if isinstance(value, type):
        return "the class %s" % value.__name__
    if isinstance(value, pytypes.ModuleType):
        return "a module"
    kind = type(value).__name__
    module = getattr(type(value), "__module__", "") or ""
    if module.startswith("numpy"):
        if callable(value):
            return "a numpy function"
        return "a numpy %s" % kind
    if isinstance(value, (pytypes.FunctionType, pytypes.BuiltinFunctionType)):
        if _is_library(value) or isinstance(value, pytypes.BuiltinFunctionType):
            return "a library function"
        return "a function"
    article = "an" if kind[:1] in "aeiou" else "a"
    return "%s %s" % (article, kind)


def _scalar_name(numpy_type):
    try:
        return ktypes.dtype_to_ctype(numpy_type).base
    except Exception:
        return "double"


def _math_hint(name):
    return ("kernels can call the math functions %s, the kernel builtins %s and "
            "module-level functions written in the kernel subset"
            % (", ".join(sorted(MATH_FUNCS)), ", ".join(sorted(BUILTINS))))


def _hashable(value):
    try:
        hash(value)
        return True
    except TypeError:
        return False


def _is_library(func):
    module = getattr(func, "__module__", "") or ""
    return module == "math" or module.startswith("numpy")
