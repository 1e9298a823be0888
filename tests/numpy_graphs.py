"""Random NumPy expression graphs for the differential tests of pcompute.numpy.

A graph is drawn as a small program over ``xp`` (``numpy`` or
``pcompute.numpy``): leaves of several dtypes and broadcastable shapes,
Python scalars, elementwise operations (casts, comparisons, ``where``) and,
optionally, a reduction somewhere in the expression.  Running the same
program with both modules gives the two results to compare.
"""
from hypothesis import strategies as st

UNARY_FLOAT = ["sin", "cos", "exp", "tanh", "negative", "absolute", "floor", "sqrt_abs",
               "square"]
BINARY = ["add", "subtract", "multiply", "true_divide", "maximum", "minimum"]
INT_ONLY = ["floor_divide", "remainder"]
REDUCTIONS = ["sum", "max", "min", "argmax", "mean"]


class Program:
    """A drawn graph: ``run(xp, leaves)`` evaluates it with module ``xp``."""

    def __init__(self, text, build):
        self.text = text
        self.build = build

    def run(self, xp, leaves):
        return self.build(xp, leaves)

    def __repr__(self):
        return self.text


def _leaf(draw, shape, float_dtype, leaves, ints_only=False):
    kind = draw(st.sampled_from(["int32"] if ints_only else
                                ["float", "float", "int32", "bool", "scalar"]))
    if kind == "scalar":
        value = draw(st.sampled_from([2, -3, 0.5, 1.75]))
        return repr(value), lambda xp, ls, v=value: v
    form = draw(st.sampled_from(["full", "row", "col"]))
    r, c = shape
    leaf_shape = {"full": (r, c), "row": (c,), "col": (r, 1)}[form]
    dtype = {"float": float_dtype, "int32": "int32", "bool": "bool"}[kind]
    k = len(leaves)
    leaves.append((leaf_shape, dtype))
    return "x%d%s:%s" % (k, leaf_shape, dtype), lambda xp, ls, k=k: ls[k]


def _expr(draw, depth, shape, float_dtype, leaves):
    if depth == 0 or draw(st.integers(0, 3)) == 0:
        return _leaf(draw, shape, float_dtype, leaves)
    choice = draw(st.sampled_from(["unary", "binary", "binary", "where", "int",
                                   "compare", "cast", "reduce"]))
    if choice == "unary":
        name = draw(st.sampled_from(UNARY_FLOAT))
        t, f = _expr(draw, depth - 1, shape, float_dtype, leaves)
        if name == "sqrt_abs":
            return "sqrt(abs(%s))" % t, lambda xp, ls: xp.sqrt(xp.abs(f(xp, ls)))
        return "%s(%s)" % (name, t), lambda xp, ls: getattr(xp, name)(f(xp, ls))
    if choice == "binary":
        name = draw(st.sampled_from(BINARY))
        ta, fa = _expr(draw, depth - 1, shape, float_dtype, leaves)
        tb, fb = _expr(draw, depth - 1, shape, float_dtype, leaves)
        return "%s(%s, %s)" % (name, ta, tb), \
            lambda xp, ls: getattr(xp, name)(fa(xp, ls), fb(xp, ls))
    if choice == "int":
        name = draw(st.sampled_from(INT_ONLY))
        ta, fa = _leaf(draw, shape, float_dtype, leaves, ints_only=True)
        tb, fb = _leaf(draw, shape, float_dtype, leaves, ints_only=True)
        return "%s(%s, %s)" % (name, ta, tb), \
            lambda xp, ls: getattr(xp, name)(fa(xp, ls), fb(xp, ls))
    if choice == "compare":
        ta, fa = _expr(draw, depth - 1, shape, float_dtype, leaves)
        tb, fb = _expr(draw, depth - 1, shape, float_dtype, leaves)
        return "(%s < %s)" % (ta, tb), lambda xp, ls: fa(xp, ls) < fb(xp, ls)
    if choice == "where":
        tc, fc = _expr(draw, depth - 1, shape, float_dtype, leaves)
        ta, fa = _expr(draw, depth - 1, shape, float_dtype, leaves)
        tb, fb = _expr(draw, depth - 1, shape, float_dtype, leaves)
        return "where(%s > 0, %s, %s)" % (tc, ta, tb), \
            lambda xp, ls: xp.where(fc(xp, ls) > 0, fa(xp, ls), fb(xp, ls))
    if choice == "cast":
        dtype = draw(st.sampled_from([float_dtype, "int32"]))
        t, f = _expr(draw, depth - 1, shape, float_dtype, leaves)
        return "(%s).astype(%s)" % (t, dtype), \
            lambda xp, ls: xp.asarray(f(xp, ls)).astype(dtype)
    # a reduction inside the expression: its (0-d) result is broadcast back
    name = draw(st.sampled_from(["sum", "max", "mean"]))
    ta, fa = _expr(draw, depth - 1, shape, float_dtype, leaves)
    tb, fb = _expr(draw, depth - 1, shape, float_dtype, leaves)
    return "(%s + %s(%s))" % (tb, name, ta), \
        lambda xp, ls: fb(xp, ls) + getattr(xp, name)(fa(xp, ls))


@st.composite
def programs(draw, float_dtype):
    """(Program, leaf specs [(shape, dtype)], shape) for one random graph."""
    shape = (draw(st.integers(1, 5)), draw(st.integers(1, 7)))
    leaves = []
    text, build = _expr(draw, 3, shape, float_dtype, leaves)
    if draw(st.booleans()):
        name = draw(st.sampled_from(REDUCTIONS))
        axis = draw(st.sampled_from([None, 0, -1]))
        inner = build
        text = "%s(%s, axis=%s)" % (name, text, axis)

        def build(xp, ls, inner=inner, name=name, axis=axis):
            value = xp.asarray(inner(xp, ls))
            axis_ = axis if value.ndim else None
            return getattr(xp, name)(value, axis=axis_)
    return Program(text, build), leaves, shape
