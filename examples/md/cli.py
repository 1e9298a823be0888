"""The command line of the MD example: ``python -m examples.md [options]``."""
import argparse
import math
import os
import sys
import time

from pcompute import get_config, use_config
from pcompute.backends.registry import get_backend
from pcompute.errors import BackendUnavailableError

from . import profiling
from .output import plot, write_csv
from .progress import Progress
from .simulation import NNPS, Simulation

PROG = "python -m examples.md"
#: Named set-ups: the default conserves energy (shifted potential, small
#: time step: a relative drift under 1e-4 over its run); ``compyle`` is the
#: set-up of the system pcompute replaces (unshifted cut-off, dt 0.02, t = 50),
#: which the parity tests and the benchmarks use (its energies drift by ~1e-2).
PRESETS = {
    "default": dict(shift=True, dt=0.003, tf=25.0, skin=0.3),
    "compyle": dict(shift=False, dt=0.02, tf=50.0, skin=0.0),
}


class OneLineParser(argparse.ArgumentParser):
    """Bad options give one line on stderr and exit code 2."""

    #: True on the ranks of an MPI run other than 0: errors exit without a word
    #: (rank 0 says it once).
    silent = False

    def error(self, message):
        if self.silent:
            self.exit(2)
        self.exit(2, "%s: error: %s (see --help)\n" % (self.prog, message))


