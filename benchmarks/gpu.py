"""GPU figures in one run: pcompute's CUDA backend beside CuPy on the same GPU.

``python -m benchmarks.gpu [--n 1e6,1e7,1e8] [--samples 20] [--md-n 1e4,1e5,1e6]
[--out FILE.json]``

Rows: an Elementwise ``y = a*x + y`` (CuPy: a fused ``ElementwiseKernel``),
the sum Reduction (``cupy.sum``), the inclusive Scan (``cupy.cumsum``) and
``sort_by_keys`` of int32 keys with int32 values (CuPy: ``argsort`` then two
gathers), in float32 and float64; each checked against NumPy on the host
before it is timed.  Every sample is the wall time of one call followed by a
device synchronisation; the medians and best samples are printed side by
side with the ratio pcompute/CuPy (below 1: pcompute faster).  The MD rows
run ``python -m examples.md`` three times for a fixed number of steps on the
cuda backend (float32 and float64) and on cython+OpenMP (float64) on the same
machine's CPU cores, and parse its ms/step (median and best of the runs).  Results go to ``--out`` as JSON together with the machine (GPU
name, driver, CPU) and the commit.
"""
import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import time
import traceback

import numpy as np

from .pc import axpy, scan_input, scan_output


def _sizes(text):
    return tuple(int(float(t)) for t in text.split(",") if t.strip())


def timed(fn, sync, samples, warmup=3):
    """(median, best) seconds of ``fn(); sync()`` over ``samples`` calls."""
    for _ in range(warmup):
        fn()
        sync()
    times = []
    for _ in range(samples):
        t0 = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), min(times)


class Rows:
    """Collects rows and prints them as they come."""

    def __init__(self):
        self.rows = []

    def add(self, op, dtype, n, impl, med, best, note=""):
        row = dict(op=op, dtype=dtype, n=n, impl=impl, median_s=med, best_s=best, note=note)
        self.rows.append(row)
        print("%-6s %-8s %10d  %-26s median %10.3f ms  best %10.3f ms  %s"
              % (op, dtype, n, impl, med * 1e3, best * 1e3, note), flush=True)

    def ratio(self, op, dtype, n):
        got = {r["impl"]: r for r in self.rows
               if (r["op"], r["dtype"], r["n"]) == (op, dtype, n)}
        ours = next((r for k, r in got.items() if k.startswith("pcompute")), None)
        peer = got.get("cupy")
        if ours and peer:
            print("%-6s %-8s %10d  ratio pcompute/cupy: median %.2f, best %.2f"
                  % (op, dtype, n, ours["median_s"] / peer["median_s"],
                     ours["best_s"] / peer["best_s"]), flush=True)


def _part(backend, seed):
    """What each part of the run starts with: CuPy (None, with a printed
    line, where it does not import), the backend's synchronize, the label of
    pcompute's rows and a random generator seeded with ``seed``."""
    from pcompute import get_backend
    try:
        import cupy as cp
    except ImportError as exc:
        print("CuPy rows skipped: %s" % exc, flush=True)
        cp = None
    return (cp, get_backend(backend).synchronize, "pcompute " + backend,
            np.random.default_rng(seed))


