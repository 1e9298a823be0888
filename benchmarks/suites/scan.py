"""Suite 5: inclusive scan (prefix sum) of float64, out of place."""
import numpy as np

from .. import pc
from ..context import close
from ..peers import compyle_peer, numba_peer, pyopencl_peer

TARGET_N = 10**7              # the size the target is set for
NAME = "scan"
CASE = "inclusive float64"
TARGET = ("ratio", 1.5)          # cython+omp vs C+OpenMP
# label, threads, chains, is_ref: the 1-chain and the 4-chain scans are both
# reference candidates (the faster is the group's reference): 4 chains give
# the out-of-order core independent add chains, usually the faster one.
C_RUNS = (("C+OpenMP 4 chains", 0, 4, True), ("C+OpenMP", 0, 1, True),
          ("C serial", 1, 1, False))


def run(ctx):
    try:
        pc.import_scan()
        have_scan = True
    except ImportError as exc:
        have_scan = False
        ctx.rec.note("pcompute Scan not benchmarked: cannot import "
                     "pcompute.primitives.scan.Scan (%s)" % exc)
    for n in ctx.sizes(8 * 8, NAME):
        x = np.random.default_rng(3).random(n)
        want = np.cumsum(x)
        y = np.zeros_like(x)          # shared by the host implementations
        check = lambda: close(y, want)
        with ctx.group(NAME, CASE, n) as g:
            for label, nt, chains, is_ref in C_RUNS:
                g.c_ref("scan", (x, y, chains, nt), is_ref=is_ref, label=label,
                        verify=check, ctypes_row=chains == 4, before=lambda: y.fill(np.nan))
            if have_scan:
                for variant in pc.WITH_GENERIC:
                    _pcompute(ctx, g, variant, x, y, want)
            _peers(g, x, y, want)


def _pcompute(ctx, g, variant, x, y, want):
    why = variant.why_unavailable()
    if why:
        ctx.rec.note("%s skipped: %s" % (variant.label, why))
        return
    try:
        xd, yd = (x, y) if variant.on_host else variant.put(x, np.zeros_like(x))
        with variant.use():
            scan = pc.make_scan()
    except Exception as exc:
        g.failed(variant.label, "pcompute", exc)
        return
    g.time(variant.label, "pcompute", lambda: scan(xd, yd), sync=variant.sync(),
           verify=lambda: close(pc.host(yd), want), after_first=pc.build_counter(),
           using=variant.use, before=lambda: y.fill(np.nan),
           target=TARGET if variant is pc.OMP and len(x) == TARGET_N else None)


def _peers(g, x, y, want):
    check = lambda: close(y, want)
    reset = lambda: y.fill(np.nan)
    g.time("numpy cumsum", "peer", lambda: np.cumsum(x, out=y), verify=check, before=reset)
    if not numba_peer.why_missing():
        g.time("numba parallel", "peer", lambda: numba_peer.cumsum(x, y), verify=check,
               before=reset)
    label = "pyopencl InclusiveScanKernel"
    with g.guard(label, "peer"):
        if not pyopencl_peer.why_missing():
            knl = pyopencl_peer.inclusive_scan()
            xd = pyopencl_peer.to_device(x)
            yd = pyopencl_peer.to_device(np.zeros_like(x))
            g.time(label, "peer", lambda: knl(xd, yd), sync=pyopencl_peer.queue().finish,
                   verify=lambda: close(yd.get(), want))
    if not compyle_peer.why_missing():
        for v in compyle_peer.PRIMITIVE_VARIANTS:
            with g.guard(v.label, "peer"):
                why = compyle_peer.guard_opencl(v)
                if why:
                    g.ctx.rec.note(why)
                    continue
                host = v.backend != "opencl"
                cx, cy = v.put(x, y if host else np.zeros_like(x))
                with v.use():
                    run = compyle_peer.scan(v)
                g.time(v.label, "peer", lambda run=run, cx=cx, cy=cy: run(cx, cy),
                       sync=v.sync(), using=v.use, before=reset if host else None,
                       verify=check if host else
                       lambda cy=cy: close(compyle_peer.host(cy), want))
