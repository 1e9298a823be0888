"""A corpus of kernels covering every construct of the kernel language.

Each kernel is a module-level function ``f(i, ...)`` usable by
``Elementwise``; the :func:`case` decorator records, next to it, how to make
its arguments (``args(n, dtype, rng)`` returns numpy arrays and scalars; the
first argument is an array of length ``n``, which gives the number of items),
which arguments are outputs to compare, and on which backends it cannot run
(with the reason).  Float arrays use the ``dtype`` given (float32 or float64);
integer arrays have fixed dtypes.

The tests using the corpus: test_codegen_golden.py (the generated text),
test_codegen_compiles.py (every dialect compiles) and test_semantics.py (every
backend computes what the python backend computes).
"""
import math
from dataclasses import dataclass
from math import (acos, acosh, asin, asinh, atan, atan2, atanh, ceil, copysign, cos,
                  cosh, erf, erfc, exp, expm1, fabs, floor, fmod, hypot, inf, isinf,
                  isnan, log, log1p, log2, log10, pi, sin, sinh, sqrt, tan, tanh, trunc)

import numpy as np

from pcompute.errors import KernelSyntaxError
from pcompute.types import atomic_dec, atomic_inc, cast, declare, parse_type, printf

CORPUS = {}


@dataclass(frozen=True)
class Kernel:
    """One corpus entry.

    ``make_args(n, dtype, rng)`` returns the argument list after ``i``;
    ``outputs`` names the arguments compared after a run; ``run`` is False for
    kernels that are only generated and compiled (printf); ``no_opencl`` is the
    reason a kernel cannot be translated to OpenCL, in which case the OpenCL
    path must raise ``opencl_error`` (class, message regex); ``only`` lists the
    backends a kernel may run on (None: all) and ``reason`` says why.
    """
    func: object
    make_args: object
    outputs: tuple
    run: bool = True
    no_opencl: str = None
    opencl_error: tuple = None
    only: tuple = None
    reason: str = ""
    dims: int = 1          # index parameters: 2 for f(i, j, ...) over a 2-D space

    @property
    def name(self):
        return self.func.__name__

    @property
    def params(self):
        code = self.func.__code__
        return code.co_varnames[self.dims:code.co_argcount]

    def args(self, n, dtype, rng):
        """Fresh arguments (a list) for ``n`` items with float arrays of ``dtype``."""
        args = list(self.make_args(n, np.dtype(dtype), rng))
        if len(args) != len(self.params):
            raise AssertionError("%s: args() gives %d values for %d parameters"
                                 % (self.name, len(args), len(self.params)))
        return args

    def output_positions(self):
        return [self.params.index(name) for name in self.outputs]

    def types(self, dtype=np.float64):
        """The argument types (for generate_source) of the arguments at ``dtype``."""
        from pcompute.frontend.arrays import shape_reads
        from pcompute.frontend.source import read_function
        from pcompute.primitives.args import shaped
        args = self.args(16, dtype, np.random.default_rng(0))
        types = {name: type_of_value(value) for name, value in zip(self.params, args)}
        # As Elementwise types them: 1-D arrays whose length is read know it.
        return {k: str(v) for k, v in shaped(
            {k: parse_type(v) for k, v in types.items()},
            shape_reads(read_function(self.func))).items()}

    def skip_reason(self, backend_name):
        """Why this kernel is not run on ``backend_name`` (None: it is)."""
        if not self.run:
            return "%s is only generated and compiled, not run: %s" % (self.name,
                                                                       self.reason)
        if self.only is not None and backend_name not in self.only:
            return "%s runs only on %s: %s" % (self.name, ", ".join(self.only),
                                               self.reason)
        return None


def type_of_value(value):
    """The type string pcompute infers for an argument value."""
    from pcompute.primitives.args import value_type
    from pcompute.types import dtype_to_ctype
    if hasattr(value, "numpy"):  # an nd_corpus.View
        value = value.numpy()
    if isinstance(value, np.ndarray):
        return str(value_type(value, "x", "corpus", None, nd=True))
    if isinstance(value, bool):
        return "int"
    if isinstance(value, int):
        return "long"
    if isinstance(value, float):
        return "double"
    if isinstance(value, np.generic):
        return dtype_to_ctype(value.dtype).base
    raise TypeError("no kernel type for %r" % (value,))


def case(args, out, **flags):
    """Register the decorated kernel in :data:`CORPUS` (the function is unchanged)."""
    def register(func):
        if func.__name__ in CORPUS:
            raise AssertionError("duplicate corpus kernel %s" % func.__name__)
        CORPUS[func.__name__] = Kernel(func, args, tuple(out.split()), **flags)
        return func
    return register


# -- argument makers ------------------------------------------------------------

def Q(rng, n, dtype, lo=-8, hi=8):
    """Multiples of 0.25 in [lo, hi]: exact in float32 and float64."""
    return (rng.integers(lo * 4, hi * 4 + 1, n) / 4.0).astype(dtype)


