"""Suite: a compute-heavy Elementwise map, float64:
``y[i] = sin(x[i]) * exp(-x[i]*x[i]) + sqrt(x[i])``.

Bound by libm calls, not memory: the C reference calls the same scalar
``sin``/``exp``/``sqrt`` (no ``-ffast-math``, so no vectorised libmvec).
"""
from math import exp, sin, sqrt

import numpy as np

from pcompute import Elementwise

from .. import pc
from ..context import close
from ..peers import numba_peer, numexpr_peer

NAME = "map"
CASE = "sin*exp+sqrt float64"


def heavy(i, x, y):
    v = x[i]
    y[i] = sin(v) * exp(-v * v) + sqrt(v)


def run(ctx):
    for n in ctx.sizes(8 * 8, NAME):
        x = np.random.default_rng(5).random(n) * 4.0
        want = np.sin(x) * np.exp(-x * x) + np.sqrt(x)
        y = np.zeros_like(x)           # shared by the host implementations
        reset = lambda: y.fill(np.nan)
        check = lambda: close(y, want, rtol=1e-13, atol=1e-15)
        with ctx.group(NAME, CASE, n) as g:
            g.c_ref("map", (x, y, 0), verify=check, before=reset)
            g.c_ref("map", (x, y, 1), verify=check, before=reset, label="C serial",
                    is_ref=False, ctypes_row=False)
            for variant in pc.VARIANTS:
                why = variant.why_unavailable()
                if why:
                    ctx.rec.note("%s skipped: %s" % (variant.label, why))
                    continue
                with g.guard(variant.label, "pcompute"):
                    xd, yd = (x, y) if variant.on_host else variant.put(x, y)
                    kernel = Elementwise(heavy)
                    g.time(variant.label, "pcompute", lambda k=kernel, xd=xd, yd=yd: k(xd, yd),
                           sync=variant.sync(), after_first=pc.build_counter(),
                           verify=lambda yd=yd: close(pc.host(yd), want, rtol=1e-13,
                                                      atol=1e-15),
                           using=variant.use, before=reset if variant.on_host else None)

            def numpy_map():
                y[:] = np.sin(x) * np.exp(-x * x) + np.sqrt(x)
            g.time("numpy (4 temporaries)", "peer", numpy_map, verify=check, before=reset)
            if not numba_peer.why_missing():
                g.time("numba parallel", "peer", lambda: numba_peer.heavy_map(x, y),
                       verify=check, before=reset)
            if not numexpr_peer.why_missing():
                with g.guard("numexpr", "peer"):
                    run = numexpr_peer.evaluator("sin(x) * exp(-x * x) + sqrt(x)", y, x=x)
                    g.time("numexpr %d threads" % numexpr_peer.threads(), "peer", run,
                           verify=check, before=reset)
