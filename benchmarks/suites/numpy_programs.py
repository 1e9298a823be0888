"""Suite: NumPy programs (examples/numpy_programs) with only the import changed
to ``pcompute.numpy``, against NumPy itself and numexpr (its threads = the cores).

Each program's lazy result is evaluated (``pcompute.numpy.evaluate``) inside
the timed call; the first call (graph, code generation, compile or cache
load) is reported apart from the warm median (cold / warm, as DelayRepay
reports them).  The issue's targets (n about 10^7, 2 threads):

* every program: pcompute.numpy with OpenMP never slower than NumPy;
* geometric mean over the programs: at least 4x NumPy's speed, at least 1.5x
  numexpr's over the programs numexpr runs (summary rows at the end);
* peak memory of a call no higher than numexpr's: the bytes a call allocates
  above the level before it, at their peak (``tracemalloc``: NumPy's arrays
  and Python's objects; numexpr's few block buffers per thread are not
  counted).  pcompute.numpy's large outputs come from a pool of buffers kept
  between calls (:mod:`pcompute.backends.host_pool`), which tracemalloc does
  not see again once allocated, so the pool is emptied before the measured
  call: every buffer the call uses is then a new allocation, and buffers it
  drops stay counted (the pool keeps them), an upper bound.  The second
  figure, with the pool as the timed calls left it, is what remains: arrays
  not from the pool (small ones, NumPy's work on the host) and the Python
  objects of an evaluation (graph nodes, the lowered kernel's text and
  arguments: 6-28 KiB).  The verdict allows :data:`PEAK_SLACK` for those
  objects (numexpr's own are 2-5 KiB); an array of the suite's sizes is far
  larger.
* a cached 5-operation chain at n = 1 evaluated in under 30 us.
"""
import contextlib
import functools
import math
import tracemalloc

import numpy as np

import pcompute.numpy as pnp
from examples.numpy_programs import PROGRAMS, load

from pcompute.backends import host_pool
from pcompute.numpy.options import eager_below

from .. import pc
from ..context import close
from ..peers import numexpr_peer
from .numpy_numexpr import MAKERS

NAME = "numpy"
SPEEDUP_NUMPY = 4.0             # geometric mean over NumPy, 2 threads
SPEEDUP_NUMEXPR = 1.5           # geometric mean over numexpr, 2 threads
OVERHEAD = 30e-6                # a cached 5-op chain at n = 1
PEAK_SLACK = 64 * 1024          # bytes of Python objects allowed above numexpr's peak
VARIANTS = (pc.OMP, pc.SERIAL, pc.OPENCL)
#: Sizes of the mid-size rows (a warm 5-op chain): below and above the
#: default ``eager_below`` (32768).
MIDSIZES = (16384, 65536)
#: Target of pcompute.numpy as configured (OpenMP) at the mid sizes: below
#: ``eager_below`` NumPy runs each operation and the layer adds its
#: per-operation cost (a node and an array: about 1.5 us each); above, one
#: fused kernel, which must beat NumPy.
MIDSIZE_EAGER_RATIO = 1.5


def _label(variant):
    return "pcompute.numpy " + variant.label.replace("pcompute ", "")


def _numexpr_label():
    return "numexpr %d threads" % numexpr_peer.threads()


def run(ctx):
    medians = {}                # (program, n) -> {impl: median seconds}
    for name in PROGRAMS:
        _program(ctx, name, medians)
    _summary(ctx, medians)
    _axis_sums(ctx)
    _overhead(ctx)
    _midsize(ctx)


def peak_bytes(fn, before=None):
    """Bytes allocated through NumPy (and Python) above the level before one
    call of ``fn`` at its peak (``tracemalloc``); ``before()`` runs first,
    outside the count (e.g. emptying a pool of buffers)."""
    started = not tracemalloc.is_tracing()
    if started:
        tracemalloc.start()
    try:
        if before is not None:
            before()
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        fn()
        return tracemalloc.get_traced_memory()[1] - base
    finally:
        if started:
            tracemalloc.stop()