def U(rng, n, dtype, lo, hi):
    return rng.uniform(lo, hi, n).astype(dtype)


def I(rng, n, lo, hi, dtype=np.int32):  # noqa: E741,E743
    return rng.integers(lo, hi + 1, n).astype(dtype)


def NZ(rng, n, lo, hi, dtype=np.int32):
    """Non-zero integers in [lo, hi]."""
    a = I(rng, n, lo, hi, dtype)
    a[a == 0] = 1
    return a


def CH(rng, n, values, dtype):
    return rng.choice(np.array(values), n).astype(dtype)


def Z(n, dtype):
    return np.zeros(n, dtype=dtype)


I32, I64, U32 = np.int32, np.int64, np.uint32

# Module-level constants kernels read (they become literals in the source).
SCALE = 2.5
OFFSET = 3
BIG = 3000000000
ENABLED = True
NEG = -4
TINY = 1e-3


# -- assignments ----------------------------------------------------------------

@case(lambda n, dt, rng: [Q(rng, n, dt), Z(n, dt)], out="y")
def assign_basic(i, x, y):
    a = x[i]
    b = a * 2.0
    c = b - 1.0
    y[i] = c


@case(lambda n, dt, rng: [Q(rng, n, dt, -6, 6), Z(n, dt), Z(n, dt), Z(n, dt)],
      out="y z w")
def augassign_float(i, x, y, z, w):
    t = x[i]
    t += 1.5
    t -= 0.25
    t *= 2.0
    t /= 4.0
    y[i] = t
    u = x[i]
    u //= 0.5
    v = x[i]
    v %= -1.5
    z[i] = u + 10.0 * v
    p = x[i]
    p **= 2
    w[i] = p
    w[i] += x[i]
    w[i] %= 7.0
    w[i] //= 0.75
    w[i] **= 2
    w[i] /= 2.0
    w[i] -= 1.0
    w[i] *= 3.0


@case(lambda n, dt, rng: [NZ(rng, n, -50, 50), Z(n, I32), Z(n, I32), Z(n, I32),
                          Z(n, I32), Z(n, dt)], out="p q r s f")
def augassign_int(i, a, p, q, r, s, f):
    k = a[i]
    k += 3
    k -= 1
    k *= 2
    k //= -3
    p[i] = k
    m = a[i]
    m %= -7
    m2 = a[i]
    m2 %= 5
    q[i] = m * 10 + m2
    e = a[i] % 4
    e **= 3
    r[i] = e
    b = a[i]
    b &= 0x3F
    b |= 0x100
    b ^= 0x55
    b <<= 2
    b >>= 1
    s[i] = b
    h = a[i]
    h /= 8
    f[i] = h


@case(lambda n, dt, rng: [I(rng, n, -20, 20), I(rng, n, -20, 20)], out="y")
def augassign_array(i, a, y):
    y[i] += a[i]
    y[i] -= 2
    y[i] *= 3
    y[i] //= 4
    y[i] %= 9
    y[i] **= 2
    y[i] <<= 1
    y[i] |= 1
    y[i] ^= 6
    y[i] &= 0xFF
    y[i] >>= 1


@case(lambda n, dt, rng: [Q(rng, n, dt), Q(rng, n, dt), Z(n, dt), Z(n, I32)],
      out="z w")
def swap_locals(i, x, y, z, w):
    a = x[i]
    b = y[i]
    a, b = b, a
    z[i] = a - 2.0 * b
    p = 0
    q = 1
    for k in range(i % 20):
        p, q = q, p + q
    w[i] = p


@case(lambda n, dt, rng: [Q(rng, n, dt), Q(rng, n, dt)], out="x y")
def swap_elements(i, x, y):
    x[i], y[i] = y[i], x[i]


# -- operators ------------------------------------------------------------------

@case(lambda n, dt, rng: [U(rng, n, dt, -3, 3), U(rng, n, dt, 0.5, 4), Z(n, dt)],
      out="z")
def arith_float(i, x, y, z):
    a = x[i]
    b = y[i]
    z[i] = (a + b) * (a - b) / b + -a * +b - (a - (b - 1.5)) / (b * 2.0) + a / 3


@case(lambda n, dt, rng: [I(rng, n, -100, 100), I(rng, n, -100, 100), Z(n, I64)],
      out="c")
def arith_int(i, a, b, c):
    c[i] = a[i] + b[i] * 3 - (a[i] - b[i]) * -2 + -a[i] + (+b[i]) - ~a[i] + i * 2 \
        - (i - 7) * a[i]


@case(lambda n, dt, rng: [I(rng, n, -1000, 1000), I(rng, n, 0, 7), Z(7 * n, I32)],
      out="out")
