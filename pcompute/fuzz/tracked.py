"""Running error analysis of a generated kernel, element by element.

The generated kernel's source is executed a second time in a namespace where
every number is a :class:`Tracked` value: its Python value (computed exactly as
the python backend computes it, in float64 / unbounded ints) together with a
first-order bound ``err`` on the distance between that value and what *any*
IEEE evaluation of the same expression in the working precision can give (C
float or double, libm or OpenCL builtins, with or without contraction).

Per operation: ``+ - * /`` add their operands' propagated errors and one
rounding ``u*|result|`` (none when the result is provably exact); math
functions add a few ulps (OpenCL's accuracy bounds: 4 ulp, 16 for ``pow``);
integers are exact.  From this, per element:

* the **tolerance** of each float output (``|backend - reference|`` may be as
  large as twice the bound, we allow :data:`TOLERANCE_FACTOR` times it);
* **fragility**: a discontinuous operation (a comparison, ``int()``,
  ``floor``, ``//``/``%`` of floats, ``fmod``) whose operands are closer to
  its discontinuity than their error bound could legitimately go the other
  way on another backend; such elements get new input data (the runner
  counts them), they are never compared blindly;
* **range**: an integer outside int32 or a float that is not finite or
  beyond :data:`FLOAT_LIMIT` means the generator broke its own bounds; the
  runner reports it as a generator error, never filters it silently.
"""
import ast
import math
import operator
import struct
from fractions import Fraction

import numpy as np

U32 = 2.0 ** -24          # unit roundoff of float32
U64 = 2.0 ** -53          # unit roundoff of float64
MATH_ULPS = 4             # OpenCL full profile: sin, cos, exp, log, ... <= 4 ulp
POW_ULPS = 16             # OpenCL full profile: pow <= 16 ulp
FRAGILE_FACTOR = 4.0      # margin (in error bounds) kept from a discontinuity
TOLERANCE_FACTOR = 4.0    # allowed |backend - reference| in error bounds
INT_LIMIT = 2 ** 31 - 1   # every integer intermediate fits int32
FLOAT_LIMIT = 1e30        # every float intermediate is finite and below this

_PACK = struct.Struct("f")


def f32_exact(v):
    """True if the float ``v`` is exactly representable in float32."""
    if v != v or abs(v) > 3.4e38:
        return False
    return _PACK.unpack(_PACK.pack(v))[0] == v


class Recorder:
    """What the evaluation of one element found."""

    __slots__ = ("fragile", "invalid", "u", "mode32", "reads")

    def __init__(self, mode32):
        self.mode32 = mode32
        self.u = U32 if mode32 else U64
        self.reset()

    def reset(self):
        self.fragile = None
        self.invalid = None
        self.reads = set()

    def mark_fragile(self, why):
        if self.fragile is None:
            self.fragile = why

    def mark_invalid(self, why):
        if self.invalid is None:
            self.invalid = why


REC = Recorder(False)


def set_mode(mode32):
    """Select the working precision (float32 or float64) of the evaluation."""
    global REC
    REC = Recorder(mode32)
    return REC


