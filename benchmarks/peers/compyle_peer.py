"""Compyle (the system pcompute replaces), when importable; else skipped.

Three variants, like pcompute's: Compyle's cython backend with and without
OpenMP, and its OpenCL backend (its own context, ``PYOPENCL_CTX`` defaults to
the first platform).  Every call runs inside ``compyle.config.use_config``
(``using``), double precision.  The kernels are this module's own typed
functions (Compyle takes the launch size from the first argument after
``i``, so arrays come first).  On the cython backend ``wrap`` does not copy:
results land in the wrapped numpy arrays; on OpenCL ``host()`` pulls them.

Compyle compiles each kernel on first use (about 5-10 s with cython; cached
in ``~/.compyle`` afterwards): that is the "first call" column only.
"""
import os
from dataclasses import dataclass

import numpy as np

try:
    from compyle.api import Elementwise, Reduction, Scan, annotate, wrap
    from compyle.config import use_config
    import compyle
    _ERROR = None
except Exception as exc:
    compyle = None
    _ERROR = "compyle is not importable (%s: %s); pip install compyle to compare" % (
        type(exc).__name__, exc)


def why_missing():
    return _ERROR


def version():
    return getattr(compyle, "__version__", None) if compyle else None


@dataclass(frozen=True)
class Variant:
    label: str
    backend: str
    openmp: bool = False
    schedule: tuple = None      # OpenMP schedule; None: Compyle's ("dynamic", 64)

    def use(self):
        if self.backend == "opencl":
            os.environ.setdefault("PYOPENCL_CTX", "0")
        kw = {"omp_schedule": self.schedule} if self.schedule else {}
        return use_config(use_openmp=self.openmp, use_double=True, **kw)

    def sync(self):
        if self.backend != "opencl":
            return None
        from compyle.opencl import get_queue
        return get_queue().finish

    def put(self, *arrays):
        """Compyle Arrays: the numpy arrays themselves on cython, device
        copies on OpenCL."""
        with self.use():
            if self.backend == "opencl":
                arrays = [a.copy() for a in arrays]
            return wrap(*arrays, backend=self.backend)


OMP = Variant("compyle cython+omp", "cython", True)
SERIAL = Variant("compyle cython", "cython", False)
OPENCL = Variant("compyle opencl", "opencl", False)
OMP_STATIC = Variant("compyle cython+omp static", "cython", True, ("static", None))
VARIANTS = (OMP, SERIAL, OPENCL)
# axpy, sum, scan also run with config.omp_schedule = ("static", None): Compyle's
# default ("dynamic", 64) costs a lot on loops this cheap.
PRIMITIVE_VARIANTS = (OMP, OMP_STATIC, SERIAL, OPENCL)


def host(a):
    return np.asarray(a.get())


def guard_opencl(variant):
    """Why a Compyle OpenCL variant cannot run here (None when it can)."""
    if variant.backend != "opencl":
        return None
    try:
        with variant.use():
            variant.sync()
        return None
    except Exception as exc:
        return "compyle opencl unavailable (%s: %s)" % (type(exc).__name__, exc)


# ------------------------------------------------------------ kernels

if compyle is not None:
    @annotate(i="int", x="gdoublep", y="gdoublep", a="double")
    def axpy(i, x, y, a):
        y[i] = a * x[i] + y[i]

    @annotate(i="int", x="gdoublep", return_="double")
    def scan_in(i, x):
        return x[i]

    @annotate(i="int", item="double", y="gdoublep")
    def scan_out(i, item, y):
        y[i] = item


    # The same kernels again for the static-schedule variant: Compyle keeps a
    # kernel per function and backend/openmp, not per schedule.
    @annotate(i="int", x="gdoublep", y="gdoublep", a="double")
    def axpy_static(i, x, y, a):
        y[i] = a * x[i] + y[i]

    @annotate(i="int", x="gdoublep", return_="double")
    def scan_in_static(i, x):
        return x[i]

    @annotate(i="int", item="double", y="gdoublep")
    def scan_out_static(i, item, y):
        y[i] = item


def elementwise(variant, a, x, y):
    """``run()``: y = a*x + y on Compyle Arrays ``x``, ``y``."""
    knl = Elementwise(axpy_static if variant.schedule else axpy, backend=variant.backend)
    return lambda: knl(x, y, a)


def reduction(variant, x):
    """``run()``: the sum of Compyle Array ``x``, in ``x``'s type."""
    knl = Reduction("a+b", dtype_out=x.dtype, backend=variant.backend)
    return lambda: knl(x)


def scan(variant):
    """``run(x, y)``: inclusive float64 scan of Compyle Array x into y."""
    funcs = (scan_in_static, scan_out_static) if variant.schedule else (scan_in, scan_out)
    knl = Scan(*funcs, "a+b", dtype=np.float64, backend=variant.backend)
    return lambda x, y: knl(x=x, y=y)


def sort_by_keys(variant, keys, values, key_bits=None, radix=False):
    """``run()`` returning Compyle's sorted (keys, values).  On cython,
    ``radix=False`` is Compyle's default path (numpy ``argsort``, not stable),
    ``radix=True`` its 1-bit-per-pass radix sort (Scan per bit)."""
    from compyle.array import sort_by_keys as sbk

    def run():
        with variant.use():
            out = sbk([keys, values], key_bits=key_bits, backend=variant.backend,
                      use_radix_sort=radix)
        return out[0], out[1]
    return run


def align(variant, arrays, order, outs):
    """``run()``: outs[k][i] = arrays[k][order[i]] (Compyle's ``align``)."""
    from compyle.array import align as calign
    return lambda: calign(list(arrays), order, out_list=list(outs),
                          backend=variant.backend)
