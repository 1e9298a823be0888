"""Random expressions whose C type, value interval and float exactness are
tracked by the documented rules (:mod:`.ctypes_model`)."""
import math
import random
from fractions import Fraction

import numpy as np

from .ctypes_model import (INT_LIMITS, MATH1, MODULAR, SCALAR, V, base, fits,
                           float_result_type, int_result_type, is_int, lsb_exponent)


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
            nonneg = op == "&" and ((a.lit and a.lo >= 0) or (b.lit and b.lo >= 0))
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
            v = V(text, t, lo, hi)
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
            return V(text, t, lo, hi)
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
                return V("int(%s)" % a.text, base(a.t), a.lo, a.hi)
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
            return V(text, t, lo, hi)
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
                        pv = V(p, t, a.lo, a.hi, nonneg=False)
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