class Tracked:
    """A number with an error bound; behaves like the int or float it holds."""

    __slots__ = ("v", "e", "f32")

    def __init__(self, v, e=0.0, f32=False):
        self.v = v
        self.e = e
        self.f32 = f32
        if type(v) is int:
            if v > INT_LIMIT or v < -INT_LIMIT - 1:
                REC.mark_invalid("integer %d outside int32" % v)
        elif not (-FLOAT_LIMIT <= v <= FLOAT_LIMIT):
            REC.mark_invalid("float %r is not finite or beyond %g" % (v, FLOAT_LIMIT))

    def __repr__(self):
        return "Tracked(%r, err=%.3g%s)" % (self.v, self.e, ", f32" if self.f32 else "")

    @property
    def is_int(self):
        return type(self.v) is int

    # -- conversions used by Python itself ---------------------------------
    def __index__(self):
        if type(self.v) is not int:
            raise TypeError("a float is used as an index or range() argument")
        return self.v

    def __bool__(self):
        # `if x:` / `not x`: a comparison with zero
        if self.e and abs(self.v) <= FRAGILE_FACTOR * self.e:
            REC.mark_fragile("truth value of %r within its error %.3g of zero"
                             % (self.v, self.e))
        return self.v != 0

    def __int__(self):
        raise TypeError("int() of a Tracked value must go through the tracked int()")

    __float__ = __int__

    # -- arithmetic ----------------------------------------------------------
    def __add__(self, other):
        return _add(self, other, 1)

    def __radd__(self, other):
        return _add(other, self, 1)

    def __sub__(self, other):
        return _add(self, other, -1)

    def __rsub__(self, other):
        return _add(other, self, -1)

    def __mul__(self, other):
        return _mul(self, other)

    def __rmul__(self, other):
        return _mul(other, self)

    def __truediv__(self, other):
        return _div(self, other)

    def __rtruediv__(self, other):
        return _div(other, self)

    def __floordiv__(self, other):
        return _floormod(self, other, True)

    def __rfloordiv__(self, other):
        return _floormod(other, self, True)

    def __mod__(self, other):
        return _floormod(self, other, False)

    def __rmod__(self, other):
        return _floormod(other, self, False)

    def __pow__(self, other):
        return _pow(self, other)

    def __rpow__(self, other):
        return _pow(other, self)

    def __neg__(self):
        return Tracked(-self.v, self.e, self.f32)

    def __pos__(self):
        return self

    def __abs__(self):
        return Tracked(abs(self.v), self.e, self.f32)

    def __invert__(self):
        return Tracked(~_int_of(self), 0.0)

    # bitwise: integers only, exact
    def __and__(self, o):
        return Tracked(_int_of(self) & _int_of(o))

    def __rand__(self, o):
        return Tracked(_int_of(o) & _int_of(self))

    def __or__(self, o):
        return Tracked(_int_of(self) | _int_of(o))

    def __ror__(self, o):
        return Tracked(_int_of(o) | _int_of(self))

    def __xor__(self, o):
        return Tracked(_int_of(self) ^ _int_of(o))

    def __rxor__(self, o):
        return Tracked(_int_of(o) ^ _int_of(self))

    def __lshift__(self, o):
        return Tracked(_shifted(_int_of(self), _int_of(o), True))

    def __rlshift__(self, o):
        return Tracked(_shifted(_int_of(o), _int_of(self), True))

    def __rshift__(self, o):
        return Tracked(_shifted(_int_of(self), _int_of(o), False))

    def __rrshift__(self, o):
        return Tracked(_shifted(_int_of(o), _int_of(self), False))

    # -- comparisons (discontinuous: check the margin) -----------------------
    def __lt__(self, o):
        return _compare(self, o) < 0

    def __le__(self, o):
        return _compare(self, o) <= 0

    def __gt__(self, o):
        return _compare(self, o) > 0

    def __ge__(self, o):
        return _compare(self, o) >= 0

    def __eq__(self, o):
        return _compare(self, o) == 0

    def __ne__(self, o):
        return _compare(self, o) != 0

    __hash__ = None


def wide_int(v):
    """A Tracked integer input beyond int32 (a u32 array's shifted values, read
    back only as ``x[i] - 2147483648``): exempt from the int32 range check."""
    t = Tracked.__new__(Tracked)
    t.v, t.e, t.f32 = int(v), 0.0, False
    return t


class Wide(Tracked):
    """An integer beyond int32 computed by ``+ - *`` of integers: what a C
    integer operation that overflows would wrap.  The generator makes them only
    inside a wrapping ``cast(..., 'int'|'uint'|'long')`` (its ``i_wrap``),
    which wraps them as C does (:func:`t_cast`); any other use marks the case
    invalid (the generator broke its bounds), as an int32 overflow did before."""

    __slots__ = ()

    def __init__(self, v):
        self.v, self.e, self.f32 = v, 0.0, False

    def __index__(self):
        REC.mark_invalid("integer %d outside int32 used as an index" % self.v)
        return 0

    def __bool__(self):
        REC.mark_invalid("integer %d outside int32 used as a truth value" % self.v)
        return False


def _int_value(x):
    """The value of an integer operand (a Tracked int, a Wide, an int or bool
    literal), else None."""
    kind = type(x)
    if kind is Tracked or kind is Wide:
        return x.v if type(x.v) is int else None
    if kind is int or kind is bool:
        return int(x)
    return None