def bitwise(i, a, b, out):
    x = a[i]
    y = b[i]
    o = 7 * i
    out[o] = x & 0xFF
    out[o + 1] = x | y
    out[o + 2] = x ^ (y << 4)
    out[o + 3] = x << y
    out[o + 4] = x >> y
    out[o + 5] = ~x + (~y & 3)
    out[o + 6] = (x & y) | (x ^ -8) >> 1


@case(lambda n, dt, rng: [I(rng, n, -20, 20), NZ(rng, n, -6, 6), U(rng, n, dt, 1, 2),
                          Z(8 * n, I64), Z(n, dt)], out="out f")
def precedence(i, a, b, z, out, f):
    # Python's operator precedence differs from C's (& vs ==, shifts vs +).
    x = a[i]
    y = b[i]
    o = 8 * i
    out[o] = x & y == y
    out[o + 1] = -x ** 2 + (-x) ** 2 * 3 - 2 ** 3 ** 2
    out[o + 2] = x - (y - 3) - -y
    out[o + 3] = x << 1 + 2 >> 1
    out[o + 4] = x % y * 2 + x // y // 2 - -x % 7
    out[o + 5] = not x == y or x > y and not y
    out[o + 6] = (x if x > y else y) * 2 + (1 if x else 0)
    out[o + 7] = x | y ^ x & ~y
    v = z[i]
    f[i] = v / y / 2.0 + v / (y / 2.0) - v * -y - (v - 1.0) ** 2 / -v


@case(lambda n, dt, rng: [Q(rng, n, dt, -2, 2), Q(rng, n, dt, -2, 2), Z(n, I32)],
      out="out")
def bool_ops(i, x, y, out):
    a = x[i] > 0.0 and y[i] < 0.0
    b = x[i] > 1.0 or y[i] > 1.0
    c = not (x[i] > 0.0)
    d = not x[i]
    r = 0
    if (a or b) and not c:
        r += 1
    if not a and not (b and c):
        r += 2
    if x[i] and y[i]:
        r += 4
    if x[i] or not y[i] and a:
        r += 8
    out[i] = r * 16 + a * 8 + b * 4 + c * 2 + d


@case(lambda n, dt, rng: [I(rng, n, -9, 9), I(rng, n, 0, 6), Z(3 * n, I64)],
      out="out")
def int_pow(i, a, e, out):
    out[3 * i] = a[i] ** abs(e[i])
    out[3 * i + 1] = 2 ** (e[i] % 7) + (-3) ** abs(e[i])
    k = i % 5
    out[3 * i + 2] = (k - 2) ** 3 + k ** 0


@case(lambda n, dt, rng: [U(rng, n, dt, 0.25, 4), Z(n, dt)], out="y")
def float_pow(i, x, y):
    a = x[i]
    y[i] = a ** 2 + a ** 0.5 + 2.0 ** a + a ** -1.5 + pow(a, 3.0) + math.pow(a, 0.25) \
        + a ** (i % 3)


@case(lambda n, dt, rng: [I(rng, n, -100, 100), NZ(rng, n, -9, 9), Z(4 * n, I32),
                          Z(4 * n, I32)], out="q r")
def floordiv_mod_int(i, a, b, q, r):
    o = 4 * i
    q[o] = a[i] // b[i]
    r[o] = a[i] % b[i]
    q[o + 1] = a[i] // -3
    r[o + 1] = a[i] % -3
    q[o + 2] = a[i] // 4
    r[o + 2] = a[i] % 4
    q[o + 3] = -7 // b[i]
    r[o + 3] = 7 % b[i]


def _slots(n, dt, rng):
    return [I(rng, n, -9, 9), np.arange(4, dtype=I32), I(rng, 2 * n, -100, 100),
            I(rng, 2 * n, -100, 100), I(rng, 2 * n, -5, 5), Q(rng, 2 * n, dt)]


@case(_slots, out="c y z w f")
def augassign_call_index(i, a, c, y, z, w, f):
    # The index of an augmented assignment is evaluated once, as in Python;
    # each item updates one slot (which item gets which slot does not matter).
    y[atomic_inc(c[0])] //= 3 + a[i] * 0
    z[atomic_inc(c[1])] %= -7
    w[atomic_inc(c[2])] **= 2
    f[atomic_inc(c[3])] /= 4.0


@case(lambda n, dt, rng: [Q(rng, n, dt), CH(rng, n, [0.5, -0.5, 1.5, -1.5, 2.0, -2.0,
                                                   4.0, -4.0, 0.75, -0.75], dt),
                          Z(3 * n, dt), Z(3 * n, dt)], out="q r")
def floordiv_mod_float(i, x, y, q, r):
    o = 3 * i
    q[o] = x[i] // y[i]
    r[o] = x[i] % y[i]
    q[o + 1] = x[i] // -1.5
    r[o + 1] = x[i] % -1.5
    q[o + 2] = x[i] // 2.0
    r[o + 2] = x[i] % 2.0


