"""The MD part of ``python -m benchmarks.gpu``: what it runs and records
(the GPU itself is exercised by tools/cuda/run-on-gpu.sh on a GPU machine)."""
import subprocess
import types

from benchmarks import gpu


def test_md_rows_are_median_and_best_of_the_runs(monkeypatch):
    calls = []
    times = iter(["0.30", "0.10", "0.20", "2.0", "1.0", "3.0"])

    def fake_run(cmd, **kw):
        calls.append(cmd)
        if "-q" in cmd:                       # the warm-up runs
            return types.SimpleNamespace(returncode=0, stdout="", stderr="")
        if "--use-double" in cmd:             # a failing configuration is reported, not timed
            return types.SimpleNamespace(returncode=1, stdout="", stderr="boom")
        line = "10 steps in 0.01 s: 1.0 steps/s, %s ms/step; 1 neighbour builds" % next(times)
        return types.SimpleNamespace(returncode=0, stdout="header\n" + line, stderr="")

    monkeypatch.setattr(subprocess, "run", fake_run)
    rows = gpu.Rows()
    gpu.md(rows, [1000], 50, runs=3)
    md = {(r["impl"], r["dtype"]): r for r in rows.rows}
    assert set(md) == {("pcompute cuda", "float32"), ("pcompute cython+omp", "float64")}
    cuda = md["pcompute cuda", "float32"]
    assert (cuda["median_s"], cuda["best_s"]) == (0.2e-3, 0.1e-3)
    cython = md["pcompute cython+omp", "float64"]
    assert (cython["median_s"], cython["best_s"]) == (2.0e-3, 1.0e-3)
    assert cython["note"].startswith("3 runs; last: 10 steps")
    timed = [c for c in calls if "-q" not in c]
    assert ["--steps", "50"] == timed[0][timed[0].index("--steps"):][:2]
    assert "--openmp" in timed[-1] and timed[-1][timed[-1].index("--steps") + 1] == "10"
    double = [c for c in timed if "--use-double" in c]
    assert len(double) == 1, "a failed run stops that configuration's runs"