def _int_result(v):
    return Tracked(v) if -INT_LIMIT - 1 <= v <= INT_LIMIT else Wide(v)


class IntOutput:
    """The integer output array of a tracked kernel: a float stored into it is
    converted as on every backend (truncated towards zero, through the
    tracked ``int()``, which marks values too close to an integer as fragile)."""

    __slots__ = ("data",)

    def __init__(self, n):
        self.data = [None] * n

    def __getitem__(self, k):
        return self.data[k]

    def __setitem__(self, k, value):
        if type(_parts(value)[0]) is not int:
            value = t_int(value)
        self.data[k] = value


class InputArray:
    """A read-only input array of Tracked values that records the indices read
    (so that new data for some elements re-evaluates only those affected)."""

    __slots__ = ("data",)

    def __init__(self, values):
        self.data = list(values)

    def __getitem__(self, k):
        k = k.__index__()
        if not 0 <= k < len(self.data):
            raise IndexError("the kernel reads element %d of an array of %d" % (
                k, len(self.data)))
        REC.reads.add(k)
        return self.data[k]

    def __len__(self):
        return len(self.data)


def _shifted(a, n, left):
    """``a << n`` / ``a >> n`` as kernels mean them (docs/semantics.rst, Shifts):
    Python's, except that a negative count is one beyond the width; ``<<`` by 64
    or more is 0 in every type (the generator makes other ``<<`` counts small,
    where no type's width is reached)."""
    if n < 0 or (left and n >= 64):
        return 0 if left else (-1 if a < 0 else 0)
    return a << n if left else a >> n


def _int_of(x):
    if type(x) is Wide:
        REC.mark_invalid("integer %d outside int32 in a bitwise operation" % x.v)
    v = x.v if isinstance(x, Tracked) else x
    if type(v) is not int:
        raise TypeError("a bitwise operator got a float")
    return v


def _parts(x):
    """(value, error, f32 flag) of a Tracked or a plain literal."""
    if type(x) is Tracked:
        return x.v, x.e, x.f32
    if type(x) is Wide:
        REC.mark_invalid("integer %d outside int32 outside a wrapping cast()" % x.v)
        return x.v, 0.0, False
    if isinstance(x, bool):
        return int(x), 0.0, False
    if isinstance(x, int):
        return x, 0.0, False
    if isinstance(x, float):
        # A float literal: C rounds it to float in single precision
        # (INFINITY is exact in both precisions).
        if REC.mode32 and not math.isinf(x) and not f32_exact(x):
            return x, U32 * abs(x), False
        return x, 0.0, False
    if isinstance(x, (np.integer,)):
        return int(x), 0.0, False
    if isinstance(x, np.floating):
        return float(x), 0.0, isinstance(x, np.float32)
    raise TypeError("cannot track a %s" % type(x).__name__)


def _both(a, b):
    """The parts of two operands.  When one is a float32 value (numpy), numpy
    computes in float32 (NEP 50): the other operand, if a float, is rounded
    to float32 first."""
    av, ae, af = _parts(a)
    bv, be, bf = _parts(b)
    if af != bf:
        if af and type(bv) is float and not f32_exact(bv):
            be += U32 * abs(bv)
        elif bf and type(av) is float and not f32_exact(av):
            ae += U32 * abs(av)
    return av, ae, af, bv, be, bf


def _unit(f32a, f32b=False):
    return U32 if (REC.mode32 or f32a or f32b) else U64


def _conv_err(v, is_int_operand, other_is_float, u):
    """Error of converting an integer operand to the float type of the op."""
    if is_int_operand and other_is_float and abs(v) > 2 ** 24 and u == U32:
        return u * abs(v)
    return 0.0


def _result(v, e, f32, exact_parts, u):
    """Add one rounding to ``e`` unless the float result is provably exact."""
    if type(v) is int:
        return Tracked(v, 0.0, False)
    if e == 0.0 and exact_parts is not None and _exact(v, exact_parts, u):
        return Tracked(v, 0.0, f32)
    return Tracked(v, e + u * abs(v), f32)