@case(lambda n, dt, rng: [Z(n, I64), Z(n, I64), Z(n, I64), Z(n, I64)], out="q r q2 r2")
def floordiv_mod_long(i, q, r, q2, r2):
    k = i - 100
    big = k * 3000000000 + 5
    q[i] = k // 7
    r[i] = k % -7
    q2[i] = big // -7000000001
    r2[i] = big % 1000000007


@case(lambda n, dt, rng: [Q(rng, n, dt, -3, 3), -1.5, 2.25, Z(n, I32)], out="out")
def compare_chain(i, x, lo, hi, out):
    v = x[i]
    r = 0
    if 0 <= i < 50:
        r |= 1
    if lo <= v < hi:
        r |= 2
    if v == 0.5 or v != v:
        r |= 4
    if v > 1.0 >= -v:
        r |= 8
    if 3 > i % 5 >= 1:
        r |= 16
    if lo < v > hi:
        r |= 32
    if -2.0 <= v <= 2.0 <= hi:
        r |= 64
    out[i] = r


@case(lambda n, dt, rng: [I(rng, n, 0, 50), Z(1, I32), Z(n, I32)], out="counter out")
def compare_chain_call(i, a, counter, out):
    # The middle operand of a chain is evaluated once, as in Python.
    if 0 <= atomic_inc(counter[0]) < 1000000:
        out[i] = 1 + a[i]


# -- conditionals and loops -----------------------------------------------------

@case(lambda n, dt, rng: [Q(rng, n, dt), Z(n, dt)], out="y")
def ifexp(i, x, y):
    v = x[i]
    y[i] = v if v > 0.0 else -v
    y[i] += 1.0 if i % 2 == 0 else (2.0 if i % 3 == 0 else 3)


@case(lambda n, dt, rng: [Q(rng, n, dt), Z(n, I32)], out="out")
def if_elif_else(i, x, out):
    v = x[i]
    if v < -4.0:
        out[i] = 1
    elif v < 0.0:
        out[i] = 2
    elif v == 0.0:
        out[i] = 3
    else:
        if v > 4.0:
            out[i] = 4
        else:
            out[i] = 5


@case(lambda n, dt, rng: [I(rng, n, 1, 1000), Z(n, I32)], out="out")
def while_loop(i, a, out):
    k = a[i]
    steps = 0
    while k != 1 and steps < 500:
        if k % 2 == 0:
            k = k // 2
        else:
            k = 3 * k + 1
        steps += 1
    out[i] = steps


@case(lambda n, dt, rng: [Z(n, I64)], out="out")
def range_one_arg(i, out):
    s = 0
    for k in range(i % 10):
        s += k
    out[i] = s


@case(lambda n, dt, rng: [Z(n, I64)], out="out")
def range_two_args(i, out):
    s = 0
    for k in range(i % 7 - 3, 12):
        s += k * k
    for k in range(5, 3):
        s += 1000
    out[i] = s


@case(lambda n, dt, rng: [Z(n, I64)], out="out")
def range_step_positive(i, out):
    s = 0
    for k in range(i % 4, 20, 3):
        s += k * (k + 1)
    out[i] = s


@case(lambda n, dt, rng: [Z(n, I64)], out="out")
def range_step_negative(i, out):
    s = 0
    for k in range(10, i % 5 - 3, -2):
        s += k
    for k in range(i % 6, -1, -1):
        s = s * 2 + k
    out[i] = s


@case(lambda n, dt, rng: [I(rng, n, -10, 10), I(rng, n, -10, 10),
                          CH(rng, n, [-3, -2, -1, 1, 2, 3], I32), 2, Z(n, I64),
                          Z(n, I64)], out="out cnt")
def range_step_variable(i, start, stop, step, step2, out, cnt):
    # The sign of the step is only known at run time.
    s = 0
    c = 0
    for k in range(start[i], stop[i], step[i]):
        s += k
        c += 1
    st = 1 - 2 * (i % 2)
    for k in range(i % 7, 3, st):
        s += 100 * k
        c += 1
        if k == 5:
            continue
        s += 1
    for k in range(stop[i], start[i], -step2):
        s += 10000 * k
    out[i] = s
    cnt[i] = c


@case(lambda n, dt, rng: [Z(n, I64)], out="out")
def range_stop_modified(i, out):
    m = i % 6
    s = 0
    for k in range(m):
        m += 1
        s += m
    out[i] = s * 100 + m


@case(lambda n, dt, rng: [Z(n, I64), Z(n, I64), Z(n, I64), Z(n, I64)],
      out="out out2 out3 out4")
