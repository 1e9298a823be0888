"""Suite: the MD example (``examples/md``), ms per step.

2-D default set-up (lattice spacing 1.5, walls, dt 0.02, double), every
neighbour strategy (``simple`` only at N <= 10^4), N = 10^3, 10^4, 10^5
(10^6 with ``--full``); ``cells`` with a 0.3 skin from a later start: the
positions after LATER steps of the C reference from the lattice (a
disordered, denser state, as the README's main job has for nearly all its
steps: the first 25 steps from the lattice are regular, with predictable
branches and few pairs per cell, and a build option that won there,
``-funroll-loops`` on the 2-D cell forces, lost 14 % on the later state);
3-D with walls and periodic, ``cells`` and ``count``,
at N = 10^4 and 10^5 (those of them among the MD sizes).  pcompute runs on
cython + OpenMP.

How a sample is made: every implementation is put back to the initial
lattice (untimed: positions, zero velocities, first neighbour search and
forces), then STEPS steps are timed; the time per step is reported.  So every
sample of every implementation simulates the same stretch of trajectory (the
lattice contracts as it goes, which makes later steps dearer: measuring
different stretches would not be fair).  The first sample is the warm-up
("first call": construction, builds or JIT, and STEPS steps).  Implementations
are sampled in turn (round-robin).  The total energy after STEPS steps is
checked against the C reference's (relative 1e-9) and, at N = 1000 and 10^4,
against ``reference/md_energies.json`` (E(0) and E(25) with their source).
A sample is one or more such runs ("runs per sample", the same for every
implementation of a group): as many as make the fastest implementation's
sample last MIN_SAMPLE_S (20 ms), at most MAX_RUNS.  At N = 1000 a run of
25 steps lasts about a millisecond, and one OpenMP thread that the OS
deschedules costs it a whole time slice (4 ms): with one run per sample the
medians of a group were a coin toss between disturbed and undisturbed
samples (C against C differed by 2.7x in one idle run); a sample of 20 runs
averages over the slices, so every implementation's sample carries its
share.  The runs of a sample are interleaved: run r of every implementation
in turn (in reverse order every other run), so that load from other
processes hits them alike.  At least 7 samples per implementation (11 with
``--full``), and more, up to MAX_SAMPLES, while the group's time budget
lasts (the profile's budget per implementation); the report has the ratios
of the medians and of the best samples side by side, and the load average
before and after each group.

pcompute's rows are its default build (modules made for this CPU:
``-march=native`` with ``-ffp-contract=off``, but the pair and force kernels,
built with ``fma=True`` as gcc contracts the C reference's: FMA where the CPU
has it), the rows ending in
``generic`` its ``march='generic'`` build (one per group, for the strategy
of the group's C rows).

Peers in the same run: the hand-written C + OpenMP version of the same
algorithms (``reference/md.c``, ``gcc -O3 -march=native -fopenmp``, and
again generic, ``gcc -O3 -fopenmp``: both are reference candidates, the
faster is the group's reference), Numba
``parallel=True`` (2-D ``cells`` and ``count``, ``peers/numba_md.py``),
Compyle cython + OpenMP with its default and its static schedule, Taichi
(CPU) and Warp (CPU, one thread) (2-D ``cells``, ``peers/*_md.py``), and
LAMMPS (2-D, ``lj/cut 3.0``, OPENMP package, 2 threads: its label says what
its log reports).
"""
import json
import math
import time
from pathlib import Path

import numpy as np

from .. import pc
from ..machine import load_average
from ..peers import compyle_peer, lammps_md, numba_peer, taichi_peer, warp_peer
from ..timing import Stats

NAME = "md"
STEPS = 25
SIMPLE_STEPS = 3            # O(N^2): fewer steps per sample at N = 10^4
SKIN = 0.3
LATER = 400                 # the later start: the state after this many C steps
MAX_SAMPLES = 41            # per implementation, while the group's budget lasts
MIN_SAMPLE_S = 0.02         # a sample of the group's fastest implementation lasts this long
MAX_RUNS = 50               # runs of STEPS steps per sample, at most
C_TARGET = ("ratio", 1.15)         # pcompute vs the best C with the same strategy, N >= 10^4
SMALL_TARGET = ("ratio", 1.5)      # the same at N = 1000
RTOL = 1e-9
ENERGIES = Path(__file__).resolve().parents[1] / "reference" / "md_energies.json"