_SPLIT = 134217729.0  # 2**27 + 1 (Veltkamp)


def _two_product_exact(a, b, p):
    """True if the float product ``p`` of ``a`` and ``b`` is exact (Dekker)."""
    if abs(a) > 1e150 or abs(b) > 1e150:
        return Fraction(a) * Fraction(b) == Fraction(p)
    c = _SPLIT * a
    ah = c - (c - a)
    al = a - ah
    c = _SPLIT * b
    bh = c - (c - b)
    bl = b - bh
    return ((ah * bh - p) + ah * bl + al * bh) + al * bl == 0.0


def _exact(v, parts, u):
    """True if the float op described by ``parts`` gave exactly ``v``."""
    op, a, b = parts
    if v != v or v in (math.inf, -math.inf):
        return False
    if u == U32 and not f32_exact(v):
        return False
    if (type(a) is int and abs(a) > 2 ** 53) or (type(b) is int and abs(b) > 2 ** 53):
        return False
    a, b = float(a), float(b)
    if op == "+":
        bp = v - a
        return (a - (v - bp)) + (b - bp) == 0.0
    if op == "*":
        return _two_product_exact(a, b, v)
    if op == "/":
        return b != 0 and v * b == a and _two_product_exact(v, b, a)
    return False


def _add(a, b, sign):
    ai, bi = _int_value(a), _int_value(b)
    if ai is not None and bi is not None:
        return _int_result(ai + bi if sign > 0 else ai - bi)
    av, ae, af, bv, be, bf = _both(a, b)
    v = av + bv if sign > 0 else av - bv
    if type(v) is int:
        return Tracked(v)
    u = _unit(af, bf)
    e = ae + be + _conv_err(av, type(av) is int, True, u) + _conv_err(bv, type(bv) is int,
                                                                      True, u)
    return _result(v, e, af or bf, ("+", av, bv if sign > 0 else -bv), u)


def _mul(a, b):
    ai, bi = _int_value(a), _int_value(b)
    if ai is not None and bi is not None:
        return _int_result(ai * bi)
    av, ae, af, bv, be, bf = _both(a, b)
    v = av * bv
    if type(v) is int:
        return Tracked(v)
    u = _unit(af, bf)
    ae += _conv_err(av, type(av) is int, True, u)
    be += _conv_err(bv, type(bv) is int, True, u)
    e = abs(av) * be + abs(bv) * ae + ae * be
    return _result(v, e, af or bf, ("*", av, bv), u)


def _div(a, b):
    av, ae, af, bv, be, bf = _both(a, b)
    if bv == 0:
        REC.mark_invalid("division by zero")
        return Tracked(0.0, 0.0)
    v = av / bv
    u = _unit(af, bf)
    # integer operands are converted to the float type first
    ae += _conv_err(av, type(av) is int, True, u)
    be += _conv_err(bv, type(bv) is int, True, u)
    if be >= abs(bv):
        REC.mark_fragile("divisor within its error of zero")
        be = abs(bv) / 2
    e = (ae + abs(v) * be) / (abs(bv) - be)
    return _result(v, e, af or bf, ("/", av, bv), u)


def _near_integer(x, ex, allow_zero=True):
    """True if an integer (other than 0 unless ``allow_zero``) lies within
    FRAGILE_FACTOR * ``ex`` of ``x``."""
    if ex == 0.0:
        return False
    margin = FRAGILE_FACTOR * ex
    k = math.floor(x + margin)
    if k >= x - margin and (allow_zero or k != 0):
        return True
    if not allow_zero and k == 0:
        return k - 1 >= x - margin
    return False


