"""Suite: pcompute.dataparallel's samples against the same algorithms written
by hand as pcompute Elementwise/Reduction kernels (``dp_hand.py``), float64.

* CSR SpMV (examples/dataparallel/spmv.py, one fused kernel), rows = n/10
  with 3-7 entries per row; references NumPy (``add.reduceat`` of
  ``data * x[cols]``) and SciPy's ``csr_matrix @ x`` (a peer, when SciPy is
  installed).  Targets: the dataparallel row within 1.2x of the hand-written
  row of its backend, and from 10^6 rows (the quick size) the cython+omp
  dataparallel row faster than SciPy.
* PCG (examples/dataparallel/pcg.py, Jacobi preconditioner, 2-D Laplacian of
  about n/10 rows, a fixed number of iterations: tol = 0), against the same
  loop by hand (``HandPCG``, 6 kernels per iteration on preallocated arrays)
  and with NumPy/SciPy.  Target: within 1.2x of the hand-written row.

* The fixed cost of a call: the axpy sample at n = 1 beside the same
  Elementwise kernel by hand (a = 0, so the inputs never change).  Target:
  a replayed ``@dataparallel`` call under 20 us on cython.

A dataparallel call includes its per-call work (replaying its plan,
allocating new results); the hand-written kernels write preallocated
arrays.  A note gives the lines of code of each sample
next to its hand-written version (``dp_loc.py``).
"""
import math

import numpy as np

from pcompute import Elementwise
from examples.dataparallel.axpy import axpy as dp_axpy
from examples.dataparallel.pcg import laplacian_2d, pcg
from examples.dataparallel.spmv import spmv_csr

from .. import pc
from ..context import close
from . import dp_loc
from .dp_hand import HandPCG, spmv_by_hand

NAME = "dataparallel"
PCG_ITERATIONS = 5

try:
    import scipy.sparse as scipy_sparse
except ImportError:                 # a peer: the report says it is missing
    scipy_sparse = None


def csr(rows, rng):
    counts = rng.integers(3, 8, rows)
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)
    nnz = int(offsets[-1])
    return rng.random(nnz), rng.integers(0, rows, nnz).astype(np.int32), offsets