def known_energies():
    """{N: (E(0), E(25))} of the 2-D default set-up (md_energies.json)."""
    data = json.loads(ENERGIES.read_text())["energies"]
    return {int(n): (e["E0"], e["E25"]) for n, e in data.items()}


KNOWN = known_energies()


# ------------------------------------------------------------- implementations

class PcomputeMD:
    """examples.md.Simulation on cython + OpenMP.  ``reset()`` puts the same
    Simulation back to the lattice in place (positions, zero velocities, then
    what its constructor does: the first neighbour search and forces), so
    its arrays (the grown neighbour list included) are reused, as the C and
    Numba versions reuse theirs."""

    def __init__(self, n, dim, periodic, nnps, skin, variant=pc.OMP, start=None):
        from examples.md.lattice import lattice_positions
        from examples.md.simulation import Simulation
        self.pos0 = lattice_positions(n, dim) if start is None else start
        self.variant = variant
        with variant.use():
            self.sim = Simulation(n=n, dim=dim, periodic=periodic, nnps=nnps, skin=skin,
                                  dt=0.02, backend="cython")

    def reset(self):
        sim = self.sim
        with self.variant.use():
            for a, p in zip(sim.positions, self.pos0):
                a.set(p.astype(sim.dtype))
            for v in sim.velocities:
                v.fill(0)
            sim.steps_done = 0
            sim.rebuilds = 0
            sim._rebuild()          # what Simulation.__init__ ends with
            sim.strategy.forces()

    def timed_steps(self, k):
        with self.variant.use():
            t = time.perf_counter()
            self.sim.step(k)
            return time.perf_counter() - t

    def energy(self):
        with self.variant.use():
            return self.sim.energy()[2]

    @property
    def rebuilds(self):
        return self.sim.rebuilds


class _Timed:
    """Adapter for the C / Numba / LAMMPS objects (``reset``, ``step`` or
    ``timed_steps``, ``energy``)."""

    def __init__(self, obj):
        self.obj = obj

    def reset(self):
        self.obj.reset()

    def timed_steps(self, k):
        if hasattr(self.obj, "timed_steps") and not hasattr(self.obj, "lib"):
            return self.obj.timed_steps(k)      # LAMMPS: timed in the child
        t = time.perf_counter()
        self.obj.step(k)
        return time.perf_counter() - t

    def energy(self):
        return self.obj.energy()[2]

    @property
    def rebuilds(self):
        return getattr(self.obj, "rebuilds", None)


class Impl:
    def __init__(self, label, kind, make, is_ref=False, target=None, note=""):
        self.label, self.kind, self.make = label, kind, make
        self.is_ref, self.target, self.note = is_ref, target, note
        self.obj, self.samples, self.check, self.first = None, [], "", None
        self.energy = self.energy0 = None


# ------------------------------------------------------------------- suite

