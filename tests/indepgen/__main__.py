"""The long run: one case per child process (a crash or a hang is a finding
too); ``--case N`` runs one case in this process."""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

from .check import run_case
from .ctypes_model import BACKENDS


def _child(args):
    directory = args.dir or tempfile.mkdtemp(prefix="indepgen-")
    report = run_case(args.case, args.backends.split(","), args.cuda, directory)
    if args.show:
        with open(report["path"]) as f:
            print(f.read())
    print("INDEPGEN " + json.dumps(report))


def _driver(args):
    out = args.out
    os.makedirs(out, exist_ok=True)
    directory = tempfile.mkdtemp(prefix="indepgen-")
    start = time.time()
    seed = args.seed
    totals = {"kernels": 0, "comparisons": 0, "elements": 0, "findings": 0,
              "expected_errors": 0, "generator_errors": 0, "crashes": 0}
    log = open(os.path.join(out, "log.jsonl"), "a")
    env = dict(os.environ)
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = os.pathsep.join([here] + [p for p in [env.get("PYTHONPATH")] if p])
    while time.time() - start < args.seconds:
        cmd = [sys.executable, "-m", "indepgen", "--case", str(seed),
               "--backends", args.backends, "--dir", directory] + (["--cuda"] if args.cuda else [])
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout,
                                  env=env)
            lines = [x for x in proc.stdout.splitlines() if x.startswith("INDEPGEN ")]
            if proc.returncode != 0 or not lines:
                report = {"seed": seed, "findings": ["child process failed (rc %d): %s"
                                                     % (proc.returncode, proc.stderr[-3000:])],
                          "comparisons": 0, "elements": 0}
                totals["crashes"] += 1
            else:
                report = json.loads(lines[-1][len("INDEPGEN "):])
        except subprocess.TimeoutExpired:
            report = {"seed": seed, "findings": ["hang: no result in %d s" % args.timeout],
                      "comparisons": 0, "elements": 0}
            totals["crashes"] += 1
        totals["kernels"] += 1
        totals["comparisons"] += report.get("comparisons", 0)
        totals["elements"] += report.get("elements", 0)
        if "generator_error" in report:
            totals["generator_errors"] += 1
        if "expects an error" in report.get("kind", ""):
            totals["expected_errors"] += 1
        if report["findings"]:
            totals["findings"] += 1
            src = report.get("path")
            if src and os.path.exists(src):
                with open(src) as f:
                    report["source"] = f.read()
            with open(os.path.join(out, "seed-%d.json" % seed), "w") as f:
                json.dump(report, f, indent=1)
        log.write(json.dumps({k: v for k, v in report.items() if k != "source"}) + "\n")
        log.flush()
        print("%s: %s" % (report.get("kind", "seed %d" % seed),
                          "; ".join(x.splitlines()[0] for x in report["findings"])
                          or report.get("generator_error", "ok")), flush=True)
        seed += 1
    totals["seconds"] = round(time.time() - start)
    print("INDEPGEN TOTALS " + json.dumps(totals))
    return 1 if totals["findings"] or totals["crashes"] else 0


def main(argv=None):
    p = argparse.ArgumentParser(prog="indepgen", description=__doc__.split("\n\n")[0])
    p.add_argument("--seconds", type=float, default=600)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--backends", default=",".join(BACKENDS))
    p.add_argument("--cuda", action="store_true", help="compile-check CUDA with nvcc --ptx")
    p.add_argument("--out", default="indep-failures")
    p.add_argument("--timeout", type=int, default=300)
    p.add_argument("--case", type=int, help="run one case in this process")
    p.add_argument("--dir", help="where the generated modules are written")
    p.add_argument("--show", action="store_true", help="print the generated module")
    args = p.parse_args(argv)
    if args.case is not None:
        return _child(args)
    return _driver(args)


if __name__ == "__main__":
    sys.exit(main())