def _program(ctx, name, medians):
    plain, lazy = load(name, lazy=False), load(name, lazy=True)
    for n in ctx.sizes(6 * 8, NAME):
        args = plain.inputs(n)
        want = np.array(plain.MAIN(*args))     # a copy: grayscott returns an input
        check = lambda got: close(np.asarray(got), want, rtol=1e-9, atol=1e-12)  # noqa
        peaks, objects = {}, {}
        with ctx.group(NAME, name, n) as g:
            rows = {"numpy": g.time("numpy", "reference", lambda: plain.MAIN(*args),
                                    is_ref=True)}
            peaks["numpy"] = peak_bytes(lambda: plain.MAIN(*plain.inputs(n)))
            for variant in VARIANTS:
                why = variant.why_unavailable()
                if why:
                    ctx.rec.note("%s skipped: %s" % (variant.label, why))
                    continue
                label = _label(variant)
                with g.guard(label, "pcompute"):
                    with variant.use():
                        largs = lazy.inputs(n)
                    result = {}

                    def call(largs=largs):
                        result["v"] = pnp.evaluate(lazy.MAIN(*largs))
                    rows[label] = g.time(
                        label, "pcompute", call, using=variant.use, sync=variant.sync(),
                        verify=lambda: check(result["v"]),
                        target=("ratio", 1.0) if variant is pc.OMP else None)
                    if variant.on_host:
                        with variant.use():
                            peaks[label] = peak_bytes(call, before=host_pool.release)
                            objects[label] = peak_bytes(call)
            if not numexpr_peer.why_missing() and name in MAKERS:
                label = _numexpr_label()
                with g.guard(label, "peer"):
                    ne_args = plain.inputs(n)
                    fn, holder = MAKERS[name](ne_args), {}

                    def ne_call(fn=fn):
                        holder["v"] = fn()
                    rows[label] = g.time(label, "peer", ne_call,
                                         verify=lambda: check(holder["v"]))
                    peaks[label] = peak_bytes(ne_call)
            for label, row in rows.items():
                if label in peaks and row:
                    row.setdefault("extra", {})["peak_bytes"] = peaks[label]
                if label in objects and row:
                    row["extra"]["peak_bytes_pool_warm"] = objects[label]
        _peak_note(ctx, name, n, peaks, objects)
        medians[(name, n)] = {r.impl: r.stats.median for r in ctx.rec.rows
                              if (r.suite, r.case, r.n) == (NAME, name, n) and r.stats
                              and not r.check.startswith(("WRONG", "FAILED"))}


def _peak_note(ctx, name, n, peaks, objects):
    if not peaks:
        return
    text = ", ".join("%s %.1f MiB" % (k, v / 2**20) for k, v in peaks.items())
    if objects:
        text += " (pcompute.numpy with its pool warm: %s)" % ", ".join(
            "%.1f KiB" % (v / 1024) for v in objects.values())
    ne = peaks.get(_numexpr_label()) if not numexpr_peer.why_missing() else None
    ctx.rec.note("%s n=%d peak memory of one call: %s%s" % (
        name, n, text, peak_verdict(peaks, ne)))