def run(ctx):
    for line in dp_loc.table():
        ctx.rec.note(line)
    if scipy_sparse is None:
        ctx.rec.note("dataparallel: SciPy is not installed: no SciPy rows "
                     "(pip install scipy, in the bench extra)")
    for n in ctx.sizes(8 * 8, NAME):
        _spmv_group(ctx, max(n // 10, 1))
    for n in ctx.sizes(8 * 12, NAME):
        _pcg_group(ctx, max(int(math.sqrt(n // 10)), 2))
    _call_group(ctx)


#: The fixed cost of a replayed @dataparallel call on cython (seconds).
CALL_TARGET = 20e-6


def _call_group(ctx):
    x, y = np.arange(1.0), np.ones(1)
    with ctx.group(NAME, "call overhead: axpy float64 (items)", 1) as g:
        g.time("numpy a * x + y", "reference", lambda: 0.0 * x + y, is_ref=True)
        for variant in (pc.SERIAL, pc.OMP):
            kernel, yd = Elementwise(pc.axpy), y.copy()
            g.time(variant.label + " Elementwise by hand", "pcompute",
                   lambda kernel=kernel, yd=yd: kernel(0.0, x, yd), using=variant.use,
                   verify=lambda yd=yd: close(yd, y))
            result = {}

            def call(result=result):
                result["y"] = dp_axpy(0.0, x, y)
            g.time(variant.label + " dataparallel", "pcompute", call, using=variant.use,
                   verify=lambda result=result: close(pc.host(result["y"]), y),
                   target=("time", CALL_TARGET))


def _scipy_label():
    return "scipy csr_matrix @ x (%s, 1 thread)" % __import__("scipy").__version__


def _spmv_group(ctx, rows):
    rng = np.random.default_rng(3)
    data, cols, offsets = csr(rows, rng)
    x = rng.random(rows)
    want = np.add.reduceat(data * x[cols], offsets[:-1])
    with ctx.group(NAME, "spmv csr float64 (rows)", rows) as g:
        g.time("numpy add.reduceat", "reference",
               lambda: np.add.reduceat(data * x[cols], offsets[:-1]), is_ref=True)
        if scipy_sparse is not None:
            a = scipy_sparse.csr_matrix((data, cols, offsets), shape=(rows, rows))
            g.time(_scipy_label(), "peer", lambda: a @ x,
                   verify=lambda: close(a @ x, want))
        for variant in pc.VARIANTS:
            why = variant.why_unavailable()
            if why:
                ctx.rec.note("%s skipped: %s" % (variant.label, why))
                continue
            _spmv_variant(g, variant, data, cols, offsets, x, want)


def _spmv_variant(g, variant, data, cols, offsets, x, want):
    with g.guard(variant.label, "pcompute"):
        d, c, o, xd, y = variant.put(data, cols, offsets, x, np.zeros(len(want)))
        kernel = Elementwise(spmv_by_hand)
        hand = variant.label + " Elementwise by hand"
        g.time(hand, "pcompute", lambda: kernel(y, d, c, o, xd), sync=variant.sync(),
               using=variant.use, verify=lambda: close(pc.host(y), want))
        result = {}

        def call():
            result["y"] = spmv_csr(d, c, o, xd)
        target = [("vs", hand, 1.2)]
        if scipy_sparse is not None and variant is pc.OMP and len(want) >= 10**6:
            target.append(("vs", _scipy_label(), 1.0))
        g.time(variant.label + " dataparallel", "pcompute", call, sync=variant.sync(),
               using=variant.use, verify=lambda: close(pc.host(result["y"]), want),
               target=target)


def _numpy_pcg(data, cols, offsets, b, product):
    """The same loop with NumPy vectors and ``product(p)`` for A p."""
    diag = np.add.reduceat(np.where(cols == np.repeat(np.arange(len(b)), np.diff(offsets)),
                                    data, 0.0), offsets[:-1])
    dinv = 1.0 / diag
    x, r = np.zeros_like(b), b.copy()
    p = r * dinv
    rz = r @ (r * dinv)
    for _ in range(PCG_ITERATIONS):
        q = product(p)
        alpha = rz / (p @ q)
        x += alpha * p
        r -= alpha * q
        rz_new = r @ (r * dinv)
        p = r * dinv + (rz_new / rz) * p
        rz = rz_new
    return x


def _pcg_group(ctx, m):
    data, cols, offsets = laplacian_2d(m)
    b = np.random.default_rng(4).random(m * m)
    want = _numpy_pcg(data, cols, offsets, b,
                      lambda p: np.add.reduceat(data * p[cols], offsets[:-1]))
    with ctx.group(NAME, "pcg %d iterations float64 (rows)" % PCG_ITERATIONS, m * m) as g:
        g.time("numpy (add.reduceat) same loop", "reference",
               lambda: _numpy_pcg(data, cols, offsets, b,
                                  lambda p: np.add.reduceat(data * p[cols], offsets[:-1])),
               is_ref=True)
        if scipy_sparse is not None:
            a = scipy_sparse.csr_matrix((data, cols, offsets), shape=(m * m, m * m))
            g.time("numpy + " + _scipy_label() + " same loop", "peer",
                   lambda: _numpy_pcg(data, cols, offsets, b, lambda p: a @ p))
        for variant in pc.VARIANTS:
            why = variant.why_unavailable()
            if why:
                ctx.rec.note("%s skipped: %s" % (variant.label, why))
                continue
            _pcg_variant(g, variant, data, cols, offsets, b, want)


def _pcg_variant(g, variant, data, cols, offsets, b, want):
    with g.guard(variant.label, "pcompute"):
        zeros = np.zeros_like(b)
        d, c, o, bd, x, r, p, q, dinv = variant.put(data, cols, offsets, b, *[
            zeros.copy() for _ in range(5)])
        solve = HandPCG()
        hand = variant.label + " Elementwise/Reduction by hand"
        g.time(hand, "pcompute",
               lambda: solve(d, c, o, bd, x, r, p, q, dinv, tol=0.0, maxiter=PCG_ITERATIONS),
               sync=variant.sync(), using=variant.use,
               verify=lambda: close(pc.host(x), want, rtol=1e-9))
        result = {}

        def call():
            result["x"] = pcg(d, c, o, bd, tol=0.0, maxiter=PCG_ITERATIONS)[0]
        g.time(variant.label + " dataparallel", "pcompute", call, sync=variant.sync(),
               using=variant.use, verify=lambda: close(pc.host(result["x"]), want, rtol=1e-9),
               target=("vs", hand, 1.2))
