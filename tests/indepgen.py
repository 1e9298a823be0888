"""An independent random-kernel generator for pcompute (issue 24).

Written as a new user would write kernels, from the user documentation only
(docs/language.rst, semantics.rst, types.rst, precision.rst, elementwise.rst,
reduction.rst, scan.rst), without reading :mod:`pcompute.fuzz`.  Each case is
a small Python module written to a file: an ``Elementwise`` kernel, or the map
function of a ``Reduction``, or the input/output functions of a ``Scan``,
with helpers, locals (plain and ``declare``-d), loops with ``break``, over
int8 ... uint64, float32/float64 and bool arrays.

The reference is the *plain Python call* of the same functions on Python
numbers (arrays become lists of Python ints, floats and bools), with only the
conversions the documentation states applied where a value leaves the kernel:
a value stored into an array element becomes the element's type (integers
wrap to its width, floats are truncated towards zero, anything into a bool is
its truth value, floats are rounded to the element's precision), and the
outermost integer operation of a stored value wraps around in its documented
C type (semantics.rst: "Signed overflow is defined: it wraps around").
Everywhere else the generator keeps values inside their documented C types,
so that C and Python agree by the documented rules alone: it tracks, for
every expression, its C type by the documented promotion rules, the interval
of its Python value and, for floats, whether it is exact (a dyadic value that
fits the mantissa) or else a bound on its rounding error.  Float comparisons,
``int()``, ``floor``, ``//`` and ``%`` only see exact values.

Some Elementwise cases contain one construct the documentation says is an
error (a run-time power that may be negative, a ``uint64`` compared with a
signed value, a float into a ``declare('int')`` local, a float passed to an
``int`` helper parameter, ``and`` between numbers, a literal beyond 64 bits):
every backend must raise a pcompute error located at that line.

Every case runs on each selected backend (python, cython, cython with
OpenMP, opencl) and its CUDA source is compile-checked with ``nvcc --ptx``.
Outcomes other than "matches the reference" or "the expected located error"
are findings: a silent difference, a compiler dump (``BuildError``), an
unexpected or unlocated error, a crash or a hang.

Long run (one kernel per child process, so a crash or hang is caught)::

    python tests/indepgen.py --seconds 1200 --seed 1 --out indep-failures
    python tests/indepgen.py --case 17 --show        # one case, its source and result

``tests/test_indepgen.py`` runs a few fixed seeds through the ``backend``
fixture.
"""
import argparse
import importlib.util
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import time
import traceback
import warnings
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
        return V(text, self.t, self.lo, self.hi, self.exact, self.e, self.err,
                 False, self.nonneg and not self.lit)


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
    """semantics.rst, Arithmetic / Types of values: the type of ``a op b``."""
    if a.lit and b.lit:
        return None
    if b.lit:
        a, b = b, a
    ta, tb = base(a.t), base(b.t)
    if a.lit:
        if ta == "int32":
            return tb             # a literal that fits int takes the other's type
        return None if tb == "uint64" else "int64"
    if ta == tb:
        return ta
    s = {ta, tb}
    if "uint64" in s:
        return "uint64" if s == {"uint64", "uint32"} else None
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