def primitives(rows, sizes, samples, backend="cuda"):
    """axpy, sum and scan in float32 and float64 beside CuPy's."""
    from pcompute import Elementwise, Reduction, Scan, use_config, wrap
    cp, sync, me, rng = _part(backend, seed=1)
    for dtype in (np.float32, np.float64):
        dt = np.dtype(dtype).name
        with use_config(backend=backend, use_double=(dtype == np.float64)):
            ew = Elementwise(axpy)
            red = Reduction("a+b", dtype_out=dtype)
            scan = Scan(scan_input, scan_output, "a+b", dtype=dtype)
            for n in sizes:
                x = rng.random(n).astype(dtype)
                y = rng.random(n).astype(dtype)
                a = dtype(2.5)
                xd, yd = wrap(x.copy(), y.copy(), backend=backend)
                ew(a, xd, yd)
                assert np.allclose(yd.get(), a * x + y, rtol=1e-5), "axpy wrong"
                med, best = timed(lambda: ew(a, xd, yd), sync, samples)
                gbs = 3 * n * x.itemsize / med / 1e9
                rows.add("axpy", dt, n, me, med, best, "%.0f GB/s" % gbs)
                if cp is not None:
                    k = cp.ElementwiseKernel("T a, T x", "T y", "y = a * x + y", "axpy")
                    cx, cy = cp.asarray(x), cp.asarray(y)
                    med, best = timed(lambda: k(a, cx, cy), cp.cuda.Device().synchronize,
                                      samples)
                    rows.add("axpy", dt, n, "cupy", med, best,
                             "%.0f GB/s" % (3 * n * x.itemsize / med / 1e9))
                    rows.ratio("axpy", dt, n)

                exact = float(np.sum(x, dtype=np.float64))
                got = float(red(xd))
                assert abs(got - exact) <= 1e-3 * abs(exact), ("sum wrong", got, exact)
                med, best = timed(lambda: red(xd), sync, samples)
                rows.add("sum", dt, n, me, med, best)
                if cp is not None:
                    med, best = timed(lambda: float(cx.sum()), cp.cuda.Device().synchronize,
                                      samples)
                    rows.add("sum", dt, n, "cupy", med, best)
                    rows.ratio("sum", dt, n)

                zd = wrap(np.zeros(n, dtype), backend=backend)
                scan(x=xd, y=zd)
                want = np.cumsum(x.astype(np.float64))
                assert np.allclose(zd.get(), want, rtol=1e-3 if dt == "float32" else 1e-9), \
                    "scan wrong"
                med, best = timed(lambda: scan(x=xd, y=zd), sync, samples)
                rows.add("scan", dt, n, me, med, best)
                if cp is not None:
                    med, best = timed(lambda: cp.cumsum(cx), cp.cuda.Device().synchronize,
                                      samples)
                    rows.add("scan", dt, n, "cupy", med, best)
                    rows.ratio("scan", dt, n)
                    del cx, cy
                del xd, yd, zd


