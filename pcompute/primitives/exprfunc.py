"""Kernel functions made from expression strings (``'a+b'``, ``'INFINITY'``).

Reduction and Scan take their operator as an expression over ``a`` and ``b``;
it becomes a real two-argument function, run through the same front end as
user code (so its semantics and its errors are the same on every backend) and
callable from Python by the python backend.
"""
import ast
import math

import numpy as np

from ..errors import KernelSyntaxError, KernelValueError, SourceLocation

_NAMESPACE = {"min": min, "max": max, "abs": abs, "INFINITY": math.inf,
              "NAN": math.nan, "inf": math.inf, "pi": math.pi, "M_PI": math.pi}
for _name in ("sqrt", "fabs", "exp", "log", "sin", "cos", "floor", "ceil", "fmod",
              "hypot", "atan2", "pow", "copysign", "isnan", "isinf"):
    _NAMESPACE[_name] = getattr(math, _name)


def _check_expression(text, what):
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        loc = SourceLocation("<%s>" % what, 1, (exc.offset or 1) - 1, None, None, text)
        raise KernelSyntaxError("the %s %r is not a valid expression" % (what, text),
                                loc, "write a Python expression, e.g. 'a + b'")
    return tree


def make_function(name, params, expr, what, names=None):
    """A Python function ``name(*params): return expr`` with a ``source``;
    ``names`` adds to the names the expression may use (e.g. helpers)."""
    if not isinstance(expr, str):
        raise KernelValueError("the %s must be a string expression, got %r" % (what, expr))
    _check_expression(expr, what)
    source = "def %s(%s):\n    return %s\n" % (name, ", ".join(params), expr.strip())
    namespace = dict(_NAMESPACE)
    namespace.update(names or {})
    code = compile(source, "<%s %r>" % (what, expr), "exec")
    exec(code, namespace)
    func = namespace[name]
    func.source = source
    return func


def neutral_value(text, dtype):
    """The value of a neutral-element expression (``'0'``, ``'-INFINITY'``)."""
    if not isinstance(text, str):
        text = repr(text)
    _check_expression(text, "neutral")
    try:
        value = eval(compile(text.strip(), "<neutral>", "eval"), dict(_NAMESPACE))
    except Exception as exc:
        raise KernelValueError("cannot evaluate the neutral element %r: %s" % (text, exc),
                               hint="use a number or INFINITY/-INFINITY")
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        if isinstance(value, float) and math.isinf(value):
            info = np.iinfo(dtype)
            value = info.max if value > 0 else info.min
        return dtype.type(value)
    return dtype.type(value)
