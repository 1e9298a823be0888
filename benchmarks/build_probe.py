"""Run in a fresh process by the build suite: import pcompute, build (or load
from the cache) one Elementwise kernel, print JSON timings on the last line.

    python -m benchmarks.build_probe [--openmp]

It lives outside ``benchmarks.suites`` so that nothing but pcompute and numpy
is imported before the clock starts.

The cache is wherever PCOMPUTE_CACHE_DIR points (the suite sets it).
"""
import time

T0 = time.perf_counter()

import json  # noqa: E402
import logging  # noqa: E402
import sys  # noqa: E402

import numpy as np  # noqa: E402


class _Messages(logging.Handler):
    def __init__(self):
        super().__init__(logging.INFO)
        self.lines = []

    def emit(self, record):
        self.lines.append(record.getMessage())


def axpy(i, a, x, y):
    y[i] = a * x[i] + y[i]


def main():
    openmp = "--openmp" in sys.argv[1:]
    t_import = time.perf_counter()
    import pcompute
    from pcompute.build import cython_builder
    t_import = time.perf_counter() - t_import
    messages = _Messages()
    log = logging.getLogger("pcompute.build")
    log.addHandler(messages)
    log.setLevel(logging.INFO)
    x, y = np.ones(1000), np.ones(1000)
    with pcompute.use_config(backend="cython", use_openmp=openmp):
        t1 = time.perf_counter()
        kernel = pcompute.Elementwise(axpy)
        kernel(2.0, x, y)
        first = time.perf_counter() - t1
        t2 = time.perf_counter()
        kernel(2.0, x, y)
        second = time.perf_counter() - t2
    ok = bool(np.all(y == 5.0))
    print(json.dumps({"import_s": t_import, "first_s": first, "second_s": second,
                      "to_first_result_s": time.perf_counter() - T0, "ok": ok,
                      "stats": dict(cython_builder.stats), "log": messages.lines}))


if __name__ == "__main__":
    main()