def run(ctx):
    from examples.md.lattice import box_side, lattice_positions
    from ..reference import md as cmd
    try:
        cmd.library("native")
        cmd.library("generic")
        have_c = True
    except Exception as exc:
        have_c = False
        ctx.rec.note("md: C reference unavailable: %s" % exc)
    why = lammps_md.why_missing()
    if why:
        ctx.rec.note("md: LAMMPS peer missing: %s" % why)
    if numba_peer.why_missing():
        ctx.rec.note("md: Numba peer missing: %s" % numba_peer.why_missing())
    if compyle_peer.why_missing():
        print("note: md: Compyle peer skipped: %s" % compyle_peer.why_missing())
        ctx.rec.note("md: Compyle peer missing: %s" % compyle_peer.why_missing())
    ctx.rec.note("md: pcompute's rows without a suffix are its default build, made for "
                 "this CPU (-march=native, with -ffp-contract=off), like the C rows marked "
                 "'-march=native' (gcc -O3 -march=native); the rows ending in 'generic' are "
                 "pcompute with march='generic' (PCOMPUTE_MARCH=generic) and the C built "
                 "for generic x86-64 (gcc -O3). Both C builds are reference candidates: "
                 "each group's ratios are against the faster one. The C reference has no "
                 "'sort' strategy, so pcompute 'sort' rows are compared with C 'count' "
                 "(same lists, counting-sort binning)")
    ns = ctx.md_sizes
    for n in ns:
        pos, side = lattice_positions(n, 2), box_side(n, 2)
        ge4 = n >= 10**4
        if n <= 10**4:
            _group(ctx, "2-D simple", n, _impls(ctx, n, 2, False, pos, side, "simple", 0.0,
                                                 have_c, ge4), SIMPLE_STEPS if ge4 else STEPS)
        _group(ctx, "2-D count/sort lists", n,
               _impls(ctx, n, 2, False, pos, side, "count", 0.0, have_c, ge4, sort=True,
                      lammps=True), STEPS)
        _group(ctx, "2-D cells", n, _impls(ctx, n, 2, False, pos, side, "cells", 0.0,
                                            have_c, ge4), STEPS)
        _group(ctx, "2-D count/sort lists, skin %.1f" % SKIN, n,
               _impls(ctx, n, 2, False, pos, side, "count", SKIN, have_c, ge4, sort=True,
                      lammps=True), STEPS)
        later = "2-D cells, skin %.1f, from step %d" % (SKIN, LATER)
        if have_c and ctx.md_case_wanted(later):
            start = later_state(pos, side, SKIN)
            _group(ctx, later, n, _impls(ctx, n, 2, False, start, side, "cells", SKIN,
                                          have_c, ge4), STEPS, known=False)
    for n in ctx.profile.md_3d_sizes:
        if n not in ns:
            continue
        pos, side = lattice_positions(n, 3), box_side(n, 3)
        for periodic in (False, True):
            for nnps in ("count", "cells"):
                case = "3-D %s %s" % ("periodic" if periodic else "walls", nnps)
                _group(ctx, case, n, _impls(ctx, n, 3, periodic, pos, side, nnps, 0.0,
                                            have_c, n >= 10**4, numba=False), STEPS)


def later_state(pos, side, skin, steps=LATER):
    """The positions after ``steps`` steps from ``pos`` (the C reference, cells
    with ``skin``): a disordered, denser state, like the one the README's
    main job spends nearly all its steps in, where the lattice's first steps
    are regular (branches predictable, few pairs per cell)."""
    from ..reference.md import CMD
    sim = CMD(pos, side, "cells", False, skin)
    sim.reset()
    sim.step(steps)
    return sim.positions()


