"""The documented C types of kernel values and the value model of the generator."""
from fractions import Fraction

import numpy as np

# -- the documented types -------------------------------------------------------
INT_LIMITS = {"bool": (0, 1)}
for _t in ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"):
    INT_LIMITS[_t] = (int(np.iinfo(_t).min), int(np.iinfo(_t).max))
FLOATS = ("float32", "float64")
SMALL = ("bool", "int8", "uint8", "int16", "uint16")      # promoted to int
ARRAY_TYPES = tuple(INT_LIMITS) + FLOATS
POINTER = {"int32": "gintp", "uint32": "guintp", "int64": "glongp", "uint64": "gulongp",
           "float32": "gfloatp", "float64": "gdoublep"}
SCALAR = {"int32": "int", "uint32": "uint", "int64": "long", "uint64": "ulong",
          "float32": "float", "float64": "double"}
MATH1 = ("sin", "cos", "atan", "tanh", "erf", "exp", "log", "sqrt", "fabs",
         "floor", "ceil", "trunc")
BACKENDS = ("python", "cython", "cython-openmp", "opencl")


def is_int(t):
    return t in INT_LIMITS


def base(t):
    """The type an integer has in arithmetic (small types promote to int)."""
    return "int32" if t in SMALL else t


def fits(t, lo, hi):
    a, b = INT_LIMITS[t]
    return a <= lo and hi <= b


def wrap_to(t, v):
    """``v`` wrapped around to the integer type ``t`` (two's complement)."""
    if t == "bool":
        return int(bool(v))
    a, b = INT_LIMITS[t]
    bits = (b - a + 1).bit_length() - 1
    v = int(v) & ((1 << bits) - 1)
    if a < 0 and v > b:
        v -= 1 << bits
    return v


def lsb_exponent(value):
    """e such that ``value`` is an odd multiple of 2**e (value a dyadic float or int)."""
    f = Fraction(value)
    if f == 0:
        return 64
    num, den = abs(f.numerator), f.denominator
    if den > 1:
        return -(den.bit_length() - 1)
    return (num & -num).bit_length() - 1


class V:
    """A generated expression: its text, documented C type ``t``, the interval
    [lo, hi] of its Python value and, for floats, exactness or an error bound.
    ``e``: an exact float is a multiple of 2**e.  ``lit``: a literal (typed
    weakly).  ``nonneg``: visibly non-negative in the documentation's sense."""
    __slots__ = ("text", "t", "lo", "hi", "exact", "e", "err", "lit", "nonneg", "wrapped")

    def __init__(self, text, t, lo, hi, exact=True, e=0, err=0.0, lit=False,
                 nonneg=False, wrapped=False):
        self.text, self.t, self.lo, self.hi = text, t, lo, hi
        self.exact, self.e, self.err, self.lit = exact, e, err, lit
        self.nonneg, self.wrapped = nonneg, wrapped

    @property
    def mag(self):
        return max(abs(self.lo), abs(self.hi))

    def named(self, text):
        """The same value under a new name (a local or a parameter: no longer a literal)."""
        return V(text, self.t, self.lo, self.hi, self.exact, self.e, self.err, False, False)


class Model:
    """Precision of the run: ``narrow`` when float64 is float32 on the device."""

    def __init__(self, narrow):
        self.narrow = narrow
        self.pyfloat = "float32" if narrow else "float64"

    def mant(self, t):
        return 24 if (t == "float32" or self.narrow) else 53

    def u(self, t):
        return 2.0 ** -self.mant(t)

    def flt(self, text, t, lo, hi, exact, e=0, err=0.0, lit=False):
        """A float V, exactness checked against the mantissa of ``t``."""
        lo, hi = float(lo), float(hi)
        m = max(abs(lo), abs(hi))
        if exact and m > 0 and m / 2.0 ** e >= 2.0 ** self.mant(t):
            exact, err = False, self.u(t) * m
        if not exact:
            err = err + self.u(t) * m
        if m > 1e15 or (not exact and err > 1e6):
            return None
        return V(text, t, lo, hi, exact, e if exact else 0, 0.0 if exact else err, lit)

    def as_float(self, v, t):
        """``v`` converted to the float type ``t`` (as C converts an operand)."""
        if not is_int(v.t):
            return v
        m = v.mag
        if m < 2.0 ** self.mant(t):
            return V(v.text, t, v.lo, v.hi, True, 0)
        return V(v.text, t, v.lo, v.hi, False, 0, self.u(t) * m)


def int_result_type(a, b):
    """semantics.rst, Arithmetic / Types of values: the type of ``a op b``.

    A non-negative literal that fits in int32 takes the other operand's type
    (``u + 1`` stays uint32); a negative one is a signed int like any other
    (``u + (-1)`` is the exact long), bigger ones are long.  uint64 with any
    other integer is uint64 (the wider type; C's rule for the same width)."""
    if a.lit and b.lit:
        return None
    if b.lit:
        a, b = b, a
    ta, tb = base(a.t), base(b.t)
    if a.lit and ta == "int32" and a.lo >= 0:
        return tb
    if ta == tb:
        return ta
    s = {ta, tb}
    if "uint64" in s:
        return "uint64"
    return "int64"


def float_result_type(model, a, b):
    fa, fb = not is_int(a.t), not is_int(b.t)
    if a.lit and b.lit:
        return None
    if fa and fb:
        if a.lit:
            return b.t
        if b.lit:
            return a.t
        return "float64" if "float64" in (a.t, b.t) else "float32"
    f = a if fa else b
    return model.pyfloat if f.lit else f.t


MODULAR = ("+", "-", "*", "<<", "&", "|", "^")