def _count(text):
    """A positive integer; accepts 10000, 10_000 and 1e4."""
    try:
        value = float(text.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError("%r is not a number" % text)
    if not value.is_integer() or value < 1:
        raise argparse.ArgumentTypeError("%r is not a positive integer" % text)
    return int(value)


def _number(low, inclusive=True):
    def parse(text):
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError("%r is not a number" % text)
        if not math.isfinite(value) or value < low or (not inclusive and value == low):
            raise argparse.ArgumentTypeError("%r must be %s %g" % (
                text, ">=" if inclusive else ">", low))
        return value
    return parse


def _steps(text):
    if text.strip() in ("0",):
        return 0
    return _count(text)


def make_parser():
    p = OneLineParser(
        prog=PROG, description="Lennard-Jones molecular dynamics (cut-off 3, velocity "
        "Verlet) written once with pcompute; runs on python, cython (OpenMP), opencl "
        "and cuda.")
    g = p.add_argument_group("backend")
    g.add_argument("-b", "--backend", choices=("python", "cython", "opencl", "cuda"),
                   help="backend (default: the configured one, PCOMPUTE_BACKEND, "
                        "else cython)")
    g.add_argument("--openmp", dest="openmp", action="store_true", default=None,
                   help="run cython kernels with OpenMP (default: when available)")
    g.add_argument("--no-openmp", dest="openmp", action="store_false",
                   help="run cython kernels serially")
    g.add_argument("--use-double", action="store_true",
                   help="double precision on OpenCL/CUDA (CPU backends always use it)")
    s = p.add_argument_group("system")
    s.add_argument("-n", type=_count, default=10000, metavar="N",
                   help="number of particles (default 10000)")
    s.add_argument("--dim", type=int, choices=(2, 3), default=2,
                   help="dimension (default 2)")
    s.add_argument("--periodic", action="store_true",
                   help="periodic boundaries instead of walls (3-D only)")
    s.add_argument("--temperature", type=_number(0.0), default=0.0, metavar="T",
                   help="initial temperature: random velocities (default 0: at rest)")
    s.add_argument("--seed", type=int, default=1, help="seed of the velocities")
    s.add_argument("--preset", choices=sorted(PRESETS), default="default",
                   help="default: shifted potential, dt 0.003, t = 25, skin 0.3 (energy "
                        "conserved to 1e-4); compyle: unshifted, dt 0.02, t = 50, no "
                        "skin (Compyle's set-up, the parity tests' and benchmarks'); "
                        "options given explicitly override the preset")
    s.add_argument("--shift", dest="shift", action="store_true", default=None,
                   help="shift the potential to zero at the cut-off")
    s.add_argument("--no-shift", dest="shift", action="store_false",
                   help="the plain (unshifted) potential")
    r = p.add_argument_group("run")
    r.add_argument("--nnps", choices=NNPS, default="cells",
                   help="neighbour search (default cells)")
    r.add_argument("--skin", type=_number(0.0),
                   help="neighbour skin: rebuild only when a particle moved more "
                        "than skin/2 (0: every step; default: the preset's)")
    r.add_argument("--decompose", metavar="GRID",
                   help="run on MPI ranks, one region of the box each: a grid of ranks "
                        "like 2 (slabs), 2x2 or 2x2x1; start with `mpiexec -n RANKS "
                        "python -m examples.md --decompose GRID ...` (needs mpi4py)")
    r.add_argument("--dt", type=_number(0.0, inclusive=False),
                   help="time step (default: the preset's)")
    length = r.add_mutually_exclusive_group()
    length.add_argument("--tf", type=_number(0.0), metavar="T",
                        help="final time (default: the preset's)")
    length.add_argument("--steps", type=_steps, help="number of steps")
    o = p.add_argument_group("output")
    o.add_argument("--log-every", type=_count, metavar="K",
                   help="print (and record) the energies every K steps "
                        "(default: about 10 times per run)")
    o.add_argument("--output", metavar="DIR",
                   help="write energies.csv, positions.csv and run.json into DIR")
    o.add_argument("--plot", action="store_true",
                   help="write a PNG of the energies and the particles (needs "
                        "matplotlib) into DIR or the current directory")
    o.add_argument("--profile", action="store_true", help="print a per-kernel table")
    o.add_argument("-q", "--quiet", action="store_true",
                   help="no progress bar or energy lines")
    return p


def _openmp_default():
    """OpenMP when the compiler has it (PCOMPUTE_OPENMP, if set, decides)."""
    if os.environ.get("PCOMPUTE_OPENMP", "").strip():
        return get_config().use_openmp
    try:
        from pcompute.build import toolchain
        return toolchain.openmp_flags() is not None
    except Exception:       # detection problems: let pcompute warn when it builds
        return True


def describe(sim, openmp):
    what = "%s, %d-D, %s" % ("N = %d" % sim.n, sim.dim,
                            "periodic" if sim.periodic else "walls")
    be = sim.backend
    if be == "cython":
        be += (" + OpenMP (%s threads)" % os.environ.get("OMP_NUM_THREADS", os.cpu_count())
               if openmp else " (serial)")
    dec = getattr(sim, "decomposition", None)
    if dec is not None:
        be += ", %d MPI ranks (grid %s)" % (dec.size, "x".join(map(str, dec.grid)))
    return "%s, nnps %s%s, dt %g%s, %s on %s" % (
        what, sim.nnps, ", skin %g" % sim.skin if sim.skin else "", sim.dt,
        ", shifted potential" if sim.shift else "",
        sim.dtype.name, be)


def make_simulation(args):
    """The Simulation the options ask for (ValueError for impossible set-ups)."""
    if args.decompose:
        from .decomposed import DistributedSimulation
        return DistributedSimulation(
            n=args.n, dim=args.dim, periodic=args.periodic, nnps=args.nnps, dt=args.dt,
            skin=args.skin, shift=args.shift, temperature=args.temperature,
            seed=args.seed, grid=args.decompose)
    return Simulation(n=args.n, dim=args.dim, periodic=args.periodic, nnps=args.nnps,
                      dt=args.dt, skin=args.skin, shift=args.shift,
                      temperature=args.temperature, seed=args.seed)


def run(args, sim, start, out=None, err=None):
    """Run ``sim`` (built at ``start``, a perf_counter time) as ``args`` say."""
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    steps = args.steps if args.steps is not None else \
        int(round(args.tf / args.dt))
    log_every = args.log_every or max(1, steps // 10)
    root = getattr(sim, "is_root", True)       # only rank 0 of an MPI run prints
    say = (lambda *a: None) if args.quiet or not root else (
        lambda text: print(text, file=out, flush=True))
    history = []

    def record():
        ke, pe, total = sim.energy()
        history.append((sim.steps_done, sim.time, ke, pe, total))
        return total

    e0 = record()
    setup = time.perf_counter() - start
    if args.profile:
        profiling.reset_profile()       # the table shows the steps, not the set-up
    say(describe(sim, get_config().use_openmp))
    if sim.backend == "python" and sim.n * steps > 200000:
        say("note: the python backend runs the kernels in the interpreter (about 0.1 ms "
            "per particle and step here); try -n 500 --steps 100")
    say("set-up and kernel builds: %.2f s" % setup)
    say("%8s %10s %16s %16s %20s %10s" % ("step", "time", "kinetic", "potential",
                                           "total", "rel. drift"))

    def log_line():
        step, t, ke, pe, total = history[-1]
        drift = (total - e0) / abs(e0) if e0 else 0.0
        say("%8d %10.3f %16.9g %16.9g %20.14g %10.2e" % (step, t, ke, pe, total, drift))

    log_line()
    bar = Progress(steps, enabled=not args.quiet and root, stream=err)
    t0 = time.perf_counter()
    done = 0
    while done < steps:
        chunk = min(log_every - done % log_every, steps - done, bar.suggest_chunk())
        sim.step(chunk)
        done += chunk
        bar.update(done)
        if done % log_every == 0 or done == steps:
            record()
            bar.clear()
            log_line()
    elapsed = time.perf_counter() - t0
    bar.close()
    if steps:
        say("%d steps in %.2f s: %.1f steps/s, %.3f ms/step; %d neighbour builds"
            % (steps, elapsed, steps / elapsed, 1e3 * elapsed / steps, sim.rebuilds))
    info = dict(vars(args), steps=steps, backend=sim.backend, dtype=sim.dtype.name,
                openmp=get_config().use_openmp, setup_s=setup, run_s=elapsed,
                ms_per_step=1e3 * elapsed / max(steps, 1), rebuilds=sim.rebuilds,
                box_side=sim.side)
    dec = getattr(sim, "decomposition", None)
    if dec is not None:
        info.update(ranks=dec.size, grid=list(dec.grid))
    if args.output or args.plot:
        # gathered on rank 0 (a collective call in an MPI run)
        pos, vel = sim.host_positions(), sim.host_velocities()
    if args.output and root:
        path = write_csv(args.output, sim, history, info, pos, vel)
        say("wrote %s, positions.csv and run.json in %s" % (os.path.basename(path),
                                                           args.output))
    if args.plot and root:
        path = os.path.join(args.output or ".", "md.png")
        if plot(path, sim, history, pos):
            say("wrote %s" % path)
        else:
            print("%s: --plot needs matplotlib (pip install matplotlib); no plot written"
                  % PROG, file=err)
    if args.profile and root:
        print(profiling.table(), file=out, end="")
    return 0


def apply_preset(args):
    """Fill the options not given explicitly from ``args.preset``."""
    for key, value in PRESETS[args.preset].items():
        if getattr(args, key) is None:
            setattr(args, key, value)
    return args


def main(argv=None):
    parser = make_parser()
    args = apply_preset(parser.parse_args(argv))
    if args.periodic and args.dim != 3:
        parser.error("--periodic needs --dim 3 (2-D runs have walls)")
    if args.decompose:
        try:
            from pcompute.distributed import abort_on_error, world
            comm = world()
        except BackendUnavailableError as exc:
            parser.error("--decompose: %s" % exc)
        abort_on_error(comm)      # a failing rank ends the job instead of hanging it
        parser.silent = comm.Get_rank() != 0
    backend = args.backend or get_config().backend
    openmp = _openmp_default() if args.openmp is None else args.openmp
    settings = dict(backend=backend, use_openmp=openmp)
    if args.profile:
        settings["profile"] = True
    if args.use_double:
        settings["use_double"] = True
    with use_config(**settings):
        reason = get_backend(backend).why_unavailable()
        if reason is not None:
            parser.error("the %s backend is not available here: %s" % (backend, reason))
        if args.output:
            try:
                os.makedirs(args.output, exist_ok=True)
            except OSError as exc:
                parser.error("--output %s: %s" % (args.output, exc.strerror or exc))
        start = time.perf_counter()
        try:
            sim = make_simulation(args)
        except (ValueError, NotImplementedError, BackendUnavailableError) as exc:
            parser.error(str(exc).splitlines()[0])
        try:
            return run(args, sim, start)
        except KeyboardInterrupt:
            print("\ninterrupted", file=sys.stderr)
            return 130