def loop_var_after(i, out, out2, out3, out4):
    # After a loop the loop variable holds its last value, as in Python.
    k = -1
    for k in range(i % 5):
        pass
    out[i] = k
    j = 0
    for j in range(10):
        if j * j > i:
            break
    out2[i] = j
    m = 0
    for m in range(20, i % 3, -3):
        pass
    out3[i] = m
    st = 1 + i % 3
    v = 0
    for v in range(i % 4, 12, st):
        pass
    out4[i] = v


@case(lambda n, dt, rng: [Z(n, I64)], out="out")
def nested_loops(i, out):
    total = 0
    for a in range(6):
        for b in range(a, 6):
            if (a + b + i) % 3 == 0:
                continue
            if b * a > 12 + i % 4:
                break
            total += a * 10 + b
    out[i] = total


@case(lambda n, dt, rng: [Q(rng, n, dt), Z(n, I64)], out="out")
def break_continue(i, x, out):
    k = 0
    found = -1
    while True:
        k += 1
        if k > 40:
            break
        if k % 3 == 0:
            continue
        if (k * 7 + i) % 11 == 0:
            found = k
            break
    out[i] = found * 100 + k


@case(lambda n, dt, rng: [Q(rng, n, dt), Z(n, dt)], out="y")
def pass_and_docstring(i, x, y):
    """A docstring is not code."""
    v = x[i]
    if v > 0.0:
        pass
    else:
        v = -v
    for k in range(3):
        pass
    while False:
        pass
    y[i] = v


@case(lambda n, dt, rng: [Q(rng, n, dt), Z(n, dt)], out="y")
def early_return(i, x, y):
    if x[i] < 0.0:
        y[i] = -1.0
        return
    y[i] = sqrt(x[i])


# -- helpers --------------------------------------------------------------------

def first_above(x, n, start, limit):
    for k in range(start, n):
        if x[k] > limit:
            return k
    return -1


@case(lambda n, dt, rng: [U(rng, n, dt, 0, 1), Z(n, I64), n], out="out")
def helper_return(i, x, out, n):
    out[i] = first_above(x, n, i, 0.9)


def sq(v):
    return v * v


def norm2(a, b):
    return sq(a) + sq(b)


def scaled_norm(a, b, s):
    if s <= 0.0:
        return 0.0
    return s * sqrt(norm2(a, b))


@case(lambda n, dt, rng: [U(rng, n, dt, -2, 2), U(rng, n, dt, -2, 2), Z(n, dt)],
      out="z")
def helpers_chain(i, x, y, z):
    z[i] = scaled_norm(x[i], y[i], 2.0) + sq(3) + scaled_norm(1.0, 1.0, -1.0)


def store_pair(y, z, j, v):
    if v < 0.0:
        y[j] = -v
        return
    y[j] = v
    z[j] = v * 2.0


@case(lambda n, dt, rng: [Q(rng, n, dt), Z(n, dt), Z(n, dt)], out="y z")
def void_helper_writes(i, x, y, z):
    store_pair(y, z, i, x[i])


def fact(k):
    if k <= 1:
        return 1
    return k * fact(k - 1)


def fib(k):
    if k < 2:
        return k
    return fib(k - 1) + fib(k - 2)


_RECURSION = dict(no_opencl="OpenCL C has no recursion",
                  opencl_error=(KernelSyntaxError, "recursion is not supported on OpenCL"))


@case(lambda n, dt, rng: [Z(n, I64)], out="out", **_RECURSION)
def recursion(i, out):
    out[i] = fact(i % 12) + fib(i % 15)


def is_even(k):
    if k == 0:
        return True
    return is_odd(k - 1)


def is_odd(k):
    if k == 0:
        return False
    return is_even(k - 1)


@case(lambda n, dt, rng: [Z(n, I32)], out="out", **_RECURSION)
def mutual_recursion(i, out):
    out[i] = is_even(i % 17)


# -- conversions, builtins and math ---------------------------------------------

@case(lambda n, dt, rng: [Q(rng, n, dt), I(rng, n, -100, 100), Z(n, dt), Z(n, I32)],
      out="y out")
def casts(i, x, a, y, out):
    out[i] = int(x[i]) + int(-2.75) + int(a[i] / 4) + int(i * 0.5)
    y[i] = float(a[i]) / 4.0 + cast(x[i], 'float') + cast(a[i], 'double') * 0.5 \
        + float(i)


@case(lambda n, dt, rng: [I(rng, n, -50, 50), I(rng, n, -50, 50), I(rng, n, -50, 50),
                          Z(6 * n, I64)], out="out")
def abs_min_max_int(i, a, b, c, out):
    o = 6 * i
    out[o] = abs(a[i])
    out[o + 1] = min(a[i], b[i])
    out[o + 2] = max(a[i], b[i])
    out[o + 3] = min(a[i], b[i], c[i])
    out[o + 4] = max(a[i], b[i], c[i], -5)
    out[o + 5] = abs(i - 100) + max(i, 50) - min(0, a[i] - i)


