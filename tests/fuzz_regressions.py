"""Kernels the differential fuzzer (pcompute.fuzz) found, minimised by hand.

Each entry is a :class:`~pcompute.fuzz.generator.FuzzCase` in its dict form
(``fz_kernel`` for Elementwise, ``fz_map`` for Reduction/Scan) plus
``xfail``: pattern of backend case ids (``opencl-*``, ``*-float32``) -> reason,
for bugs still open.  A
fixed bug loses its ``xfail`` entry (the test is strict, so a fix shows up as
XPASS) and stays here as a regression test; its name in
``pcompute.fuzz.generator.KNOWN_BUGS`` is removed at the same time so the
fuzzer covers the construct again.
"""

_SCAN_OUT = """
def fz_scan_out(i, item, scan_out):
    scan_out[i] = item
"""


def _case(source, arrays, scalars=(), primitives=("elementwise", "reduction"),
          map_kind="f", reduce_expr="a + b", seed=1):
    return {"source": source.strip() + "\n" + _SCAN_OUT, "arrays": list(arrays),
            "scalars": list(scalars), "out_int": "i64", "map_kind": map_kind,
            "reduce_expr": reduce_expr, "scan_expr": "a + b",
            "primitives": list(primitives), "seed": seed, "label": "regression"}


REGRESSIONS = {
    # A float used as the condition of a conditional expression.  The OpenCL
    # printer emits `x ? a : b` with a float x, which OpenCL C rejects ("used
    # type 'float' where floating point type is not allowed"): BuildError on
    # opencl in both precisions.  (`if x:` and `not x` are fine.)
    "float-ternary-condition": {
        "case": _case("""
def fz_kernel(i, x0, n, out_f, out_i):
    out_f[i] = 1.5 if float(x0[i] % 2) else 2.5
    out_i[i] = 3 if x0[i] * 0.5 else 4

def fz_map(i, x0, n):
    return 1.5 if float(x0[i] % 2) else 2.5
""", [("x0", "i32", 3)]),
        "xfail": {},  # fixed: a float condition of ?: is printed as (x != 0)
    },

    # A helper parameter typed int by its call sites, then assigned a float.
    # Python keeps the float (h(3) = 1.5); opencl silently truncates it to the
    # int parameter (1.0: a wrong answer), cython fails to compile ("Cannot
    # assign type 'double' to 'int'").
    "int-parameter-assigned-float": {
        "case": _case("""
def fz_h0(p0):
    p0 = p0 / 2.0
    return p0

def fz_kernel(i, x0, n, out_f, out_i):
    out_f[i] = fz_h0(x0[i])

def fz_map(i, x0, n):
    return fz_h0(x0[i])
""", [("x0", "i32", 20)]),
        "xfail": {},  # fixed: the argument widens to the float, as in Python
    },

    # The same with a scalar argument of the kernel itself.
    "int-scalar-argument-assigned-float": {
        "case": _case("""
def fz_kernel(i, x0, s0, n, out_f, out_i):
    s0 = s0 / 2.0
    out_f[i] = s0 + x0[i]

def fz_map(i, x0, s0, n):
    s0 = s0 / 2.0
    return s0 + x0[i]
""", [("x0", "i32", 20)], [("s0", "int", 7)]),
        "xfail": {},  # fixed: the argument widens to the float, as in Python
    },

    # trunc() of an array element: math.trunc rejects numpy scalars other than
    # float64 (TypeError: type numpy.float32 doesn't define __trunc__), so the
    # python backend (the reference of every comparison) fails on float32 and
    # integer arrays while the compiled backends work.
    "trunc-of-array-element": {
        "case": _case("""
def fz_kernel(i, x0, n, out_f, out_i):
    out_f[i] = trunc(x0[i] * 2.5)

def fz_map(i, x0, n):
    return trunc(x0[i] * 2.5)
""", [("x0", "fp", 4.0)]),
        "xfail": {},  # fixed: the python backend's trunc() takes numpy floats
    },

    # Not a pcompute bug: found while building the fuzzer's error model.  In
    # double precision a float32 array element plus a Python float is computed
    # in float32 by the python backend (numpy's NEP 50 promotion: the Python
    # float is rounded to float32) but in double by C.  The difference is at
    # float32 level; the tolerance model accounts for it.
    "float32-element-plus-python-float": {
        "case": _case("""
def fz_kernel(i, x0, n, out_f, out_i):
    out_f[i] = x0[i] + tanh(3 * (i % 9))

def fz_map(i, x0, n):
    return x0[i] + tanh(3 * (i % 9))
""", [("x0", "f32", 4.0)], primitives=("elementwise", "scan")),
        "xfail": {},
    },

    # Not a pcompute bug: the neutral element (+-inf) of a min/max scan is
    # what prev_item holds at the start of every segment.
    "segmented-max-scan-prev-item": {
        "case": dict(_case("""
def fz_kernel(i, x0, n, out_f, out_i):
    out_f[i] = x0[i]

def fz_map(i, x0, n):
    return x0[i] * 0.5
""", [("x0", "fp", 4.0)], primitives=("elementwise", "scan")), scan_expr="max(a, b)",
                     scan_output="prev_item", segmented=True,
                     source="""
def fz_kernel(i, x0, n, out_f, out_i):
    out_f[i] = x0[i]

def fz_map(i, x0, n):
    return x0[i] * 0.5

def fz_scan_out(i, prev_item, scan_out):
    scan_out[i] = prev_item

def fz_seg(i):
    return i % 6 == 0
"""),
        "xfail": {},
    },
}
