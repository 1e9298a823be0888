"""Default argument values as type declarations (Compyle's JIT spelling).

Compyle reads ``def map(i=0, x=[0.0], y=[0.0])`` as a signature: the default
of each argument declares its type and is never used as a value, since a
kernel or helper is always called with every argument.  pcompute accepts the
same spelling.  An annotation wins over a default, and so do the types of the
values a call passes (as in Python, a passed value replaces the default); the
declaration types the arguments nothing else types, e.g. when a kernel is
generated before any call (``pcompute source``, the translator):

========================  ===========================
default                   declared type
========================  ===========================
``True`` / ``False``      ``int``
an ``int`` literal        ``long``
a ``float`` literal       ``double`` (float on a device without ``use_double``)
``[0.0]``, ``(0, 1.5)``   ``gdoublep`` (a global double array)
========================  ===========================

Anything else (``None``, strings, names, expressions) is rejected with the
location of the default.
"""
import ast

from ..errors import KernelSyntaxError
from ..types import DOUBLE, INT, LONG, parse_type

__all__ = ["default_declarations"]

_HINT = ("a default value only declares the argument's type: use a number "
         "(0 for long, 0.0 for double, True for int) or a list of numbers ([0.0] "
         "for a double array), or annotate the argument instead, "
         "e.g. @annotate(n='int')")


def _number(node):
    """The Python number a literal default stands for, or None."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        inner = _number(node.operand)
        return None if inner is None or isinstance(inner, bool) else inner
    if isinstance(node, ast.Constant) and isinstance(node.value, (bool, int, float)):
        return node.value
    return None


def _declared(node):
    value = _number(node)
    if isinstance(value, bool):
        return INT
    if isinstance(value, int):
        return LONG
    if isinstance(value, float):
        return DOUBLE
    if (isinstance(node, (ast.List, ast.Tuple)) and node.elts
            and all(_number(e) is not None for e in node.elts)):
        return parse_type("gdoublep")
    return None


def default_declarations(src):
    """Map each argument of ``src`` with a default value to its declared type.

    Raises a :class:`KernelSyntaxError` at the default when it is not a
    number literal or a non-empty list/tuple of number literals.
    """
    args = src.tree.args
    names = [a.arg for a in args.args]
    declared = {}
    for name, node in zip(names[len(names) - len(args.defaults):], args.defaults):
        t = _declared(node)
        if t is None:
            raise src.error(KernelSyntaxError, node,
                            "the default value of argument %r is not a type "
                            "declaration kernels understand" % name, _HINT)
        declared[name] = t
    return declared
