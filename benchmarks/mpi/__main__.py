"""``python -m benchmarks.mpi`` (``make bench-mpi``): the cost of decomposition.

On this one machine, for each N: pcompute's 2-D MD (cells, skin 0.3, double,
cython + OpenMP) as one process with 1 and 2 OpenMP threads, and decomposed
over 2 MPI ranks with 1 thread each (``mpiexec -n 2``); LAMMPS with 1 MPI
task x 2 OpenMP threads and 2 MPI tasks x 1 thread.  The figure of merit is
the ratio (2 ranks x 1 thread) / (1 process x 2 threads) of each program:
what splitting the box costs when the cores are the same.  pcompute's runs
must give the same energies (1e-9 relative; an ERROR line otherwise).  One run each
(milliseconds per step over the timed steps, after 5 warm-up steps); the
machine, its load before and after, and every row go to ``--out``
(JSON), and the table to stdout.
"""
import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

from ..machine import cpu_model, git_revision, load_average
from . import lammps_run

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "benchmarks" / "results"
#: Timed steps per size (about 2-10 s per row on 2 cores).
STEPS = {10 ** 4: 200, 10 ** 5: 60, 10 ** 6: 10}
LIMIT = 1.25


def _mpiexec():
    local = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    return local if os.access(local, os.X_OK) else None


def pcompute_row(n, steps, ranks, threads, mpiexec):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), PCOMPUTE_BACKEND="cython",
               PCOMPUTE_OPENMP="1", PYTHONPATH=str(ROOT))
    cmd = [sys.executable, "-m", "benchmarks.mpi.md_rank", str(n), str(steps)]
    if ranks == 1:
        cmd.append("single")
    else:
        cmd = [mpiexec, "-n", str(ranks)] + cmd + [str(ranks)]
    # stdin from /dev/null: mpiexec forwards its stdin to rank 0 and fails when
    # that rank never reads it
    out = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True,
                         stdin=subprocess.DEVNULL, timeout=1800)
    if out.returncode != 0:
        raise RuntimeError("%s failed:\n%s" % (" ".join(cmd), out.stderr[-2000:]))
    return json.loads(out.stdout.strip().splitlines()[-1])


def parse(argv):
    p = argparse.ArgumentParser(prog="python -m benchmarks.mpi",
                                description=__doc__.split("\n")[0])
    p.add_argument("--n", default="1e5,1e6",
                   help="particle counts, comma-separated (default %(default)s)")
    p.add_argument("--no-lammps", action="store_true", help="skip the LAMMPS rows")
    p.add_argument("--out", type=Path, default=RESULTS / "mpi-run.json",
                   help="the JSON file to write (default %(default)s)")
    return p.parse_args(argv)


def main(argv=None):
    args = parse(argv)
    sizes = [int(float(t)) for t in args.n.split(",") if t.strip()]
    mpiexec = _mpiexec()
    if mpiexec is None:
        print("error: no mpiexec next to %s; pip install mpi4py mpich" % sys.executable,
              file=sys.stderr)
        return 2
    lammps = None if args.no_lammps else (
        "lmp not installed (pip install lammps)" if lammps_run.lmp_path() is None else "")
    info = dict(cpu=cpu_model(), cores=os.cpu_count(), commit=git_revision(),
                load_before=load_average())
    print("CPU: %s, %d cores; load average before: %s" % (info["cpu"], info["cores"],
                                                          info["load_before"]))
    rows = []
    header = "%9s  %-34s %10s %8s" % ("N", "run", "ms/step", "ratio")
    print(header)
    print("-" * len(header))
    for n in sizes:
        steps = STEPS.get(n, max(5, int(2e7 // n)))
        group = []
        for label, ranks, threads in (("pcompute 1 process x 1 thread", 1, 1),
                                      ("pcompute 1 process x 2 threads", 1, 2),
                                      ("pcompute 2 ranks x 1 thread", 2, 1)):
            row = pcompute_row(n, steps, ranks, threads, mpiexec)
            row.update(program="pcompute", label=label, ranks=ranks, threads=threads)
            group.append(row)
        if lammps == "":
            for label, ranks, threads in (("LAMMPS 1 task x 2 OpenMP threads", 1, 2),
                                          ("LAMMPS 2 MPI tasks x 1 thread", 2, 1)):
                row = lammps_run.run(n, steps, ranks, threads, mpiexec)
                row.update(program="lammps", label=label, ranks=ranks, threads=threads,
                           n=n, steps=steps)
                group.append(row)
        ref = group[0]["energy"]
        for row in group:
            if "energy" in row:
                row["energy_rel_diff"] = max(abs(a - b) / abs(b)
                                             for a, b in zip(row["energy"], ref))
                if row["energy_rel_diff"] > 1e-9:
                    print("ERROR: %s at N = %d: energies differ from the one-thread run by "
                          "%.2e relative" % (row["label"], n, row["energy_rel_diff"]))
        for row in group:
            base = next(r for r in group if r["program"] == row["program"]
                        and r["ranks"] == 1 and r["threads"] == 2)
            row["ratio_to_1x2"] = row["ms_per_step"] / base["ms_per_step"]
            print("%9d  %-34s %10.2f %8.2f" % (n, row["label"], row["ms_per_step"],
                                              row["ratio_to_1x2"]))
        rows += group
    if lammps:
        print("LAMMPS rows missing: %s" % lammps)
    info["load_after"] = load_average()
    print("load average after: %s" % (info["load_after"],))
    print("ratio = ms/step over the same program's 1 process x 2 threads; the goal for "
          "2 ranks x 1 thread is <= %.2f" % LIMIT)
    for row in rows:
        if row["ranks"] == 2:
            verdict = "within" if row["ratio_to_1x2"] <= LIMIT else "NOT within"
            print("  %s at N = %d: %.2f, %s %.2fx" % (row["label"], row["n"],
                                                       row["ratio_to_1x2"], verdict, LIMIT))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(dict(machine=info, rows=rows), indent=2) + "\n")
    print("wrote %s" % args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
