"""Cases: an Elementwise kernel, a Reduction map or a Scan input function,
written as a module with its helpers, and the data to call it with."""
import math
import random

import numpy as np

from .ctypes_model import (ARRAY_TYPES, INT_LIMITS, Model, V, base, fits, float_result_type,
                           int_result_type, is_int)
from .exprs import Generator




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
        self.reduce = None        # (reduce expression, neutral, dtype of the result)
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
            ret = V("(1 if %s else 0)" % ret.text, "int32", 0, 1)
        case.ret = ret
        body.append("return %s" % ret.text)
        params = ["i"] + [a for a, _ in case.args]
    lines = ["# Generated by tests/indepgen (indepgen), seed %d (%s)." % (seed, kind),
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
    ints = [v for v in scope if is_int(v.t) and v.t != "bool" and not v.lit]
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