def _impls(ctx, n, dim, periodic, pos, side, nnps, skin, have_c, ge4, sort=False,
           lammps=False, numba=True):
    from ..reference.md import CMD
    out = []
    if have_c:
        for variant, suffix in (("native", " -march=native"), ("generic", " generic")):
            out.append(Impl(
                "C+OpenMP %s%s" % (nnps, suffix), "reference",
                lambda v=variant: _Timed(CMD(pos, side, nnps, periodic, skin, variant=v)),
                is_ref=True))
    c_label = "C+OpenMP %s" % nnps
    numba_label = "numba parallel %s" % nnps
    use_numba = numba and dim == 2 and nnps in ("cells", "count") and \
        not numba_peer.why_missing()
    lammps_label = "LAMMPS" + (", skin %.1f" % skin if skin else "")   # renamed from its log
    use_lammps = lammps and dim == 2 and not lammps_md.why_missing()
    for strategy in (nnps, "sort") if sort else (nnps,):
        for variant in (pc.OMP, pc.OMP_GENERIC) if strategy == nnps else (pc.OMP,):
            targets = []
            if have_c and strategy == nnps and variant is pc.OMP:
                targets.append(C_TARGET if ge4 else SMALL_TARGET)
            if ge4 and use_numba and strategy == nnps and variant is pc.OMP:
                targets.append(("vs", numba_label, 1.0))
            if n >= 10**5 and skin and use_lammps and variant is pc.OMP:
                targets.append(("vs-min", lammps_label, 1.0))
            suffix = pc.GENERIC_SUFFIX if variant is pc.OMP_GENERIC else ""
            out.append(Impl("pcompute cython+omp %s%s" % (strategy, suffix), "pcompute",
                            lambda s=strategy, v=variant: PcomputeMD(n, dim, periodic, s,
                                                                     skin, v, pos),
                            target=targets or None,
                            note="" if strategy == nnps or not have_c
                            else "(vs %s)" % c_label))
    if use_numba:
        from ..peers.numba_md import NumbaMD
        out.append(Impl(numba_label, "peer",
                        lambda: _Timed(NumbaMD(pos, side, nnps, skin=skin))))
    cells_2d = dim == 2 and nnps == "cells" and not skin
    if cells_2d and not compyle_peer.why_missing():
        from ..peers.compyle_md import CompyleMD
        for static in (False, True):
            label = "compyle cython+omp%s cells" % (" static" if static else "")
            out.append(Impl(label, "peer",
                            lambda st=static: _Timed(CompyleMD(pos, side, static=st)),
                            note="(numpy binning%s)" % (
                                "; Compyle's default schedule dynamic,64" if not static
                                else "; omp_schedule static")))
    if cells_2d and not taichi_peer.why_missing():
        from ..peers.taichi_md import LABEL, TaichiMD
        out.append(Impl(LABEL, "peer", lambda: _Timed(TaichiMD(pos, side)),
                        note="(serial scan of the cell counts)"))
    if cells_2d and not warp_peer.why_missing():
        from ..peers.warp_md import LABEL, WarpMD
        out.append(Impl(LABEL, "peer", lambda: _Timed(WarpMD(pos, side))))
    if use_lammps:
        out.append(Impl(lammps_label, "peer",
                        lambda: _Timed(lammps_md.LammpsMD(pos, side, skin=skin))))
    return out


def _group(ctx, case, n, impls, steps, known=True):
    """Sample ``impls`` on ``case``; ``known``: the start is the lattice, whose
    energies md_energies.json holds (2-D)."""
    if not ctx.md_case_wanted(case):
        return
    print("\n[%s] %s, N = %d, %d steps per run" % (NAME, case, n, steps))
    prof = ctx.profile
    live = []
    for imp in impls:                       # warm-up: build / JIT, then STEPS steps
        try:
            t = time.perf_counter()
            imp.obj = imp.make()
            imp.obj.reset()
            imp.first = time.perf_counter() - t
            imp.energy0 = imp.obj.energy()
            t = time.perf_counter()
            imp.obj.timed_steps(steps)
            imp.first += time.perf_counter() - t
            imp.energy = imp.obj.energy()
            live.append(imp)
        except Exception as exc:
            ctx.failed(NAME, case, n, imp.label, imp.kind, exc)
        label = getattr(getattr(imp.obj, "obj", None), "label", None)
        if imp.kind == "peer" and label and label != imp.label:
            _rename(impls, imp, label)        # e.g. LAMMPS: what its log reports
    ref = next((i for i in live if i.is_ref), None)
    for imp in live:
        imp.check = _check(imp, ref, n, steps, known and case.startswith("2-D"))
    runs = _runs_per_sample(ctx, case, n, live, steps)
    print("  %d run(s) of %d steps per sample" % (runs, steps))
    budget = prof.budget * max(1, len(live))
    start = time.perf_counter()
    load_before = load_average()
    samples = prof.md_samples
    for rnd in range(max(samples, MAX_SAMPLES)):
        if rnd >= samples and time.perf_counter() - start > budget:
            break
        for imp, total in _sample(ctx, case, n, live, steps, runs):
            imp.samples.append(total / (runs * steps))
    load = (load_before, load_average())
    rows = []
    for imp in live:
        rebuilds = getattr(imp.obj, "rebuilds", None)
        note = imp.note
        if rebuilds is not None and "skin" in case:
            note = (note + " rebuilds %d/%d" % (rebuilds, steps + 1)).strip()
        extra = {"steps_per_sample": steps * runs, "runs_per_sample": runs,
                 "energy": imp.energy, "load": load}
        info = getattr(getattr(imp.obj, "obj", None), "info", None)
        if info:
            extra["lammps_log"] = info
        rows.append(ctx.rec.add(NAME, case, n, imp.label, imp.kind, Stats.of(imp.samples, 1),
                                first_s=imp.first, check=imp.check, is_ref=imp.is_ref,
                                target=imp.target, note=note, extra=extra))
    for row in rows:
        ctx.print_row(row)
    print("  load average %s before, %s after the samples" % load)
    for imp in impls:
        close = getattr(getattr(imp.obj, "obj", None), "close", None)
        if close:
            close()
        imp.obj = None


