"""Run the benchmarks: ``python -m benchmarks [--full | --smoke] [--only NAME] [--n N] [--out DIR]``.

The quick profile (default, about 15-20 minutes on 2 idle cores) measures
n = 10^7 and the MD to N = 10^5; ``--full`` measures n = 10^4 .. 10^8 where
memory allows, with more repetitions; ``--smoke`` runs every suite at tiny
sizes with 2 samples (a few minutes, to check the harness; not publishable).
Results go to ``DIR/run-<date>.{csv,json}`` and ``DIR/latest.{csv,json}``;
``python -m benchmarks.publish RUN.json`` makes a run of every suite the
published one (``results/published.json``) and rewrites the tables of the
README, the docs and ``results/latest.md`` from it.
"""
import argparse
import datetime
import os
import sys
import time
from pathlib import Path

from pcompute.config import get_config

from .context import Context
from .machine import load_average, machine_info
from .publish import refusals
from .peers import (compyle_peer, lammps_md, numba_peer, numexpr_peer, pyopencl_peer,
                    taichi_peer, warp_peer)
from .results import Recorder
from .suites import SUITES
from .timing import PROFILES

RESULTS = Path(__file__).resolve().parent / "results"


def _sizes(text):
    try:
        return tuple(int(float(t)) for t in text.split(",") if t.strip())
    except ValueError:
        raise argparse.ArgumentTypeError("expected sizes like 1e5,1e6, got %r" % text)


def parse(argv):
    p = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.split("\n")[0])
    kind = p.add_mutually_exclusive_group()
    kind.add_argument("--full", action="store_const", dest="profile", const="full",
                      default="quick", help="n = 10^4..10^8 and more repetitions (long)")
    kind.add_argument("--smoke", action="store_const", dest="profile", const="smoke",
                      help="tiny sizes, 2 samples: checks that every suite runs "
                      "(figures meaningless, not publishable)")
    p.add_argument("--only", action="append", metavar="NAME",
                   help="run only this suite (repeatable, or comma-separated): %s"
                   % ", ".join(SUITES))
    p.add_argument("--n", metavar="N[,N...]", type=_sizes,
                   help="measure these sizes instead (e.g. 1e5,1e6); the overhead and "
                   "build suites ignore it")
    p.add_argument("--md-n", metavar="N[,N...]", type=_sizes, dest="md_n",
                   help="the MD suite's particle counts (default 1e3,1e4,1e5; --full adds "
                   "1e6); 3-D runs at those of 1e4 and 1e5 among them")
    p.add_argument("--md-case", metavar="TEXT[,TEXT...]", dest="md_case",
                   type=lambda t: tuple(x.strip() for x in t.split(",") if x.strip()),
                   help="the MD suite runs only the groups whose case contains one "
                   "of these texts, e.g. 'skin' or '3-D walls count' (a partial run: "
                   "not publishable)")
    p.add_argument("--out", type=Path, metavar="DIR",
                   help="where to write the results (default: %s, --smoke: its smoke/)"
                   % RESULTS)
    args = p.parse_args(argv)
    if args.out is None:
        args.out = RESULTS / "smoke" if args.profile == "smoke" else RESULTS
    names = [s for item in (args.only or []) for s in item.split(",") if s]
    unknown = [s for s in names if s not in SUITES]
    if unknown:
        p.error("unknown suite(s) %s; choose from %s" % (", ".join(unknown), ", ".join(SUITES)))
    args.names = names or list(SUITES)
    args.full = args.profile == "full"
    return args


PEERS = (("numba", numba_peer), ("pyopencl", pyopencl_peer), ("compyle", compyle_peer),
         ("taichi", taichi_peer), ("warp", warp_peer), ("lammps", lammps_md),
         ("numexpr", numexpr_peer))


def missing_peers():
    """[(name, why)] of the peers that cannot run in this interpreter."""
    return [(name, module.why_missing()) for name, module in PEERS if module.why_missing()]


def loud(lines):
    """A block that cannot be overlooked in a terminal or a log."""
    bar = "!" * 78
    return "\n".join([bar] + ["!! " + line for line in lines] + [bar])


def peer_notes(rec, missing):
    for name, why in missing:
        rec.note("MISSING PEER %s: %s" % (name, why))
    if missing:
        print(loud(["MISSING PEER %s: %s" % (name, why) for name, why in missing]
                   + ["install them with: pip install -e '.[bench]' (make bench does)"]))