@case(lambda n, dt, rng: [U(rng, n, dt, -5, 5), U(rng, n, dt, -5, 5), Z(6 * n, dt)],
      out="out")
def abs_min_max_float(i, x, y, out):
    o = 6 * i
    out[o] = abs(x[i])
    out[o + 1] = min(x[i], y[i])
    out[o + 2] = max(x[i], y[i])
    out[o + 3] = min(x[i], y[i], 0.5)
    out[o + 4] = max(x[i], -y[i], 1.25, y[i] * 0.5)
    out[o + 5] = fabs(x[i] - y[i]) + abs(-2.5)


@case(lambda n, dt, rng: [I(rng, n, -5, 5), Q(rng, n, dt, -5, 5), Z(4 * n, dt)],
      out="out")
def min_max_mixed(i, a, x, out):
    o = 4 * i
    out[o] = min(a[i], x[i])
    out[o + 1] = max(a[i], 2.5)
    out[o + 2] = min(1, x[i], a[i])
    out[o + 3] = max(abs(x[i]), abs(a[i]), 0.5)


@case(lambda n, dt, rng: [U(rng, n, dt, 0.1, 0.9), Z(32 * n, dt)], out="out")
def math_bare(i, x, out):
    v = x[i]
    o = 32 * i
    out[o] = sin(v)
    out[o + 1] = cos(v)
    out[o + 2] = tan(v)
    out[o + 3] = asin(v)
    out[o + 4] = acos(v)
    out[o + 5] = atan(v)
    out[o + 6] = atan2(v, -0.5)
    out[o + 7] = sinh(v)
    out[o + 8] = cosh(v)
    out[o + 9] = tanh(v)
    out[o + 10] = asinh(v)
    out[o + 11] = acosh(v + 1.0)
    out[o + 12] = atanh(v * 0.5)
    out[o + 13] = exp(v)
    out[o + 14] = expm1(v)
    out[o + 15] = log(v)
    out[o + 16] = log10(v)
    out[o + 17] = log1p(v)
    out[o + 18] = log2(v)
    out[o + 19] = sqrt(v)
    out[o + 20] = fabs(-v)
    out[o + 21] = floor(v * 10.0)
    out[o + 22] = ceil(v * 10.0)
    out[o + 23] = trunc(float(-v) * 10.0)
    out[o + 24] = fmod(v * 10.0, 3.0)
    out[o + 25] = hypot(v, 2.0)
    out[o + 26] = copysign(v, -1.0)
    out[o + 27] = erf(v)
    out[o + 28] = erfc(v)
    out[o + 29] = sqrt(i)
    out[o + 30] = exp(i % 3)
    out[o + 31] = atan2(1, i + 1)


@case(lambda n, dt, rng: [U(rng, n, dt, 0.1, 0.9), Z(12 * n, dt)], out="out")
def math_dotted(i, x, out):
    v = x[i]
    o = 12 * i
    out[o] = math.sin(v)
    out[o + 1] = math.cos(v)
    out[o + 2] = math.exp(v)
    out[o + 3] = math.sqrt(v)
    out[o + 4] = math.atan2(v, 2.0)
    out[o + 5] = math.floor(v * 10.0)
    out[o + 6] = math.log(v)
    out[o + 7] = math.fabs(-v)
    out[o + 8] = math.hypot(v, 1.0)
    out[o + 9] = math.pi * v
    out[o + 10] = math.e * v
    out[o + 11] = math.tanh(v) + math.ceil(v)


@case(lambda n, dt, rng: [U(rng, n, dt, -1, 1), Z(n, dt)], out="y")
def math_constants(i, x, y):
    y[i] = pi * x[i] + math.pi - np.pi * 0.5 + math.e + np.e


def _special_values(n, dt, rng):
    x = U(rng, n, dt, -2, 2)
    x[::5] = np.nan
    x[1::7] = np.inf
    x[2::9] = -np.inf
    return [x, I(rng, n, -5, 5), Z(n, I32)]


@case(_special_values, out="out")
def isnan_isinf(i, x, a, out):
    v = x[i]
    r = 0
    if isnan(v):
        r = 1
    elif isinf(v):
        r = 2 if v > 0.0 else 3
    elif math.isnan(v * 0.0) or math.isinf(v):
        r = 4
    out[i] = r + 10 * isinf(a[i]) + 20 * isnan(a[i])


@case(lambda n, dt, rng: [U(rng, n, dt, -1, 1), n, Z(n, dt)], out="y")
def inf_search(i, x, n, y):
    best = inf
    worst = -math.inf
    for k in range(max(0, i - 3), min(n, i + 4)):
        if x[k] < best:
            best = x[k]
        if x[k] > worst:
            worst = x[k]
    y[i] = best - worst


# -- declare ----------------------------------------------------------------------