def _timed_run(ctx, case, n, imp, live, steps):
    """Seconds of one run (untimed reset, then ``steps`` timed steps) of
    ``imp``, or None when it failed (then it leaves ``live``, recorded)."""
    try:
        imp.obj.reset()
        return imp.obj.timed_steps(steps)
    except Exception as exc:
        live.remove(imp)
        ctx.failed(NAME, case, n, imp.label, imp.kind, exc)
        return None


def _runs_per_sample(ctx, case, n, live, steps):
    """Runs per sample for the group: one run of each implementation (after
    its warm-up) times the fastest; enough of its runs to last MIN_SAMPLE_S,
    between 1 and MAX_RUNS."""
    times = [t for t in (_timed_run(ctx, case, n, imp, live, steps) for imp in list(live))
             if t is not None]
    fastest = min(times, default=MIN_SAMPLE_S)
    if fastest <= 0:
        return MAX_RUNS
    return max(1, min(MAX_RUNS, math.ceil(MIN_SAMPLE_S / fastest)))


def _sample(ctx, case, n, live, steps, runs):
    """One sample of every implementation in ``live``: ``runs`` runs each,
    run r of every implementation in turn (reversed every other run).
    Yields ``(imp, seconds of its runs)`` for those that did not fail."""
    totals = {imp: 0.0 for imp in live}
    for r in range(runs):
        for imp in (list(live) if r % 2 == 0 else list(reversed(live))):
            t = _timed_run(ctx, case, n, imp, live, steps)
            if t is not None:
                totals[imp] += t
    for imp in list(live):
        yield imp, totals[imp]


def _rename(impls, imp, label):
    """Give ``imp`` its real label and point the targets naming it there."""
    old, imp.label = imp.label, label
    for other in impls:
        if other.target:
            other.target = [(t[0], label) + tuple(t[2:]) if t[0] in ("vs", "vs-min")
                            and t[1] == old else t for t in other.target]


def _check(imp, ref, n, steps, known):
    """'ok' or 'WRONG: ...' for the energies at step 0 and after ``steps`` steps."""
    problems = []
    for k, e, want in ((0, imp.energy0, ref.energy0 if ref else None),
                       (steps, imp.energy, ref.energy if ref else None)):
        if not np.isfinite(e):
            problems.append("E(%d) = %r" % (k, e))
        if want is not None and ref is not imp and abs(e - want) > RTOL * abs(want):
            problems.append("E(%d) = %.11f, C %.11f" % (k, e, want))
        if known and n in KNOWN and k in (0, STEPS):
            good = KNOWN[n][0 if k == 0 else 1]
            if abs(e - good) > RTOL * abs(good):
                problems.append("E(%d) = %.11f, md_energies.json %.11f" % (k, e, good))
    if problems:
        return "WRONG: " + "; ".join(problems)
    if imp is ref and known and n in KNOWN and steps == STEPS:
        return "ok E(0)=%.11f E(%d)=%.11f" % (imp.energy0, steps, imp.energy)
    return "ok"
