"""Before/after comparison of two source trees in one run:
``python -m benchmarks.ab [--before REF] [--after REF] [--only SUITES] [--n N] [--rounds R]``.

Each tree's ``pcompute`` package and ``examples`` (the MD suite times
``examples.md``) are taken from git (``git archive REF pcompute examples``;
``--after WORKTREE`` takes this checkout's files as they are) into a
temporary directory; the harness is this checkout's ``benchmarks`` package,
the same for both, so both trees are timed by identical code.  ``--md-n``
and ``--md-case`` are handed to the harness (the MD rows of one size and
case: ``--only md --md-n 1e3 --md-case "skin"``).  The
rounds alternate the order (A B, B A, A B, ...), each a fresh
``python -m benchmarks --only SUITES --n N`` process with ``PYTHONPATH`` set
to the tree, so a machine getting busier or quieter during the run affects
both trees alike.  For every pcompute row present in both trees the report
gives the median of the per-round medians of each tree, their ratio
(after / before; above 1 is a slowdown), and the ratio of the best samples
(the fastest sample of all rounds, the figure least disturbed by other
processes).  The load average at the start and end is printed beside them.
``make bench-ab BEFORE=<ref> AFTER=<ref>`` runs it; results go to
``--out`` (default ``benchmarks/results/ab/``) as JSON and text.
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .machine import load_average, machine_info

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SUITES = "overhead,sum,scan"


def parse(argv):
    p = argparse.ArgumentParser(prog="python -m benchmarks.ab",
                                description=__doc__.split("\n")[0])
    p.add_argument("--before", default="HEAD~1", help="git ref of the first tree (A)")
    p.add_argument("--after", default="HEAD",
                   help="git ref of the second tree (B), or WORKTREE for this checkout")
    p.add_argument("--only", default=DEFAULT_SUITES,
                   help="suites to run (comma-separated; default %s)" % DEFAULT_SUITES)
    p.add_argument("--n", default="1e6", help="sizes passed to the harness (default 1e6)")
    p.add_argument("--md-n", dest="md_n", default=None,
                   help="MD sizes passed to the harness (its --md-n)")
    p.add_argument("--md-case", dest="md_case", default=None,
                   help="MD cases passed to the harness (its --md-case)")
    p.add_argument("--rounds", type=int, default=3,
                   help="rounds; each runs both trees, order alternating (default 3)")
    p.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "ab",
                   help="where to write ab-<date>.json and .txt")
    return p.parse_args(argv)


def _git(*args):
    return subprocess.run(["git", "-C", str(ROOT)] + list(args), check=True,
                          capture_output=True, text=True).stdout.strip()


#: The directories of a tree under test (the harness, ``benchmarks``, is
#: this checkout's).
TREE_DIRS = ("pcompute", "examples")


def extract(ref, dest):
    """``dest/pcompute`` and ``dest/examples`` from ``ref`` (or this
    checkout's files for WORKTREE); the commit (or 'worktree') they came
    from."""
    dest.mkdir(parents=True)
    if ref == "WORKTREE":
        import shutil
        for name in TREE_DIRS:
            shutil.copytree(ROOT / name, dest / name,
                            ignore=shutil.ignore_patterns("__pycache__"))
        return "worktree of %s" % _git("rev-parse", "--short", "HEAD")
    commit = _git("rev-parse", "--short", ref)
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit] + list(TREE_DIRS),
                             check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    return commit


def environment(tree):
    """The environment of a harness process timing ``tree``'s pcompute."""
    env = dict(os.environ)
    env.pop("PCOMPUTE_OPT_LEVEL", None)      # benchmarks time the default -O3 build
    env["PYTHONPATH"] = os.pathsep.join([str(tree), str(ROOT)])
    return env


def check_imports(tree, work):
    """Make sure the harness process imports pcompute and the MD example
    from ``tree`` and the harness from this checkout (an editable install
    must not win)."""
    code = ("import pcompute, examples.md, benchmarks; print(pcompute.__file__); "
            "print(examples.md.__file__); print(benchmarks.__file__)")
    proc = subprocess.run([sys.executable, "-c", code], cwd=str(work),
                          env=environment(tree), capture_output=True, text=True)
    out = proc.stdout.split()
    if len(out) != 3 or not (out[0].startswith(str(tree)) and out[1].startswith(str(tree))
                             and out[2].startswith(str(ROOT))):
        raise SystemExit("benchmarks.ab: the harness would import %s, not the trees under "
                         "test%s" % (", ".join(out) or "nothing",
                                     (":\n" + proc.stderr[-2000:]) if proc.stderr else ""))


def run_harness(tree, work, out, args):
    """One harness process on ``tree``; its pcompute rows."""
    cmd = [sys.executable, "-m", "benchmarks", "--only", args.only, "--n", args.n,
           "--out", str(out)]
    for option, value in (("--md-n", args.md_n), ("--md-case", args.md_case)):
        if value is not None:
            cmd += [option, value]
    proc = subprocess.run(cmd, cwd=str(work), env=environment(tree), capture_output=True,
                          text=True)
    if proc.returncode != 0:
        raise SystemExit("benchmarks.ab: %s failed (exit %d):\n%s" % (
            " ".join(cmd), proc.returncode, proc.stdout[-3000:] + proc.stderr[-3000:]))
    with open(out / "latest.json") as f:
        rows = json.load(f)["rows"]
    return [r for r in rows if r.get("kind") == "pcompute" and r.get("median_s")]


def row_key(row):
    return "%s/%s/n=%s/%s" % (row["suite"], row["case"], row["n"], row["impl"])


def compare(samples):
    """``samples[label][key]`` = [(median_s, min_s, check) per round] ->
    report rows for the keys both trees have."""
    both = [k for k in samples["A"] if k in samples["B"]]
    rows = []
    for key in both:
        a, b = samples["A"][key], samples["B"][key]
        med_a = statistics.median(m for m, _, _ in a)
        med_b = statistics.median(m for m, _, _ in b)
        best_a, best_b = min(s for _, s, _ in a), min(s for _, s, _ in b)
        checks = sorted({c for _, _, c in a + b} - {"ok"})
        rows.append({"row": key, "before_median_s": med_a, "after_median_s": med_b,
                     "ratio_median": med_b / med_a, "before_best_s": best_a,
                     "after_best_s": best_b, "ratio_best": best_b / best_a,
                     "rounds": min(len(a), len(b)), "checks": checks})
    return rows


def geomean(values):
    values = [v for v in values if v > 0]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def report(rows, meta):
    lines = ["benchmarks.ab: before %(before)s, after %(after)s; suites %(only)s, n %(n)s, "
             "%(rounds)d rounds alternating" % meta,
             "CPU %(cpu)s, %(cores)s cores; load average %(load_start)s at the start, "
             "%(load_end)s at the end; %(elapsed_s).0f s" % meta,
             "ratio = after / before (above 1: slower after); median of the per-round "
             "medians, and best sample of all rounds", ""]
    width = max([len(r["row"]) for r in rows] + [10])
    lines.append("%-*s %12s %12s %8s %12s %12s %8s" % (
        width, "row", "before med", "after med", "ratio", "before best", "after best",
        "ratio"))
    for r in rows:
        lines.append("%-*s %12.4g %12.4g %8.3f %12.4g %12.4g %8.3f%s" % (
            width, r["row"], r["before_median_s"], r["after_median_s"], r["ratio_median"],
            r["before_best_s"], r["after_best_s"], r["ratio_best"],
            "  (check: %s)" % ", ".join(r["checks"]) if r["checks"] else ""))
    lines.append("")
    lines.append("geometric mean of the ratios over %d rows: median %.3f, best %.3f" % (
        len(rows), geomean([r["ratio_median"] for r in rows]),
        geomean([r["ratio_best"] for r in rows])))
    return lines


def main(argv=None):
    args = parse(argv)
    machine = machine_info()
    meta = {"only": args.only, "n": args.n, "rounds": args.rounds, "cpu": machine["cpu"],
            "cores": machine["cores"], "load_start": load_average()}
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="pcompute-ab-") as tmp:
        tmp = Path(tmp)
        trees = {"A": tmp / "before", "B": tmp / "after"}
        meta["before"] = extract(args.before, trees["A"])
        meta["after"] = extract(args.after, trees["B"])
        work = tmp / "work"
        work.mkdir()
        for tree in trees.values():
            check_imports(tree, work)
        samples = {"A": {}, "B": {}}
        for k in range(args.rounds):
            for label in ("AB" if k % 2 == 0 else "BA"):
                print("round %d/%d: %s (%s)" % (k + 1, args.rounds, label,
                                                meta["before" if label == "A" else "after"]),
                      flush=True)
                rows = run_harness(trees[label], work, tmp / ("out-%s-%d" % (label, k)), args)
                for row in rows:
                    samples[label].setdefault(row_key(row), []).append(
                        (row["median_s"], row["min_s"], row.get("check") or "ok"))
    meta["elapsed_s"] = time.perf_counter() - start
    meta["load_end"] = load_average()
    rows = compare(samples)
    if not rows:
        raise SystemExit("benchmarks.ab: no pcompute row was measured in both trees")
    lines = report(rows, meta)
    print("\n".join(lines))
    args.out.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    with open(args.out / ("ab-%s.json" % stamp), "w") as f:
        json.dump({"meta": meta, "rows": rows}, f, indent=1)
    (args.out / ("ab-%s.txt" % stamp)).write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
