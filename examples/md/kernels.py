"""The example's kernel objects, made once per process.

Every simulation on a backend launches the same kernels, so they share one
Elementwise, Reduction or Scan object each (per function, backend and
result type): an object keeps what it built (per argument types and
configuration) and the checks it ran, so a second simulation costs no
front-end work (reading, checking and typing the ~15 kernels of a run took
about 0.15 s per simulation on cython with every module built).  Launching
one object with another simulation's arrays is an ordinary call.

A kernel object keeps the module-level numbers its build read (as every
Elementwise does); the example's (``physics.py``) are constants.
"""
import functools

import numpy as np

from pcompute import Elementwise, Reduction, Scan


@functools.lru_cache(maxsize=None)
def elementwise(func, backend):
    """The Elementwise of ``func`` on ``backend`` (a name)."""
    return Elementwise(func, backend=backend)


@functools.lru_cache(maxsize=None)
def reduction(reduce_expr, map_func, dtype_out, backend, neutral=None):
    """The Reduction ``reduce_expr`` of ``map_func`` (None: of its one
    array) into ``dtype_out`` on ``backend``."""
    return Reduction(reduce_expr, map_func=map_func, dtype_out=np.dtype(dtype_out),
                     neutral=neutral, backend=backend)


@functools.lru_cache(maxsize=None)
def scan(input, output, scan_expr, dtype, backend):
    """The Scan of ``input`` into ``output`` on ``backend``."""
    return Scan(input=input, output=output, scan_expr=scan_expr, dtype=np.dtype(dtype),
                backend=backend)