def peak_verdict(peaks, numexpr):
    """'; pcompute.numpy within/ABOVE numexpr's peak' for the peaks of the
    pcompute.numpy rows against numexpr's (``PEAK_SLACK`` allowed for the
    Python objects of an evaluation); '' without numexpr or pcompute rows."""
    mine = [v for k, v in peaks.items() if k.startswith("pcompute")]
    if numexpr is None or not mine:
        return ""
    return "; pcompute.numpy %s numexpr's peak (+%d KiB for Python objects)" % (
        "within" if max(mine) <= numexpr + PEAK_SLACK else "ABOVE", PEAK_SLACK // 1024)


def _geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def _summary(ctx, medians):
    """Rows with the geometric-mean speed-ups and the targets' verdicts."""
    sizes = sorted({n for _, n in medians})
    ne_label = None if numexpr_peer.why_missing() else _numexpr_label()
    for n in sizes:
        programs = {name: m for (name, k), m in medians.items() if k == n and "numpy" in m}
        for variant in VARIANTS:
            label = _label(variant)
            ratios = [m["numpy"] / m[label] for m in programs.values() if label in m]
            if not ratios:
                continue
            gm = _geomean(ratios)
            worst = min(ratios)
            ctx.rec.add(NAME, "geometric mean over NumPy", n, label, "pcompute",
                        note="%.2fx over %d programs (slowest %.2fx)" % (
                            gm, len(ratios), worst),
                        target=("speedup", SPEEDUP_NUMPY) if variant is pc.OMP else None,
                        extra={"target_value": gm, "programs": len(ratios)})
            print("  geometric mean %-30s %.2fx NumPy over %d programs (slowest %.2fx)"
                  % (label, gm, len(ratios), worst))
            if ne_label is None:
                continue
            ne = [m[ne_label] / m[label] for m in programs.values()
                  if label in m and ne_label in m]
            if not ne:
                continue
            gm = _geomean(ne)
            ctx.rec.add(NAME, "geometric mean over numexpr", n, label, "pcompute",
                        note="%.2fx over %d programs" % (gm, len(ne)),
                        target=("speedup", SPEEDUP_NUMEXPR) if variant is pc.OMP else None,
                        extra={"target_value": gm, "programs": len(ne)})
            print("  geometric mean %-30s %.2fx numexpr over %d programs" % (label, gm, len(ne)))


def _axis_sums(ctx):
    """Sums along an axis with few lines (not in the geometric means): a
    (3, n/3) array summed along its long axis (3 items kept: one parallel
    map+reduce per item) and along its short one (an elementwise kernel
    adding the 3 lines)."""
    for n in ctx.sizes(8 * 2, NAME):
        host = np.random.default_rng(0).random((3, max(n // 3, 1)))
        for axis in (1, 0):
            case = "sum(axis=%d) of (3, n/3)" % axis
            want = host.sum(axis=axis)
            with ctx.group(NAME, case, n) as g:
                g.time("numpy", "reference", lambda axis=axis: host.sum(axis=axis),
                       is_ref=True)
                for variant in VARIANTS:
                    why = variant.why_unavailable()
                    if why:
                        continue
                    label = _label(variant)
                    with g.guard(label, "pcompute"):
                        with variant.use():
                            lazy = pnp.asarray(host)
                        result = {}

                        def call(lazy=lazy, axis=axis):
                            result["v"] = pnp.evaluate(lazy.sum(axis=axis))
                        g.time(label, "pcompute", call, using=variant.use, sync=variant.sync(),
                               verify=lambda: close(np.asarray(result["v"]), want,
                                                    rtol=1e-9, atol=1e-12),
                               target=("ratio", 1.0) if variant is pc.OMP else None)


def _overhead(ctx):
    """A cached 5-operation chain at n = 1 (the eager path below eager_below)."""
    x = pnp.asarray(np.ones(1))
    y = pnp.asarray(np.full(1, 2.0))
    with ctx.group(NAME, "5-op chain overhead", 1) as g:
        g.time("numpy", "reference", lambda: (np.ones(1) * 2 + 1) / 3 - np.ones(1),
               is_ref=True)
        g.time("pcompute.numpy (eager below threshold)", "pcompute",
               lambda: pnp.evaluate(((x * y + 1.0) / 3.0 - x) * y),
               target=("time", OVERHEAD))
    # Above the eager threshold: one fused kernel per call, its lowering
    # taken from the plan kept for this graph shape (none is lowered again).
    with pc.SERIAL.use():
        n = max(eager_below(), 1)
    hx, hy = np.ones(n), np.full(n, 2.0)
    with ctx.group(NAME, "5-op chain, one fused kernel", n) as g:
        g.time("numpy", "reference", lambda: ((hx * hy + 1.0) / 3.0 - hx) * hy, is_ref=True)
        for variant in (pc.SERIAL,):     # (threads would time their wake-up)
            if variant.why_unavailable():
                continue
            with variant.use():
                x, y = pnp.asarray(hx), pnp.asarray(hy)
            before = {}

            def call(x=x, y=y):
                pnp.evaluate(((x * y + 1.0) / 3.0 - x) * y)

            def lowered(before=before):
                return "lowerings in the warm calls: %d" % (
                    pnp.stats()["lowerings"] - before["n"])
            with variant.use():
                call()
            before["n"] = pnp.stats()["lowerings"]
            row = g.time(_label(variant), "pcompute", call, using=variant.use)
            row["note"] = lowered()


def _chain(xp_x, xp_y):
    return ((xp_x * xp_y + 1.0) / 3.0 - xp_x) * xp_y


@contextlib.contextmanager
def _fused_only(variant):
    """``variant``'s configuration with every region a kernel (eager_below=0)."""
    old = pnp.set_options(eager_below=0)
    try:
        with variant.use():
            yield
    finally:
        pnp.set_options(eager_below=old["eager_below"])


def _midsize(ctx):
    """The warm 5-op chain at mid sizes, against NumPy: pcompute.numpy as
    configured (NumPy itself runs the regions below ``eager_below``) and its
    fused kernel forced (``eager_below=0``).  Where the forced rows cross
    NumPy's is where ``eager_below`` belongs (docs/numpy.rst, "Small arrays": how the
    default was measured)."""
    with pc.OMP.use():
        threshold = eager_below()
    for n in MIDSIZES:
        rng = np.random.default_rng(n)
        hx, hy = rng.random(n), rng.random(n) + 1.0
        want = _chain(hx, hy)
        with ctx.group(NAME, "5-op chain, mid-size", n) as g:
            g.time("numpy", "reference", lambda hx=hx, hy=hy: _chain(hx, hy), is_ref=True)
            for variant in VARIANTS:
                if variant.why_unavailable():
                    continue
                with variant.use():
                    x, y = pnp.asarray(hx), pnp.asarray(hy)
                for forced in (False, True):
                    result = {}

                    def call(x=x, y=y, result=result):
                        result["v"] = pnp.evaluate(_chain(x, y))

                    if forced:
                        label = _label(variant) + " fused (eager_below=0)"
                        using = functools.partial(_fused_only, variant)
                        target = None
                    else:
                        label = _label(variant)
                        using = variant.use
                        target = None if variant is not pc.OMP else (
                            "ratio", MIDSIZE_EAGER_RATIO if n < threshold else 1.0)
                    g.time(label, "pcompute", call, using=using, sync=variant.sync(),
                           verify=lambda result=result: close(np.asarray(result["v"]), want,
                                                              rtol=1e-12, atol=1e-12),
                           target=target)