def load_note(rec, load, cores, when):
    if load is not None and cores and load > 0.5 * cores:
        rec.note("the machine was busy at the %s of the run (load average %.1f on %d "
                 "cores): other processes competed for the CPUs, so times are noisy and "
                 "OpenMP ones suffer most; rerun on an idle machine" % (when, load, cores))


def main(argv=None):
    args = parse(argv)
    # The test suite's faster-compiling level must never be timed (an older
    # pcompute timed by benchmarks.ab has no such setting: always -O3).
    level = getattr(get_config(), "opt_level", 3)
    if level != 3:
        print(loud(["pcompute is set to build at -O%d (PCOMPUTE_OPT_LEVEL or "
                    "Config.opt_level); the benchmarks measure the default -O3 build: "
                    "unset PCOMPUTE_OPT_LEVEL" % level]), file=sys.stderr)
        return 2
    profile = PROFILES[args.profile]
    machine = machine_info()
    print("pcompute benchmarks, profile %s: %s" % (profile.name, ", ".join(args.names)))
    for key in ("cpu", "cores", "python", "numpy", "cython", "gcc", "pyopencl",
                "opencl_device", "numba", "pcompute"):
        print("  %-14s %s" % (key, machine[key]))
    rec = Recorder()
    missing = missing_peers()
    machine["missing_peers"] = dict(missing)
    machine["peer_versions"] = peer_versions()
    peer_notes(rec, missing)
    load_note(rec, machine["load_average"], machine["cores"], "start")
    ctx = Context(profile, rec, sizes=args.n, md_sizes=args.md_n, md_cases=args.md_case)
    machine["md_sizes"] = list(args.md_n) if args.md_n else "default"
    machine["md_cases"] = list(args.md_case) if args.md_case else "all"
    machine["suites"] = list(args.names)
    machine["sizes"] = list(args.n) if args.n else "default"
    start = time.perf_counter()
    machine["suite_elapsed_s"] = run_suites(ctx, args.names)
    rec.finish()
    machine["elapsed_s"] = round(time.perf_counter() - start, 1)
    machine["load_average_end"] = load_average()
    machine["numba_threading_layer"] = numba_peer.threading_layer()
    load_note(rec, machine["load_average_end"], machine["cores"], "end")
    print("\nRatio table (median per call; vs C = median / median of the C+OpenMP reference "
          "timed in C; vs C (min) = the same for the fastest samples)")
    print("\n".join(rec.table_lines()))
    summary = rec.targets_summary()
    if summary:
        print("\nTargets:\n  " + "\n  ".join(summary))
    print("\nSeconds per suite: " + ", ".join(
        "%s %.0f" % kv for kv in machine["suite_elapsed_s"].items())
        + "; total %.0f" % machine["elapsed_s"])
    write(rec, machine, profile.name, args)
    if missing:
        print(loud(["this run compared without: " + ", ".join(n for n, _ in missing)]))
    return 0


def run_suites(ctx, names):
    """Run the suites in turn; {name: seconds taken}.  A suite that raises is
    recorded as failed (a row and a note) and the run goes on."""
    elapsed = {}
    for name in names:
        start = time.perf_counter()
        try:
            SUITES[name].run(ctx)
        except Exception as exc:
            ctx.failed(name, "(suite)", None, "suite %s" % name, "pcompute", exc)
            ctx.rec.note("suite %s stopped early: %s: %s" % (name, type(exc).__name__, exc))
        elapsed[name] = round(time.perf_counter() - start, 1)
        print("\n[%s done in %.0f s, load average %s]" % (name, elapsed[name], load_average()))
    return elapsed


def peer_versions():
    from importlib import metadata
    out = {}
    for dist in ("numba", "compyle", "lammps", "numexpr", "taichi", "warp-lang", "pyopencl",
                 "mpich"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = None
    return out


def write(rec, machine, profile, args):
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    run = "run-%s-%s" % (stamp, profile)
    for base in (run, "latest"):
        rec.write_csv(out / (base + ".csv"))
        rec.write_json(out / (base + ".json"), machine, profile)
    written = [out / (run + ".csv"), out / (run + ".json")]
    print("\nwrote " + ", ".join(os.path.relpath(p) for p in written)
          + " (and latest.csv/.json); plot with: python -m benchmarks.plot")
    why_not = refusals({"machine": machine, "profile": profile})
    if why_not:
        print("not publishable: " + "; ".join(why_not))
    else:
        print("publish this run (README, docs and results/latest.md tables from one "
              "committed file): make bench-publish PUBLISH=%s" % os.path.relpath(out / (run + ".json")))


if __name__ == "__main__":
    sys.exit(main())
