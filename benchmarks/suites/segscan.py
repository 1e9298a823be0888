"""Suite: segmented inclusive Scan of float64 (random segment flags, about
one segment start in 100).

numpy has no segmented scan; its nearest equivalent is ``cumsum`` minus the
running sum at each segment's start (several passes, and it subtracts large
partial sums, so it loses digits: checked with a looser tolerance)."""
import numpy as np

from .. import pc
from ..context import close
from ..peers import numba_peer

NAME = "segscan"
CASE = "inclusive float64, 1% flags"
DENSITY = 0.01


def seg_input(i, x):
    return x[i]


def seg_flag(i, flags):
    return flags[i]


def seg_output(i, item, y):
    y[i] = item


def numpy_segscan(x, flags, y):
    c = np.cumsum(x)
    start = np.maximum.accumulate(np.where(flags != 0, np.arange(len(x)), 0))
    np.subtract(c, (c - x)[start], out=y)


def run(ctx):
    try:
        from pcompute import Scan
    except ImportError as exc:
        ctx.rec.note("pcompute Scan not importable: %s" % exc)
        Scan = None
    for n in ctx.sizes(8 * 10, NAME):
        rng = np.random.default_rng(7)
        x = rng.random(n)
        flags = (rng.random(n) < DENSITY).astype(np.int32)
        want = np.empty_like(x)
        y = np.zeros_like(x)
        reset = lambda: y.fill(np.nan)
        check = lambda: close(y, want, rtol=1e-12)
        with ctx.group(NAME, CASE, n) as g:
            cref = ctx.cref
            if cref is not None:
                cref.segscan(x, flags, want, 1)       # the serial C loop: the answer
                g.c_ref("segscan", (x, flags, y, 0), verify=check, before=reset)
                g.c_ref("segscan", (x, flags, y, 1), label="C serial", is_ref=False,
                        ctypes_row=False, verify=check, before=reset)
            else:
                numpy_segscan(x, flags, want)
            for variant in (pc.VARIANTS if Scan is not None else ()):
                why = variant.why_unavailable()
                if why:
                    ctx.rec.note("%s skipped: %s" % (variant.label, why))
                    continue
                with g.guard(variant.label, "pcompute"):
                    xd, fd, yd = (x, flags, y) if variant.on_host else \
                        variant.put(x, flags, y)
                    with variant.use():
                        scan = Scan(seg_input, seg_output, "a+b", is_segment=seg_flag,
                                    dtype=np.float64)
                    g.time(variant.label, "pcompute",
                           lambda s=scan, xd=xd, fd=fd, yd=yd: s(x=xd, flags=fd, y=yd),
                           sync=variant.sync(), after_first=pc.build_counter(),
                           verify=lambda yd=yd: close(pc.host(yd), want, rtol=1e-12),
                           using=variant.use, before=reset if variant.on_host else None)
            g.time("numpy cumsum - start sums", "peer", lambda: numpy_segscan(x, flags, y),
                   verify=lambda: close(y, want, rtol=1e-6, atol=1e-8), before=reset,
                   note="(not a segmented scan: 5 passes, loses digits)")
            if not numba_peer.why_missing():
                g.time("numba parallel", "peer", lambda: numba_peer.segscan(x, flags, y),
                       verify=check, before=reset)
