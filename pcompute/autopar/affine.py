"""Affine integer expressions over loop variables: ``2*i - j + 3``.

The dependence tests work on subscripts written as ``sum(c_v * v) + c0``
with integer coefficients.  :func:`affine` turns a Python expression into
that form, looking the values of loop invariants (``k`` in ``a[i + k]``,
``m`` in ``a[i*m + j]``) up in ``env``; it returns None for anything that is
not affine in the loop variables (an array read, a call, ``i*j``, a float).
"""
import ast
import numbers
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Affine:
    """``sum(coeffs[v] * v) + const`` with integer coefficients."""
    coeffs: tuple = field(default_factory=tuple)   # sorted ((var, coeff), ...)
    const: int = 0

    @staticmethod
    def make(coeffs, const):
        items = tuple(sorted((v, int(c)) for v, c in coeffs.items() if c != 0))
        return Affine(items, int(const))

    def coeff(self, var):
        """The coefficient of ``var`` (0 when absent)."""
        for v, c in self.coeffs:
            if v == var:
                return c
        return 0

    @property
    def variables(self):
        return tuple(v for v, _ in self.coeffs)

    def _dict(self):
        return dict(self.coeffs)

    def __add__(self, other):
        d = self._dict()
        for v, c in other.coeffs:
            d[v] = d.get(v, 0) + c
        return Affine.make(d, self.const + other.const)

    def scale(self, k):
        return Affine.make({v: c * k for v, c in self.coeffs}, self.const * k)

    def substitute(self, var, replacement):
        """This expression with ``var`` replaced by the Affine ``replacement``."""
        c = self.coeff(var)
        if c == 0:
            return self
        d = self._dict()
        del d[var]
        return Affine.make(d, self.const) + replacement.scale(c)

    def __str__(self):
        parts = []
        for v, c in self.coeffs:
            term = v if abs(c) == 1 else "%d*%s" % (abs(c), v)
            parts.append(("- " if c < 0 else "+ ") + term)
        if self.const or not parts:
            parts.append(("- " if self.const < 0 else "+ ") + str(abs(self.const)))
        text = " ".join(parts)
        return text[2:] if text.startswith("+ ") else "-" + text[2:]


def constant(value):
    """The Affine of an integer constant."""
    return Affine((), int(value))


def _is_int(value):
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def affine(node, variables, env):
    """The :class:`Affine` of AST expression ``node``, or None.

    ``variables`` are the names kept symbolic (loop variables); other names
    must have an integer value in ``env`` (their value at this call)."""
    if isinstance(node, ast.Constant):
        return constant(node.value) if _is_int(node.value) else None
    if isinstance(node, ast.Name):
        if node.id in variables:
            return Affine(((node.id, 1),), 0)
        value = env.get(node.id)
        return constant(value) if _is_int(value) else None
    if isinstance(node, ast.UnaryOp):
        inner = affine(node.operand, variables, env)
        if inner is None:
            return None
        if isinstance(node.op, ast.USub):
            return inner.scale(-1)
        return inner if isinstance(node.op, ast.UAdd) else None
    if isinstance(node, ast.BinOp):
        return _binop(node, variables, env)
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return None
    return None


def _binop(node, variables, env):
    left = affine(node.left, variables, env)
    right = affine(node.right, variables, env)
    if left is None or right is None:
        return None
    if isinstance(node.op, ast.Add):
        return left + right
    if isinstance(node.op, ast.Sub):
        return left + right.scale(-1)
    if isinstance(node.op, ast.Mult):
        if not left.coeffs:
            return right.scale(left.const)
        if not right.coeffs:
            return left.scale(right.const)
        return None
    if isinstance(node.op, ast.FloorDiv) and not left.coeffs and not right.coeffs \
            and right.const != 0:
        return constant(left.const // right.const)
    return None


def subscript_indices(node):
    """The index expressions of ``a[e]`` / ``a[e1, e2]`` (a list)."""
    index = node.slice
    if isinstance(index, ast.Tuple):
        return list(index.elts)
    return [index]
