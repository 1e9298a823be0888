"""Kernel-language expressions for the NumPy ufuncs the layer fuses.

Each entry turns the operand expressions (already converted to the ufunc's
loop dtypes) into one kernel-language expression with NumPy's meaning:
NaN-propagating ``maximum``/``minimum``, ``0`` for an integer division or
modulo by zero, Python-signed ``//`` and ``%``, shifts past the width give
what NumPy gives.  A ufunc (or dtype) missing here is evaluated by NumPy on
the host, counted as a fallback.
"""
import numpy as np

from .dtypes import kernel_type_name

_UNARY_MATH = {
    "sin": "sin", "cos": "cos", "tan": "tan", "arcsin": "asin", "arccos": "acos",
    "arctan": "atan", "sinh": "sinh", "cosh": "cosh", "tanh": "tanh",
    "arcsinh": "asinh", "arccosh": "acosh", "arctanh": "atanh", "exp": "exp",
    "expm1": "expm1", "log": "log", "log10": "log10", "log1p": "log1p",
    "log2": "log2", "sqrt": "sqrt", "floor": "floor", "ceil": "ceil",
    "trunc": "trunc", "fabs": "fabs",
}
_BINARY_MATH = {"arctan2": "atan2", "hypot": "hypot", "copysign": "copysign"}
_COMPARE = {"equal": "==", "not_equal": "!=", "less": "<", "less_equal": "<=",
            "greater": ">", "greater_equal": ">="}
_ARITH = {"add": "+", "subtract": "-", "multiply": "*"}
_BITWISE = {"bitwise_and": "&", "bitwise_or": "|", "bitwise_xor": "^"}


# Division-like ufuncs by a divisor that is not 0: the plain operator (for
# these dtype kinds).
_PLAIN_DIVISION = {"true_divide": ("(%s / %s)", "f"), "divide": ("(%s / %s)", "f"),
                   "floor_divide": ("(%s // %s)", "iuf"), "remainder": ("(%s %% %s)", "iuf"),
                   "mod": ("(%s %% %s)", "iuf"), "fmod": ("fmod(%s, %s)", "f")}


def _truth(e, dtype):
    return e if dtype.kind == "b" else "(%s != 0)" % e


def expression(name, loop, out, args, nonzero_divisor=False):
    """The kernel expression of ufunc ``name`` (None: not fusable).

    ``loop`` are the input loop dtypes, ``out`` the output dtype and ``args``
    the operand expressions (of the loop dtypes).  ``nonzero_divisor``: the
    second operand is known not to be 0 (a constant), so a division or
    modulo needs no branch for a zero divisor (a loop without branches is
    what the C compiler vectorises).
    """
    if nonzero_divisor and name in _PLAIN_DIVISION and \
            loop[0].kind in _PLAIN_DIVISION[name][1]:
        return _PLAIN_DIVISION[name][0] % (args[0], args[1])
    if name == "where":
        return "(%s if %s else %s)" % (args[1], args[0], args[2])
    if name == "astype":
        return args[0]
    kind = loop[0].kind
    isfloat = kind == "f"
    a = args[0]
    b = args[1] if len(args) > 1 else None
    if name in _ARITH:
        if kind == "b":
            return "(%s %s %s)" % (a, "or" if name == "add" else "and", b) \
                if name != "subtract" else None
        return "(%s %s %s)" % (a, _ARITH[name], b)
    if name in _COMPARE:
        return "(%s %s %s)" % (a, _COMPARE[name], b)
    if name in _UNARY_MATH:
        if not isfloat:
            return a if name in ("floor", "ceil", "trunc") else None
        return "%s(%s)" % (_UNARY_MATH[name], a)
    if name in _BINARY_MATH:
        return "%s(%s, %s)" % (_BINARY_MATH[name], a, b) if isfloat else None
    if name in _BITWISE:
        if kind == "b":
            word = {"bitwise_and": "and", "bitwise_or": "or"}.get(name)
            return "(%s %s %s)" % (a, word, b) if word else "(%s != %s)" % (a, b)
        return "(%s %s %s)" % (a, _BITWISE[name], b)
    return _SPECIAL[name](kind, loop[0], a, b) if name in _SPECIAL else None


def _by_zero(a, b):
    """IEEE's ``a / b`` for ``b == 0`` (the kernel language, like Python,
    raises for a float division by zero; NumPy gives inf or nan)."""
    # the sign of the infinity: positive when a and b (a signed zero) agree
    return "(NAN if (%s == 0 or isnan(%s)) else (INFINITY if copysign(%s, %s) == %s " \
        "else -INFINITY))" % (a, a, a, b, a)


def _true_divide(kind, dt, a, b):
    if kind != "f":
        return None
    return "(%s / %s if %s != 0 else %s)" % (a, b, b, _by_zero(a, b))


def _floor_divide(kind, dt, a, b):
    if kind == "f":
        return "(%s // %s if %s != 0 else %s)" % (a, b, b, _by_zero(a, b))
    if kind in "iu":
        return "(0 if %s == 0 else %s // %s)" % (b, a, b)
    return None


def _remainder(kind, dt, a, b):
    if kind == "f":
        return "(%s %% %s if %s != 0 else NAN)" % (a, b, b)
    if kind in "iu":
        return "(0 if %s == 0 else %s %% %s)" % (b, a, b)
    return None