class Generator:
    """Writes one case from ``random.Random(seed)``."""

    def __init__(self, seed, model):
        self.rng = random.Random(seed)
        self.seed = seed
        self.model = model
        self.helpers = []          # source blocks of helper functions
        self.nhelp = 0
        self.nlocal = 0

    # -- leaves --------------------------------------------------------------
    def literal(self, kind):
        r = self.rng
        if kind == "int":
            choice = r.random()
            if choice < 0.7:
                v = r.randint(-9, 9)
            elif choice < 0.85:
                v = r.choice([127, 255, 32767, 65535, 100000, 2 ** 31 - 1, -2 ** 31,
                              2 ** 32 - 1, 2 ** 40, 3000000000])
            else:
                v = r.randint(10, 1000) * r.choice([1, -1])
            t = "int32" if fits("int32", v, v) else "int64"
            text = "(%d)" % v if v < 0 else "%d" % v
            return V(text, t, v, v, lit=True, nonneg=v >= 0)
        choice = r.random()
        if choice < 0.6:
            v = r.randint(-40, 40) / 8.0
        elif choice < 0.8:
            v = r.choice([0.1, 0.3, 2.7, 1e-3, 1.5e9])
        else:
            v = float(r.choice([3, 1024, 0.125, 1e9]))
        text = "(%r)" % v if v < 0 else repr(v)
        exact = Fraction(v).denominator & (Fraction(v).denominator - 1) == 0
        # the literal's type is weak: it is decided by the value it meets
        if exact:
            return V(text, "float32" if np.float32(v) == v else "float64", v, v,
                     True, lsb_exponent(v), lit=True)
        return V(text, "float32", v, v, False, 0, self.model.u("float32") * abs(v),
                 lit=True)

    def atom(self, scope, want):
        r = self.rng
        pool = [v for v in scope if self.ok(v, want)]
        if pool and r.random() < 0.8:
            return r.choice(pool)
        if want in ("int", "bool"):
            return self.literal("int") if want == "int" else None
        if want == "float":
            return self.literal("float")
        return self.literal("float" if r.random() < 0.3 else "int")

    def ok(self, v, want):
        if v is None:
            return False
        if want is None:
            return True
        if want == "int":
            return is_int(v.t)
        if want == "float":
            return not is_int(v.t)
        if want == "exact":
            return is_int(v.t) or v.exact
        if want == "bool":
            return v.t == "bool" and not v.lit
        return True

    # -- expressions -----------------------------------------------------------
    def expr(self, scope, depth, want=None, top=False):
        for _ in range(40):
            if depth <= 0 or self.rng.random() < 0.2:
                v = self.atom(scope, want)
            else:
                v = self.compound(scope, depth, want, top)
            if self.ok(v, want) and v is not None:
                return v
        if want == "bool":
            a = self.atom(scope, "int")
            return V("(%s == %s)" % (a.text, a.text), "bool", 1, 1)
        return self.literal("float" if want == "float" else "int")

    def compound(self, scope, depth, want, top):
        r = self.rng.random()
        if want == "bool" or (want is None and r < 0.12):
            return self.condition(scope, depth)
        if r < 0.55:
            return self.binary(scope, depth, top)
        if r < 0.65:
            return self.unary(scope, depth, top)
        if r < 0.75:
            return self.builtin(scope, depth)
        if r < 0.85:
            return self.mathcall(scope, depth)
        if r < 0.9:
            return self.ternary(scope, depth)
        if r < 0.95 and self.nhelp < 3:
            return self.helper_call(scope, depth)
        return self.power(scope, depth, top)

    def binary(self, scope, depth, top):
        op = self.rng.choice(["+", "-", "*", "/", "//", "%", "<<", ">>", "&", "|", "^",
                              "+", "-", "*"])
        a = self.expr(scope, depth - 1)
        b = self.expr(scope, depth - 1)
        if a.t == "bool" and a.lit or b.t == "bool" and b.lit:
            return None
        if is_int(a.t) and is_int(b.t) and op != "/":
            return self.int_binary(op, a, b, top)
        if op in ("<<", ">>", "&", "|", "^"):
            return None
        return self.float_binary(op, a, b)

    def int_binary(self, op, a, b, top):
        t = int_result_type(a, b)
        if t is None:
            return None
        text = "(%s %s %s)" % (a.text, op, b.text)
        if op in ("<<", ">>"):
            # the count: in range, a literal, or an int next to an int/long left operand
            bits = (INT_LIMITS[t][1] - INT_LIMITS[t][0] + 1).bit_length() - 1
            if not (b.lit or (base(a.t) in ("int32", "int64") and base(b.t) == "int32")):
                return None
            if b.lo < 0 or b.hi > bits - 1:
                return None
            if op == "<<":
                lo = min(a.lo << b.lo, a.lo << b.hi)
                hi = max(a.hi << b.lo, a.hi << b.hi)
            else:
                lo = min(a.lo >> b.lo, a.lo >> b.hi)
                hi = max(a.hi >> b.lo, a.hi >> b.hi)
            nonneg = a.nonneg and b.nonneg
        elif op in ("+", "-", "*"):
            if op == "+":
                lo, hi = a.lo + b.lo, a.hi + b.hi
            elif op == "-":
                lo, hi = a.lo - b.hi, a.hi - b.lo
            else:
                c = [a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi]
                lo, hi = min(c), max(c)
            nonneg = a.nonneg and b.nonneg and op != "-"
        elif op in ("&", "|", "^"):
            if a.lo >= 0 and b.lo >= 0:
                k = max(a.hi, b.hi).bit_length()
                lo, hi = 0, (min(a.hi, b.hi) if op == "&" else (1 << k) - 1)
            else:
                k = max(a.mag, b.mag).bit_length() + 1
                lo, hi = -(1 << k), (1 << k) - 1
            nonneg = op == "&" and (a.nonneg or b.nonneg) or a.nonneg and b.nonneg
        else:                                        # // and %: Python's meaning
            if not (fits(t, a.lo, a.hi) and fits(t, b.lo, b.hi)):
                return None
            if b.lo <= 0 <= b.hi:
                return None
            if op == "//":
                c = [a.lo // b.lo, a.lo // b.hi, a.hi // b.lo, a.hi // b.hi]
                lo, hi = min(c), max(c)
            elif b.lo > 0:
                lo, hi = 0, b.hi - 1
            else:
                lo, hi = b.lo + 1, 0
            nonneg = op == "%" and b.lit and b.lo > 0
        v = V(text, t, lo, hi, nonneg=nonneg)
        if op not in MODULAR and not (fits(t, a.lo, a.hi) and fits(t, b.lo, b.hi)):
            return None     # an operand that changes value when converted to t
        if fits(t, lo, hi):
            return v
        if top and op in MODULAR and not a.wrapped and not b.wrapped:
            v.wrapped = True
            return v
        return None

    def float_binary(self, op, a, b):
        m = self.model
        t = float_result_type(m, a, b)
        if t is None:
            return None
        if is_int(a.t) and is_int(b.t):                 # int / int: a Python float
            t = m.pyfloat
        x, y = m.as_float(a, t), m.as_float(b, t)
        text = "(%s %s %s)" % (a.text, op, b.text)
        if op in ("+", "-"):
            lo = x.lo + y.lo if op == "+" else x.lo - y.hi
            hi = x.hi + y.hi if op == "+" else x.hi - y.lo
            return m.flt(text, t, lo, hi, x.exact and y.exact, min(x.e, y.e), x.err + y.err)
        if op == "*":
            c = [x.lo * y.lo, x.lo * y.hi, x.hi * y.lo, x.hi * y.hi]
            err = x.mag * y.err + y.mag * x.err + x.err * y.err
            return m.flt(text, t, min(c), max(c), x.exact and y.exact, x.e + y.e, err)
        dmin = min(abs(y.lo), abs(y.hi))
        if y.lo <= 0 <= y.hi or dmin < 0.5 or y.err > dmin / 4:
            return None
        if op == "/":
            c = [x.lo / y.lo, x.lo / y.hi, x.hi / y.lo, x.hi / y.hi]
            err = 2 * (x.err / dmin + x.mag * y.err / dmin ** 2)
            return m.flt(text, t, min(c), max(c), False, 0, err)
        if not (x.exact and y.exact):
            return None
        if op == "//":
            c = [x.lo / y.lo, x.lo / y.hi, x.hi / y.lo, x.hi / y.hi]
            return m.flt(text, t, math.floor(min(c)), math.floor(max(c)), True, 0)
        lo, hi = (0.0, y.hi) if y.lo > 0 else (y.lo, 0.0)
        return m.flt(text, t, lo, hi, True, min(x.e, y.e))

    def unary(self, scope, depth, top):
        op = self.rng.choice(["-", "~", "-", "+"])
        a = self.expr(scope, depth - 1)
        if a.lit:
            return None
        text = "(%s%s)" % (op, a.text)
        if is_int(a.t):
            t = base(a.t)
            if op == "-":
                lo, hi = -a.hi, -a.lo
            elif op == "~":
                lo, hi = -a.hi - 1, -a.lo - 1
            else:
                lo, hi = a.lo, a.hi
            v = V(text, t, lo, hi, nonneg=op == "+" and a.nonneg)
            if fits(t, lo, hi):
                return v
            if top and not a.wrapped:
                v.wrapped = True
                return v
            return None
        if op == "~":
            return None
        if op == "-":
            return V(text, a.t, -a.hi, -a.lo, a.exact, a.e, a.err)
        return V(text, a.t, a.lo, a.hi, a.exact, a.e, a.err)

    def condition(self, scope, depth):
        r = self.rng.random()
        if r < 0.15 and depth > 1:
            c = self.condition(scope, depth - 1)
            return V("(not %s)" % c.text, "bool", 0, 1) if c else None
        if r < 0.3 and depth > 1:
            c1, c2 = self.condition(scope, depth - 1), self.condition(scope, depth - 1)
            if c1 is None or c2 is None:
                return None
            return V("(%s %s %s)" % (c1.text, self.rng.choice(["and", "or"]), c2.text),
                     "bool", 0, 1)
        a = self.expr(scope, depth - 1, "exact")
        b = self.expr(scope, depth - 1, "exact")
        if a.lit and b.lit:
            return None
        for x, y in ((a, b), (b, a)):       # uint64 against a maybe-negative signed value
            if base(x.t) == "uint64" and is_int(y.t) and not y.nonneg and \
                    y.t not in ("bool", "uint8", "uint16", "uint32", "uint64"):
                return None
        if not (is_int(a.t) and is_int(b.t)):
            t = float_result_type(self.model, a, b)
            if t is None:
                return None
            if not (self.model.as_float(a, t).exact and self.model.as_float(b, t).exact):
                return None
        op = self.rng.choice(["<", "<=", ">", ">=", "==", "!="])
        if self.rng.random() < 0.15:
            c = self.expr(scope, depth - 1, "int")
            if c.lit or not is_int(a.t) or not is_int(b.t) or base(c.t) == "uint64" \
                    or base(a.t) == "uint64" or base(b.t) == "uint64":
                return None
            return V("(%s < %s <= %s)" % (a.text, c.text, b.text), "bool", 0, 1)
        return V("(%s %s %s)" % (a.text, op, b.text), "bool", 0, 1)

    def ternary(self, scope, depth):
        c = self.condition(scope, depth - 1)
        a = self.expr(scope, depth - 1)
        b = self.expr(scope, depth - 1)
        if c is None:
            return None
        text = "(%s if %s else %s)" % (a.text, c.text, b.text)
        lo, hi = min(a.lo, b.lo), max(a.hi, b.hi)
        if is_int(a.t) and is_int(b.t):
            ta, tb = base(a.t), base(b.t)
            if a.lit or b.lit:
                lit, other = (a, b) if a.lit else (b, a)
                t = base(other.t)
                if t not in ("int32", "int64"):
                    return None
                t = "int64" if lit.t == "int64" else t
            elif ta == tb:
                t = ta
            elif ta.startswith("int") and tb.startswith("int"):
                t = "int64"
            else:
                return None
            return V(text, t, lo, hi, nonneg=a.nonneg and b.nonneg)
        t = float_result_type(self.model, a, b)
        if t is None:
            return None
        if a.lit or b.lit:
            t = "float32"                      # a weak literal: either precision
        x, y = self.model.as_float(a, t), self.model.as_float(b, t)
        return self.model.flt(text, t, lo, hi, x.exact and y.exact, min(x.e, y.e),
                              max(x.err, y.err))

    def builtin(self, scope, depth):
        name = self.rng.choice(["int", "float", "abs", "min", "max", "abs"])
        a = self.expr(scope, depth - 1)
        if a.lit:
            return None
        m = self.model
        if name == "int":
            if is_int(a.t):
                return V("int(%s)" % a.text, base(a.t), a.lo, a.hi, nonneg=a.nonneg)
            if not a.exact:
                return None
            lo, hi = math.trunc(a.lo), math.trunc(a.hi)
            return V("int(%s)" % a.text, "int64", lo, hi) if fits("int64", lo, hi) else None
        if name == "float":
            if is_int(a.t):
                x = m.as_float(a, m.pyfloat)
                return m.flt("float(%s)" % a.text, m.pyfloat, a.lo, a.hi, x.exact, 0, x.err)
            return V("float(%s)" % a.text, "float32", a.lo, a.hi, a.exact, a.e, a.err)
        if name == "abs":
            lo = 0 if a.lo <= 0 <= a.hi else min(abs(a.lo), abs(a.hi))
            if is_int(a.t):
                t = base(a.t)
                return V("abs(%s)" % a.text, t, lo, a.mag, nonneg=True) \
                    if fits(t, lo, a.mag) else None
            return V("abs(%s)" % a.text, a.t, lo, a.mag, a.exact, a.e, a.err)
        b = self.expr(scope, depth - 1)
        text = "%s(%s, %s)" % (name, a.text, b.text)
        f = min if name == "min" else max
        lo, hi = f(a.lo, b.lo), f(a.hi, b.hi)
        if is_int(a.t) and is_int(b.t):
            t = int_result_type(a, b)
            if t is None or not fits(t, a.lo, a.hi) or not fits(t, b.lo, b.hi):
                return None
            return V(text, t, lo, hi, nonneg=a.nonneg and b.nonneg)
        t = float_result_type(m, a, b)
        if t is None:
            return None
        if b.lit:
            t = "float32"
        x, y = m.as_float(a, t), m.as_float(b, t)
        return m.flt(text, t, lo, hi, x.exact and y.exact, min(x.e, y.e), max(x.err, y.err))

    def mathcall(self, scope, depth):
        m = self.model
        name = self.rng.choice(MATH1 + ("hypot", "atan2", "copysign", "fmod", "pi", "e",
                                        "inf"))
        if name in ("pi", "e"):       # the named constants (weak, like a literal)
            value = getattr(math, name)
            return V(name, "float32", value, value, False, 0, 4 * m.u("float32"), lit=True)
        a = self.expr(scope, depth - 1)
        if a.lit:
            return None
        if name == "inf":             # min(x, inf) is x; inf is a documented constant
            f = self.rng.choice(["min(%s, inf)", "max(%s, -inf)", "min(inf, %s)"])
            t = m.pyfloat if is_int(a.t) else a.t
            x = m.as_float(a, t)
            return m.flt(f % a.text, t, a.lo, a.hi, x.exact, x.e, x.err)
        t = m.pyfloat if is_int(a.t) else a.t
        x = m.as_float(a, t)
        u = m.u(t)
        pre = "math." if self.rng.random() < 0.3 else ""
        text = "%s%s(%s)" % (pre, name, a.text)
        if name in ("hypot", "atan2", "copysign", "fmod"):
            b = self.expr(scope, depth - 1)
            if is_int(a.t) != is_int(b.t) or b.lit or (not is_int(a.t) and a.t != b.t):
                return None
            y = m.as_float(b, t)
            text = "%s%s(%s, %s)" % (pre, name, a.text, b.text)
            if name == "hypot":
                hi = math.hypot(x.mag, y.mag)
                return m.flt(text, t, 0.0, hi, False, 0, x.err + y.err + 2 * u * hi)
            if name == "atan2":
                if y.lo < 0.5 or y.err > 0.1:
                    return None
                return m.flt(text, t, -1.6, 1.6, False, 0,
                             (x.err + y.err) / y.lo + 4 * u * 1.6)
            if y.lo <= 0 <= y.hi or not (x.exact and y.exact):
                return None
            if name == "copysign":
                return m.flt(text, t, -x.mag, x.mag, True, x.e)
            lo, hi = (-y.mag, y.mag)
            return m.flt(text, t, lo if x.lo < 0 else 0.0, hi if x.hi > 0 else 0.0,
                         True, min(x.e, y.e))
        if name in ("sin", "cos", "atan", "tanh", "erf"):
            if x.mag > 100:
                return None
            return m.flt(text, t, -1.6, 1.6, False, 0, 1.2 * x.err + 4 * u * 1.6)
        if name in ("exp", "log", "sqrt") and x.mag > 100:
            return None
        if name == "exp" and x.hi > 8:
            x = m.flt("tanh(%s)" % a.text, t, -1.0, 1.0, False, 0, x.err + 4 * u)
            text = "%sexp(%s)" % (pre, x.text)
        if name in ("log", "sqrt") and x.lo < 0.25:
            x = m.flt("(fabs(%s) + 0.5)" % a.text, t, 0.5, x.mag + 0.5, x.exact,
                      min(x.e, -1), x.err)
            text = "%s%s(%s)" % (pre, name, x.text)
        if x is None:
            return None
        if name == "exp":
            if x.hi > 8 or x.err > 0.1:
                return None
            hi = math.exp(x.hi)
            return m.flt(text, t, math.exp(x.lo), hi, False, 0, hi * 2 * x.err + 4 * u * hi)
        if name == "log":
            if x.lo < 0.25 or x.err > 0.05:
                return None
            return m.flt(text, t, math.log(x.lo), math.log(x.hi), False, 0,
                         2 * x.err / x.lo + 4 * u * max(1.0, math.log(x.hi)))
        if name == "sqrt":
            if x.lo < 0 or (not x.exact and x.lo < 0.25):
                return None
            hi = math.sqrt(x.hi)
            err = 0.0 if x.exact else 2 * x.err / math.sqrt(x.lo)
            return m.flt(text, t, math.sqrt(x.lo), hi, False, 0,
                         err + 4 * u * hi + (u * hi if x.exact else 0))
        if name == "fabs":
            lo = 0.0 if x.lo <= 0 <= x.hi else min(abs(x.lo), abs(x.hi))
            return m.flt(text, t, lo, x.mag, x.exact, x.e, x.err)
        if not x.exact:                              # floor, ceil, trunc
            return None
        f = getattr(math, name)
        return m.flt(text, t, f(x.lo), f(x.hi), True, max(0, x.e))

    def power(self, scope, depth, top):
        a = self.expr(scope, depth - 1)
        if a.lit:
            return None
        m = self.model
        if is_int(a.t):
            r = self.rng.random()
            if r < 0.5:
                k = self.rng.randint(0, 4)
                ex = V(str(k), "int32", k, k, lit=True, nonneg=True)
            else:
                e = self.expr(scope, depth - 1, "int")
                if e.lit or base(e.t) != "int32" or e.mag > 1000:
                    return None
                if r < 0.75:
                    ex = V("abs(%s)" % e.text, "int32", 0, min(e.mag, 6), nonneg=True)
                    if e.mag > 6:
                        return None
                else:
                    k = self.rng.randint(2, 5)
                    ex = V("(%s %% %d)" % (e.text, k), "int32", 0, k - 1, nonneg=True)
                if base(a.t) not in ("int32", "int64"):
                    return None
            t = int_result_type(a, ex)
            if t is None:
                return None
            bases = {a.lo, a.hi, min(a.lo + 1, a.hi), max(a.hi - 1, a.lo)}
            bases |= {b for b in (-1, 0, 1) if a.lo <= b <= a.hi}
            vals = [b ** k for b in bases for k in range(ex.lo, ex.hi + 1)]
            if max(abs(x) for x in vals) > 2 ** 70:
                return None
            v = V("(%s ** %s)" % (a.text, ex.text), t, min(vals), max(vals),
                  nonneg=a.nonneg)
            if fits(t, v.lo, v.hi):
                return v
            if top and not a.wrapped and base(a.t) == t:
                v.wrapped = True
                return v
            return None
        if not a.exact or a.lo < 0.25 or a.hi > 8:
            return None
        k = self.rng.randint(-3, 3)
        hi = max(a.lo ** k, a.hi ** k)
        lo = min(a.lo ** k, a.hi ** k)
        text = "(%s ** %s)" % (a.text, "(%d)" % k if k < 0 else str(k))
        return m.flt(text, a.t, lo, hi, False, 0, 4 * m.u(a.t) * hi)

    def helper_call(self, scope, depth):
        """A helper function called once, typed from its call (or annotated)."""
        nargs = self.rng.randint(1, 2)
        args = [self.expr(scope, depth - 1) for _ in range(nargs)]
        if any(a.lit or a.wrapped for a in args):
            return None
        self.nhelp += 1
        name = "helper%d_%d" % (self.seed, self.nhelp)
        params = []
        annotations = {}
        for k, a in enumerate(args):
            p = "p%d" % k
            if self.rng.random() < 0.3:
                # annotated: an integer may go to a wider integer or to a double
                if is_int(a.t):
                    t = self.rng.choice(["int64", "float64"]) if base(a.t) != "uint64" \
                        else "uint64"
                    if t == "float64":
                        pv = self.model.as_float(a, self.model.pyfloat)
                        pv = self.model.flt(p, self.model.pyfloat, a.lo, a.hi, pv.exact,
                                            0, pv.err)
                        if pv is None:
                            return None
                    else:
                        pv = V(p, t, a.lo, a.hi, nonneg=base(a.t).startswith("u"))
                else:
                    t = "float64"
                    pv = V(p, "float64" if not self.model.narrow else "float32",
                           a.lo, a.hi, a.exact, a.e, a.err)
                annotations[p] = SCALAR[t]
            else:
                pv = a.named(p)
            params.append(pv)
        body_scope = params + [self.literal("int")]
        saved = self.nlocal
        ret = self.expr(body_scope, max(1, depth - 1))
        self.nlocal = saved
        if ret.lit or ret.wrapped:
            return None
        lines = []
        if annotations:
            lines.append("@annotate(%s)" % ", ".join("%s=%r" % kv for kv in annotations.items()))
        lines.append("def %s(%s):" % (name, ", ".join(p.text for p in params)))
        lines.append("    return %s" % ret.text)
        self.helpers.append(lines)
        call = "%s(%s)" % (name, ", ".join(a.text for a in args))
        return V(call, ret.t, ret.lo, ret.hi, ret.exact, ret.e, ret.err,
                 nonneg=False)


# -- cases --------------------------------------------------------------------------
def _array_values(rng, dtype, n, model):
    """Values of an input array and the interval the generator may assume."""
    if dtype == "bool":
        return np.array([rng.random() < 0.5 for _ in range(n)]), (0, 1, 0)
    if is_int(dtype):
        a, b = INT_LIMITS[dtype]
        r = rng.random()
        if r < 0.6:
            lo, hi = max(a, -20), min(b, 20)
        elif r < 0.8:
            lo, hi = max(a, -100000), min(b, 100000)
        elif r < 0.9:
            lo, hi = b - 50, b
        else:
            lo, hi = a, b
        vals = [lo, hi] + [rng.randint(lo, hi) for _ in range(n)]
        return np.array(vals[:n], dtype=dtype), (lo, hi, 0)
    r = rng.random()
    if r < 0.7:
        k = 80
        vals = [rng.randint(-k, k) / 8.0 for _ in range(n)]
        lo, hi, e = -k / 8.0, k / 8.0, -3
    elif r < 0.85:
        vals = [rng.randint(1, 64) / 16.0 for _ in range(n)]
        lo, hi, e = 1 / 16.0, 4.0, -4
    else:
        vals = [float(rng.randint(-2 ** 19, 2 ** 19) * 2 ** 12) for _ in range(n)]
        lo, hi, e = -2.0 ** 31, 2.0 ** 31, 12
    if n:
        vals[0] = lo
    return np.array(vals, dtype=dtype), (lo, hi, e)


class Case:
    """One generated case: its module source, what to call and the reference."""

    def __init__(self, seed, kind, narrow):
        self.seed, self.kind, self.narrow = seed, kind, narrow
        self.lines = []           # the module's source lines
        self.args = []            # (name, numpy array or Python scalar)
        self.outs = {}            # output name -> (V stored, dtype, augmented, store type)
        self.bad_line = None      # the line of the construct that must be an error
        self.bad_what = None
        self.reduce = None        # (expr, neutral, dtype_out) or scan (expr, neutral, dtype, segmented, exclusive)
        self.ret = None           # V returned by the map / input function
        self.n = 0
        self.path = None
        self.module = None

    def describe(self):
        return "seed %d: %s%s, n=%d" % (self.seed, self.kind,
                                        " (expects an error: %s)" % self.bad_what
                                        if self.bad_what else "", self.n)


def make_case(seed, narrow=False, kind=None, bad=None):
    """Generate the case of ``seed`` (``kind``: elementwise/reduction/scan;
    ``bad``: force (True, or the name of a construct of :func:`_bad_construct`)
    or forbid (False) an expected error)."""
    rng = random.Random(seed * 7919 + 13)
    model = Model(narrow)
    kind = kind or rng.choice(["elementwise", "elementwise", "reduction", "scan"])
    case = Case(seed, kind, narrow)
    big = rng.random() < 0.12
    if kind == "scan":
        n = rng.choice([33000, 40000]) if big else rng.randint(1, 70)
    else:
        n = rng.randint(2100, 3000) if big else rng.randint(1, 70)
    case.n = n
    gen = Generator(seed, model)
    scope = []
    nin = rng.randint(1, 3)
    for k in range(nin):
        dtype = rng.choice(ARRAY_TYPES)
        data, (lo, hi, e) = _array_values(rng, dtype, n, model)
        name = "a%d" % k
        case.args.append((name, data))
        text = "%s[i]" % name
        if is_int(dtype):
            scope.append(V(text, dtype, int(lo), int(hi),
                           nonneg=dtype.startswith("u") or dtype == "bool"))
        else:
            lo, hi = float(lo), float(hi)
            scope.append(V(text, dtype if not narrow else "float32", lo, hi, True, e))
    if rng.random() < 0.5:
        if rng.random() < 0.6:
            s = rng.randint(-50, 50)
            case.args.append(("s0", s))
            scope.append(V("s0", "int64", s, s))
        else:
            s = rng.randint(-40, 40) / 4.0
            case.args.append(("s0", s))
            scope.append(V("s0", model.pyfloat, s, s, True, -2))
    scope.append(V("i", "int64", 0, max(n - 1, 0), nonneg=False))
    annotate_i = kind == "elementwise" and rng.random() < 0.2
    if annotate_i:
        scope[-1] = V("i", "int32", 0, max(n - 1, 0))
    fname = "kern%d" % seed
    body = []
    if bad is None:
        bad = kind == "elementwise" and rng.random() < 0.12
    _locals(gen, rng, scope, body, depth=3)
    if rng.random() < 0.45:
        _loop(gen, rng, scope, body)
    if kind == "elementwise":
        nout = rng.randint(1, 2)
        for k in range(nout):
            top = _interesting(gen, rng, scope, None, True)
            dtype = _out_dtype(rng, top, model)
            if dtype is None:
                top = gen.expr(scope, 2, "int", top=True)
                dtype = "int64"
            name = "out%d" % k
            aug = rng.random() < 0.2 and dtype != "bool" and not top.wrapped
            if aug and not (is_int(dtype) and is_int(top.t)):
                # out[i] + x is computed in the float type of the two (an integer
                # element meeting a float32 x is float32): exact there if x is
                ft = float_result_type(model, V("x", dtype, 0, 0), top)
                plus = model.flt("x", ft, top.lo - 5, top.hi + 5, top.exact,
                                 min(top.e, 0), top.err)
                aug = plus is not None and (plus.exact or not top.exact)
            init = np.zeros(n, dtype=dtype) if not aug else \
                np.array([rng.randint(-5, 5) if not dtype.startswith("u") else
                          rng.randint(0, 5) for _ in range(n)], dtype=dtype)
            stype = None
            if is_int(top.t):
                stype = top.t
                if aug and is_int(dtype):
                    cur = V("x", dtype, -5, 5)
                    stype = int_result_type(cur, top)
                    if stype is None or (not fits(stype, top.lo - 5, top.hi + 5)):
                        aug = False
                        init = np.zeros(n, dtype=dtype)
                        stype = top.t
                elif aug:
                    stype = None
            case.args.append((name, init))
            case.outs[name] = (top, dtype, aug, stype)
            body.append("%s[i] %s %s" % (name, "+=" if aug else "=", top.text))
        if bad:
            _bad_construct(gen, rng, case, scope, body, bad if isinstance(bad, str) else None)
        params = ["i"] + [a for a, _ in case.args]
    else:
        ret = _interesting(gen, rng, scope, "exact" if rng.random() < 0.6 else None, False)
        if ret.t == "bool":
            ret = V("(1 if %s else 0)" % ret.text, "int32", 0, 1, nonneg=True)
        case.ret = ret
        body.append("return %s" % ret.text)
        params = ["i"] + [a for a, _ in case.args]
    lines = ["# Generated by tests/indepgen.py, seed %d (%s)." % (seed, kind),
             "import math",
             "from math import *",
             "from pcompute import annotate, declare",
             ""]
    for h in gen.helpers:
        lines.extend(h)
        lines.append("")
    if annotate_i:
        lines.append("@annotate(i='int')")
    elif rng.random() < 0.3:
        lines.append("@annotate")
    lines.append("def %s(%s):" % (fname, ", ".join(params)))
    first = len(lines) + 1
    lines.extend("    " + b for b in body)
    if case.bad_line is not None:
        case.bad_line += first
    if kind != "elementwise":
        _reduction_or_scan(case, rng, model, fname, lines, n)
    case.lines = lines
    case.fname = fname
    return case


def _interesting(gen, rng, scope, want, top):
    """An expression that reads data: not a literal, not a lone name."""
    v = None
    for _ in range(20):
        v = gen.expr(scope, rng.randint(2, 4), want, top=top)
        if not v.lit and ("(" in v.text or "[" in v.text) and len(v.text) > 12:
            return v
    return v


def _out_dtype(rng, v, model):
    """An output element type that can hold ``v`` by the documented store rules."""
    if is_int(v.t):
        return rng.choice(["int8", "uint8", "int16", "int32", "uint32", "int64",
                           "uint64", "float32", "float64", "bool", "int64", "int64"])
    choices = ["float32", "float64", "float64"]
    if v.exact:
        lo, hi = math.trunc(v.lo), math.trunc(v.hi)
        choices += [t for t in ("int32", "int64", "int16") if fits(t, lo, hi)]
        if v.lo > 0 or v.hi < 0:
            choices.append("bool")
    elif v.lo - 2 * v.err > 0 or v.hi + 2 * v.err < 0:
        choices.append("bool")
    return rng.choice(choices)


def _locals(gen, rng, scope, body, depth):
    for _ in range(rng.randint(0, 3)):
        gen.nlocal += 1
        name = "t%d" % gen.nlocal
        r = rng.random()
        if r < 0.6:
            v = gen.expr(scope, depth)
            if v.lit:
                continue
            body.append("%s = %s" % (name, v.text))
            scope.append(v.named(name))
        else:
            decl = rng.choice(["int", "long", "double"])
            v = gen.expr(scope, depth, "int" if decl != "double" else None)
            if decl == "double":
                t = gen.model.pyfloat
                x = gen.model.as_float(v, t)
                nv = gen.model.flt(name, t, v.lo, v.hi, x.exact, x.e, x.err)
            else:
                t = "int32" if decl == "int" else "int64"
                if not fits(t, v.lo, v.hi) or base(v.t) == "uint64" and decl == "int":
                    continue
                nv = V(name, t, v.lo, v.hi, nonneg=False)
            if nv is None:
                continue
            body.append("%s = declare(%r)" % (name, decl))
            body.append("%s = %s" % (name, v.text))
            scope.append(nv)


def _loop(gen, rng, scope, body):
    """An accumulating for/while loop with a break."""
    gen.nlocal += 1
    acc = "acc%d" % gen.nlocal
    start, stop = rng.randint(-3, 2), rng.randint(3, 8)
    step = rng.choice([1, 1, 2, 3])
    ks = list(range(start, stop, step))
    use_float = rng.random() < 0.4
    kv = V("k", "int32", min(ks), max(ks))
    inner = scope + [kv]
    term = gen.expr(inner, 2, "exact" if use_float else "int")
    if use_float and is_int(term.t):
        use_float = False
    if term.lit or term.wrapped or base(term.t) in ("uint32", "uint64"):
        return      # (acc = 0; acc += u: int + uint has two readings)
    trips = len(ks)
    lo, hi = min(0, trips * term.lo), max(0, trips * term.hi)
    if use_float:
        # the accumulator's precision is not stated for `acc = 0.0; acc += x32`:
        # the model takes the narrower one
        v = gen.model.flt(acc, "float32", lo, hi, term.exact, min(term.e, 0), term.err * trips)
        init = "0.0"
        if v is None or not v.exact:
            return
    else:
        t = int_result_type(V("0", "int32", 0, 0, lit=True), term)
        if t is None or not fits(t, lo, hi) or not fits("int32", lo, hi):
            return
        v = V(acc, t, lo, hi)
        init = "0"
    limit = rng.randint(-5, 20)
    body.append("%s = %s" % (acc, init))
    if rng.random() < 0.7:
        rng_text = "range(%d, %d%s)" % (start, stop, ", %d" % step if step != 1 else "")
        body.append("for k in %s:" % rng_text)
        body.append("    %s += %s" % (acc, term.text))
        body.append("    if %s > %d:" % (acc, limit))
        body.append("        break")
    else:
        body.append("k = %d" % start)
        body.append("while k < %d:" % stop)
        body.append("    %s += %s" % (acc, term.text))
        body.append("    if %s > %d:" % (acc, limit))
        body.append("        break")
        body.append("    k += %d" % step)
        scope.append(V("k", "int32", start, stop + step))
    scope.append(v)


def _bad_construct(gen, rng, case, scope, body, what=None):
    """One construct the documentation says is an error, on its own line:
    ``literal`` (beyond 64 bits), ``power`` (a run-time exponent that may be
    negative), ``u64compare`` (a uint64 against a maybe-negative signed value),
    ``declint`` (a float into a ``declare('int')`` local), ``helperint`` (a float
    to an ``int`` helper parameter), ``andnum`` (``and`` between numbers)."""
    ints = [v for v in scope if is_int(v.t) and not v.lit]
    signed = [v for v in ints if v.t in ("int8", "int16", "int32", "int64") and v.lo < 0]
    u64 = [v for v in ints if v.t == "uint64"]
    floats = [v for v in scope if not is_int(v.t)]
    options = ["literal"]
    if signed:
        options += ["power"] + (["u64compare"] if u64 else [])
    if floats:
        options += ["declint", "helperint"]
    if ints:
        options.append("andnum")
    what = what if what in options else rng.choice(options)
    name = "bad"
    case.args.append((name, np.zeros(case.n, dtype=np.float64)))
    if what == "power":
        text = "bad[i] = 2 ** %s" % rng.choice(signed).text
    elif what == "u64compare":
        text = "bad[i] = 1.0 if %s > %s else 0.0" % (rng.choice(u64).text,
                                                     rng.choice(signed).text)
    elif what == "declint":
        body.append("tb = declare('int')")
        text = "tb = %s * 1.5" % rng.choice(floats).text
    elif what == "helperint":
        gen.helpers.append(["@annotate(a='int', return_='int')",
                            "def twice%d(a):" % gen.seed, "    return 2 * a"])
        text = "bad[i] = twice%d(%s)" % (gen.seed, rng.choice(floats).text)
    elif what == "andnum":
        a, b = rng.choice(ints), rng.choice(ints + [V("3", "int32", 3, 3, lit=True)])
        text = "bad[i] = %s and %s" % (a.text, b.text)
    else:
        text = "bad[i] = %d" % (2 ** 64 + rng.randint(0, 10 ** 6))
    case.bad_line = len(body)
    case.bad_what = what
    body.append(text)


def _reduction_or_scan(case, rng, model, fname, lines, n):
    ret = case.ret
    if is_int(ret.t):
        dtype = "uint64" if base(ret.t) == "uint64" else "int64"
    else:
        dtype = rng.choice(["float32", "float64"])
    op = rng.choice(["a+b", "a+b", "min(a, b)", "max(a, b)"])
    neutral = {"a+b": "0", "min(a, b)": "INFINITY", "max(a, b)": "-INFINITY"}[op]
    if op == "a+b" and is_int(dtype) and not fits(dtype, min(0, n * ret.lo), max(0, n * ret.hi)):
        op, neutral = "max(a, b)", "-INFINITY"
    if is_int(dtype) and rng.random() < 0.2 and ret.mag < 2 ** 53:
        dtype = "float64"
    if not is_int(dtype) and is_int(ret.t) and ret.mag >= 2 ** 24:
        dtype = "float64"
    case.reduce = (op, neutral, dtype)
    if case.kind == "scan":
        seg = rng.random() < 0.3
        excl = rng.random() < 0.3
        out_dtype = dtype
        case.args.append(("out", np.zeros(n, dtype=out_dtype)))
        if seg:
            case.args.append(("flags", np.array([rng.random() < 0.2 for _ in range(n)],
                                                dtype=np.int32)))
            lines += ["", "def seg%d(i, flags):" % case.seed, "    return flags[i]"]
        lines += ["", "def output%d(i, %s, out):" % (case.seed, "prev_item" if excl else "item"),
                  "    out[i] = %s" % ("prev_item" if excl else "item")]
        case.scan_opts = (seg, excl)


# -- running --------------------------------------------------------------------------
def load(case, directory):
    """Write the case's module into ``directory`` and import it."""
    name = "indepgen_case_%d_%s%s" % (case.seed, case.kind, "_narrow" if case.narrow else "")
    path = os.path.join(directory, name + ".py")
    with open(path, "w") as f:
        f.write("\n".join(case.lines) + "\n")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    case.path, case.module = path, module
    return module


class PyArray(list):
    """An array as plain Python sees it: Python numbers, stored as the
    documented store rules say (wrap to the stored value's C type ``ctype``
    first, then to the element's type)."""

    def __init__(self, array, ctype=None):
        self.dtype = np.dtype(array.dtype)
        self.ctype = ctype
        list.__init__(self, array.tolist())

    def __setitem__(self, k, value):
        if self.ctype is not None and not isinstance(value, float):
            value = wrap_to(self.ctype, value)
        list.__setitem__(self, k, store(self.dtype, value))


def store(dtype, value):
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return bool(value)
    if dtype.kind in "iu":
        return wrap_to(dtype.name, int(value))
    return float(np.array(value, dtype=dtype))


def device_dtype(dtype, narrow):
    return "float32" if narrow and dtype == "float64" else dtype


def reference(case):
    """The plain Python results: {output name: numpy array} or the reduced value."""
    mod = case.module
    narrow = case.narrow
    f = getattr(mod, case.fname)
    if case.kind == "elementwise":
        values = []
        for name, a in case.args:
            if isinstance(a, np.ndarray):
                a = a.astype(device_dtype(a.dtype.name, narrow))
                ctype = case.outs[name][3] if name in case.outs else None
                values.append(PyArray(a, ctype))
            else:
                values.append(a)
        for i in range(case.n):
            f(i, *values)
        return {name: np.array(list(v), dtype=v.dtype) for (name, _), v in
                zip(case.args, values) if name in case.outs}
    op, neutral, dtype = case.reduce
    dtype = device_dtype(dtype, narrow)
    inputs = [PyArray(a.astype(device_dtype(a.dtype.name, narrow)))
              if isinstance(a, np.ndarray) else a
              for name, a in case.args if name not in ("out", "flags")]
    vals = [f(i, *inputs) for i in range(case.n)]
    vals = [int(v) if is_int(dtype) else float(np.array(v, dtype=dtype)) for v in vals]
    combine = {"a+b": lambda a, b: a + b, "min(a, b)": min, "max(a, b)": max}[op]
    start = 0 if op == "a+b" else (math.inf if op.startswith("min") else -math.inf)
    if is_int(dtype) and op != "a+b":
        start = INT_LIMITS[dtype][1] if op.startswith("min") else INT_LIMITS[dtype][0]
    if case.kind == "reduction":
        acc = start
        for v in vals:
            acc = combine(acc, v)
        return {"result": np.array([acc], dtype=dtype)}
    seg, excl = case.scan_opts
    flags = dict(case.args).get("flags")
    out, acc = [], start
    for i, v in enumerate(vals):
        if seg and flags[i]:
            acc = start
        prev = acc
        acc = combine(acc, v)
        out.append(prev if excl else acc)
    return {"out": np.array(out, dtype=dtype)}


def tolerance(case, name, dtype):
    """Allowed |difference| per element (0: exact), from the tracked error bounds."""
    model = Model(case.narrow)
    u = model.u(dtype)
    if case.kind == "elementwise":
        v = case.outs[name][0]
        if is_int(v.t) or v.exact:
            return 0.0, 0.0
        return 2 * v.err, 2 * u
    v = case.ret
    if is_int(v.t) or v.exact:
        exact_sum = is_int(v.t) or case.n * v.mag / 2.0 ** v.e < 2.0 ** model.mant(dtype)
        if case.reduce[0] != "a+b" or exact_sum:
            return 0.0, 0.0
    n = case.n if case.reduce[0] == "a+b" else 1
    err = 2 * n * v.err + 2 * u * n * n * v.mag
    return err, 2 * u


def compare(case, got, want):
    """Findings (strings) of ``got`` against ``want``; and the number of elements compared."""
    findings, count = [], 0
    for name, w in want.items():
        g = got[name]
        count += len(w)
        if g.dtype != w.dtype:
            findings.append("%s: dtype %s, expected %s" % (name, g.dtype, w.dtype))
            continue
        if w.dtype.kind in "iub":
            bad = np.nonzero(g != w)[0]
        else:
            absolute, relative = tolerance(case, name, w.dtype.name)
            gf, wf = g.astype(np.float64), w.astype(np.float64)
            if absolute == 0.0 and relative == 0.0:
                bad = np.nonzero(gf != wf)[0]
                sign = np.nonzero((gf == 0) & (np.signbit(gf) != np.signbit(wf)))[0]
                if len(sign):
                    # Python's int zero has no sign; a C float zero may (-x of a
                    # float 0 that Python holds as an int): noted, not a finding
                    findings.append("note: sign of zero: %s[%d] = %r, plain Python %r"
                                    % (name, sign[0], g[sign[0]].item(), w[sign[0]].item()))
            else:
                with np.errstate(invalid="ignore"):
                    close = (gf == wf) | (np.abs(gf - wf) <= absolute + relative * np.abs(wf))
                bad = np.nonzero(~close)[0]
        if len(bad):
            k = bad[0]
            findings.append("silent difference: %s[%d] = %r, plain Python gives %r "
                            "(%d of %d elements differ)" % (name, k, g[k].item(),
                                                            w[k].item(), len(bad), len(w)))
    return findings, count


def split_backend(label):
    return (label[:-7], True) if label.endswith("-openmp") else (label, False)


def run_on(case, label, use_double):
    """Run the case on one backend; return {output name: numpy array}."""
    import pcompute as pc
    name, openmp = split_backend(label)
    with pc.use_config(backend=name, use_openmp=openmp, use_double=use_double):
        return run_current(case)


def run_current(case):
    """Run the case under the current configuration (the ``backend`` fixture's)."""
    import pcompute as pc
    mod = case.module
    f = getattr(mod, case.fname)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if case.kind == "elementwise":
            devs = [pc.wrap(a.copy()) if isinstance(a, np.ndarray) else a
                    for _, a in case.args]
            pc.Elementwise(f)(*devs)
            out = {}
            for (name, _), d in zip(case.args, devs):
                if name in case.outs:
                    d.pull()
                    out[name] = np.array(d.data)
            return out
        op, neutral, dtype = case.reduce
        if case.kind == "reduction":
            red = pc.Reduction(op, map_func=f, dtype_out=np.dtype(dtype), neutral=neutral)
            args = [pc.wrap(a.copy()) if isinstance(a, np.ndarray) else a
                    for _, a in case.args]
            r = red(*args)
            return {"result": np.array([r])}
        seg, excl = case.scan_opts
        kwargs = {name: (pc.wrap(a.copy()) if isinstance(a, np.ndarray) else a)
                  for name, a in case.args}
        scan = pc.Scan(f, getattr(mod, "output%d" % case.seed), op, dtype=np.dtype(dtype),
                       neutral=neutral,
                       is_segment=getattr(mod, "seg%d" % case.seed) if seg else None)
        scan(**kwargs)
        kwargs["out"].pull()
        return {"out": np.array(kwargs["out"].data)}


def cuda_source(case, use_double):
    """The CUDA C of the case (generated only, no GPU needed)."""
    import pcompute as pc
    mod = case.module
    f = getattr(mod, case.fname)
    with pc.use_config(use_double=use_double), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        arrays = [a for _, a in case.args]
        if case.kind == "elementwise":
            return pc.Elementwise(f).generate("cuda", *arrays)
        op, neutral, dtype = case.reduce
        if case.kind == "reduction":
            return pc.Reduction(op, map_func=f, dtype_out=np.dtype(dtype),
                                neutral=neutral).generate("cuda", *arrays)
        seg, excl = case.scan_opts
        scan = pc.Scan(f, getattr(mod, "output%d" % case.seed), op, dtype=np.dtype(dtype),
                       neutral=neutral,
                       is_segment=getattr(mod, "seg%d" % case.seed) if seg else None)
        return scan.generate("cuda", **dict(case.args))


def judge(case, action):
    """Run ``action()`` and judge the outcome against the case's expectation:
    ``(findings, result)``; ``result`` is None unless the action returned."""
    from pcompute.errors import BuildError, KernelError
    try:
        result = action()
    except KernelError as exc:
        text = str(exc)
        if case.bad_line is None:
            return ["rejected a kernel the documentation allows: %s: %s"
                    % (type(exc).__name__, text)], None
        loc = exc.location
        if loc is None or os.path.basename(str(loc.filename)) != os.path.basename(case.path) \
                or loc.lineno != case.bad_line or "hint" not in text:
            return ["error for %s not located at line %d with a hint: %s: %s"
                    % (case.bad_what, case.bad_line, type(exc).__name__, text)], None
        return [], None
    except BuildError as exc:
        return ["compiler dump reaches the user: %s" % str(exc)[:3000]], None
    except Exception as exc:       # noqa: BLE001 (every other failure is a finding)
        return ["crash: %s: %s\n%s" % (type(exc).__name__, exc,
                                      traceback.format_exc()[-3000:])], None
    if case.bad_line is not None:
        return ["accepted a construct the documentation rejects (%s, line %d)"
                % (case.bad_what, case.bad_line)], None
    return [], result


def check_current(case, want):
    """Run the case under the current configuration and compare: (findings,
    count); notes (``note: ...``) are left out."""
    findings, got = judge(case, lambda: run_current(case))
    if got is None:
        return findings, 0
    findings, count = compare(case, got, want)
    return [f for f in findings if not f.startswith("note:")], count


def check_cuda(case, use_double):
    """Compile-check the CUDA source with nvcc --ptx; findings."""
    from pcompute.build import cuda_builder

    def action():
        source = cuda_source(case, use_double)
        cuda_builder.check_cuda_source(source)
    return judge(case, action)[0]


def run_case(seed, backends, cuda, directory):
    """Generate and run one case everywhere; a JSON-able report."""
    rng = random.Random(seed)
    narrow = "opencl" in backends and rng.random() < 0.3
    report = {"seed": seed, "narrow": narrow, "findings": [], "comparisons": 0,
              "elements": 0}
    case = make_case(seed, narrow=False)
    report["kind"] = case.describe()
    load(case, directory)
    report["path"] = case.path
    try:
        want = reference(case) if case.bad_line is None else None
    except Exception as exc:   # noqa: BLE001 (a generator bug, not a finding)
        report["generator_error"] = "%s: %s" % (type(exc).__name__, exc)
        return report
    for label in backends:
        findings, got = judge(case, lambda: run_on(case, label, True))
        if got is not None and want is not None:
            findings, count = compare(case, got, want)
            report["comparisons"] += 1
            report["elements"] += count
        report["findings"] += ["%s: %s" % (label, f) for f in findings
                               if not f.startswith("note:")]
        report.setdefault("notes", []).extend("%s: %s" % (label, f) for f in findings
                                              if f.startswith("note:"))
    if narrow:
        ncase = make_case(seed, narrow=True)
        load(ncase, directory)
        nwant = reference(ncase) if ncase.bad_line is None else None
        findings, got = judge(ncase, lambda: run_on(ncase, "opencl", False))
        if got is not None and nwant is not None:
            findings, count = compare(ncase, got, nwant)
            report["comparisons"] += 1
            report["elements"] += count
        report["findings"] += ["opencl (float32 device): %s" % f for f in findings
                               if not f.startswith("note:")]
    if cuda:
        for use_double in (True, False):
            c = case if use_double else make_case(seed, narrow=True)
            if not use_double:
                load(c, directory)
            report["findings"] += ["cuda nvcc --ptx (use_double=%s): %s" % (use_double, f)
                                   for f in check_cuda(c, use_double)]
            report["comparisons"] += 1
    return report


def _child(args):
    directory = args.dir or tempfile.mkdtemp(prefix="indepgen-")
    report = run_case(args.case, args.backends.split(","), args.cuda, directory)
    if args.show:
        with open(report["path"]) as f:
            print(f.read())
    print("INDEPGEN " + json.dumps(report))


def _driver(args):
    out = args.out
    os.makedirs(out, exist_ok=True)
    directory = tempfile.mkdtemp(prefix="indepgen-")
    start = time.time()
    seed = args.seed
    totals = {"kernels": 0, "comparisons": 0, "elements": 0, "findings": 0,
              "expected_errors": 0, "generator_errors": 0, "crashes": 0}
    log = open(os.path.join(out, "log.jsonl"), "a")
    while time.time() - start < args.seconds:
        cmd = [sys.executable, os.path.abspath(__file__), "--case", str(seed),
               "--backends", args.backends, "--dir", directory] + (["--cuda"] if args.cuda else [])
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
            lines = [x for x in proc.stdout.splitlines() if x.startswith("INDEPGEN ")]
            if proc.returncode != 0 or not lines:
                report = {"seed": seed, "findings": ["child process failed (rc %d): %s"
                                                     % (proc.returncode, proc.stderr[-3000:])],
                          "comparisons": 0, "elements": 0}
                totals["crashes"] += 1
            else:
                report = json.loads(lines[-1][len("INDEPGEN "):])
        except subprocess.TimeoutExpired:
            report = {"seed": seed, "findings": ["hang: no result in %d s" % args.timeout],
                      "comparisons": 0, "elements": 0}
            totals["crashes"] += 1
        totals["kernels"] += 1
        totals["comparisons"] += report.get("comparisons", 0)
        totals["elements"] += report.get("elements", 0)
        if "generator_error" in report:
            totals["generator_errors"] += 1
        if "expects an error" in report.get("kind", ""):
            totals["expected_errors"] += 1
        if report["findings"]:
            totals["findings"] += 1
            src = report.get("path")
            if src and os.path.exists(src):
                with open(src) as f:
                    report["source"] = f.read()
            with open(os.path.join(out, "seed-%d.json" % seed), "w") as f:
                json.dump(report, f, indent=1)
        log.write(json.dumps({k: v for k, v in report.items() if k != "source"}) + "\n")
        log.flush()
        print("seed %d: %s: %s" % (seed, report.get("kind", "?"),
                                    "; ".join(x.splitlines()[0] for x in report["findings"])
                                    or report.get("generator_error", "ok")), flush=True)
        seed += 1
    totals["seconds"] = round(time.time() - start)
    print("INDEPGEN TOTALS " + json.dumps(totals))
    return 1 if totals["findings"] or totals["crashes"] else 0


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seconds", type=float, default=600)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--backends", default=",".join(BACKENDS))
    p.add_argument("--cuda", action="store_true", help="compile-check CUDA with nvcc --ptx")
    p.add_argument("--out", default="indep-failures")
    p.add_argument("--timeout", type=int, default=300)
    p.add_argument("--case", type=int, help="run one case in this process")
    p.add_argument("--dir", help="where the generated modules are written")
    p.add_argument("--show", action="store_true", help="print the generated module")
    args = p.parse_args(argv)
    if args.case is not None:
        return _child(args)
    return _driver(args)


if __name__ == "__main__":
    sys.exit(main())