@case(lambda n, dt, rng: [Q(rng, n, dt), Z(n, dt)], out="y")
def declare_double(i, x, y):
    s = declare('double')
    t = declare('float')
    for k in range(4):
        s += x[i] * k
    t = s * 0.5
    y[i] = s + t


@case(lambda n, dt, rng: [I(rng, n, -100, 100), Z(n, I32)], out="out")
def declare_int2(i, a, out):
    p, q = declare('int', 2)
    for k in range(5):
        p += a[i] * k
        q -= k
    out[i] = p * 100 + q


@case(lambda n, dt, rng: [Q(rng, n, dt), Z(n, dt)], out="y")
def declare_matrix(i, x, y):
    m = declare('matrix(3)')
    z = declare('matrix(3)')
    for k in range(3):
        m[k] = x[i] + k
    y[i] = m[0] * m[1] - m[2] + z[1]


@case(lambda n, dt, rng: [Q(rng, n, dt, -3, 3), Q(rng, n, dt, -3, 3), Z(n, dt)],
      out="y")
def declare_matrix2d(i, x, z, y):
    m = declare('matrix((2, 2))')
    m[0][0] = x[i]
    m[0][1] = z[i]
    m[1][0] = -z[i]
    m[1][1] = x[i] + 1.0
    y[i] = m[0][0] * m[1][1] - m[0][1] * m[1][0]


@case(lambda n, dt, rng: [I(rng, n, 0, 100000), Z(4 * n, I32)], out="out")
def declare_matrix_int(i, a, out):
    h = declare('matrix(4, "int")')
    v = a[i]
    while v > 0:
        h[v % 4] += 1
        v = v // 4
    for k in range(4):
        out[4 * i + k] = h[k]


def fill3(m, v):
    for k in range(3):
        m[k] = v * (k + 1)


def sum3(m):
    return m[0] + m[1] + m[2]


def trace2(m):
    m[0][1] = 0.0
    return m[0][0] + m[1][1]


@case(lambda n, dt, rng: [Q(rng, n, dt), Z(n, dt), Z(n, dt)], out="y z")
def matrix_helpers(i, x, y, z):
    # Local arrays passed to helpers are shared with them, as in Python.
    m = declare('matrix(3)')
    fill3(m, x[i])
    y[i] = sum3(m)
    t = declare('matrix((2, 2))')
    t[0][0] = x[i]
    t[0][1] = 5.0
    t[1][1] = 2.0
    w = trace2(t)
    z[i] = w + t[0][1]



def put2(v, result, k):
    result[k] = 2.0 * v
    result[k + 1] = v - 1.0


@case(lambda n, dt, rng: [Q(rng, n, dt), Z(2 * n, dt), Z(n, dt)], out="y z")
def pointer_spaces(i, x, y, z):
    # One helper called with a global array and with a local matrix: a
    # version per address space (OpenCL refuses a private pointer where a
    # __global one is declared); tests/test_address_spaces.py annotates it.
    r = declare('matrix(2)')
    put2(x[i], r, 0)
    z[i] = r[0] + r[1]
    put2(x[i], y, 2 * i)

# -- constants and names ----------------------------------------------------------

@case(lambda n, dt, rng: [Q(rng, n, dt), Z(n, dt), Z(n, I64)], out="y out")
def module_constants(i, x, y, out):
    y[i] = x[i] * SCALE + OFFSET + TINY * NEG
    out[i] = (i + BIG) % 1000 + (1 if ENABLED else 0) + BIG // 1000000


@case(lambda n, dt, rng: [Z(n, I64)], out="out")
def literal_arithmetic(i, out):
    # Operations on integer literals are exact, as in Python (no 32-bit overflow).
    out[i] = (1 << 40) + 2 ** 40 - OFFSET * BIG + (-7) // 2 * 1000 + -7 % 3 + i


@case(lambda n, dt, rng: [Q(rng, n, dt, -2, 2), Z(n, I32)], out="out")
def true_false(i, x, out):
    found = False
    done = True
    for k in range(5):
        if x[i] * k > 3.0:
            found = True
    r = 0
    if found == True and done:  # noqa: E712
        r = 1
    if not found or False:
        r += 2
    out[i] = r + 4 * found


def collide(a, b, N, SIZE, n, int_val, double_x, kernel, local, float2):
    i = a + b * N
    tmp = SIZE - n + int_val
    return i * double_x + tmp + kernel * local - float2


def run(xor, true, asm, public, cython, half):
    signed = xor + true
    restrict = asm * public
    size_t = cython - half
    NULL = signed * 2
    return signed + restrict + size_t + NULL


def pow_names(powf, fmodf, copysignf, floorf, sinf):
    return powf ** 1.5 + fmodf % 1.5 + copysignf // 0.5 + floorf * sinf


