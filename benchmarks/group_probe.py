"""Run in a fresh process by the build suite: the first call of a
parallelized function with four loop nests (four kernels) from an empty
cache, its kernels built as one group module (pcompute's default on the
cython backend) or, with ``--alone``, one module each (the cython backend's
``builds_together`` switched off in this process).  Prints JSON on the last
line: the first call's wall and CPU seconds (this process and the compilers
it ran), the modules compiled, and whether the arrays are right.

    python -m benchmarks.group_probe [--alone]

The cache is wherever PCOMPUTE_CACHE_DIR points (the suite sets it).
"""
import json
import resource
import sys
import time

import numpy as np


def four_nests(a, b, c, n):
    for i in range(n):
        b[i] = 2.0 * a[i]
    for i in range(n):
        c[i] = b[i] + a[i]
    for i in range(n):
        a[i] = c[i] - b[i] * 0.5
    for i in range(n):
        c[i] = c[i] * 3.0 + a[i]


def _cpu():
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def main():
    import pcompute
    from pcompute.backends.cython import CythonBackend
    from pcompute.build import cython_builder
    if "--alone" in sys.argv[1:]:
        CythonBackend.builds_together = False
    n = 1000
    got = [np.linspace(0.0, 1.0, n), np.zeros(n), np.zeros(n)]
    want = [g.copy() for g in got]
    with pcompute.use_config(backend="cython", use_openmp=False):
        f = pcompute.parallelize(four_nests)
        c0, t0 = _cpu(), time.perf_counter()
        f(*got, n)
        first, cpu = time.perf_counter() - t0, _cpu() - c0
    four_nests(*want, n)
    ok = all(np.array_equal(g, w) for g, w in zip(got, want))
    print(json.dumps({"first_s": first, "cpu_s": cpu, "ok": ok,
                      "stats": dict(cython_builder.stats)}))


if __name__ == "__main__":
    main()