def _fmod(kind, dt, a, b):
    if kind == "f":
        return "(fmod(%s, %s) if %s != 0 else NAN)" % (a, b, b)
    return None


def _power(kind, dt, a, b):
    if kind == "f":
        return "pow(%s, %s)" % (a, b)
    if kind in "iu":     # by squaring; a negative exponent gives 1 (NumPy raises)
        return "(%s ** abs(%s) if %s >= 0 else 1)" % (a, b, b)
    return None


def _minmax(op, nan_first):
    def build(kind, dt, a, b):
        if kind == "f":
            if nan_first:      # maximum / minimum: NaN wins
                return "(%s if (isnan(%s) or %s %s %s) else %s)" % (a, a, a, op, b, b)
            return "(%s if (isnan(%s) or %s %s %s) else %s)" % (a, b, a, op, b, b)
        if kind == "b":
            return "(%s %s %s)" % (a, "or" if op == ">=" else "and", b)
        return "(%s if %s %s %s else %s)" % (a, a, op, b, b)
    return build


def _shift(op):
    def build(kind, dt, a, b):
        if kind not in "iu":
            return None
        bits = 8 * dt.itemsize
        if bits >= 32:
            # the kernel language's shift is NumPy's for every count in the
            # types of 32 and 64 bits (docs/semantics.rst, Shifts)
            return "(%s %s %s)" % (a, op, b)
        if op == "<<":
            return "(0 if %s >= %d or %s < 0 else %s << %s)" % (b, bits, b, a, b)
        fill = "(-1 if %s < 0 else 0)" % a if kind == "i" else "0"
        return "(%s if %s >= %d or %s < 0 else %s >> %s)" % (fill, b, bits, b, a, b)
    return build


def _unary(template, kinds):
    def build(kind, dt, a, b):
        return template.format(a=a) if kind in kinds else None
    return build


def _logical(op):
    def build(kind, dt, a, b):
        return "(%s %s %s)" % (_truth(a, dt), op, _truth(b, dt))
    return build


def _sign(kind, dt, a, b):
    if kind == "f":
        return "(%s if isnan(%s) else (1 if %s > 0 else (-1 if %s < 0 else 0)))" \
            % (a, a, a, a)
    if kind == "i":
        return "(1 if %s > 0 else (-1 if %s < 0 else 0))" % (a, a)
    if kind == "u":
        return "(1 if %s > 0 else 0)" % a
    return None


_SPECIAL = {
    "true_divide": _true_divide, "divide": _true_divide,
    "floor_divide": _floor_divide, "remainder": _remainder, "mod": _remainder,
    "fmod": _fmod, "power": _power,
    "maximum": _minmax(">=", True), "minimum": _minmax("<=", True),
    "fmax": _minmax(">=", False), "fmin": _minmax("<=", False),
    "left_shift": _shift("<<"), "right_shift": _shift(">>"),
    "logical_and": _logical("and"), "logical_or": _logical("or"),
    "logical_xor": _logical("!="),
    "logical_not": lambda kind, dt, a, b: "(not %s)" % _truth(a, dt),
    "negative": _unary("(-{a})", "iuf"), "positive": _unary("{a}", "iuf"),
    "absolute": lambda kind, dt, a, b: ("fabs(%s)" % a if kind == "f" else
                                        "abs(%s)" % a if kind == "i" else a),
    "square": _unary("({a} * {a})", "iuf"),
    "reciprocal": lambda kind, dt, a, b: _true_divide(
        kind, dt, "cast(1, '%s')" % kernel_type_name(dt), a),
    "invert": lambda kind, dt, a, b: ("(not %s)" % a if kind == "b" else
                                      "(~%s)" % a if kind in "iu" else None),
    "isnan": lambda kind, dt, a, b: "isnan(%s)" % a if kind == "f" else "False",
    "isinf": lambda kind, dt, a, b: "isinf(%s)" % a if kind == "f" else "False",
    "isfinite": lambda kind, dt, a, b: ("(not (isnan(%s) or isinf(%s)))" % (a, a)
                                        if kind == "f" else "True"),
    "signbit": lambda kind, dt, a, b: ("(copysign(1.0, %s) < 0)" % a if kind == "f" else
                                       "(%s < 0)" % a if kind == "i" else "False"),
    "sign": _sign,
    "deg2rad": _unary("({a} * 0.017453292519943295)", "f"),
    "rad2deg": _unary("({a} * 57.29577951308232)", "f"),
    "radians": _unary("({a} * 0.017453292519943295)", "f"),
    "degrees": _unary("({a} * 57.29577951308232)", "f"),
}

#: ufunc names with a kernel expression (for some dtypes)
FUSABLE = frozenset(set(_UNARY_MATH) | set(_BINARY_MATH) | set(_COMPARE) |
                    set(_ARITH) | set(_BITWISE) | set(_SPECIAL) | {"where", "astype"})


def ufunc_by_name(name):
    """The numpy ufunc called ``name``."""
    uf = getattr(np, name)
    if not isinstance(uf, np.ufunc):
        raise ValueError("numpy.%s is not a ufunc" % name)
    return uf