@case(lambda n, dt, rng: [Q(rng, n, dt, 0, 4), Z(n, dt), 3, 7], out="y")
def name_collisions(i, x, y, N, n):
    SIZE = 3
    int_val = 2
    double_x = x[i]
    kernel = 1.5
    local = 0.5
    float2 = 2.0
    y[i] = collide(i, 2, N, SIZE, n, int_val, double_x, kernel, local, float2) \
        + run(x[i], 1.0, 2, 3, 4.0, 0.5) + pow_names(x[i], x[i], x[i], 0.25, 2.0)


@case(lambda n, dt, rng: [Q(rng, n, dt), Z(n, dt)], out="y")
def kernel(i, x, y):
    y[i] = x[i] + 1.0


def dot(a, b, c, d):
    return a * c + b * d


def clamp(v, lo, hi):
    return min(max(v, lo), hi)


def sign(v):
    return 1.0 if v > 0.0 else (-1.0 if v < 0.0 else 0.0)


def length(a, b):
    return sqrt(a * a + b * b)


def normalize(a, b):
    return a / length(a, b)


def distance(a, b):
    return fabs(a - b)


def mix(a, b, t):
    return a + (b - a) * t


def norm(a):
    return abs(a)


def rsqrt(a):
    return 1.0 / sqrt(a)


@case(lambda n, dt, rng: [Q(rng, n, dt, 1, 4), Z(n, dt)], out="y")
def builtin_names(i, x, y):
    # Helpers and locals named like OpenCL/CUDA built-in functions.
    step = 2
    select = x[i]
    cross = 0.5
    y[i] = dot(x[i], 1.0, 2.0, select) + clamp(x[i], -1.0, 1.0) + sign(x[i]) \
        + length(x[i], 2.0) + step + normalize(x[i], 1.0) + distance(x[i], cross) \
        + mix(1.0, x[i], 0.25) + norm(-x[i]) + rsqrt(x[i])


# -- index arithmetic, precision, unsigned, scalars, atomics, printf ---------------

@case(lambda n, dt, rng: [U(rng, n, dt, -1, 1), Z(n, dt), n], out="y")
def index_arith(i, x, y, n):
    j = (i * 7 + 3) % n
    k = (n - 1 - i + 3000000000) % n
    y[i] = x[j] - 2.0 * x[k] + x[(j * k) % n] + x[n - 1 - (i * i) % n]


@case(lambda n, dt, rng: [Z(n, I64)], out="out")
def long_accumulate(i, out):
    s = 0
    for k in range(300):
        s += k * k * i
    out[i] = s


@case(lambda n, dt, rng: [U(rng, n, dt, -2, 2), Z(n, dt)], out="y")
def float32_explicit(i, x, y):
    f = declare('float')
    f = cast(x[i], 'float') * cast(0.1, 'float')
    y[i] = f + cast(i, 'float')


@case(lambda n, dt, rng: [U(rng, n, dt, -2, 2), Z(n, dt)], out="y")
def float64_explicit(i, x, y):
    d = declare('double')
    d = cast(x[i], 'double') / 3.0
    y[i] = d + 1.0


@case(lambda n, dt, rng: [I(rng, n, 0, 200, U32), I(rng, n, -200, 200), Z(n, I32),
                          Z(n, U32)], out="out q")
def unsigned_compare(i, u, s, out, q):
    r = 0
    if u[i] > s[i]:
        r |= 1
    if u[i] == s[i]:
        r |= 2
    if u[i] > -1:
        r |= 4
    if s[i] < u[i] <= 100:
        r |= 8
    if u[i] >= i:
        r |= 16
    if s[i] >= u[i] or u[i] < s[i] + 50:
        r |= 32
    out[i] = r
    q[i] = u[i] // 3 + u[i] % 5 + (u[i] + 7) * 2


@case(lambda n, dt, rng: [U(rng, n, dt, -1, 1), Z(n, dt), 1.75, 3, np.int32(-2)],
      out="y")
def scalar_args(i, x, y, alpha, k, m):
    y[i] = alpha * x[i] + k + m * i


@case(lambda n, dt, rng: [I(rng, n, -100, 100), NZ(rng, n, -9, 9), Z(n, dt)], out="y")
def int_true_div(i, a, b, y):
    y[i] = a[i] / b[i] + i / 4
    k = a[i]
    k /= 2
    y[i] += k


@case(lambda n, dt, rng: [I(rng, n, 0, 1000), Z(8, I32), Z(3, I32)],
      out="counts down")
def atomic_count(i, a, counts, down):
    atomic_inc(counts[a[i] % 8])
    atomic_dec(down[a[i] % 3])


@case(lambda n, dt, rng: [Q(rng, n, dt)], out="", run=False,
      reason="printf output is not compared")
def printf_kernel(i, x):
    k = 3
    printf("item %d: %f\n", k, x[i])
    printf("no arguments\n")


# The n-D kernels (2-D and 3-D arrays, n-D index spaces) register themselves here.
from . import nd_corpus  # noqa: E402,F401
