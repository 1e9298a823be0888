"""Suite: NumPy programs (examples/numpy_programs) with only the import changed
to ``pcompute.numpy``, against NumPy itself and numexpr (2 threads).

Each program's lazy result is evaluated (``pcompute.numpy.evaluate``) inside
the timed call; the first call (graph, code generation, compile or cache
load) is reported apart from the warm median.  A last group measures the
fixed cost of a cached five-operation chain at n = 1.
"""
import numpy as np

import pcompute.numpy as pnp
from examples.numpy_programs import load

from .. import pc
from ..context import close
from ..peers import numexpr_peer

NAME = "numpy"

# The programs and, where numexpr can say the same thing, its expression.
PROGRAMS = {
    "arc_distance": "2 * arctan2(sqrt(t), sqrt(1 - t))",
    "pythagorean_id": "sin(a) ** 2 + cos(b) ** 2",
    "vibr_energy": "sum(exp(-h * v - o) * (h * v + o))",
    "log_likelihood": "sum(log(exp(-((d - m) ** 2) / (2 * s ** 2)) / sqrt(2 * pi * s ** 2)))",
    "l2norm": None, "rosen": None, "harris": None, "laplacien": None,
    "specialconvolve": None, "cronbach": None, "grayscott": None, "evolve": None,
    "nn": None,
}


def _numexpr_run(name, args, out):
    if name == "pythagorean_id":
        return numexpr_peer.evaluator(PROGRAMS[name], out, a=args[0], b=args[1])
    if name == "vibr_energy":
        h, o, v = args
        return lambda: numexpr_peer.numexpr.evaluate(PROGRAMS[name], local_dict=dict(
            h=h, o=o, v=v))
    if name == "log_likelihood":
        d, m, s = args
        return lambda: numexpr_peer.numexpr.evaluate(PROGRAMS[name], local_dict=dict(
            d=d, m=m, s=s, pi=np.pi))
    return None


def _arc_numexpr(args, out):
    t1, p1, t2, p2 = args
    ne = numexpr_peer.numexpr

    def run():
        t = ne.evaluate("sin((b - a) / 2) ** 2 + cos(a) * cos(b) * sin((d - c) / 2) ** 2",
                        local_dict=dict(a=t1, b=t2, c=p1, d=p2))
        ne.evaluate("2 * arctan2(sqrt(t), sqrt(1 - t))", local_dict=dict(t=t), out=out)
    return run


def run(ctx):
    for name in PROGRAMS:
        _program(ctx, name)
    _overhead(ctx)


def _program(ctx, name):
    plain, lazy = load(name, lazy=False), load(name, lazy=True)
    for n in ctx.sizes(6 * 8, NAME):
        args = plain.inputs(n)
        want = np.array(plain.MAIN(*args))     # a copy: grayscott returns an input
        check = lambda got: close(np.asarray(got), want, rtol=1e-9, atol=1e-12)  # noqa
        with ctx.group(NAME, name, n) as g:
            g.time("numpy", "reference", lambda: plain.MAIN(*args), is_ref=True)
            for variant in (pc.OMP, pc.SERIAL, pc.OPENCL):
                why = variant.why_unavailable()
                if why:
                    ctx.rec.note("%s skipped: %s" % (variant.label, why))
                    continue
                with g.guard("pcompute.numpy " + variant.label, "pcompute"):
                    with variant.use():
                        largs = lazy.inputs(n)
                    result = {}

                    def call(largs=largs):
                        result["v"] = pnp.evaluate(lazy.MAIN(*largs))
                    g.time("pcompute.numpy " + variant.label.replace("pcompute ", ""),
                           "pcompute", call, using=variant.use, sync=variant.sync(),
                           verify=lambda: check(result["v"]))
            if numexpr_peer.why_missing() or PROGRAMS[name] is None:
                continue
            with g.guard("numexpr", "peer"):
                out = np.empty_like(want) if want.ndim else None
                fn = _arc_numexpr(args, out) if name == "arc_distance" else \
                    _numexpr_run(name, args, out)
                holder = {}

                def ne_call(fn=fn):
                    holder["v"] = fn()
                g.time("numexpr %d threads" % numexpr_peer.threads(), "peer", ne_call,
                       verify=lambda: check(out if out is not None else holder["v"]))


def _overhead(ctx):
    """A cached 5-operation chain at n = 1 (the eager path below eager_below)."""
    x = pnp.asarray(np.ones(1))
    y = pnp.asarray(np.full(1, 2.0))
    with ctx.group(NAME, "5-op chain overhead", 1) as g:
        g.time("numpy", "reference", lambda: (np.ones(1) * 2 + 1) / 3 - np.ones(1),
               is_ref=True)
        g.time("pcompute.numpy (eager below threshold)", "pcompute",
               lambda: pnp.evaluate(((x * y + 1.0) / 3.0 - x) * y))