def _floormod(a, b, floor):
    av, ae, af, bv, be, bf = _both(a, b)
    if bv == 0:
        REC.mark_invalid("%s by zero" % ("//" if floor else "%"))
        return Tracked(0, 0.0) if type(av) is int and type(bv) is int else Tracked(0.0)
    v = (av // bv) if floor else (av % bv)
    if type(v) is int:
        return Tracked(v)
    u = _unit(af, bf)
    if be >= abs(bv):
        REC.mark_fragile("divisor within its error of zero")
        return Tracked(v, abs(bv), af or bf)
    q = av / bv
    eq = (ae + abs(q) * be) / (abs(bv) - be) + 2 * u * abs(q)
    if ae or be:
        if _near_integer(q, eq):
            REC.mark_fragile("%s: quotient %r within %.3g of an integer"
                             % ("//" if floor else "%", q, eq))
    if floor:
        return Tracked(v, 0.0, af or bf)
    if ae == 0.0 and be == 0.0:
        # fmod is exact; Python (and pcompute) then add b when the signs differ
        m = math.fmod(av, bv)
        if m == 0 or (bv < 0) == (m < 0) or _exact(v, ("+", m, bv), u):
            return Tracked(v, 0.0, af or bf)
        return Tracked(v, u * abs(v), af or bf)
    e = ae + abs(math.floor(q)) * be
    return _result(v, e, af or bf, None, u)


def _pow(a, b):
    av, ae, af, bv, be, bf = _both(a, b)
    if type(av) is int and type(bv) is int:
        if bv < 0:
            raise TypeError("integer ** negative integer")
        return Tracked(av ** bv)
    if av < 0 and type(bv) is not int and bv != int(bv):
        REC.mark_invalid("negative base ** fractional exponent")
        return Tracked(0.0)
    if av == 0 and bv < 0:
        REC.mark_invalid("zero ** negative")
        return Tracked(0.0)
    v = float(av) ** bv
    u = _unit(af, bf)
    if (av == 1 and ae == 0.0) or (bv == 0 and be == 0.0):
        return Tracked(1.0, 0.0, af or bf)    # pow(1, y) = pow(x, 0) = 1 exactly
    # d/da a^b = b a^(b-1);  d/db a^b = ln(a) a^b
    da = abs(bv * float(av) ** (bv - 1)) if av != 0 else (0.0 if bv >= 1 else 1.0)
    db = abs(math.log(abs(av)) * v) if av != 0 else 0.0
    e = da * ae + db * be + POW_ULPS * u * abs(v)
    return Tracked(v, e, af or bf)


def _compare(a, b):
    """-1, 0, 1 as cmp(a, b); marks the element fragile if the margin is small."""
    av, ae, _, bv, be, _ = _both(a, b)
    if ae or be:
        if abs(av - bv) <= FRAGILE_FACTOR * (ae + be):
            REC.mark_fragile("comparison of %r and %r within their error %.3g"
                             % (av, bv, ae + be))
    return (av > bv) - (av < bv)


# -- the kernel builtins and math functions, tracked --------------------------
def t_int(x):
    xv, xe, _ = _parts(x)
    if type(xv) is int:
        return Tracked(xv)
    if xe and _near_integer(xv, xe, allow_zero=False):
        REC.mark_fragile("int(%r) within %.3g of an integer" % (xv, xe))
    return Tracked(int(xv))


def t_float(x):
    xv, xe, xf = _parts(x)
    u = _unit(xf)
    v = float(xv)
    e = xe + _conv_err(xv, type(xv) is int, True, u)
    return Tracked(v, e, xf)


def t_abs(x):
    if isinstance(x, Tracked):
        return abs(x)
    return Tracked(*_parts(abs(x)))


def _minmax(args, pick):
    parts = [_parts(a) for a in args]
    if any(p[2] for p in parts):
        # with a float32 argument, a float literal (weak, NEP 50) or a double
        # may be rounded to float32 first (as in _both)
        parts = [(v, e + U32 * abs(v), f) if type(v) is float and not f and
                 not f32_exact(v) else (v, e, f) for v, e, f in parts]
    best = 0
    for k in range(1, len(parts)):
        # Python: min returns the first minimal item
        if pick(parts[k][0], parts[best][0]):
            best = k
    v, e_best, _ = parts[best]
    if all(type(p[0]) is int for p in parts):
        return Tracked(v)
    # Another evaluation may pick another argument whose value is within the
    # errors of the best one (min and max are continuous: the result moves by
    # at most the largest error among those candidates).
    e = e_best
    for pv, pe, _ in parts:
        if abs(pv - v) <= pe + e_best:
            e = max(e, pe)
    f32 = any(p[2] for p in parts)
    # C promotes the result to the float type
    return Tracked(float(v), e, f32)


def t_min(*args):
    return _minmax(args, operator.lt)


def t_max(*args):
    return _minmax(args, operator.gt)


# Exact special cases that C99 Annex F (and OpenCL's edge-case rules) require:
# sin(0) = tanh(0) = atan(0) = erf(0) = 0, cos(0) = exp(0) = 1, log(1) = 0.
_EXACT_AT = {"sin": 0.0, "tanh": 0.0, "atan": 0.0, "erf": 0.0, "cos": 0.0, "exp": 0.0,
             "log": 1.0}


def _unary(fn, deriv, ulps=MATH_ULPS):
    exact_at = _EXACT_AT.get(fn.__name__)

    def tracked(x):
        xv, xe, xf = _parts(x)
        u = _unit(xf)
        xv = float(xv)
        v = fn(xv)
        if xe == 0.0 and xv == exact_at:
            return Tracked(v, 0.0, xf)
        e = deriv(xv, v) * xe + ulps * u * abs(v)
        return Tracked(v, e, xf)
    return tracked


def _discontinuous(fn, name):
    def tracked(x):
        xv, xe, xf = _parts(x)
        if xe and _near_integer(float(xv), xe):
            REC.mark_fragile("%s(%r) within %.3g of an integer" % (name, xv, xe))
        return Tracked(float(fn(xv)), 0.0, xf)
    return tracked


def t_fabs(x):
    xv, xe, xf = _parts(x)
    return Tracked(abs(float(xv)), xe, xf)


def t_sqrt(x):
    xv, xe, xf = _parts(x)
    if xv < 0:
        REC.mark_invalid("sqrt of a negative number")
        return Tracked(0.0)
    if xe and xv <= FRAGILE_FACTOR * xe:
        REC.mark_fragile("sqrt near zero")
    v = math.sqrt(xv)
    u = _unit(xf)
    d = 0.5 / math.sqrt(max(xv - xe, 1e-300))
    return Tracked(v, d * xe + MATH_ULPS * u * v, xf)


def t_log(x):
    xv, xe, xf = _parts(x)
    if xv <= FRAGILE_FACTOR * xe:
        REC.mark_invalid("log of a number near or below zero")
        return Tracked(0.0)
    v = math.log(xv)
    u = _unit(xf)
    if xe == 0.0 and xv == 1:
        return Tracked(v, 0.0, xf)
    return Tracked(v, xe / (xv - xe) + MATH_ULPS * u * max(abs(v), 1e-300), xf)


def t_exp(x):
    xv, xe, xf = _parts(x)
    if xv > 80:
        REC.mark_invalid("exp of %r" % xv)
        return Tracked(0.0)
    v = math.exp(xv)
    u = _unit(xf)
    if xe == 0.0 and xv == 0:
        return Tracked(v, 0.0, xf)
    return Tracked(v, v * math.expm1(xe) + MATH_ULPS * u * v, xf)


def t_hypot(a, b):
    # a literal (or a double) beside a float32 may be rounded to float32
    av, ae, af, bv, be, bf = _both(a, b)
    v = math.hypot(av, bv)
    u = _unit(af, bf)
    return Tracked(v, ae + be + MATH_ULPS * u * v, af or bf)


def t_fmod(a, b):
    av, ae, af, bv, be, bf = _both(a, b)
    if bv == 0 or be >= abs(bv):
        REC.mark_invalid("fmod by (nearly) zero")
        return Tracked(0.0)
    q = float(av) / float(bv)
    eq = (ae + abs(q) * be) / (abs(bv) - be) + 2 * _unit(af, bf) * abs(q)
    if (ae or be) and _near_integer(q, eq):
        REC.mark_fragile("fmod: quotient within its error of an integer")
    v = math.fmod(av, bv)
    return Tracked(v, ae + abs(math.trunc(q)) * be, af or bf)


def t_pow(a, b):
    av, ae, af = _parts(a)
    bv, be, bf = _parts(b)
    return _pow(Tracked(float(av), ae, af), Tracked(float(bv), be, bf))


_WRAP = {"int": (32, True), "long": (64, True), "uint": (32, False)}


def t_cast(x, type_name):
    v = _int_value(x) if type_name in _WRAP else None
    if v is not None:
        # an integer converted to a C integer type wraps to its width (the
        # result of int32/int64/uint32 arithmetic that overflowed, as C's
        # wrapping arithmetic gives it: + - * agree modulo 2**bits)
        bits, signed = _WRAP[type_name]
        v &= (1 << bits) - 1
        if signed and v >> (bits - 1):
            v -= 1 << bits
        return wide_int(v)
    if type_name in ("int", "long"):
        return t_int(x)
    if type_name == "float":
        xv, xe, _ = _parts(x)
        v = float(xv)
        e = xe if f32_exact(v) else xe + U32 * abs(v)
        return Tracked(v, e, True)
    if type_name == "double":
        return t_float(x)
    raise TypeError("cast to %r is not tracked" % type_name)


def t_declare(type_name, num=1):
    def one():
        if type_name.startswith("matrix("):
            inner = type_name[len("matrix("):-1]
            is_int = '"int"' in inner or "'int'" in inner or '"long"' in inner
            dims = inner.split(",")[0] if not inner.startswith("(") else \
                inner[1:inner.index(")")]
            shape = tuple(int(d) for d in dims.split(",") if d.strip())
            out = np.empty(shape, dtype=object)
            out.fill(Tracked(0 if is_int else 0.0))
            return out
        return Tracked(0 if type_name in ("int", "long") else 0.0)
    if num == 1:
        return one()
    return tuple(one() for _ in range(num))


def _lipschitz_one(x, v):
    return 1.0


NAMESPACE = {
    "int": t_int, "float": t_float, "abs": t_abs, "min": t_min, "max": t_max,
    "declare": t_declare, "cast": t_cast,
    "sin": _unary(math.sin, _lipschitz_one), "cos": _unary(math.cos, _lipschitz_one),
    "tanh": _unary(math.tanh, _lipschitz_one), "atan": _unary(math.atan, _lipschitz_one),
    "erf": _unary(math.erf, lambda x, v: 1.2),
    "sqrt": t_sqrt, "log": t_log, "exp": t_exp, "fabs": t_fabs, "hypot": t_hypot,
    "fmod": t_fmod, "pow": t_pow,
    "floor": _discontinuous(math.floor, "floor"), "ceil": _discontinuous(math.ceil, "ceil"),
    "trunc": _discontinuous(math.trunc, "trunc"),
}


def t_weak(x):
    """A float literal that is a branch of ``a if c else b``: the kernel
    converts it to the conditional's type, float32 beside a float32 branch
    (a weak literal), so it may be rounded to float32 and the computation
    that follows may be float32."""
    v = float(x)
    return Tracked(v, 0.0 if f32_exact(v) else U32 * abs(v), True)


class _WeakBranches(ast.NodeTransformer):
    def visit_IfExp(self, node):
        self.generic_visit(node)
        for field in ("body", "orelse"):
            branch = getattr(node, field)
            inner = branch.operand if isinstance(branch, ast.UnaryOp) and \
                isinstance(branch.op, (ast.USub, ast.UAdd)) else branch
            if isinstance(inner, ast.Constant) and type(inner.value) is float:
                setattr(node, field, ast.copy_location(ast.Call(
                    func=ast.Name("fz_weak", ast.Load()), args=[branch], keywords=[]),
                    branch))
        return node


def compile_tracked(source, filename):
    """``source`` compiled for the tracked execution: the float literals that
    are branches of a conditional go through :func:`t_weak`."""
    tree = _WeakBranches().visit(ast.parse(source, filename))
    return compile(ast.fix_missing_locations(tree), filename, "exec")


def namespace():
    """Globals for the tracked execution of a generated module."""
    import types
    ns = dict(NAMESPACE)
    ns["fz_weak"] = t_weak
    ns["pi"] = ns["M_PI"] = math.pi
    ns["annotate"] = lambda **types: (lambda f: f)
    ns["INFINITY"] = math.inf
    ns["math"] = types.SimpleNamespace(pi=math.pi, **{k: v for k, v in NAMESPACE.items()
                                                      if k not in ("int", "float", "abs",
                                                                   "min", "max", "declare",
                                                                   "cast")})
    return ns
