"""Suite 1: Elementwise axpy ``y = a*x + y``, float64.

Host implementations share one ``y``, reset to ``y0`` before each first call
(whose result is checked); the device ones have their own buffers.
"""
import numpy as np

from pcompute import Elementwise

from .. import pc
from ..context import close
from ..peers import compyle_peer, numba_peer, pyopencl_peer, taichi_peer, warp_peer

TARGET_N = 10**7              # the size the target is set for
NAME = "axpy"
CASE = "float64"
A = 0.5
TARGET = ("ratio", 1.15)       # cython+omp vs C+OpenMP


def run(ctx):
    for n in ctx.sizes(8 * 8, NAME):
        rng = np.random.default_rng(1)
        x, y0 = rng.random(n), rng.random(n)
        want = A * x + y0
        y = y0.copy()
        fresh = lambda: np.copyto(y, y0)
        check = lambda: close(y, want)
        with ctx.group(NAME, CASE, n) as g:
            g.c_ref("axpy", (A, x, y, 0), verify=check, before=fresh)
            g.c_ref("axpy", (A, x, y, 1), verify=check, before=fresh, label="C serial",
                    is_ref=False, ctypes_row=False)
            for variant in pc.WITH_GENERIC:
                _pcompute(ctx, g, variant, x, y, y0, fresh, want)
            _peers(g, x, y, y0, fresh, want)


def _pcompute(ctx, g, variant, x, y, y0, fresh, want):
    why = variant.why_unavailable()
    if why:
        ctx.rec.note("%s skipped: %s" % (variant.label, why))
        return
    with g.guard(variant.label, "pcompute"):
        xd, yd = (x, y) if variant.on_host else variant.put(x, y0)
        kernel = Elementwise(pc.axpy)
        g.time(variant.label, "pcompute", lambda: kernel(A, xd, yd), sync=variant.sync(),
               verify=lambda: close(pc.host(yd), want), after_first=pc.build_counter(),
               using=variant.use, before=fresh if variant.on_host else None,
               target=TARGET if variant is pc.OMP and len(x) == TARGET_N else None)


def _peers(g, x, y, y0, fresh, want):
    check = lambda: close(y, want)
    g.time("numpy (y += a*x)", "peer", lambda: y.__iadd__(A * x), verify=check,
           before=fresh)
    if not numba_peer.why_missing():
        g.time("numba parallel", "peer", lambda: numba_peer.axpy(A, x, y), verify=check,
               before=fresh)
    if not taichi_peer.why_missing():
        with g.guard("taichi cpu", "peer"):
            g.time("taichi cpu", "peer", lambda: taichi_peer.axpy(A, x, y), verify=check,
                   before=fresh, sync=taichi_peer.sync)
    if not warp_peer.why_missing():
        with g.guard(warp_peer.LABEL, "peer"):
            g.time(warp_peer.LABEL, "peer",
                   warp_peer.axpy(A, warp_peer.view(x), warp_peer.view(y)), verify=check,
                   before=fresh, sync=warp_peer.sync)
    label = "pyopencl ElementwiseKernel"
    with g.guard(label, "peer"):
        if not pyopencl_peer.why_missing():
            knl = pyopencl_peer.axpy()
            xd, yd = pyopencl_peer.to_device(x), pyopencl_peer.to_device(y0)
            g.time(label, "peer", lambda: knl(A, xd, yd), sync=pyopencl_peer.queue().finish,
                   verify=lambda: close(yd.get(), want))
    if not compyle_peer.why_missing():
        for v in compyle_peer.PRIMITIVE_VARIANTS:
            with g.guard(v.label, "peer"):
                why = compyle_peer.guard_opencl(v)
                if why:
                    g.ctx.rec.note(why)
                    continue
                cx, cy = v.put(x, y if v.backend != "opencl" else y0)
                host = v.backend != "opencl"
                g.time(v.label, "peer", compyle_peer.elementwise(v, A, cx, cy),
                       sync=v.sync(), using=v.use, before=fresh if host else None,
                       verify=check if host else lambda cy=cy: close(compyle_peer.host(cy), want))
