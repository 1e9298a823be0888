"""Suite: ``align`` (gather) of 3 float64 arrays by a random permutation
(int32 indices): ``out_k[i] = a_k[order[i]]``."""
import numpy as np

from pcompute import align

from .. import pc
from ..context import equal
from ..peers import compyle_peer

NAME = "align"
CASE = "3 x float64, random permutation"


def run(ctx):
    for n in ctx.sizes(8 * 6 + 4 + 8 * 6, NAME):
        rng = np.random.default_rng(8)
        order = rng.permutation(n).astype(np.int32)
        src = [rng.random(n) for _ in range(3)]
        want = [a[order] for a in src]
        outs = [np.zeros(n) for _ in range(3)]
        reset = lambda: [o.fill(np.nan) for o in outs]
        check = lambda: next((p for p in (equal(o, w) for o, w in zip(outs, want)) if p),
                             None)
        with ctx.group(NAME, CASE, n) as g:
            g.c_ref("gather3", (order, *src, *outs, 0), verify=check, before=reset)
            g.c_ref("gather3", (order, *src, *outs, 1), label="C serial", is_ref=False,
                    ctypes_row=False, verify=check, before=reset)
            for variant in pc.VARIANTS:
                why = variant.why_unavailable()
                if why:
                    ctx.rec.note("%s skipped: %s" % (variant.label, why))
                    continue
                with g.guard(variant.label, "pcompute"):
                    _pcompute(g, variant, order, src, want, n)

            def fancy():
                for a, o in zip(src, outs):
                    np.take(a, order, out=o)
            g.time("numpy take(out=) x3", "peer", fancy, verify=check, before=reset)

            def fancy_new():
                outs[:] = [a[order] for a in src]
            g.time("numpy a[order] x3 (new arrays)", "peer", fancy_new, verify=check,
                   before=reset)
            _compyle(g, order, src, want, n)


def _compyle(g, order, src, want, n):
    if compyle_peer.why_missing():
        return
    for v in compyle_peer.VARIANTS:
        with g.guard(v.label, "peer"):
            why = compyle_peer.guard_opencl(v)
            if why:
                g.ctx.rec.note(why)
                continue
            od = v.put(order.copy())
            sd = [v.put(a.copy()) for a in src]
            res = [v.put(np.zeros(n)) for _ in range(3)]

            def verify(res=res):
                return next((p for p in (equal(compyle_peer.host(o), w)
                                         for o, w in zip(res, want)) if p), None)
            g.time(v.label, "peer", compyle_peer.align(v, sd, od, res), sync=v.sync(),
                   using=v.use, verify=verify)


def _pcompute(g, variant, order, src, want, n):
    from pcompute import wrap, zeros
    with variant.use():
        od = wrap(order.copy(), backend=variant.backend)
        sd = [wrap(a.copy(), backend=variant.backend) for a in src]
        res = [zeros(n, np.float64, backend=variant.backend) for _ in range(3)]

    def verify():
        return next((p for p in (equal(pc.host(o), w) for o, w in zip(res, want)) if p),
                    None)
    g.time(variant.label, "pcompute", lambda: align(sd, od, out_list=res),
           sync=variant.sync(), verify=verify, after_first=pc.build_counter(),
           using=variant.use, note="(includes align's index range check)")
