"""A generator of random *valid* kernels, rendered as Python source text.

Every choice comes from a :class:`~pcompute.fuzz.choosers.Chooser`.  The
generator keeps, for every expression it builds, a static bound on its
magnitude, and chooses operations so that by construction:

* every integer intermediate stays far inside int32 (bounds <= 2**20 for
  expressions; loop accumulations are charged against each local's cap);
* every float stays finite and below about 1e6 (divisors are ``abs(d) + 1.0``
  or non-zero literals, ``exp`` gets clamped arguments, ``sqrt`` and ``log``
  get ``abs(x) + c``, fractional powers a base ``abs(x) + 1.0``);
* integer ``//`` and ``%`` never divide by zero (``d | 1``,
  ``d if d != 0 else 1``, ``abs(d) % k + 1``, non-zero literals);
* indices stay in range (``x[(e) % n]``, ``m[(e) % 3]``), loops are bounded
  (trip counts are known statically, ``while`` loops carry a counter);
* every local is assigned before it is read, on every path, in Python and C.

The run-time check in :mod:`pcompute.fuzz.tracked` verifies these claims on
every element and reports any breach as a generator error.
"""
import math
from dataclasses import dataclass, field

INT_LIMIT = 2 ** 20        # |int expression| bound
FLOAT_LIMIT = 1e6          # |float expression| bound
INDEX_BOUND = 4096         # i < n <= INDEX_BOUND
MAX_TRIPS = 12             # trips of one loop
TRIP_BUDGET = 48           # product of the trips of nested loops
MAX_DEPTH = 3              # nesting of compound statements

# Literals: mostly dyadic (exact in float32), a few that are not.
FLOAT_LITERALS = (0.5, 1.0, 2.0, 0.25, 1.5, 3.0, 0.125, 2.5, 4.0, 0.75, 10.0, 8.0,
                  0.1, 0.3, 7.25, 100.0, 0.001, 1234.5, 0.0)
# Names that are fine in Python but reserved in C / OpenCL / CUDA / Cython.
C_RESERVED = ("auto", "register", "restrict", "signed", "unsigned", "char", "short",
              "long", "kernel", "local", "constant", "private", "half", "uint",
              "uchar", "size_t", "cdef", "cpdef", "nogil", "NULL", "new", "this",
              "template", "typename", "namespace", "operator", "friend", "virtual",
              "threadIdx", "barrier", "main", "malloc", "memset", "switch", "case",
              "goto", "enum", "struct", "union", "typedef", "extern", "static",
              "volatile", "sizeof", "inline", "default", "do", "void", "float2",
              "blockIdx", "warpSize", "get_global_id", "isnan", "INFINITY")

# Known pcompute bugs the generator steers around (each has a regression test in
# tests/fuzz_regressions.py); remove an entry once the bug is fixed so that the
# fuzzer covers the construct again.
KNOWN_BUGS = frozenset([])

ARRAY_CODES = ("fp", "i32", "f32", "i64", "f64",   # fp: the precision's float
               "i8", "u8", "i16", "u16", "u32", "b")
# Unsigned arrays hold values in [0, bound]; bool arrays 0/1 (read as ints).
# A u32 array's values are shifted up by U32_OFFSET and read back as
# ``(x[i] - 2147483648)``: a literal beyond int32 met by a uint32 value, which
# must give the exact (64-bit) difference on every backend.
U32_OFFSET = 2 ** 31
SCALAR_CODES = ("int", "float", "i32", "f32", "f64")


@dataclass(frozen=True)
class ArraySpec:
    name: str
    code: str          # fp, f32, f64, i32, i64
    bound: float       # values in [-bound, bound]

    @property
    def kind(self):
        return "f" if self.code in ("fp", "f32", "f64") else "i"

    def read(self, element):
        """The expression reading ``element`` (text) as a bounded value."""
        if self.code == "u32":
            return "(%s - %d)" % (element, U32_OFFSET)
        return element


@dataclass(frozen=True)
class ScalarSpec:
    name: str
    code: str          # int, i32 (ints); float, f32, f64 (floats)
    bound: float

    @property
    def kind(self):
        return "i" if self.code in ("int", "i32") else "f"


@dataclass
class FuzzCase:
    """A generated kernel and what to run it with."""
    source: str
    arrays: tuple
    scalars: tuple
    out_int: str               # 'i32' or 'i64'
    map_kind: str              # 'i' or 'f': what fz_map returns
    reduce_expr: str
    scan_expr: str
    primitives: tuple          # subset of ('elementwise', 'reduction', 'scan')
    seed: int = 0              # of the input data
    label: str = ""
    scan_output: str = "item"  # what fz_scan_out stores: item, prev_item, last_item
    segmented: bool = False    # the scan has is_segment=fz_seg

    @property
    def kernel_args(self):
        return ([a.name for a in self.arrays] + [s.name for s in self.scalars]
                + ["n", "out_f", "out_i"])

    @property
    def map_args(self):
        return [a.name for a in self.arrays] + [s.name for s in self.scalars] + ["n"]

    def as_dict(self):
        return {"source": self.source,
                "arrays": [(a.name, a.code, a.bound) for a in self.arrays],
                "scalars": [(s.name, s.code, s.bound) for s in self.scalars],
                "out_int": self.out_int, "map_kind": self.map_kind,
                "reduce_expr": self.reduce_expr, "scan_expr": self.scan_expr,
                "primitives": list(self.primitives), "seed": self.seed,
                "label": self.label, "scan_output": self.scan_output,
                "segmented": self.segmented}

    @classmethod
    def from_dict(cls, d):
        return cls(source=d["source"],
                   arrays=tuple(ArraySpec(*a) for a in d["arrays"]),
                   scalars=tuple(ScalarSpec(*s) for s in d["scalars"]),
                   out_int=d["out_int"], map_kind=d["map_kind"],
                   reduce_expr=d["reduce_expr"], scan_expr=d["scan_expr"],
                   primitives=tuple(d["primitives"]), seed=d.get("seed", 0),
                   label=d.get("label", ""), scan_output=d.get("scan_output", "item"),
                   segmented=d.get("segmented", False))


@dataclass(frozen=True)
class Expr:
    text: str
    kind: str            # 'i' or 'f'
    bound: float
    const: bool = False  # a literal (or a negated one)


@dataclass
class Var:
    name: str
    kind: str
    cap: float               # |value| <= cap at all times
    used: float = 0.0        # accounted bound so far (<= cap)
    mutable: bool = True
    shape: tuple = ()        # local matrices
    declared: bool = False


@dataclass
class Helper:
    name: str
    params: list             # [(kind, cap)]
    ret_kind: str
    ret_bound: float


@dataclass
class _Fn:
    """The function being generated."""
    kind: str                       # kernel, map, helper
    scopes: list = field(default_factory=lambda: [[]])
    trips: list = field(default_factory=list)
    loop_depth: int = 0
    returns: list = field(default_factory=list)
    matrices: int = 0
    arrays: list = field(default_factory=list)   # helper array params: (name, index, spec)


def _fmt_float(x):
    text = repr(float(x))
    return text