def sorts(rows, sizes, samples, backend="cuda"):
    """sort_by_keys of int32 keys and values (CuPy: argsort then two
    gathers); its own part of the run, so that a failure elsewhere does not
    hide it."""
    from pcompute import use_config, wrap
    from pcompute.array.sorting import sort_by_keys
    cp, sync, me, rng = _part(backend, seed=2)
    for n in sizes:
        keys = rng.integers(0, 2**31 - 1, n, dtype=np.int32)
        vals = np.arange(n, dtype=np.int32)
        with use_config(backend=backend):
            kd, vd = wrap(keys.copy(), vals.copy(), backend=backend)
            sk, sv = sort_by_keys([kd, vd])[:2]
            hk = sk.get()
            assert np.array_equal(hk, np.sort(keys)), "sort keys wrong"
            assert np.array_equal(keys[sv.get()], hk), "sort values wrong"
            med, best = timed(lambda: sort_by_keys([kd, vd]), sync,
                              max(5, samples // 2))
        rows.add("sort", "int32", n, me, med, best)
        if cp is None:
            continue
        ck, cv = cp.asarray(keys), cp.asarray(vals)

        def csort():
            idx = cp.argsort(ck)
            return ck[idx], cv[idx]
        med, best = timed(csort, cp.cuda.Device().synchronize, max(5, samples // 2))
        rows.add("sort", "int32", n, "cupy", med, best, "argsort + 2 gathers")
        rows.ratio("sort", "int32", n)


# The MD rows: (backend, the example's options, dtype, label).  The cuda
# backend computes in float32 unless told --use-double; cython always in float64.
MD_CONFIGS = (("cuda", [], "float32", "pcompute cuda"),
              ("cuda", ["--use-double"], "float64", "pcompute cuda"),
              ("cython", ["--openmp"], "float64", "pcompute cython+omp"))


def md(rows, counts, steps, runs=3):
    """ms/step of the MD example on cuda (float32 and float64) and on
    cython+OpenMP on the machine's CPU cores: the median and best of ``runs``
    runs of ``steps`` steps (cython: a tenth, at least 10).  Each backend
    first runs a small system once, so that kernel builds are not timed."""
    for backend in ("cuda", "cython"):
        subprocess.run([sys.executable, "-m", "examples.md", "-b", backend, "-n", "2000",
                        "--steps", "20", "-q"], capture_output=True, timeout=240)
    for n in counts:
        for backend, options, dtype, label in MD_CONFIGS:
            nsteps = steps if backend == "cuda" else max(10, steps // 10)
            cmd = [sys.executable, "-m", "examples.md", "-b", backend, "-n", str(n),
                   "--steps", str(nsteps), *options]
            times, last = [], ""
            for _ in range(runs):
                try:
                    res = subprocess.run(cmd, capture_output=True, text=True, timeout=240)
                except subprocess.TimeoutExpired:
                    print("md %s %s n=%d: timed out" % (label, dtype, n), flush=True)
                    break
                m = re.search(r"([0-9.]+) ms/step", res.stdout)
                if res.returncode or not m:
                    print("md %s %s n=%d failed (rc %d):\n%s" % (
                        label, dtype, n, res.returncode,
                        (res.stdout + res.stderr)[-3000:]), flush=True)
                    break
                times.append(float(m.group(1)) / 1e3)
                last = res.stdout.strip().splitlines()[-1]
            if times:
                rows.add("md", dtype, n, label, statistics.median(times), min(times),
                         "%d runs; last: %s" % (len(times), last))


def machine():
    info = {"python": sys.version.split()[0], "numpy": np.__version__,
            "cpu": platform.processor(), "cores": os.cpu_count()}
    try:
        info["cpu"] = [line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo")
                       if line.startswith("model name")][0]
    except (OSError, IndexError):
        pass
    try:
        import pycuda.driver as drv
        from pcompute.build import cuda_builder
        cuda_builder.ensure_context()
        info["gpu"] = drv.Context.get_device().name()
        info["cuda_driver"] = drv.get_driver_version()
    except Exception as exc:       # the run still records the CPU rows
        info["gpu"] = "unavailable: %s" % exc
    # A tree copied to the GPU machine may carry a stale .git: the caller's
    # PCOMPUTE_COMMIT names the commit measured.
    info["commit"] = os.environ.get("PCOMPUTE_COMMIT", "")
    if not info["commit"]:
        try:
            info["commit"] = subprocess.run(["git", "rev-parse", "--short", "HEAD"],
                                            capture_output=True, text=True).stdout.strip()
        except OSError:
            pass
    return info


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m benchmarks.gpu",
                                description=__doc__.split("\n")[0])
    p.add_argument("--n", type=_sizes, default=(10**6, 10**7, 10**8))
    p.add_argument("--samples", type=int, default=20)
    p.add_argument("--md-n", type=_sizes, default=(10**4, 10**5, 10**6), dest="md_n")
    p.add_argument("--md-steps", type=int, default=1000)
    p.add_argument("--out", default=None)
    p.add_argument("--backend", default="cuda",
                   help="the pcompute backend of the primitive rows (cuda; opencl or "
                   "cython check the harness on a machine without a GPU)")
    args = p.parse_args(argv)
    info = machine()
    print(json.dumps(info), flush=True)
    rows = Rows()
    failed = 0
    for part in (lambda: primitives(rows, args.n, args.samples, args.backend),
                 lambda: sorts(rows, args.n, args.samples, args.backend),
                 lambda: md(rows, args.md_n, args.md_steps)):
        try:
            part()
        except Exception:          # report it and go on to the next part
            traceback.print_exc()
            failed += 1
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"machine": info, "samples": args.samples, "rows": rows.rows}, f,
                      indent=1)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
