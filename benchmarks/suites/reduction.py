"""Suite 4: Reduction ``a+b`` (sum) of float64, float32 and int32 arrays.

pcompute on Cython accumulates float32 in float64 (int32 in int32, exact
modulo 2^32 like the others); pcompute on OpenCL, pyopencl and Warp
accumulate in the data's type; the C reference, Numba and Taichi accumulate
float32 in float64 and int32 in int64; numpy sums float32 pairwise in
float32.  pcompute's ``ordered=True`` row is its order-preserving pairwise
scheme (no SIMD lanes).  Float rows note their relative error against the exact sum.
"""
import math

import numpy as np

from pcompute.primitives.reduction import Reduction

from .. import pc
from ..peers import compyle_peer, numba_peer, pyopencl_peer, taichi_peer, warp_peer

NAME = "sum"
DTYPES = (np.float64, np.float32, np.int32)
TOLERANCE = {"float64": 1e-12, "float32": 1e-5, "int32": 0}
TARGET = ("ratio", 1.2)        # cython+omp vs the C+OpenMP reference (-march=native)


def data(dtype, n):
    rng = np.random.default_rng(2)
    if np.dtype(dtype).kind == "i":      # small values: the int32 sum fits
        return rng.integers(0, min(100, 2**31 // n), n, dtype=dtype)
    return rng.random(n, dtype=dtype)


def exact(x):
    return int(x.sum(dtype=np.int64)) if x.dtype.kind == "i" else math.fsum(x)


def run(ctx):
    for dtype in DTYPES:
        dt = np.dtype(dtype)
        for n in ctx.sizes(dt.itemsize * 3, NAME):
            x = data(dtype, n)
            with ctx.group(NAME, str(dt), n) as g:
                _group(ctx, g, x, exact(x))


def _group(ctx, g, x, truth):
    def add(impl, kind, fn, **kw):
        verify = _verifier(fn, truth, TOLERANCE[str(x.dtype)])
        row = g.time(impl, kind, fn, verify=verify, **kw)
        _note(row, verify, x.dtype)

    cref = ctx.cref
    if cref is not None:
        verify = _verifier(lambda: cref.sum(x), truth, TOLERANCE[str(x.dtype)])
        _note(g.c_ref("sum", (x, 0), verify=verify), verify, x.dtype)
        g.c_ref("sum", (x, 1), label="C serial", is_ref=False, ctypes_row=False)
    for variant in pc.WITH_GENERIC:
        why = variant.why_unavailable()
        if why:
            ctx.rec.note("%s skipped: %s" % (variant.label, why))
            continue
        with g.guard(variant.label, "pcompute"):
            red, xd = Reduction("a+b", dtype_out=x.dtype), variant.put(x)
            add(variant.label, "pcompute", lambda red=red, xd=xd: red(xd),
                sync=variant.sync(), after_first=pc.build_counter(), using=variant.use,
                target=TARGET if variant is pc.OMP else None)
        if variant is pc.OMP:
            with g.guard(variant.label + " ordered=True", "pcompute"):
                red = Reduction("a+b", dtype_out=x.dtype, ordered=True)
                add(variant.label + " ordered=True", "pcompute", lambda red=red: red(x),
                    after_first=pc.build_counter(), using=variant.use)
    add("numpy sum", "peer", x.sum)
    if not numba_peer.why_missing():
        f = numba_peer.summer(x.dtype)
        add("numba parallel", "peer", lambda: f(x))
    if not taichi_peer.why_missing():
        with g.guard("taichi cpu", "peer"):
            f = taichi_peer.summer(x.dtype)
            add("taichi cpu", "peer", lambda: f(x))
    if not warp_peer.why_missing() and warp_peer.can_sum(x.dtype):
        with g.guard(warp_peer.LABEL, "peer"):
            add(warp_peer.LABEL + " array_sum", "peer", warp_peer.summer(warp_peer.view(x)))
    with g.guard("pyopencl ReductionKernel", "peer"):
        if not pyopencl_peer.why_missing():
            knl, xd = pyopencl_peer.summer(x.dtype), pyopencl_peer.to_device(x)
            add("pyopencl ReductionKernel", "peer", lambda: knl(xd).get())
    if not compyle_peer.why_missing():
        for v in compyle_peer.PRIMITIVE_VARIANTS:
            with g.guard(v.label, "peer"):
                why = compyle_peer.guard_opencl(v)
                if why:
                    ctx.rec.note(why)
                    continue
                add(v.label, "peer", compyle_peer.reduction(v, v.put(x)), sync=v.sync(),
                    using=v.use)


def _verifier(get, truth, tol):
    """verify(): compares ``get()`` with the exact sum; keeps the error."""
    def verify():
        got = get()
        verify.rel_err = abs(float(got) - truth) / max(abs(truth), 1e-300)
        if verify.rel_err > tol:
            return "got %r, exact %r (relative error %.2g)" % (got, truth, verify.rel_err)
        return None
    return verify


def _note(row_kw, verify, dtype):
    err = getattr(verify, "rel_err", None)
    if row_kw and err is not None and np.dtype(dtype).kind == "f":
        row_kw.setdefault("extra", {})["rel_err"] = err
        row_kw["note"] = "rel.err %.1e" % err