class KernelGenerator:
    """Builds one :class:`FuzzCase` from a chooser's answers."""

    def __init__(self, chooser, with_scan=True):
        self.c = chooser
        self.with_scan = with_scan
        self.names = 0
        self.reserved_used = set()
        self.infinity_constant = False   # INFINITY used as the constant (f_minmax)
        self.helpers = []
        self.arrays = ()
        self.scalars = ()
        self.lines = []
        self.indent = 0
        self.fn = None

    # -- names, scopes, output ---------------------------------------------
    def fresh(self, prefix):
        if prefix == "t" and self.c.flag(8):
            # INFINITY is a local name or the constant in a case, never both
            # (Python makes an assigned name local in the whole function)
            left = [n for n in C_RESERVED if n not in self.reserved_used and
                    not (n == "INFINITY" and self.infinity_constant)]
            if left:
                name = self.c.choice(left)
                self.reserved_used.add(name)
                return name
        self.names += 1
        return "%s%d" % (prefix, self.names)

    def emit(self, text):
        self.lines.append("    " * self.indent + text)

    def visible(self):
        return [v for scope in self.fn.scopes for v in scope]

    def add_var(self, var):
        self.fn.scopes[-1].append(var)
        return var

    def push(self):
        self.fn.scopes.append([])

    def pop(self):
        self.fn.scopes.pop()

    def trips(self):
        return math.prod(self.fn.trips) if self.fn.trips else 1

    # -- leaves ----------------------------------------------------------------
    def leaf(self, kind, limit, nonconst=False):
        limit = max(limit, 0)
        options = []
        if not nonconst:
            options.append((3, lambda: self.literal(kind, limit)))
        for v in self.visible():
            if v.shape:
                if v.cap <= limit and (v.kind == kind or kind == "f"):
                    options.append((2, lambda v=v: self.matrix_read(v)))
            elif v.kind == "b":
                continue
            elif v.cap <= limit and (v.kind == kind or (kind == "f" and self.c.flag(30))):
                options.append((3, lambda v=v: Expr(v.name, v.kind, v.cap)))
        for pa, pj, spec in self.fn.arrays:
            if spec.bound <= limit and (spec.kind == kind or kind == "f"):
                options.append((3, lambda pa=pa, pj=pj, spec=spec: Expr(
                    spec.read("%s[%s]" % (pa, pj if self.c.flag(80) else "0")), spec.kind,
                    spec.bound)))
        if self.fn.kind != "helper":
            for a in self.arrays:
                if a.bound <= limit and (a.kind == kind or kind == "f"):
                    options.append((4, lambda a=a: self.array_read(a)))
            if kind == "i" and INDEX_BOUND <= limit:
                options.append((2, lambda: Expr("i", "i", INDEX_BOUND)))
        if not options:
            if kind == "f" and nonconst:
                # no float value at hand: promote an int one (mixed types)
                e = self.leaf("i", limit, nonconst=True) if limit >= 1 else None
                if e is not None:
                    return Expr("float(%s)" % e.text, "f", e.bound)
                return None
            if nonconst:
                return None
            return self.literal(kind, limit)
        return self.c.weighted(options)()

    def literal(self, kind, limit):
        limit = max(limit, 0)
        if kind == "i":
            hi = int(min(limit, 9))
            if limit >= 1000 and self.c.flag(10):
                hi = int(min(limit, 1000))
            k = self.c.integer(-hi, hi)
            text = str(abs(k))
            if self.c.flag(8):   # other spellings of the same int
                text = self.c.choice([hex(abs(k)), bin(abs(k)), oct(abs(k))])
            return Expr(text if k >= 0 else "(-%s)" % text, "i", abs(k), const=True)
        options = [x for x in FLOAT_LITERALS if x <= limit]
        if limit >= math.pi and self.c.flag(5):
            return Expr(self.c.choice(["pi", "math.pi", "M_PI"]), "f", math.pi, const=True)
        x = self.c.choice(options)
        if x and self.c.flag(30):
            x = -x
        text = _fmt_float(abs(x))
        if self.c.flag(8):       # other spellings of the same float
            text = self.c.choice(["%re0" % abs(x), "%.17e" % abs(x)])
        return Expr(text if x >= 0 else "(-%s)" % text, "f", abs(x), const=True)

    def array_read(self, a):
        if self.c.flag(75):
            return Expr(a.read("%s[i]" % a.name), a.kind, a.bound)
        idx = self.expr("i", INT_LIMIT, 1)
        if self.c.flag(50):
            return Expr(a.read("%s[(%s) %% n]" % (a.name, idx.text)), a.kind, a.bound)
        return Expr(a.read("%s[min(max(%s, 0), n - 1)]" % (a.name, idx.text)), a.kind,
                    a.bound)

    def index_for(self, size):
        if self.c.flag(50):
            return str(self.c.integer(0, size - 1))
        e = self.expr("i", INT_LIMIT, 1)
        return "(%s) %% %d" % (e.text, size)

    def matrix_read(self, m):
        text = m.name + "".join("[%s]" % self.index_for(s) for s in m.shape)
        return Expr(text, m.kind, m.cap)

    # -- expressions ---------------------------------------------------------
    def expr(self, kind, limit, depth):
        """An expression of ``kind`` whose magnitude is at most ``limit``."""
        limit = max(0, min(limit, INT_LIMIT if kind == "i" else FLOAT_LIMIT))
        if depth <= 0 or self.c.flag(30):
            return self.leaf(kind, limit)
        ops = self.INT_OPS if kind == "i" else self.FLOAT_OPS
        op = self.c.weighted(ops)
        e = op(self, limit, depth - 1)
        if e is None or e.bound > limit:
            return self.leaf(kind, limit)
        return e

    def mixed(self, limit, depth):
        """An int or float operand (mixed-type arithmetic)."""
        return self.expr("f" if self.c.flag(60) else "i", limit, depth)

    def pair(self, kind_a, kind_b, limit_a, limit_b, depth):
        """Two operands that are not both literals."""
        a = self.expr(kind_a, limit_a, depth)
        b = self.expr(kind_b, limit_b, depth)
        if a.const and b.const:
            b = self.leaf(kind_b, limit_b, nonconst=True) or b
            if a.const and b.const and (a.kind == "f" or b.kind == "f"):
                return None
        return a, b

    # int operations --------------------------------------------------------
    def i_addsub(self, limit, depth):
        p = self.pair("i", "i", limit / 2, limit / 2, depth)
        if p is None:
            return None
        a, b = p
        op = self.c.choice("+-")
        return Expr("(%s %s %s)" % (a.text, op, b.text), "i", a.bound + b.bound)

    def i_mul(self, limit, depth):
        a = self.expr("i", max(1, int(math.isqrt(int(limit)))), depth)
        b = self.expr("i", limit / max(a.bound, 1), depth)
        return Expr("(%s * %s)" % (a.text, b.text), "i", a.bound * b.bound)

    def int_divisor(self, limit, depth):
        """A non-zero int expression with |d| <= limit (limit >= 1)."""
        limit = max(1, int(limit))
        form = self.c.integer(0, 4)
        if form == 0 or limit < 3:
            k = self.c.choice([x for x in range(-7, 8) if x and abs(x) <= limit])
            return Expr(str(k) if k > 0 else "(%d)" % k, "i", abs(k), const=True)
        if form == 1:
            e = self.expr("i", limit - 1, depth)
            return Expr("(%s | 1)" % e.text, "i", e.bound + 1)
        if form == 2:
            e = self.expr("i", limit, depth)
            alt = self.c.choice([1, -1, 2, 3])
            return Expr("(%s if %s != 0 else %d)" % (e.text, e.text, alt) if alt > 0 else
                        "(%s if %s != 0 else (%d))" % (e.text, e.text, alt), "i",
                        max(e.bound, abs(alt)))
        m = self.c.integer(1, min(limit - 1, 9))
        e = self.expr("i", INT_LIMIT, depth)
        sign = "" if form == 3 else "-"
        return Expr("%s(abs(%s) %% %d + 1)" % (sign, e.text, m), "i", m)

    def i_floordiv(self, limit, depth):
        a = self.expr("i", limit, depth)
        d = self.int_divisor(min(limit, 50), depth)
        return Expr("(%s // %s)" % (a.text, d.text), "i", a.bound)

    def i_mod(self, limit, depth):
        a = self.expr("i", INT_LIMIT, depth)
        d = self.int_divisor(limit, depth)
        return Expr("(%s %% %s)" % (a.text, d.text), "i", d.bound)

    def i_unary(self, limit, depth):
        a = self.expr("i", limit - 1, depth)
        form = self.c.integer(0, 3)
        if form == 0:
            return Expr("(-%s)" % a.text, "i", a.bound)
        if form == 1:
            return Expr("abs(%s)" % a.text, "i", a.bound)
        if form == 2:
            return Expr("(~%s)" % a.text, "i", a.bound + 1)
        return Expr("(+%s)" % a.text, "i", a.bound)

    def i_minmax(self, limit, depth):
        args = [self.expr("i", limit, depth) for _ in range(self.c.integer(2, 3))]
        name = self.c.choice(["min", "max"])
        return Expr("%s(%s)" % (name, ", ".join(a.text for a in args)), "i",
                    max(a.bound for a in args))

    def i_bitwise(self, limit, depth):
        half = max(1, (limit - 1) / 2)
        a, b = self.expr("i", half, depth), self.expr("i", half, depth)
        op = self.c.choice("&|^")
        return Expr("(%s %s %s)" % (a.text, op, b.text), "i", 2 * max(a.bound, b.bound) + 1)

    def i_shift(self, limit, depth):
        if self.c.flag(30):
            return self.i_shift_far(limit, depth)
        k = self.c.integer(0, 4)
        if self.c.flag(50):
            a = self.expr("i", limit, depth)
            if self.c.flag(30):
                s = self.expr("i", INT_LIMIT, depth)
                return Expr("(%s >> (abs(%s) %% 5))" % (a.text, s.text), "i", a.bound)
            return Expr("(%s >> %d)" % (a.text, k), "i", a.bound)
        a = self.expr("i", limit / 2 ** k, depth)
        return Expr("(abs(%s) << %d)" % (a.text, k), "i", a.bound * 2 ** k)

    def i_shift_far(self, limit, depth):
        """Shifts by counts where C is undefined (the width or more, or
        negative), which the kernel language defines (docs/semantics.rst,
        Shifts): ``>>`` by any count is Python's (a negative count: the sign),
        ``<<`` by 64 or more or a negative count is 0 in every width, so the
        model needs no C type."""
        a = self.expr("i", limit, depth)
        form = self.c.integer(0, 4)
        if form == 0:
            return Expr("(%s >> %d)" % (a.text, self.c.integer(5, 70)), "i", a.bound)
        # The value shifted left (or by a negative count) goes through cast():
        # an int or a long in C, a tracked value in the model (the index and
        # the scalars are plain Python ints there, whose shifts are Python's),
        # and never literal arithmetic, which the front end would fold exactly.
        cast_a = "cast(%s, '%s')" % (a.text, self.c.choice(["int", "long"]))
        if form == 1:
            return Expr("(%s << %d)" % (cast_a, self.c.integer(64, 90)), "i", 1)
        s = self.expr("i", INT_LIMIT, depth)
        if form == 2:
            return Expr("(%s >> (%d + abs(%s) %% 40))" % (a.text, self.c.integer(0, 40),
                                                         s.text), "i", a.bound)
        if form == 3:
            return Expr("(%s << (64 + abs(%s) %% 40))" % (cast_a, s.text), "i", 1)
        op = self.c.choice(["<<", ">>"])       # a negative count: 0, or the sign
        return Expr("(%s %s (abs(%s) %% 5 - 5))" % (cast_a, op, s.text), "i",
                    max(a.bound, 1) if op == ">>" else 1)

    def i_pow(self, limit, depth):
        if self.c.flag(30):
            # a variable, non-negative exponent (0, 1 or 2)
            a = self.expr("i", max(1, int(math.isqrt(int(limit)))), depth)
            s = self.expr("i", INT_LIMIT, depth)
            return Expr("(%s ** (abs(%s) %% 3))" % (a.text, s.text), "i",
                        max(a.bound ** 2, 1))
        k = self.c.integer(0, 3)
        base_limit = limit ** (1.0 / k) if k else limit
        a = self.expr("i", max(1, int(base_limit)), depth)
        if a.bound ** k > limit:
            return None
        return Expr("(%s ** %d)" % (a.text, k), "i", a.bound ** k if k else 1)

    def i_wrap(self, limit, depth):
        """Integer arithmetic that overflows: an int32, uint32 or int64 value
        wraps (C's wrapping arithmetic, the model's wrapping cast), shifted
        right back into the bound.  ``a * m + c`` in 32 bits (a product of up
        to 2**40: int32 arithmetic wraps, long arithmetic is exact, the cast
        wraps both alike), ``cast(a, 'long') * m * m2 + c`` in 64 bits (up to
        2**64: int64 arithmetic wraps)."""
        bits_limit = max(0, int(math.log2(max(limit, 1))))
        a = self.expr("i", INT_LIMIT, depth)
        m = self.c.integer(2 ** 11, 2 ** 20) * self.c.choice([1, -1])
        c = self.c.integer(-INT_LIMIT, INT_LIMIT)
        lit = lambda k: str(k) if k >= 0 else "(-%d)" % -k  # noqa: E731
        kind = self.c.choice(["int", "int", "uint", "long"])
        if kind == "long":
            m2 = self.c.integer(2 ** 20, 2 ** 24)
            inner = "cast(%s, 'long') * %s * %d + %s" % (a.text, lit(m), m2, lit(c))
            bits = 64
        else:
            inner = "%s * %s + %s" % (a.text, lit(m), lit(c))
            bits = 32
        signed = kind != "uint"
        shift = min(bits - bits_limit - (1 if signed else 0), bits - 1)
        text = "(cast(%s, '%s') >> %d)" % (inner, kind, shift)
        if not signed:      # back to int: a uint meeting a literal would wrap again
            text = "cast(%s, 'int')" % text
        return Expr(text, "i", 2 ** (bits - shift - (1 if signed else 0)))

    def i_from_float(self, limit, depth):
        f = self.expr("f", min(limit, FLOAT_LIMIT), depth)
        if self.c.flag(25):
            return Expr("cast(%s, '%s')" % (f.text, self.c.choice(["int", "long"])), "i",
                        f.bound)
        return Expr("int(%s)" % f.text, "i", f.bound)

    def ternary(self, kind, limit, depth):
        c = self.condition(depth, ternary=True)
        a, b = self.expr(kind, limit, depth), self.expr(kind, limit, depth)
        kind = "f" if "f" in (a.kind, b.kind) else "i"
        return Expr("(%s if %s else %s)" % (a.text, c, b.text), kind, max(a.bound, b.bound))

    def i_ternary(self, limit, depth):
        if self.c.flag(25):
            # the division is only evaluated when d != 0
            d = self.expr("i", 5, depth)
            a = self.expr("i", limit, depth)
            k = self.literal("i", limit)
            return Expr("((%s // %s) if %s != 0 else %s)" % (a.text, d.text, d.text, k.text),
                        "i", a.bound + 1)
        return self.ternary("i", limit, depth)

    def i_bool(self, limit, depth):
        """A condition used as a number (0 or 1)."""
        bools = [v for v in self.visible() if v.kind == "b"]
        if bools and self.c.flag(50):
            v = self.c.choice(bools)
            return Expr("(%s * %d)" % (v.name, self.c.integer(1, 3)) if self.c.flag(50)
                        else "int(%s)" % v.name, "i", 3)
        if self.c.flag(40):
            # bools are integers in arithmetic: True + True is 2, -True is -1
            a = self.condition(max(depth, 1), value=True)
            b = self.condition(max(depth, 1), value=True)
            form = self.c.integer(0, 2)
            if form == 0:
                return Expr("((%s) + (%s))" % (a, b), "i", 2)
            if form == 1:
                return Expr("(-(%s) * 3 + (%s))" % (a, b), "i", 4)
            return Expr("(~(%s))" % a, "i", 2)
        return Expr("int(%s)" % self.condition(max(depth, 1), value=True), "i", 1)

    def call(self, kind, limit, depth):
        # while a helper is generated, self.helpers holds the earlier ones only
        fits = [h for h in self.helpers if h.ret_bound <= limit
                and (h.ret_kind == kind or kind == "f")
                and not (self.fn.kind == "helper" and any(k in ("arr", "idx")
                                                          for k, _ in h.params))]
        if not fits:
            return None
        h = self.c.choice(fits)
        args = []
        for pkind, cap in h.params:
            if pkind == "arr":
                args.append(cap.name)       # the array itself (cap is its spec)
                continue
            if pkind == "idx":
                args.append("i" if self.c.flag(50) else
                            "(%s) %% n" % self.expr("i", INT_LIMIT, 1).text)
                continue
            a = self.expr(pkind if pkind == "i" else ("f" if self.c.flag(70) else "i"),
                          cap, depth)
            args.append(a.text)
        return Expr("%s(%s)" % (h.name, ", ".join(args)), h.ret_kind, h.ret_bound)

    def i_call(self, limit, depth):
        return self.call("i", limit, depth)

    # float operations ------------------------------------------------------
    def f_addsub(self, limit, depth):
        p = self.pair("f", "f" if self.c.flag(60) else "i", limit / 2, limit / 2, depth)
        if p is None:
            return None
        a, b = p
        if self.c.flag(50):
            a, b = b, a
        if a.kind == "i" and b.kind == "i":
            return None
        op = self.c.choice("+-")
        return Expr("(%s %s %s)" % (a.text, op, b.text), "f", a.bound + b.bound)

    def f_mul(self, limit, depth):
        p = self.pair("f", "f" if self.c.flag(60) else "i", math.sqrt(limit), 1.0, depth)
        if p is None:
            return None
        a = p[0]
        b = self.expr("f" if self.c.flag(60) else "i", limit / max(a.bound, 1e-3), depth)
        if a.const and b.const:
            return None
        if self.c.flag(50):
            a, b = b, a
        if a.kind == "i" and b.kind == "i":
            return None
        return Expr("(%s * %s)" % (a.text, b.text), "f", a.bound * b.bound)

    def f_div(self, limit, depth):
        form = self.c.integer(0, 2)
        if form == 0:
            a = self.mixed(limit, depth)
            d = self.mixed(FLOAT_LIMIT, depth)
            return Expr("(%s / (abs(%s) + 1.0))" % (a.text, d.text), "f", a.bound)
        if form == 1:
            lit = self.c.choice([2.0, -4.0, 3.0, 0.5, -1.5, 7.0, 10.0])
            a = self.leaf("f", limit * abs(lit), nonconst=True) if self.c.flag(30) else \
                self.expr("f", limit * abs(lit), depth)
            if a is None or a.const:
                return None
            return Expr("(%s / %s)" % (a.text, _paren(_fmt_float(lit))), "f",
                        a.bound / abs(lit))
        # int / int is a float in Python (and in pcompute)
        a = self.expr("i", min(limit, INT_LIMIT), depth)
        d = self.int_divisor(INT_LIMIT, depth)
        if a.const and d.const:
            return None
        return Expr("(%s / %s)" % (a.text, d.text), "f", a.bound)

    def f_floordiv(self, limit, depth):
        if self.c.flag(50):
            a = self.mixed(max(1.0, (limit - 1) / 2), depth)
            d = self.mixed(FLOAT_LIMIT, depth)
            return Expr("(%s // (abs(%s) + 0.5))" % (a.text, d.text), "f", 2 * a.bound + 1)
        lit = self.c.choice([2.5, -1.5, 0.75, 3.0, 0.5])
        a = self.expr("f", max(1.0, (limit - 1) * abs(lit)), depth)
        if a.const:
            return None
        return Expr("(%s // %s)" % (a.text, _paren(_fmt_float(lit))), "f",
                    a.bound / abs(lit) + 1)

    def f_mod(self, limit, depth):
        a = self.mixed(FLOAT_LIMIT, depth)
        if self.c.flag(50):
            d = self.mixed(max(limit - 0.5, 0.5), depth)
            return Expr("(%s %% (abs(%s) + 0.5))" % (a.text, d.text), "f", d.bound + 0.5)
        lit = self.c.choice([x for x in (2.5, -1.5, 0.75, 3.0, 1.0, -4.0) if abs(x) <= limit]
                            or [0.75])
        if a.const:
            return None
        if a.kind == "i" and lit == int(lit):
            a = Expr("float(%s)" % a.text, "f", a.bound)
        return Expr("(%s %% %s)" % (a.text, _paren(_fmt_float(lit))), "f", abs(lit))

    def f_pow(self, limit, depth):
        form = self.c.integer(0, 2)
        if form == 0:
            k = self.c.integer(2, 3)
            a = self.expr("f", limit ** (1.0 / k), depth)
            if a.const:
                return None
            return Expr("(%s ** %d)" % (a.text, k), "f", a.bound ** k)
        c = self.c.choice([0.5, -0.5, 1.5, -1.25, 2.5, 0.25])
        base_limit = (limit ** (1.0 / c) - 1) if c > 0 else FLOAT_LIMIT
        a = self.mixed(max(base_limit, 0.0), depth)
        bound = (a.bound + 1.0) ** c if c > 0 else 1.0
        if bound > limit:
            return None
        if form == 1:
            return Expr("((abs(%s) + 1.0) ** %s)" % (a.text, _paren(_fmt_float(c))), "f",
                        bound)
        return Expr("pow(abs(%s) + 1.0, %s)" % (a.text, _fmt_float(c)), "f", bound)

    def f_math(self, limit, depth):
        name = self.c.choice(["sin", "cos", "tanh", "atan", "erf", "sqrt", "log", "exp",
                              "fabs", "floor", "ceil", "hypot", "fmod", "trunc"])
        if name in ("sin", "cos", "tanh", "atan", "erf"):
            a = self.mixed(100.0, depth)
            bound = 1.6 if name == "atan" else 1.0
            if self.c.flag(20):  # through the module
                return Expr("math.%s(%s)" % (name, a.text), "f", bound)
            return Expr("%s(%s)" % (name, a.text), "f", bound)
        if name == "sqrt":
            a = self.mixed(max(limit * limit - 1, 0), depth)
            c = self.c.choice([1.0, 0.25, 4.0])
            return Expr("sqrt(abs(%s) + %s)" % (a.text, _fmt_float(c)), "f",
                        math.sqrt(a.bound + c))
        if name == "log":
            a = self.mixed(FLOAT_LIMIT, depth)
            return Expr("log(abs(%s) + 1.0)" % a.text, "f", math.log(a.bound + 1.0) + 1e-9)
        if name == "exp":
            a = self.mixed(FLOAT_LIMIT, depth)
            form = self.c.integer(0, 2)
            if form == 0:
                return Expr("exp(min(max(%s, -4.0), 4.0))" % a.text, "f", math.exp(4.0))
            if form == 1:
                return Expr("exp(sin(%s))" % self.mixed(100.0, depth).text, "f", math.e)
            return Expr("exp(-abs(%s))" % a.text, "f", 1.0)
        if name in ("fabs",):
            a = self.mixed(limit, depth)
            return Expr("fabs(%s)" % a.text, "f", a.bound)
        if name in ("floor", "ceil", "trunc"):
            a = self.mixed(limit - 1, depth)
            if name == "trunc" and "python-trunc-numpy-scalar" in KNOWN_BUGS:
                return Expr("trunc(float(%s))" % a.text, "f", a.bound + 1)
            return Expr("%s(%s)" % (name, a.text), "f", a.bound + 1)
        if name == "hypot":
            a, b = self.mixed(limit / 2, depth), self.mixed(limit / 2, depth)
            return Expr("hypot(%s, %s)" % (a.text, b.text), "f", a.bound + b.bound)
        a = self.mixed(FLOAT_LIMIT, depth)
        d = self.mixed(max(limit - 0.5, 0.5), depth)
        return Expr("fmod(%s, abs(%s) + 0.5)" % (a.text, d.text), "f",
                    min(a.bound, d.bound + 0.5))

    def f_convert(self, limit, depth):
        form = self.c.integer(0, 2)
        if form == 0:
            a = self.expr("i", min(limit, INT_LIMIT), depth)
            return Expr("float(%s)" % a.text, "f", a.bound)
        a = self.mixed(limit, depth)
        if form == 1:
            return Expr("cast(%s, 'float')" % a.text, "f", a.bound)
        return Expr("cast(%s, 'double')" % a.text, "f", a.bound)

    def f_unary(self, limit, depth):
        a = self.expr("f", limit, depth)
        if self.c.flag(50):
            return Expr("(-%s)" % a.text, "f", a.bound, const=a.const)
        return Expr("abs(%s)" % a.text, "f", a.bound)

    def f_minmax(self, limit, depth):
        args = [self.mixed(limit, depth) for _ in range(self.c.integer(2, 3))]
        if all(a.kind == "i" for a in args):
            args[0] = self.expr("f", limit, depth)
        name = self.c.choice(["min", "max"])
        if self.c.flag(15) and "INFINITY" not in self.reserved_used:
            # the documented constants: min(x, INFINITY) is x
            self.infinity_constant = True
            args.append(Expr("INFINITY" if name == "min" else "(-INFINITY)", "f", 0.0))
        return Expr("%s(%s)" % (name, ", ".join(a.text for a in args)), "f",
                    max(a.bound for a in args))

    def f_ternary(self, limit, depth):
        e = self.ternary("f", limit, depth)
        return e if e.kind == "f" else None

    def f_call(self, limit, depth):
        e = self.call("f", limit, depth)
        return e if e is not None and e.kind == "f" else None

    INT_OPS = [(6, i_addsub), (3, i_mul), (3, i_floordiv), (3, i_mod), (2, i_unary),
               (2, i_minmax), (2, i_bitwise), (1, i_shift), (1, i_pow), (3, i_from_float),
               (2, i_ternary), (3, i_call), (1, i_bool), (2, i_wrap)]
    FLOAT_OPS = [(6, f_addsub), (4, f_mul), (3, f_div), (1, f_floordiv), (2, f_mod),
                 (1, f_pow), (5, f_math), (2, f_convert), (1, f_unary), (2, f_minmax),
                 (2, f_ternary), (3, f_call)]

    # -- conditions ------------------------------------------------------------
    def compare_operands(self, depth):
        kinds = self.c.choice([("i", "i"), ("f", "f"), ("i", "f"), ("f", "i")])
        for _ in range(3):
            a = self.expr(kinds[0], 1e4, depth)
            b = self.expr(kinds[1], 1e4, depth)
            if a.text != b.text and not (a.const and b.const):
                return a, b
        return None

    def condition(self, depth, value=False, ternary=False):
        """A condition; ``value``: it is stored (a bool local), where `and`/`or`
        between plain numbers is not allowed (they give a number in Python)."""
        bools = [v for v in self.visible() if v.kind == "b"]
        form = self.c.weighted([(8, "cmp"), (2, "chain"), (1, "not"), (2, "and"),
                                (2, "or"), (0 if value else 1, "truthy"),
                                (3 if bools else 0, "bool"), (1, "guard")])
        if depth <= 0 and form not in ("bool", "truthy"):
            form = "cmp"
        if form == "guard":
            # valid only because `and` / `or` short-circuit: d may be zero
            d = self.expr("i", 5, 1)
            a = self.expr("i", 1e4, 1)
            b = self.expr("i" if self.c.flag(50) else "f", 1e4, 1)
            op = self.c.choice(["//", "%"])
            if self.c.flag(50):
                return "(%s != 0 and (%s %s %s) < %s)" % (d.text, a.text, op, d.text, b.text)
            return "(%s == 0 or (%s %s %s) >= %s)" % (d.text, a.text, op, d.text, b.text)
        if form == "bool":
            v = self.c.choice(bools)
            return v.name if self.c.flag(70) else "(not %s)" % v.name
        if form == "truthy":
            # a number as a condition: `if x:` is `if x != 0:`
            kind = "i" if self.c.flag(70) else "f"
            if ternary and "opencl-float-ternary-condition" in KNOWN_BUGS:
                kind = "i"
            e = self.expr(kind, 1e4, 1)
            if e.const:
                return "(i >= 0)" if self.fn.kind != "helper" else "True"
            return e.text if self.c.flag(50) else "(not %s)" % e.text
        if form == "cmp":
            p = self.compare_operands(depth - 1 if depth > 0 else 0)
            if p is None:
                return "(i >= 0)" if self.fn.kind != "helper" else "True"
            op = self.c.choice(["<", "<=", ">", ">=", "==", "!="])
            return "(%s %s %s)" % (p[0].text, op, p[1].text)
        if form == "chain":
            kind = self.c.choice("if")
            parts = [self.expr(kind, 1e4, depth - 1) for _ in range(3)]
            if len({p.text for p in parts}) < 3 or sum(p.const for p in parts) > 1:
                return self.condition(0, value)
            ops = [self.c.choice(["<", "<=", ">", ">=", "!="]) for _ in range(2)]
            return "(%s %s %s %s %s)" % (parts[0].text, ops[0], parts[1].text, ops[1],
                                         parts[2].text)
        if form == "not":
            return "(not %s)" % self.condition(depth - 1, value)
        return "(%s %s %s)" % (self.condition(depth - 1, value), form,
                               self.condition(depth - 1, value))

    # -- statements ------------------------------------------------------------
    def mutable_scalars(self, kind=None):
        return [v for v in self.visible() if v.mutable and not v.shape
                and (kind is None or v.kind == kind)]

    def block(self, count, depth):
        start = len(self.lines)
        for _ in range(count):
            self.statement(depth)
        if len(self.lines) == start:
            self.emit("pass")

    def statement(self, depth):
        fn = self.fn
        options = [(8, self.st_new_local)]
        if self.mutable_scalars():
            options += [(4, self.st_assign), (5, self.st_aug)]
        if depth < MAX_DEPTH:
            options.append((4, self.st_if))
            if self.trips() * 2 <= TRIP_BUDGET:
                options += [(4, self.st_for), (1, self.st_while)]
        if fn.kind != "helper" and depth == 0 and fn.matrices < 2 and \
                self.trips() * 6 <= TRIP_BUDGET:
            options.append((2, self.st_matrix))
        if any(v.shape for v in self.visible()):
            options.append((2, self.st_matrix_store))
        if len(self.mutable_scalars("i")) >= 2 or len(self.mutable_scalars("f")) >= 2:
            options.append((1, self.st_swap))
        if fn.loop_depth:
            options.append((2, self.st_loop_control))
        if fn.kind == "helper" and depth > 0:
            options.append((1, self.st_early_return))
        options.append((1, self.st_declare))
        options.append((1, self.st_bool_local))
        if fn.kind == "kernel" and depth > 0:
            options.append((1, self.st_kernel_return))
        self.c.weighted(options)(depth)

    def st_kernel_return(self, depth):
        """An early `return` of the (void) kernel, under a condition."""
        self.emit("if %s:" % self.condition(1))
        self.indent += 1
        self.emit("return")
        self.indent -= 1

    def local_cap(self, kind, bound):
        limit = INT_LIMIT if kind == "i" else FLOAT_LIMIT
        return min(limit, max(4 * bound, 16))

    def st_new_local(self, depth):
        kind = self.c.choice("if")
        limit = self.c.choice([16, 1000, 1e5]) if kind == "i" else \
            self.c.choice([10.0, 1000.0, 1e5])
        e = self.expr(kind if self.c.flag(85) else "i", limit, 3)
        if kind == "i" and e.kind == "f":
            e = Expr("int(%s)" % e.text, "i", e.bound)
        kind = "f" if kind == "f" else e.kind
        name = self.fresh("t")
        self.emit("%s = %s" % (name, e.text))
        self.add_var(Var(name, kind, self.local_cap(kind, e.bound), e.bound))

    def st_bool_local(self, depth):
        name = self.fresh("b")
        self.emit("%s = %s" % (name, self.condition(2, value=True)))
        self.add_var(Var(name, "b", 1, 1, mutable=False))

    def value_for(self, var, limit, depth=3):
        """An expression that may be assigned to ``var`` (ints only to ints)."""
        kind = var.kind if var.kind == "i" or self.c.flag(80) else "i"
        return self.expr(kind, limit, depth)

    def st_assign(self, depth):
        targets = self.mutable_scalars()
        if self.c.flag(15) and len(targets) >= 2:
            a, b = self.c.choice(targets), self.c.choice(targets)
            if a is not b:
                ea, eb = self.value_for(a, a.cap), self.value_for(b, b.cap)
                self.emit("%s, %s = %s, %s" % (a.name, b.name, ea.text, eb.text))
                a.used = max(a.used, ea.bound)
                b.used = max(b.used, eb.bound)
                return
        v = self.c.choice(targets)
        e = self.value_for(v, v.cap)
        self.emit("%s = %s" % (v.name, e.text))
        v.used = max(v.used, e.bound)

    def st_aug(self, depth):
        v = self.c.choice(self.mutable_scalars())
        room = (v.cap - v.used) / self.trips()
        form = self.c.integer(0, 3)
        if form <= 1 and room >= 1:
            e = self.value_for(v, room)
            self.emit("%s %s= %s" % (v.name, self.c.choice("+-"), e.text))
            v.used += e.bound * self.trips()
            return
        if v.kind == "i":
            if form == 2:
                if self.c.flag(50):
                    self.emit("%s >>= %d" % (v.name, self.c.choice(
                        [self.c.integer(0, 4), self.c.integer(30, 70)])))
                else:
                    mask = self.c.choice([1, 3, 7, 15, 255])
                    self.emit("%s &= %d" % (v.name, mask))
                return
            d = self.int_divisor(max(1, min(v.cap, 1000)), 2)
            self.emit("%s %s= %s" % (v.name, self.c.choice(["%", "//"]), d.text))
            return
        if form == 3 and self.c.flag(50):
            lit = self.c.choice([2.5, 0.75, -1.5, 3.0])
            self.emit("%s %%= %s" % (v.name, _paren(_fmt_float(lit))))
            return
        if form == 2:
            e = self.expr("f", 1.0, 2)
            self.emit("%s *= %s" % (v.name, e.text))
            return
        d = self.mixed(FLOAT_LIMIT, 2)
        self.emit("%s /= (abs(%s) + 1.0)" % (v.name, d.text))

    def st_if(self, depth):
        self.emit("if %s:" % self.condition(2))
        self.sub_block(depth)
        for _ in range(self.c.weighted([(3, 0), (2, 1), (1, 2)])):
            self.emit("elif %s:" % self.condition(2))
            self.sub_block(depth)
        if self.c.flag(50):
            self.emit("else:")
            self.sub_block(depth)

    def sub_block(self, depth, count=None):
        self.indent += 1
        self.push()
        self.block(count if count is not None else self.c.integer(1, 3), depth + 1)
        self.pop()
        self.indent -= 1

    def small_int(self, limit):
        return self.expr("i", limit, 2)

    def st_for(self, depth):
        budget = min(MAX_TRIPS, TRIP_BUDGET // self.trips())
        form = self.c.integer(0, 3)
        var = self.fresh("k")
        if form == 0:
            stop = self.small_int(budget)
            args, trips, span = stop.text, max(int(stop.bound), 0), stop.bound
        else:
            start, stop = self.small_int(budget / 2), self.small_int(budget / 2)
            span = max(start.bound, stop.bound)
            trips = int(start.bound + stop.bound)
            args = "%s, %s" % (start.text, stop.text)
            if form == 2:
                step = self.c.choice([-3, -2, -1, 2, 3, 1])
                args += ", %d" % step if step > 0 else ", (%d)" % step
            elif form == 3:
                s = self.expr("i", INT_LIMIT, 1)
                step = self.c.choice(["(abs(%s) %% 3 + 1)", "-(abs(%s) %% 3 + 1)",
                                      "(%s %% 3 | 1)"]) % s.text
                args += ", " + step
        trips = max(1, min(trips, budget))
        self.emit("for %s in range(%s):" % (var, args))
        self.fn.trips.append(trips)
        self.fn.loop_depth += 1
        self.indent += 1
        self.push()
        self.add_var(Var(var, "i", max(span, 1), max(span, 1), mutable=False))
        self.block(self.c.integer(1, 3), depth + 1)
        self.pop()
        self.indent -= 1
        self.fn.loop_depth -= 1
        self.fn.trips.pop()

    def st_while(self, depth):
        budget = min(6, TRIP_BUDGET // self.trips())
        w = self.fresh("w")
        self.emit("%s = 0" % w)
        if self.c.flag(50):
            limit = str(self.c.integer(0, budget))
        else:
            limit = "min(%s, %d)" % (self.expr("i", INT_LIMIT, 1).text, budget)
        cond = self.condition(1) if self.c.flag(60) else None
        self.emit("while %s < %s%s:" % (w, limit, " and %s" % cond if cond else ""))
        self.fn.trips.append(max(budget, 1))
        self.fn.loop_depth += 1
        self.indent += 1
        self.emit("%s += 1" % w)
        self.push()
        self.add_var(Var(w, "i", budget, budget, mutable=False))
        self.block(self.c.integer(1, 3), depth + 1)
        self.pop()
        self.indent -= 1
        self.fn.loop_depth -= 1
        self.fn.trips.pop()

    def st_loop_control(self, depth):
        if self.c.flag(10):   # unconditional (the rest of the block is dead code)
            self.emit(self.c.choice(["break", "continue"]))
            return
        self.emit("if %s:" % self.condition(1))
        self.indent += 1
        self.emit(self.c.choice(["break", "continue"]))
        self.indent -= 1

    def st_early_return(self, depth):
        e = self.expr(self.c.choice("if"), 1e4, 2)
        self.emit("if %s:" % self.condition(1))
        self.indent += 1
        self.emit("return %s" % e.text)
        self.indent -= 1
        self.fn.returns.append(e)

    def st_declare(self, depth):
        kind = self.c.choice("if")
        ctype = self.c.choice(["int", "long"]) if kind == "i" else "double"
        count = self.c.integer(1, 2)
        names = [self.fresh("d") for _ in range(count)]
        if count == 1:
            self.emit("%s = declare('%s')" % (names[0], ctype))
        else:
            self.emit("%s = declare('%s', %d)" % (", ".join(names), ctype, count))
        for name in names:
            limit = 1000 if kind == "i" else 1000.0
            e = self.expr(kind, limit, 2)
            self.emit("%s = %s" % (name, e.text))
            self.add_var(Var(name, kind, self.local_cap(kind, e.bound), e.bound,
                             declared=True))

    def st_matrix(self, depth):
        self.fn.matrices += 1
        kind = self.c.choice("if")
        shape = self.c.choice([(3,), (4,), (2,), (2, 3), (2, 2)])
        name = self.fresh("m")
        dims = str(shape[0]) if len(shape) == 1 else "(%s)" % ", ".join(map(str, shape))
        if kind == "i":
            self.emit("%s = declare('matrix(%s, \"int\")')" % (name, dims))
        else:
            self.emit("%s = declare('matrix(%s)')" % (name, dims))
        loops = [self.fresh("k") for _ in shape]
        for depth_k, (var, size) in enumerate(zip(loops, shape)):
            self.emit("for %s in range(%d):" % (var, size))
            self.indent += 1
            self.push()
            self.add_var(Var(var, "i", size, size, mutable=False))
            self.fn.trips.append(size)
        limit = 1000 if kind == "i" else 1000.0
        e = self.expr(kind, limit, 2)
        self.emit("%s%s = %s" % (name, "".join("[%s]" % v for v in loops), e.text))
        for _ in shape:
            self.pop()
            self.indent -= 1
            self.fn.trips.pop()
        self.add_var(Var(name, kind, self.local_cap(kind, e.bound), e.bound, shape=shape))

    def st_matrix_store(self, depth):
        m = self.c.choice([v for v in self.visible() if v.shape])
        target = m.name + "".join("[%s]" % self.index_for(s) for s in m.shape)
        room = (m.cap - m.used) / self.trips()
        if self.c.flag(15):
            other = m.name + "".join("[%s]" % self.index_for(s) for s in m.shape)
            self.emit("%s, %s = %s, %s" % (target, other, other, target))
            return
        if self.c.flag(50) and room >= 1:
            e = self.value_for(m, room, 2)
            self.emit("%s += %s" % (target, e.text))
            m.used += e.bound * self.trips()
        else:
            e = self.value_for(m, m.cap, 2)
            self.emit("%s = %s" % (target, e.text))
            m.used = max(m.used, e.bound)

    def st_swap(self, depth):
        kind = "i" if len(self.mutable_scalars("i")) >= 2 and (
            len(self.mutable_scalars("f")) < 2 or self.c.flag(50)) else "f"
        vs = self.mutable_scalars(kind)
        a = self.c.choice(vs)
        b = self.c.choice([v for v in vs if v is not a])
        both = max(a.used, b.used)
        if a.declared != b.declared or both > min(a.cap, b.cap):
            return self.st_assign(depth)
        self.emit("%s, %s = %s, %s" % (a.name, b.name, b.name, a.name))
        a.used = b.used = both

    # -- functions ---------------------------------------------------------
    def helper(self, index):
        name = "fz_h%d" % index
        params = []
        for k in range(self.c.integer(1, 3)):
            kind = self.c.choice("if")
            cap = self.c.choice([16, 1000, 20000]) if kind == "i" else \
                self.c.choice([10.0, 1000.0, 1e5])
            params.append((kind, cap))
        if self.arrays and self.c.flag(35):
            # an array and a valid index into it (helpers index arrays too)
            params += [("arr", self.c.choice(self.arrays)), ("idx", None)]
        pnames = ["p%d" % k for k in range(len(params))]
        self.new_fn("helper")
        for pname, (kind, cap) in zip(pnames, params):
            if kind == "arr":
                continue
            if kind == "idx":
                self.fn.arrays.append((pnames[pnames.index(pname) - 1], pname, params[
                    pnames.index(pname) - 1][1]))
                self.add_var(Var(pname, "i", INDEX_BOUND, INDEX_BOUND, mutable=False))
                continue
            mutable = self.c.flag(30) and not (
                kind == "f" and "int-argument-assigned-float" in KNOWN_BUGS)
            self.add_var(Var(pname, kind, cap, cap, mutable=mutable))
        # Sometimes annotated: the arguments then convert to the annotation
        # (an int to a 'double' parameter, a long to an 'int' one).
        annotated = self.c.flag(30)
        at = len(self.lines)
        self.emit("def %s(%s):" % (name, ", ".join(pnames)))
        self.indent = 1
        self.block(self.c.integer(0, 3), 0)
        kind = self.c.choice("if")
        e = self.expr(kind, 1e4 if kind == "i" else 1e5, 3)
        self.emit("return %s" % e.text)
        self.indent = 0
        self.emit("")
        returns = self.fn.returns + [e]
        ret_kind = "f" if any(r.kind == "f" for r in returns) else "i"
        if annotated and not any(k in ("arr", "idx") for k, _ in params):
            # an assigned int parameter may take long values: annotate it long
            mutable = {v.name for v in self.fn.scopes[0] if v.mutable}
            notes = ["%s='%s'" % (p, "double" if k == "f" else "long" if p in mutable
                                  else self.c.choice(["int", "long"]))
                     for p, (k, _) in zip(pnames, params)]
            notes.append("return_='%s'" % ("double" if ret_kind == "f" else "long"))
            self.lines.insert(at, "@annotate(%s)" % ", ".join(notes))
        self.helpers.append(Helper(name, params, ret_kind, max(r.bound for r in returns)))

    def kernel(self):
        self.new_fn("kernel")
        for a in ("i", "n"):
            self.add_var(Var(a, "i", INDEX_BOUND, INDEX_BOUND, mutable=False))
        for s in self.scalars:
            self.add_var(Var(s.name, s.kind, s.bound, s.bound, mutable=False))
        out_f = Var("out_f[i]", "f", FLOAT_LIMIT, 0.0)
        out_i = Var("out_i[i]", "i", INT_LIMIT, 0)
        self.emit("def fz_kernel(%s):" % ", ".join(
            ["i"] + [a.name for a in self.arrays] + [s.name for s in self.scalars]
            + ["n", "out_f", "out_i"]))
        self.indent = 1
        self.block(self.c.integer(1, 7), 0)
        # the outputs: written at the end, sometimes updated in the body too
        if self.c.flag(25):
            self.add_var(out_f)
            self.add_var(out_i)
            self.block(self.c.integer(1, 2), 0)
        ef = self.expr("f" if self.c.flag(85) else "i", FLOAT_LIMIT, 4)
        if self.c.flag(30) and out_f.used + ef.bound <= out_f.cap:
            self.emit("out_f[i] += %s" % ef.text)
        else:
            self.emit("out_f[i] = %s" % ef.text)
        ei = self.expr("i", INT_LIMIT, 4)
        if self.c.flag(15):
            # a float stored into an integer element: truncated towards zero
            ei = self.expr("f", INT_LIMIT, 4)
        if self.c.flag(30) and out_i.used + ei.bound <= out_i.cap:
            self.emit("out_i[i] += %s" % ei.text)
        else:
            self.emit("out_i[i] = %s" % ei.text)
        self.indent = 0
        self.emit("")

    def map_function(self, kind):
        self.new_fn("map")
        for a in ("i", "n"):
            self.add_var(Var(a, "i", INDEX_BOUND, INDEX_BOUND, mutable=False))
        for s in self.scalars:
            self.add_var(Var(s.name, s.kind, s.bound, s.bound, mutable=False))
        self.emit("def fz_map(%s):" % ", ".join(
            ["i"] + [a.name for a in self.arrays] + [s.name for s in self.scalars] + ["n"]))
        self.indent = 1
        self.block(self.c.integer(0, 4), 0)
        e = self.expr(kind, 1e5 if kind == "i" else 1e4, 4)
        if kind == "f" and e.kind == "i":
            e = Expr("float(%s)" % e.text, "f", e.bound)
        self.emit("return %s" % e.text)
        self.indent = 0
        self.emit("")

    def new_fn(self, kind):
        self.fn = _Fn(kind)
        for v in self.constants:
            self.add_var(v)

    def generate(self, label=""):
        self.constants = []
        for k in range(self.c.weighted([(3, 0), (1, 1), (1, 2)])):
            name = "FZ_K%d" % k
            if self.c.flag(50):
                value = self.c.integer(-50, 50)
                self.emit("%s = %d" % (name, value))
                self.constants.append(Var(name, "i", max(abs(value), 1), abs(value),
                                          mutable=False))
            else:
                value = self.c.choice([0.5, 2.5, 0.1, 6.25, 1e-2, 3.75])
                self.emit("%s = %r" % (name, value))
                self.constants.append(Var(name, "f", value, value, mutable=False))
        if self.constants:
            self.emit("")
        arrays = []
        for k in range(self.c.integer(1, 4)):
            code = self.c.choice(ARRAY_CODES)
            if code == "b":
                bound = 1
            elif code in ("i8", "u8"):
                bound = self.c.choice([20, 3, 100])
            elif code in ("i32", "i64", "i16", "u16", "u32"):
                bound = self.c.choice([20, 3, 1000])
            else:
                bound = self.c.choice([4.0, 1.0, 100.0])
            arrays.append(ArraySpec("x%d" % k, code, bound))
        scalars = []
        for k in range(self.c.integer(0, 3)):
            code = self.c.choice(SCALAR_CODES)
            bound = (self.c.choice([7, 100, 5000]) if code in ("int", "i32")
                     else self.c.choice([2.0, 50.0]))
            scalars.append(ScalarSpec("s%d" % k, code, bound))
        self.arrays, self.scalars = tuple(arrays), tuple(scalars)
        for k in range(self.c.weighted([(2, 0), (3, 1), (2, 2)])):
            self.helper(k)
        self.kernel()
        map_kind = self.c.choice("if")
        self.map_function(map_kind)
        scan_output = self.c.weighted([(4, "item"), (2, "prev_item"), (1, "last_item")])
        params = ["i", scan_output, "scan_out"]
        if self.c.flag(50):
            params = ["i", "item", "prev_item", "last_item", "N", "scan_out"]
            params[1:5] = [params[1:5][k] for k in (1, 3, 0, 2)] if self.c.flag(50) else \
                params[1:5]
        self.emit("def fz_scan_out(%s):" % ", ".join(params))
        self.emit("    scan_out[i] = %s" % scan_output)
        self.emit("")
        segmented = self.c.flag(30)
        if segmented:
            ints = [a for a in self.arrays if a.kind == "i"]
            if ints and self.c.flag(50):
                a = self.c.choice(ints)
                self.emit("def fz_seg(i, %s):" % a.name)
                self.emit("    return %s > %d" % (a.read("%s[i]" % a.name),
                                                    self.c.integer(0, 2)))
            else:
                self.emit("def fz_seg(i):")
                self.emit("    return i %% %d == 0" % self.c.integer(1, 9))
            self.emit("")
        if map_kind == "i":
            reduce_expr = self.c.choice(["a + b", "min(a, b)", "max(a, b)", "a ^ b"])
            scan_expr = self.c.choice(["a + b", "max(a, b)", "min(a, b)"])
        else:
            reduce_expr = self.c.choice(["a + b", "min(a, b)", "max(a, b)"])
            scan_expr = self.c.choice(["a + b", "max(a, b)", "min(a, b)"])
        which = self.c.choice(["reduction", "scan"] if self.with_scan else ["reduction"])
        return FuzzCase(source="\n".join(self.lines), arrays=self.arrays,
                        scalars=self.scalars, out_int=self.c.choice(["i32", "i64"]),
                        map_kind=map_kind, reduce_expr=reduce_expr, scan_expr=scan_expr,
                        primitives=("elementwise", which), seed=self.c.integer(0, 2 ** 31),
                        label=label, scan_output=scan_output, segmented=segmented)


def _paren(text):
    return "(%s)" % text if text.startswith("-") else text


def generate_case(chooser, label="", with_scan=True):
    """One random :class:`FuzzCase` from ``chooser``."""
    return KernelGenerator(chooser, with_scan=with_scan).generate(label)
