"""Which reduce expressions name an operator that commutes (backends may then
reorder the items they combine)."""

# Reduce expressions whose operator commutes, written the ways users write
# them: the Cython reduction may then interleave its SIMD lanes.
_COMMUTING = {"a+b": "+", "b+a": "+", "a*b": "*", "b*a": "*", "min(a,b)": "min",
              "min(b,a)": "min", "max(a,b)": "max", "max(b,a)": "max"}


def reduce_operator(expr):
    """'+', '*', 'min' or 'max' when the reduce expression is that
    commutative operator on ``a`` and ``b``; None otherwise (an operator
    that may not commute: its items are combined in order)."""
    return _COMMUTING.get("".join(expr.split()).rstrip(";"))
