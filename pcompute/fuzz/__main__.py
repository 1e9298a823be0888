"""``python -m pcompute.fuzz``: the long differential-fuzzing profile.

Generates kernels for ``--seconds``, runs each on every selected backend
(both precisions) through Elementwise and Reduction or Scan, compares with the
python backend, prints the number of kernels, comparisons and mismatches, and
writes every failing case into ``--out`` (replay one with ``--replay FILE``).
Exit status 1 if anything failed.  Its messages go through the logger
``pcompute.fuzz.command``, shown on the console (errors on stderr) while it runs.
"""
import argparse
import contextlib
import logging
import os
import random
import sys
import time

from .generator import KNOWN_BUGS
from .runner import Stats, fuzz_one, load_case, run_case, save_failure, targets_from_names

log = logging.getLogger("pcompute.fuzz.command")


class _Below:
    """A logging filter: records below ``level`` only."""

    def __init__(self, level):
        self.level = level

    def filter(self, record):
        return record.levelno < self.level


@contextlib.contextmanager
def console():
    """The command's messages, as bare lines, on stdout (errors on stderr)
    while it runs; not handed on to the root logger meanwhile."""
    out = logging.StreamHandler(sys.stdout)
    out.addFilter(_Below(logging.WARNING))
    err = logging.StreamHandler(sys.stderr)
    err.setLevel(logging.WARNING)
    handlers = (out, err)
    saved = log.level, log.propagate
    for handler in handlers:
        handler.setFormatter(logging.Formatter("%(message)s"))
        log.addHandler(handler)
    log.setLevel(logging.INFO)
    log.propagate = False
    try:
        yield
    finally:
        for handler in handlers:
            log.removeHandler(handler)
        log.level, log.propagate = saved


def parse_args(argv):
    p = argparse.ArgumentParser(prog="python -m pcompute.fuzz", description=__doc__.split(
        "\n\n")[0])
    p.add_argument("--seconds", type=float, default=60.0,
                   help="time budget (default 60); no new kernel starts after it")
    p.add_argument("--max-kernels", type=int, default=None,
                   help="stop after this many kernels")
    p.add_argument("--backends", default="cython,cython-openmp,opencl,cuda",
                   help="comma-separated: cython, cython-openmp, opencl, cuda "
                        "(unavailable ones are skipped with their reason)")
    p.add_argument("--precisions", default="float32,float64")
    p.add_argument("--seed", type=int, default=None,
                   help="seed of the first kernel (kernel k uses seed+k); default random")
    p.add_argument("--items", type=int, default=None,
                   help="items per run (default: drawn per kernel; OpenMP runs use "
                        "at least enough to run in parallel)")
    p.add_argument("--out", default="fuzz-failures",
                   help="directory for failing cases (default ./fuzz-failures)")
    p.add_argument("--replay", default=None, metavar="FILE",
                   help="run one saved case (.json written by a failing run)")
    p.add_argument("--jobs", type=int, default=1,
                   help="worker processes (default 1); they share the compile cache")
    p.add_argument("--show", action="store_true", help="print each kernel's source")
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    with console():
        return _main(args)


def _main(args):
    precisions = [p.strip() for p in args.precisions.split(",") if p.strip()]
    targets = []
    for t in targets_from_names(args.backends.split(","), precisions):
        why = t.why_unavailable()
        if why:
            if t.precision == precisions[0]:
                log.info("skipping %s: %s", t.id.rsplit("-", 1)[0], why)
            continue
        targets.append(t)
    if not targets:
        log.error("error: no selected backend is available")
        return 2
    log.info("backends: %s", ", ".join(t.id for t in targets))
    if KNOWN_BUGS:
        log.info("not generated (known bugs, see tests/fuzz_regressions.py): %s",
                 ", ".join(sorted(KNOWN_BUGS)))
    stats = Stats()
    if args.replay:
        case = load_case(args.replay)
        run_case(case, targets, stats, n=args.items or 67)
        return finish(stats, args, 0.0)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2 ** 31)
    log.info("first seed: %d (replay one kernel: --seed S --max-kernels 1)", seed)
    start = time.time()
    if args.jobs > 1:
        _run_parallel(args, targets, stats, seed, start)
    else:
        last = start
        k = 0
        while time.time() - start < args.seconds:
            if args.max_kernels is not None and k >= args.max_kernels:
                break
            one = fuzz_one(seed + k, targets, args.items, args.show)
            k += 1
            last = _merge(stats, one, args, start, last)
    return finish(stats, args, time.time() - start)


def _merge(stats, one, args, start, last):
    for seed, source in one.shown:
        log.info("--- seed %d ---\n%s", seed, source)
    stats.kernels += one.kernels
    stats.comparisons += one.comparisons
    stats.mismatches += one.mismatches
    stats.counts.update(one.counts)
    stats.failures.extend(one.failures)
    for failure in one.failures:
        path = save_failure(failure, args.out)
        log.info("FAILURE (%s, %s on %s) %s -> %s", failure.kind, failure.primitive,
                 failure.target, failure.case.label, path)
    if time.time() - last > 30:
        last = time.time()
        log.info("[%4.0fs] kernels %d, comparisons %d, mismatches %d, failures %d",
                 last - start, stats.kernels, stats.comparisons, stats.mismatches,
                 len(stats.failures))
    return last


def _run_parallel(args, targets, stats, seed, start):
    """Kernels in ``args.jobs`` worker processes (the compile cache is shared)."""
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    last = start
    k = 0
    # spawn, not fork: this process already holds OpenCL runtime threads
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=args.jobs, mp_context=context) as pool:
        pending = set()
        while True:
            while (len(pending) < args.jobs and time.time() - start < args.seconds
                   and (args.max_kernels is None or k < args.max_kernels)):
                pending.add(pool.submit(fuzz_one, seed + k, targets, args.items,
                                        args.show))
                k += 1
            if not pending:
                break
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                last = _merge(stats, future.result(), args, start, last)


def finish(stats, args, elapsed):
    log.info("=" * 60)
    log.info("time:                     %.0f s", elapsed)
    log.info("%s", stats.summary())
    if stats.failures:
        log.info("failures written to %s", os.path.abspath(args.out))
        for f in stats.failures[:3]:
            log.info("-" * 60)
            log.info("%s", f.report())
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
