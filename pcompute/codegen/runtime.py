"""Small C functions that give kernels Python's semantics in every dialect.

``//`` and ``%`` (floor division, sign of the divisor), integer powers,
shifts by any count (Python's answer reduced to the type),
``abs``/``min``/``max`` (Python's tie and NaN behaviour, no double
evaluation), range lengths for loops with a run-time step, and atomics.  Only
the functions a kernel uses are emitted.  Each is written once, in C, with the
dialect supplying its qualifier, type names and math function names.
"""

SIGNED = ("char", "short", "int", "long")
UNSIGNED = ("uchar", "ushort", "uint", "ulong")


def helper_name(kind, base):
    """The C name of a runtime helper, e.g. ``pc_floordiv_int``."""
    return "pc_%s_%s" % (kind, base)


def _floordiv_int(T):
    # (signed types only: unsigned // and % print as C's / and %.)  b == -1
    # first: the minimum value / -1 overflows (a trap on x86); the result
    # wraps, as every other signed overflow
    return """{T} {name}({T} a, {T} b)
{{
    if (b == ({T})-1) return ({T})(({U})0 - ({U})a);
    {T} q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) q -= 1;
    return q;
}}"""


def _mod_int(T):
    return """{T} {name}({T} a, {T} b)
{{
    if (b == ({T})-1) return 0;
    {T} r = a % b;
    if ((r != 0) && ((r < 0) != (b < 0))) r += b;
    return r;
}}"""


def _floordiv_float(T):
    # CPython's float floor division (float_floor_div in floatobject.c).
    return """{T} {name}({T} a, {T} b)
{{
    {T} m = {fmod}(a, b);
    {T} d = (a - m) / b;
    {T} f;
    if (m != 0) {{
        if ((b < 0) != (m < 0)) d -= 1;
    }}
    if (d != 0) {{
        f = {floor}(d);
        if (d - f > 0.5) f += 1;
    }} else {{
        f = {copysign}(({T})0, a / b);
    }}
    return f;
}}"""


def _mod_float(T):
    # CPython's float remainder (float_rem in floatobject.c).
    return """{T} {name}({T} a, {T} b)
{{
    {T} m = {fmod}(a, b);
    if (m != 0) {{
        if ((b < 0) != (m < 0)) m += b;
    }} else {{
        m = {copysign}(({T})0, b);
    }}
    return m;
}}"""


def _ipow(T):
    # in the unsigned type of the same width: the product wraps (defined)
    return """{T} {name}({T} b, {T} e)
{{
    {U} r = 1, m = ({U})b;
    while (e > 0) {{
        if (e & 1) r *= m;
        m *= m;
        e >>= 1;
    }}
    return ({T})r;
}}"""


def _shl(T):
    # Python's a << n reduced to T: 0 from a count of T's width on (C leaves
    # that undefined, OpenCL masks the count); n is the count converted to
    # ulong, so a negative count is one beyond the width.  The shift is done
    # unsigned: a signed value shifted into the sign bit wraps (defined).
    return """{T} {name}({T} a, {UL} n)
{{
    return n < {bits} ? ({T})(({U})a << n) : ({T})0;
}}"""


def _shr(T):
    # Python's a >> n: the sign (0 or -1) from a count of T's width on
    fill = "(a < 0 ? ({T})-1 : ({T})0)" if T in SIGNED else "({T})0"
    return """{T} {name}({T} a, {UL} n)
{{
    return n < {bits} ? a >> n : %s;
}}""" % fill


def _abs(T):
    # abs of the minimum signed value wraps to itself, as -a does (unsigned)
    return """{T} {name}({T} a)
{{
    return a < 0 ? ({T})(({U})0 - ({U})a) : a;
}}"""


def _abs_float(T):
    return """{T} {name}({T} a)
{{
    return a < 0 ? -a : a;
}}"""


def _min(T):
    return """{T} {name}({T} a, {T} b)
{{
    return (b < a) ? b : a;
}}"""


def _max(T):
    return """{T} {name}({T} a, {T} b)
{{
    return (b > a) ? b : a;
}}"""


def _range_len(T):
    # len(range(start, stop, step)) for any sign of step.
    return """{T} {name}({T} start, {T} stop, {T} step)
{{
    if (step > 0 && start < stop) return (stop - start - 1) / step + 1;
    if (step < 0 && start > stop) return (start - stop - 1) / (-step) + 1;
    return 0;
}}"""


_TEMPLATES = {
    ("floordiv", "int"): _floordiv_int, ("mod", "int"): _mod_int,
    ("floordiv", "float"): _floordiv_float, ("mod", "float"): _mod_float,
    ("ipow", "int"): _ipow, ("abs", "int"): _abs, ("abs", "float"): _abs_float,
    ("min", "int"): _min, ("min", "float"): _min, ("max", "int"): _max,
    ("max", "float"): _max, ("rangelen", "int"): _range_len,
    ("shl", "int"): _shl, ("shr", "int"): _shr,
}


def runtime_source(needed, dialect):
    """The C text of the runtime helpers in ``needed`` (a set of (kind, base))."""
    out = []
    for kind, base in sorted(needed):
        if kind in ("atomic_inc", "atomic_dec"):
            out.append(dialect.atomic_helper(kind, base))
            continue
        if kind == "atomic_max":
            out.append(dialect.atomic_max_helper(base))
            continue
        if kind == "prefetch":
            out.append(dialect.prefetch_helper(base))
            continue
        if kind == "bound":  # the bounds check of an array access (pcompute/bounds.py)
            out.append(dialect.bound_helper().strip())
            continue
        if kind == "shcount":  # the check of a shift count (pcompute/bounds.py)
            out.append(dialect.shift_count_helper().strip())
            continue
        family = "float" if base in ("float", "double") else "int"
        template = _TEMPLATES[(kind, family)](base)
        T = dialect.type_name_of(base)
        U = dialect.type_name_of("u" + base) if base in SIGNED else T
        text = template.format(
            T=T, U=U, UL=dialect.type_name_of("ulong"), name=helper_name(kind, base),
            bits=64 if base in ("long", "ulong") else 32,
            fmod=dialect.c_math_name("fmod", base),
            floor=dialect.c_math_name("floor", base),
            copysign=dialect.c_math_name("copysign", base))
        out.append(dialect.helper_qualifier + " " + text if dialect.helper_qualifier
                   else text)
    return "\n\n".join(out)
