"""Suite: pcompute.dataparallel's CSR SpMV (examples/dataparallel/spmv.py, one
fused kernel) against the same algorithm written by hand as one pcompute
Elementwise kernel, float64, rows = n/10 with 3-7 entries per row.

The reference is NumPy (``add.reduceat`` of ``data * x[cols]``).  The
dataparallel call includes its per-call work (walking the function body,
finding the cached kernel, allocating y); the hand-written kernel writes a
preallocated y.  The issue's target: the dataparallel row within 1.2x of
the hand-written row of the same backend (compare the two rows).
"""
import numpy as np

from pcompute import Elementwise
from examples.dataparallel.spmv import spmv_csr

from .. import pc
from ..context import close

NAME = "dataparallel"


def spmv_by_hand(i, y, data, cols, offsets, x):
    # y first: the first array argument gives the number of items (rows)
    s = 0.0
    for k in range(offsets[i], offsets[i + 1]):
        s += data[k] * x[cols[k]]
    y[i] = s


def csr(rows, rng):
    counts = rng.integers(3, 8, rows)
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)
    nnz = int(offsets[-1])
    return rng.random(nnz), rng.integers(0, rows, nnz).astype(np.int32), offsets


def run(ctx):
    for n in ctx.sizes(8 * 8, NAME):
        rows = max(n // 10, 1)
        rng = np.random.default_rng(3)
        data, cols, offsets = csr(rows, rng)
        x = rng.random(rows)
        want = np.add.reduceat(data * x[cols], offsets[:-1])
        with ctx.group(NAME, "spmv csr float64 (rows)", rows) as g:
            g.time("numpy add.reduceat", "reference",
                   lambda: np.add.reduceat(data * x[cols], offsets[:-1]), is_ref=True)
            for variant in pc.VARIANTS:
                why = variant.why_unavailable()
                if why:
                    ctx.rec.note("%s skipped: %s" % (variant.label, why))
                    continue
                _variant(g, variant, data, cols, offsets, x, want)


def _variant(g, variant, data, cols, offsets, x, want):
    with g.guard(variant.label, "pcompute"):
        d, c, o, xd, y = variant.put(data, cols, offsets, x, np.zeros(len(want)))
        kernel = Elementwise(spmv_by_hand)
        g.time(variant.label + " Elementwise by hand", "pcompute",
               lambda: kernel(y, d, c, o, xd), sync=variant.sync(), using=variant.use,
               verify=lambda: close(pc.host(y), want))
        result = {}

        def call():
            result["y"] = spmv_csr(d, c, o, xd)
        g.time(variant.label + " dataparallel", "pcompute", call, sync=variant.sync(),
               using=variant.use, verify=lambda: close(pc.host(result["y"]), want))
