"""Suite: Reduction ``min(a, b)`` of float64 (``pcompute.minimum`` and an
explicit ``Reduction``)."""
import numpy as np

from pcompute import Reduction, minimum

from .. import pc
from ..peers import numba_peer

NAME = "min"
CASE = "float64"


def run(ctx):
    for n in ctx.sizes(8 * 3, NAME):
        x = np.random.default_rng(6).random(n) + 1.0
        x[(n * 7) // 11] = 0.25                 # one smallest item, not at an end
        want = 0.25

        def verify(get):
            return lambda: None if float(get()) == want else "got %r, want %r" % (
                float(get()), want)
        with ctx.group(NAME, CASE, n) as g:
            cref = ctx.cref
            if cref is not None:
                g.c_ref("min", (x, 0), verify=verify(lambda: cref.min(x)))
                g.c_ref("min", (x, 1), label="C serial", is_ref=False, ctypes_row=False)
            for variant in pc.VARIANTS:
                why = variant.why_unavailable()
                if why:
                    ctx.rec.note("%s skipped: %s" % (variant.label, why))
                    continue
                with g.guard(variant.label, "pcompute"):
                    xd = variant.put(x)
                    red = Reduction("min(a, b)", dtype_out=np.float64, neutral="INFINITY")
                    fn = lambda red=red, xd=xd: red(xd)
                    g.time(variant.label + " Reduction", "pcompute", fn,
                           sync=variant.sync(), verify=verify(fn),
                           after_first=pc.build_counter(), using=variant.use)
                    if variant is pc.OMP:
                        fn2 = lambda xd=xd: minimum(xd)
                        g.time(variant.label + " minimum()", "pcompute", fn2,
                               verify=verify(fn2), using=variant.use)
            g.time("numpy min", "peer", x.min, verify=verify(x.min))
            if not numba_peer.why_missing():
                fn = lambda: numba_peer.min_float(x)
                g.time("numba parallel", "peer", fn, verify=verify(fn))
