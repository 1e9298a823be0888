"""Suite 3: cold build and warm load of one Elementwise kernel, each in a fresh
process (``benchmarks.build_probe``) with PCOMPUTE_CACHE_DIR set to a new temporary dir.

Cold: empty cache, so the first call runs Cython and the C compiler.  Warm:
the same cache again in a new process, so the first call loads the module.
Times are those of the first call (construction + build or load + one run);
interpreter start-up and ``import pcompute`` are reported on their own rows.
Then the first call of a parallelized function with four loop nests, cold,
its four kernels built as one group module (the default) and one module each
(``benchmarks.group_probe``), alternating: the fixed cost per module.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ..timing import Stats

NAME = "build"
ROOT = Path(__file__).resolve().parents[2]
COLD_TARGET = ("time", 3.0)
WARM_TARGET = ("time", 0.1)


def probe(cache_dir, openmp):
    """(result dict, process wall seconds) of one build_probe run."""
    env = dict(os.environ, PCOMPUTE_CACHE_DIR=str(cache_dir))
    cmd = [sys.executable, "-m", "benchmarks.build_probe"] + \
        (["--openmp"] if openmp else [])
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=600)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError("build probe failed:\n" + proc.stderr[-2000:])
    return json.loads(proc.stdout.strip().splitlines()[-1]), wall


def run(ctx):
    reps = ctx.profile.build_reps
    for openmp in (False, True):
        mode = "cython+omp" if openmp else "cython"
        print("\n[%s] %s, %d cold + %d warm processes" % (NAME, mode, reps, reps))
        cold, warm = [], []
        try:
            for _ in range(reps):
                with tempfile.TemporaryDirectory(prefix="pcompute-bench-cache-") as tmp:
                    cold.append(probe(tmp, openmp))
                    warm.append(probe(tmp, openmp))
        except Exception as exc:
            ctx.failed(NAME, mode, None, "build probe", "pcompute", exc)
            continue
        _rows(ctx, mode, "cold build (first call)", cold, 1,
              COLD_TARGET if not openmp else None)
        _rows(ctx, mode, "warm load (first call)", warm, 0,
              WARM_TARGET if not openmp else None)
        _add(ctx, mode, "import pcompute", [r["import_s"] for r, _ in warm], "")
        _add(ctx, mode, "new process to result, warm", [w for _, w in warm], "",
             note="interpreter start + import + load + run")
    run_group(ctx)


def group_probe(cache_dir, alone):
    """The result dict of one group_probe run (``alone``: one module per kernel)."""
    env = dict(os.environ, PCOMPUTE_CACHE_DIR=str(cache_dir))
    cmd = [sys.executable, "-m", "benchmarks.group_probe"] + (["--alone"] if alone else [])
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=600)
    if proc.returncode != 0:
        raise RuntimeError("group probe failed:\n" + proc.stderr[-2000:])
    return json.loads(proc.stdout.strip().splitlines()[-1])


def run_group(ctx):
    """Four kernels of one parallelized function, cold: one group module
    against one module each, alternating, each in a fresh process and cache."""
    reps = ctx.profile.build_reps
    mode = "cython, 4 nests"
    print("\n[%s] %s, %d x (one module, four modules) cold processes" % (NAME, mode, reps))
    runs = {False: [], True: []}
    try:
        for _ in range(reps):
            for alone in (False, True):
                with tempfile.TemporaryDirectory(prefix="pcompute-bench-cache-") as tmp:
                    runs[alone].append(group_probe(tmp, alone))
    except Exception as exc:
        ctx.failed(NAME, mode, None, "group probe", "pcompute", exc)
        return
    for alone, label, compiled in ((False, "first call, one group module", 1),
                                   (True, "first call, one module per kernel", 4)):
        results = runs[alone]
        bad = [r["stats"] for r in results if r["stats"]["compiled"] != compiled or not r["ok"]]
        check = "ok" if not bad else "WRONG: compiled %s (expected %d)" % (bad, compiled)
        cpu = sorted(r["cpu_s"] for r in results)
        _add(ctx, mode, label, [r["first_s"] for r in results], check,
             note="CPU %.2f s (median, compilers included)" % cpu[len(cpu) // 2])


def _rows(ctx, mode, label, runs, compiled, target):
    results = [r for r, _ in runs]
    bad = [r["stats"] for r in results if r["stats"]["compiled"] != compiled or not r["ok"]]
    check = "ok" if not bad else "WRONG: compiled %s (expected %d)" % (bad, compiled)
    note = _split(results) if compiled else ""
    _add(ctx, mode, label, [r["first_s"] for r in results], check, target, note)


def _add(ctx, mode, impl, samples, check, target=None, note=""):
    row = ctx.rec.add(NAME, mode, None, impl, "pcompute", Stats.of(samples), check=check,
                      target=target, note=note)
    ctx.print_row(row)


def _split(results):
    """'cython X s + C Y s' from the builder's log line, when it says so."""
    parts = []
    for r in results:
        for line in r.get("log", []):
            m = re.search(r"cython ([\d.]+) s, C ([\d.]+) s", line)
            if m:
                parts.append((float(m.group(1)), float(m.group(2))))
    if not parts:
        return ""
    parts.sort()
    cy, c = parts[len(parts) // 2]
    return "(cython %.2f s + C %.2f s)" % (cy, c)
