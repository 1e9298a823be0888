"""Suite 2: per-call overhead of Elementwise at n = 1.

Every call is synchronised (for OpenCL this is launch latency).  C through
ctypes and numpy show the floor of any Python-to-compiled call here.
"""
import numpy as np

from pcompute import Elementwise

from .. import pc
from ..context import close

NAME = "overhead"
CASE = "Elementwise"
TARGET = ("time", 10e-6)        # cython backend, per call


def run(ctx):
    x, y0 = np.full(1, 2.0), np.full(1, 1.0)
    with ctx.group(NAME, CASE, 1) as g:
        for variant in (pc.SERIAL, pc.OMP, pc.OPENCL, pc.PYTHON):
            _pcompute(ctx, g, variant, x, y0)
        _cython_arrays(g, x, y0)
        cref = ctx.cref
        if cref is not None:
            y = y0.copy()
            g.time("C axpy via ctypes", "reference", lambda: cref.axpy(0.5, x, y))
        y = y0.copy()
        g.time("numpy (y += a*x)", "peer", lambda: y.__iadd__(0.5 * x))


def _pcompute(ctx, g, variant, x, y0):
    why = variant.why_unavailable()
    if why:
        ctx.rec.note("%s skipped in %s: %s" % (variant.label, NAME, why))
        return
    xd, yd = variant.put(x, y0.copy())
    kernel = Elementwise(pc.axpy)
    sync = variant.sync()

    def call():
        kernel(0.0, xd, yd)
        sync()
    label = variant.label + (" (numpy args)" if variant.on_host else "")
    g.time(label, "pcompute", call, verify=lambda: close(pc.host(yd), y0),
           after_first=pc.build_counter(), using=variant.use,
           target=TARGET if variant is pc.SERIAL else None)


def _cython_arrays(g, x, y0):
    """The cython backend called with pcompute Arrays, as Compyle users do."""
    from pcompute import wrap
    variant = pc.SERIAL
    xa, ya = wrap(x, y0.copy(), backend="cython")
    kernel = Elementwise(pc.axpy)
    g.time(variant.label + " (Array args)", "pcompute", lambda: kernel(0.0, xa, ya),
           verify=lambda: close(ya.get(), y0), using=variant.use, target=TARGET)
