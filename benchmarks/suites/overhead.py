"""Suite 2: per-call overhead of Elementwise, Reduction and Scan at n = 1.

Every call is synchronised (for OpenCL this is launch latency; a Reduction
returns a host number, so it always waits for the device).  C through ctypes
and numpy show the floor of any Python-to-compiled call here.  For OpenCL the
floor is bare pyopencl in the same run: the same number of enqueues of a
hand-written one-item kernel whose arguments are set once
(``enqueue_nd_range_kernel``), with the same synchronisation (``finish``, or
the Reduction's blocking read of one number).  Targets (issue 22): about 1 us
per call on the cython backend (Elementwise at most 1.5 us), under 20 us on
OpenCL (PoCL), and within 1.3x of the bare pyopencl floor.
"""
import numpy as np

from pcompute import Elementwise, Reduction

from .. import pc
from ..context import close

NAME = "overhead"
CASE = "Elementwise"
TARGET = ("time", 1.5e-6)           # cython backend, per call
OPENCL_TARGET = ("time", 20e-6)
#: pcompute opencl against bare pyopencl doing the same launches (median ratio).
FLOOR_RATIO = 1.3
#: A one-item kernel for the bare pyopencl floor (hand-written OpenCL C).
FLOOR_SOURCE = """__kernel void floor_axpy(long n, __global double *x, __global double *y,
                         double a)
{ long i = get_global_id(0); if (i < n) y[i] = a * x[i] + y[i]; }"""


def run(ctx):
    x, y0 = np.full(1, 2.0), np.full(1, 1.0)
    _elementwise(ctx, x, y0)
    _reduction(ctx, x)
    _scan(ctx, x)


def _target(variant, floor=None):
    if variant is pc.OPENCL:
        return [OPENCL_TARGET] + ([("vs", floor, FLOOR_RATIO)] if floor else [])
    return TARGET if variant in (pc.SERIAL, pc.OMP) else None


def _opencl_floor(g, launches, read=False):
    """Time bare pyopencl doing ``launches`` enqueues of a one-item kernel,
    then ``finish`` (or, with ``read``, a blocking read of one number), on
    pcompute's queue; returns the row's label (None if OpenCL is missing)."""
    if pc.OPENCL.why_unavailable():
        return None
    import pyopencl as cl
    from pcompute import get_backend
    queue = get_backend("opencl").queue
    label = "bare pyopencl: %d enqueue%s + %s (floor)" % (
        launches, "s" if launches > 1 else "", "blocking read" if read else "finish")
    with g.guard(label, "reference"):
        kernel = cl.Program(queue.context, FLOOR_SOURCE).build().floor_axpy
        host = np.full(1, 2.0)
        x = cl.Buffer(queue.context, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR,
                      hostbuf=host)
        y = cl.Buffer(queue.context, cl.mem_flags.READ_WRITE, 8)
        kernel.set_args(np.int64(1), x, y, np.float64(0.0))
        enqueue, copy = cl.enqueue_nd_range_kernel, cl.enqueue_copy

        def call(buffers=(x, y)):       # referenced: the kernel's arguments stay alive
            for _ in range(launches):
                enqueue(queue, kernel, (1,), None)
            if read:
                copy(queue, host, y)
            else:
                queue.finish()
        g.time(label, "reference", call)
        return label


def _available(ctx, variant, case):
    why = variant.why_unavailable()
    if why:
        ctx.rec.note("%s skipped in %s %s: %s" % (variant.label, NAME, case, why))
    return not why


def _label(variant):
    return variant.label + (" (numpy args)" if variant.on_host else "")


def _elementwise(ctx, x, y0):
    with ctx.group(NAME, CASE, 1) as g:
        floor = _opencl_floor(g, 1)
        for variant in (pc.SERIAL, pc.OMP, pc.OPENCL, pc.PYTHON):
            if not _available(ctx, variant, CASE):
                continue
            xd, yd = variant.put(x, y0.copy())
            kernel = Elementwise(pc.axpy)
            sync = variant.sync()

            def call(kernel=kernel, xd=xd, yd=yd, sync=sync):
                kernel(0.0, xd, yd)
                sync()
            g.time(_label(variant), "pcompute", call,
                   verify=lambda yd=yd: close(pc.host(yd), y0),
                   after_first=pc.build_counter(), using=variant.use,
                   target=_target(variant, floor))
        xa, ya = _arrays(x, y0.copy())
        kernel = Elementwise(pc.axpy)
        g.time(pc.SERIAL.label + " (Array args)", "pcompute", lambda: kernel(0.0, xa, ya),
               verify=lambda: close(ya.get(), y0), using=pc.SERIAL.use, target=TARGET)
        cref = ctx.cref
        if cref is not None:
            y = y0.copy()
            g.time("C axpy via ctypes", "reference", lambda: cref.axpy(0.5, x, y))
        y = y0.copy()
        g.time("numpy (y += a*x)", "peer", lambda: y.__iadd__(0.5 * x))


def _reduction(ctx, x):
    case = "Reduction (sum)"
    with ctx.group(NAME, case, 1) as g:
        floor = _opencl_floor(g, 2, read=True)
        for variant in (pc.SERIAL, pc.OPENCL):
            if not _available(ctx, variant, case):
                continue
            xd = variant.put(x)
            total = Reduction("a+b")
            g.time(_label(variant), "pcompute", lambda total=total, xd=xd: total(xd),
                   verify=lambda total=total, xd=xd: close(np.array([total(xd)]), x),
                   after_first=pc.build_counter(), using=variant.use,
                   target=_target(variant, floor))
        xa = _arrays(x)
        total = Reduction("a+b")
        g.time(pc.SERIAL.label + " (Array args)", "pcompute", lambda: total(xa),
               using=pc.SERIAL.use, target=TARGET)
        cref = ctx.cref
        if cref is not None:
            g.time("C sum via ctypes", "reference", lambda: cref.sum(x))
        g.time("numpy (x.sum())", "peer", x.sum)


def _scan(ctx, x):
    case = "Scan (inclusive)"
    with ctx.group(NAME, case, 1) as g:
        floor = _opencl_floor(g, 3)
        for variant in (pc.SERIAL, pc.OPENCL):
            if not _available(ctx, variant, case):
                continue
            xd, yd = variant.put(x, np.zeros(1))
            with variant.use():
                scan = pc.make_scan()
            sync = variant.sync()

            def call(scan=scan, xd=xd, yd=yd, sync=sync):
                scan(xd, yd)
                sync()
            g.time(_label(variant), "pcompute", call,
                   verify=lambda yd=yd: close(pc.host(yd), x),
                   after_first=pc.build_counter(), using=variant.use,
                   target=_target(variant, floor))
        xa, ya = _arrays(x, np.zeros(1))
        with pc.SERIAL.use():
            scan = pc.make_scan()
        g.time(pc.SERIAL.label + " (Array args)", "pcompute", lambda: scan(xa, ya),
               verify=lambda: close(ya.get(), x), using=pc.SERIAL.use, target=TARGET)
        cref = ctx.cref
        if cref is not None:
            y = np.zeros(1)
            g.time("C scan via ctypes", "reference", lambda: cref.scan(x, y))
        y = np.zeros(1)
        g.time("numpy (cumsum(x, out=y))", "peer", lambda: np.cumsum(x, out=y))


def _arrays(*host):
    """pcompute Arrays of the cython backend (as Compyle users call kernels)."""
    from pcompute import wrap
    return wrap(*[h.copy() for h in host], backend="cython")
