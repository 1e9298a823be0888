"""The molecular dynamics example (examples/md) on every backend.

Physics against a plain-numpy reference (tests/md_reference.py) and the
energies of benchmarks/reference/md_energies.json; neighbour strategies against each other;
the command line.
"""
import functools
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import md_reference as ref
from conftest import BackendCase, worker_rotation

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from examples.md import cli  # noqa: E402
from examples.md.arguments import Kept  # noqa: E402
from pcompute import wrap  # noqa: E402
from examples.md.neighbours import all_pairs_2d  # noqa: E402
from examples.md.simulation import NNPS, Simulation  # noqa: E402

# 2-D default set-up, double, dt 0.02, N = 1000: E(0) and E(25 steps) as the C
# reference (benchmarks/reference/md.c) and LAMMPS compute them; kept with
# their source in benchmarks/reference/md_energies.json, which the MD
# benchmark checks every run against.
E0_N1000 = -701.57296858918
E25_N1000 = -705.11457145227

GEOMETRIES = {"2d": dict(dim=2), "3d": dict(dim=3), "3d-periodic": dict(dim=3, periodic=True)}
SMALL_N = {"2d": 100, "3d": 64, "3d-periodic": 64}


def need_double(backend):
    if not backend.use_double:
        pytest.skip("compared in double only (float32 flips pairs at r = 3)")


def jittered(n, dim, periodic, seed=3, amount=0.2):
    """Lattice positions moved at random (no pair sits exactly at the cut-off)."""
    pos, side = ref.lattice(n, dim)
    pos = pos + np.random.default_rng(seed).uniform(-amount, amount, pos.shape)
    if periodic:
        pos %= side
    return pos


def make(geometry, nnps, n=None, **kw):
    n = n or SMALL_N[geometry]
    geo = GEOMETRIES[geometry]
    if "positions" not in kw:
        kw["positions"] = jittered(n, geo["dim"], geo.get("periodic", False))
    return Simulation(n=n, nnps=nnps, **geo, **kw)


#: The set-ups whose kernels are those of every strategy and skin in one
#: dimension: the skin's (copy, rebuild test, its fused advance), the
#: binnings' (the fused count pass), each strategy's pair and force kernels
#: (test_launches_list_every_kernel_a_run_launches checks they cover all).
GROUP_SETUPS = (("simple", 0.3), ("sort", 0.0), ("count", 0.0), ("cells", 0.0))
#: Backend cases (ids) whose kernels were built together in this process.
_GROUPED = set()


def group_setups(geometry, dtype, setups=GROUP_SETUPS):
    """Simulations of ``setups`` ((nnps, skin) pairs) set up, not started."""
    return [make(geometry, nnps, n=27, skin=skin, dtype=dtype, start=False)
            for nnps, skin in setups]


@pytest.fixture
def md_groups(backend):
    """Where the backend builds kernels together (cython), the kernels of
    every simulation these tests make (both dimensions, 3-D walls and
    periodic sharing theirs; every strategy, with and without a skin) built
    as group modules once per process and case (strict: a group that cannot
    be merged or built is this test's error), one dimension's first and the
    other's after it, each xdist worker starting at its own
    (:func:`conftest.worker_rotation`): a case costs 4 modules (kernels
    with and without ``fma``) instead of one per kernel (about 35); the
    tests then find theirs built."""
    from pcompute import use_config
    from pcompute.backends.registry import get_backend
    from examples.md.prebuild import build_together
    if backend.id in _GROUPED or not get_backend(backend.name).builds_together:
        return
    _GROUPED.add(backend.id)        # once, also when a build fails
    with use_config(strict_groups=True):
        for geometry in worker_rotation(["2d", "3d-periodic"]):
            build_together(group_setups(geometry, backend.dtype))


def run_energies(sim, steps, every):
    out = [sim.energy()[2]]
    for _ in range(steps // every):
        sim.step(every)
        out.append(sim.energy()[2])
    return np.array(out)


# -- physics against the numpy reference ------------------------------------------

@pytest.mark.parametrize("geometry", sorted(GEOMETRIES))
def test_initial_forces_match_numpy(backend, md_groups, geometry):
    need_double(backend)
    sim = make(geometry, "cells", temperature=0.3, skin=0.2)
    pos = sim.host_positions()
    acc, pe = ref.forces(pos, sim.side, periodic=sim.periodic)
    np.testing.assert_allclose(sim.host_accelerations(), acc, rtol=1e-10, atol=1e-11)
    np.testing.assert_allclose(sim.pe.get(), pe, rtol=1e-10, atol=1e-12)


@pytest.mark.optimised_build
@pytest.mark.parametrize("nnps,geometry", [("count", "2d"), ("cells", "3d-periodic")])
def test_fma_kernels_at_full_optimisation_match_numpy(backend, nnps, geometry):
    """The pair and force kernels are built with ``fma=True``.  The suite
    builds at -O0, where gcc contracts nothing; here they are built at the
    default optimisation level, where the cython builds fuse multiplies and
    adds on a CPU with FMA: the neighbour lists, forces and potential energy
    of a jittered lattice still match the NumPy reference."""
    from pcompute import get_config
    from pcompute.config import DEFAULT_OPT_LEVEL
    from pcompute.kernel_options import options_of
    need_double(backend)
    assert get_config().opt_level == DEFAULT_OPT_LEVEL >= 2
    # no skin: no copy kernel; no prebuild: only the kernels of the
    # construction are built (at -O3), not the steps' too
    sim = make(geometry, nnps, temperature=0.3, prebuild=False)
    for kernel in (sim.strategy._forces, getattr(sim.strategy, "_pairs", None)):
        assert kernel is None or options_of(kernel.func).get("fma") is True
    pos = sim.host_positions()
    acc, pe = ref.forces(pos, sim.side, periodic=sim.periodic)
    np.testing.assert_allclose(sim.host_accelerations(), acc, rtol=1e-10, atol=1e-11)
    np.testing.assert_allclose(sim.pe.get(), pe, rtol=1e-10, atol=1e-12)
    assert float(np.sum(sim.pe.get())) == pytest.approx(float(np.sum(pe)), rel=1e-12)
    want = _brute_force_lists(pos, sim.side, sim.periodic, sim.rc)
    for i, (got, w) in enumerate(zip(sim.neighbour_lists(), want)):
        np.testing.assert_array_equal(got, w, err_msg="neighbours of particle %d" % i)


def test_decomposed_force_kernels_have_the_single_process_build_options():
    """The MPI run's force kernels (local_cells) are built as the single-process
    ones (fma=True: the decomposed run's forces are those of one process)."""
    from examples.md import forces, local_cells
    from pcompute.kernel_options import options_of
    for dim in (2, 3):
        local = options_of(getattr(local_cells, "forces_local_%dd" % dim))
        assert local == options_of(getattr(forces, "forces_cells_%dd" % dim))
        assert local.get("fma") is True


@functools.lru_cache(maxsize=None)
def reference_n1000():
    """E(0), E(1), ..., E(25) of the numpy reference (computed once per process)."""
    energies, _ = ref.run(1000, 25)
    return energies


PYTHON_N1000_STEPS = 2


def test_n1000_energy_matches_reference_and_measured(backend, md_groups):
    """N = 1000, 2-D, count lists: E(0) and E(25) against the NumPy reference
    and the published E0_N1000, E25_N1000 (C reference and LAMMPS).  The
    python backend, an interpreter (about 6 s a step here), runs
    PYTHON_N1000_STEPS steps and is compared with the NumPy reference at that
    step (to 1e-9 as the others); its agreement with NumPy over longer runs
    is checked by test_trajectory_matches_numpy (20 steps, N = 64-100) and
    test_energies_match_numpy_reference (100 steps, N = 64-100)."""
    need_double(backend)
    steps = PYTHON_N1000_STEPS if backend.name == "python" else 25
    sim = Simulation(n=1000, nnps="count")
    e0 = sim.energy()[2]
    sim.step(steps)
    e_end = sim.energy()[2]
    energies = reference_n1000()
    assert e0 == pytest.approx(energies[0], rel=1e-9)
    assert e_end == pytest.approx(energies[steps], rel=1e-9)
    assert e0 == pytest.approx(E0_N1000, rel=1e-9)
    if steps == 25:
        assert e_end == pytest.approx(E25_N1000, rel=1e-9)


def test_numpy_reference_matches_measured():
    energies = reference_n1000()
    assert energies[0] == pytest.approx(E0_N1000, rel=1e-12)
    assert energies[-1] == pytest.approx(E25_N1000, rel=1e-12)


@pytest.mark.parametrize("geometry", sorted(GEOMETRIES))
def test_trajectory_matches_numpy(backend, md_groups, geometry):
    need_double(backend)
    geo = GEOMETRIES[geometry]
    n = SMALL_N[geometry]
    pos = jittered(n, geo["dim"], geo.get("periodic", False))
    vel = np.random.default_rng(4).normal(0.0, 0.5, pos.shape)
    sim = make(geometry, "count", positions=pos, velocities=vel, skin=0.3)
    sim.step(20)
    energies = run_energies(sim, 0, 1)
    ref_e, ref_pos = _reference_from(pos, vel, sim.side, sim.periodic, 20)
    assert energies[-1] == pytest.approx(ref_e, rel=1e-9)
    np.testing.assert_allclose(sim.host_positions(), ref_pos, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("nnps,skin", [("count", 0.3), ("cells", 0.0)])
def test_replaced_state_arrays_are_the_ones_used(backend, md_groups, nnps, skin):
    """Velocities, accelerations and potential energies given as new arrays
    between steps (here the velocities halved into new arrays) are the ones
    the kernels read and write from then on: the run follows the NumPy
    reference started from the new velocities.  The kernels' argument tuples
    are kept while their arrays are the same objects
    (examples/md/arguments.py); a key without them launched on the old
    arrays."""
    need_double(backend)
    pos = jittered(100, 2, False)
    vel = np.random.default_rng(5).normal(0.0, 0.5, pos.shape)
    sim = make("2d", nnps, positions=pos, velocities=vel, skin=skin)
    sim.step(5)
    start, halved = sim.host_positions(), 0.5 * sim.host_velocities()
    sim.velocities = tuple(wrap(halved[:, d].copy(), backend=sim.backend) for d in range(2))
    sim.accelerations = tuple(wrap(a.get(), backend=sim.backend) for a in sim.accelerations)
    sim.pe = wrap(sim.pe.get(), backend=sim.backend)
    sim.step(10)
    ref_e, ref_pos = _reference_from(start, halved, sim.side, sim.periodic, 10)
    ref_acc, ref_pe = ref.forces(ref_pos, sim.side, sim.periodic)
    np.testing.assert_allclose(sim.host_positions(), ref_pos, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(sim.host_accelerations(), ref_acc, rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(sim.pe.get(), ref_pe, rtol=1e-8, atol=1e-8)
    assert sim.energy()[2] == pytest.approx(ref_e, rel=1e-9)


def test_kept_tuple_is_made_again_when_any_of_its_objects_is_replaced():
    """examples/md/arguments.Kept: the tuple is made once while the four
    objects are the same (equal but new ones count as replaced), again when
    any one of them is another object."""
    made = []
    kept = Kept("test", lambda: made.append(1) or (len(made),))
    objs = [np.zeros(2), (np.ones(1),), [3], 0.5]
    assert kept(*objs) == (1,) and kept(*objs) == (1,) and len(made) == 1
    copies = [objs[0].copy(), tuple(list(objs[1])), list(objs[2]), objs[3] * 1.0]
    for k in range(4):
        assert copies[k] is not objs[k]
        objs[k] = copies[k]                         # an equal copy, a new object
        assert kept(*objs) == (k + 2,), k
        assert kept(*objs) == (k + 2,), k
    assert len(made) == 5
    assert kept(objs[0]) == (6,)                    # fewer objects: the others None


def _reference_steps(pos, vel, side, periodic, steps, dt=0.02):
    """The NumPy reference's velocity Verlet from (pos, vel): (total energy,
    positions) at steps 0, 1, ..., ``steps`` (the positions array is reused)."""
    pos, vel = pos.copy(), vel.copy()
    acc, pe = ref.forces(pos, side, periodic)
    yield 0.5 * np.sum(vel * vel) + pe.sum(), pos
    for _ in range(steps):
        vel += 0.5 * dt * acc
        pos += dt * vel
        if periodic:
            pos -= side * np.floor(pos / side)
        acc, pe = ref.forces(pos, side, periodic)
        vel += 0.5 * dt * acc
        yield 0.5 * np.sum(vel * vel) + pe.sum(), pos


def _reference_from(pos, vel, side, periodic, steps):
    """Total energy and positions of the NumPy reference after ``steps`` steps."""
    *_, (energy, pos) = _reference_steps(pos, vel, side, periodic, steps)
    return energy, pos


# -- neighbour strategies agree ------------------------------------------------------

def _brute_force_lists(pos, side, periodic, reach):
    d = pos[:, None, :] - pos[None, :, :]
    if periodic:
        d -= side * np.round(d / side)
    r2 = np.einsum("ijk,ijk->ij", d, d)
    np.fill_diagonal(r2, np.inf)
    return [np.flatnonzero(row < reach * reach) for row in r2]


_SIMPLE_RESULTS = {}


def _simple_results(backend, geometry, skin):
    """The ``simple`` strategy's neighbour lists, accelerations and potential
    energies for ``geometry`` and ``skin`` on ``backend``, its lists checked
    against brute force in double; made once per process and case (every
    strategy of test_strategies_give_the_same_neighbours_and_forces compares
    with them; the simple case makes its own run again)."""
    key = (backend.id, geometry, skin)
    if key not in _SIMPLE_RESULTS:
        simple = make(geometry, "simple", skin=skin, dtype=backend.dtype)
        lists = simple.neighbour_lists()
        assert sum(len(a) for a in lists) > 0
        assert getattr(simple.strategy, "list", None) is None or \
            simple.strategy.list.refills == 0
        if backend.use_double:
            brute = _brute_force_lists(simple.host_positions(), simple.side, simple.periodic,
                                       simple.rc + skin)
            for got, want in zip(lists, brute):
                np.testing.assert_array_equal(got, want)
        _SIMPLE_RESULTS[key] = (lists, simple.host_accelerations(), simple.pe.get())
    return _SIMPLE_RESULTS[key]


@pytest.mark.parametrize("skin", [0.0, 0.3])
@pytest.mark.parametrize("geometry", sorted(GEOMETRIES))
@pytest.mark.parametrize("nnps", NNPS)
def test_strategies_give_the_same_neighbours_and_forces(backend, md_groups, nnps, geometry, skin):
    expected, simple_acc, simple_pe = _simple_results(backend, geometry, skin)
    other = make(geometry, nnps, skin=skin, dtype=backend.dtype)
    lists = other.neighbour_lists()
    # the count and fill passes agreed: no list filled again
    assert getattr(other.strategy, "list", None) is None or other.strategy.list.refills == 0
    for i, (got, want) in enumerate(zip(lists, expected)):
        np.testing.assert_array_equal(got, want, err_msg="neighbours of particle %d" % i)
    tol = dict(rtol=1e-10, atol=1e-10) if backend.use_double else dict(rtol=1e-4,
                                                                        atol=1e-3)
    np.testing.assert_allclose(other.host_accelerations(), simple_acc, **tol)
    np.testing.assert_allclose(other.pe.get(), simple_pe, **tol)


@pytest.mark.parametrize("geometry", sorted(GEOMETRIES))
@pytest.mark.parametrize("nnps", NNPS)
def test_a_nan_position_is_no_neighbour_in_any_strategy(backend, md_groups, nnps, geometry):
    """A particle at a NaN position (a NaN distance to every other) has no
    neighbour and is nobody's, whatever the strategy, and the others' lists
    are the brute-force ones: every pair test is ``d2 < rl2`` and the
    binning puts a NaN in the first cell on every backend (all_pairs_2d
    tested ``>=`` and took every particle as the NaN one's neighbour; the
    binned strategies raised on the python backend)."""
    geo = GEOMETRIES[geometry]
    pos = jittered(SMALL_N[geometry], geo["dim"], geo.get("periodic", False))
    pos[5, 0] = np.nan
    sim = make(geometry, nnps, positions=pos, skin=0.3, dtype=backend.dtype)
    lists = sim.neighbour_lists()
    assert getattr(sim.strategy, "list", None) is None or sim.strategy.list.refills == 0
    assert len(lists[5]) == 0 and not any(5 in a for a in lists)
    if backend.use_double:
        want = _brute_force_lists(pos, sim.side, sim.periodic, sim.rc + 0.3)
    else:       # float32 flips pairs at the reach: the simple strategy's lists
        key = ("nan", backend.id, geometry)
        if key not in _SIMPLE_RESULTS:
            _SIMPLE_RESULTS[key] = make(geometry, "simple", positions=pos, skin=0.3,
                                        dtype=backend.dtype).neighbour_lists()
        want = _SIMPLE_RESULTS[key]
    for i, (got, w) in enumerate(zip(lists, want)):
        np.testing.assert_array_equal(got, w, err_msg="neighbours of particle %d" % i)


@pytest.mark.parametrize("nnps,geometry", [
    ("simple", "2d"), ("simple", "3d"), ("simple", "3d-periodic"),
    ("count", "2d"), ("count", "3d"), ("count", "3d-periodic")])   # each pair loop
def test_fill_pass_writes_no_more_than_counted(backend, md_groups, nnps, geometry):
    """The fill pass of each pair kernel stores at most ``counts[i]`` neighbours
    into particle i's slots: given half of the true counts (as if the count
    pass had found fewer pairs), each particle's slots hold distinct true
    neighbours and nothing past the last slot is written."""
    sim = make(geometry, nnps, skin=0.3, dtype=backend.dtype)
    lists = sim.neighbour_lists()
    room = np.array([len(a) // 2 for a in lists], np.int32)
    offsets = np.zeros(sim.n + 1, np.int32)
    offsets[1:] = np.cumsum(room)
    assert room[-1] > 0 and offsets[-1] > 0
    total = sum(len(a) for a in lists)      # room for every pair: an unguarded fill fits
    nbrs = wrap(np.full(total, -1, np.int32), backend=sim.backend)
    strategy = sim.strategy
    counts = wrap(room.copy(), backend=sim.backend)
    status = wrap(np.zeros(1, np.int32), backend=sim.backend)
    strategy._pairs(*strategy.pair_args(), counts, wrap(offsets, backend=sim.backend),
                    nbrs, status, np.int32(1))
    got = nbrs.get()
    assert (got[offsets[-1]:] == -1).all(), "stores past the counted slots"
    # every particle with neighbours found more than its room, and said so
    found = np.array([len(a) for a in lists])
    assert status.get()[0] == np.count_nonzero(found != room)
    np.testing.assert_array_equal(counts.get(), found)
    for i, want in enumerate(lists):
        mine = got[offsets[i]:offsets[i + 1]]
        assert len(set(mine)) == room[i] and set(mine) <= set(want), i


def miscounting_pairs_2d(i, x, y, n_all, rl2, counts, offsets, nbrs, status, fill):
    """The simple 2-D pair kernel, whose count pass uses a reach 20 % longer
    for even i and 20 % shorter for odd i: count and fill passes that
    disagree (as two passes rounding a distance at the reach differently)."""
    reach2 = rl2
    if fill == 0:
        if i % 2 == 0:
            reach2 = 1.44 * rl2
        else:
            reach2 = 0.64 * rl2
    all_pairs_2d(i, x, y, n_all, reach2, counts, offsets, nbrs, status, fill)


def test_a_fill_pass_that_miscounts_is_filled_again(backend, md_groups, caplog):
    """A fill pass finding more pairs than counted for a particle (stores
    beyond its room lost) or fewer (a stale index left in its last slot):
    the build reads the fill pass's report, fills again from its counts and
    gets the true lists; counted, logged, an error when strict."""
    from pcompute import Elementwise
    want = make("2d", "simple", skin=0.3, dtype=backend.dtype).neighbour_lists()
    sim = make("2d", "simple", skin=0.3, dtype=backend.dtype)
    strategy, nlist = sim.strategy, sim.strategy.list
    strategy._pairs = Elementwise(miscounting_pairs_2d, backend=sim.backend)
    before = nlist.refills
    with caplog.at_level("WARNING", logger="examples.md.neighbours"):
        strategy.rebuild()
    assert nlist.refills == before + 1
    assert "filled again" in caplog.text and "%d particle(s)" % sim.n in caplog.text
    assert nlist.total == sum(len(a) for a in want)
    for i, (got, w) in enumerate(zip(sim.neighbour_lists(), want)):
        np.testing.assert_array_equal(got, w, err_msg="neighbours of particle %d" % i)
    assert nlist.status.get()[0] == 0
    nlist.strict = True
    with pytest.raises(RuntimeError, match="another number of neighbours"):
        strategy.rebuild()


@pytest.mark.parametrize("nnps,geometry,skin,fused", [
    ("count", "2d", 0.0, "BinnedAdvance"), ("cells", "3d-periodic", 0.0, "BinnedAdvance"),
    ("count", "3d", 0.3, "MovedAdvance"), ("sort", "2d", 0.0, None)])
def test_fused_steps_follow_the_separate_kernels(backend, md_groups, nnps, geometry, skin, fused):
    """Kick-kick-drift fused with the skin's rebuild test or the binning's
    count pass (examples/md/fused.py) gives the trajectory of the separate
    kernels, with the same rebuilds; ``sort`` without a skin has no fusion.
    12 steps; the python backend, an interpreter, 6 (the skin case rebuilds
    twice in them, once from the fused test, as in 12 steps: 4 times)."""
    steps = 6 if backend.name == "python" else 12
    runs = {}
    for apart in (False, True):
        sim = make(geometry, nnps, skin=skin, temperature=0.5, dtype=backend.dtype)
        kind = getattr(getattr(sim._advance, "__self__", None), "__class__", None)
        assert (kind.__name__ if kind is not Simulation else None) == fused
        if apart:
            sim._advance = sim._advance_apart
        sim.step(steps)
        runs[apart] = (sim.host_positions(), sim.host_velocities(), sim.rebuilds)
    assert runs[False][2] == runs[True][2] > (1 if skin else steps)
    tol = dict(rtol=1e-13, atol=1e-13) if backend.use_double else dict(rtol=1e-5, atol=1e-5)
    for got, want in zip(runs[False][:2], runs[True][:2]):
        np.testing.assert_allclose(got, want, **tol)


# -- energies over 100 steps against the NumPy reference -----------------------------

_REFERENCE_ENERGIES = {}


def _reference_energies(sim, steps, every):
    """Total energies at steps 0, every, 2 * every, ... ``steps`` of the NumPy
    reference started from ``sim``'s initial state, in double; computed once
    per process and state (they do not depend on the neighbour strategy or
    the skin, so the three 2-D cases share one run)."""
    pos = sim.host_positions().astype(np.float64)
    vel = sim.host_velocities().astype(np.float64)
    key = (sim.side, sim.periodic, steps, every, pos.tobytes(), vel.tobytes())
    if key not in _REFERENCE_ENERGIES:
        run = _reference_steps(pos, vel, sim.side, sim.periodic, steps)
        _REFERENCE_ENERGIES[key] = np.array([e for k, (e, _) in enumerate(run)
                                             if k % every == 0])
    return _REFERENCE_ENERGIES[key]


@pytest.mark.parametrize("nnps,geometry,skin", [
    ("count", "2d", 0.0), ("cells", "2d", 0.3), ("sort", "2d", 0.0),
    ("cells", "3d-periodic", 0.0), ("count", "3d", 0.3)])
def test_energies_match_numpy_reference(backend, md_groups, nnps, geometry, skin):
    """Total energies every 25 steps against the NumPy reference from the same
    initial state.  Double: 100 steps to 1e-10 (every float64 backend agreed
    to 9e-14 or better, AMD EPYC, /tmp script: the summation orders differ);
    the python backend, an interpreter, 25 (steps 0 and 25 to 1e-10; the
    skin cases rebuild 8 and 9 times in them).  float32 trajectories part
    from double ones: 25 steps, steps 0 and 25 compared to 2e-3."""
    steps = 100 if backend.use_double and backend.name != "python" else 25
    sim = make(geometry, nnps, skin=skin, temperature=0.5, dtype=backend.dtype)
    want = _reference_energies(sim, steps, 25)
    got = run_energies(sim, steps, 25)
    assert len(got) == len(want) == steps // 25 + 1
    if backend.use_double:
        np.testing.assert_allclose(got, want, rtol=1e-10)
    else:
        np.testing.assert_allclose(got, want, rtol=2e-3)


def test_skin_gives_the_same_energies_with_fewer_builds(backend, md_groups):
    """N = 200, count lists: a 0.4 skin gives the energies every 20 steps of
    rebuilding every step, with fewer (but more than one) builds.  60 steps;
    the python backend, an interpreter, 20 (its skin run rebuilds 5 times
    there, as cython's does: 5, 9, 14 builds at steps 20, 40, 60)."""
    need_double(backend)
    steps = 20 if backend.name == "python" else 60
    runs = {}
    for skin in (0.0, 0.4):
        sim = make("2d", "count", skin=skin, temperature=0.3, n=200)
        runs[skin] = (run_energies(sim, steps, 20), sim.rebuilds)
    np.testing.assert_allclose(runs[0.4][0], runs[0.0][0], rtol=1e-10)
    assert runs[0.0][1] == steps + 1
    assert 1 < runs[0.4][1] < steps + 1


# -- energy conservation -------------------------------------------------------

def test_default_preset_conserves_energy():
    """The command line's default preset (shifted potential, its dt, skin and
    final time) at N = 400 (8333 steps, about 5 s on cython)."""
    from pcompute import use_config
    from pcompute.backends.registry import get_backend
    if not get_backend("cython").available():
        pytest.skip("cython backend unavailable: %s" % get_backend("cython").why_unavailable())
    preset = cli.PRESETS["default"]
    assert preset["shift"]
    steps = int(round(preset["tf"] / preset["dt"]))
    with use_config(backend="cython", use_openmp=False, use_double=True):
        sim = Simulation(n=400, dt=preset["dt"], shift=True, nnps="cells",
                         skin=preset["skin"])
        energies = run_energies(sim, steps - steps % 500, 500)
    # Drift: where the energy ends up.  The collapse of the lattice in the first
    # steps gives fluctuations of a few 1e-4 (they scale as dt^2), not a drift.
    drift = abs(energies[-1] - energies[0]) / abs(energies[0])
    fluctuation = np.max(np.abs(energies - energies[0])) / abs(energies[0])
    assert drift < 1e-4, drift
    assert fluctuation < 1e-3, fluctuation


# -- the command line -----------------------------------------------------------------

def test_cli_runs_and_writes_output(tmp_path, capsys):
    out = tmp_path / "run"
    rc = cli.main(["-b", "python", "-n", "30", "--steps", "6", "--log-every", "2",
                   "--nnps", "count", "--output", str(out), "--profile"])
    assert rc == 0
    text = capsys.readouterr().out
    assert "steps/s" in text and "kick_drift" in text
    # every step's phases are timed when profiling (Phases.run), the fused
    # ones of the steps after the first included
    assert re.search(r"md: forces +6 ", text), text
    assert re.search(r"md: kick \+ kick \+ drift \+ skin check +3 ", text), text
    rows = (out / "energies.csv").read_text().splitlines()
    assert rows[0] == "step,time,kinetic,potential,total"
    assert [int(r.split(",")[0]) for r in rows[1:]] == [0, 2, 4, 6]
    positions = np.loadtxt(out / "positions.csv", delimiter=",", skiprows=1)
    assert positions.shape == (30, 5)
    assert (out / "run.json").exists()


@pytest.mark.parametrize("argv,want", [
    ([], dict(preset="default", shift=True, dt=0.003, skin=0.3, tf=25.0)),
    (["--preset", "compyle"], dict(shift=False, dt=0.02, skin=0.0, tf=50.0)),
    (["--preset", "compyle", "--dt", "0.01", "--shift"], dict(shift=True, dt=0.01)),
    (["--no-shift", "--skin", "0"], dict(shift=False, skin=0.0, dt=0.003))])
def test_cli_presets(tmp_path, argv, want):
    rc = cli.main(["-b", "python", "-n", "20", "--steps", "2", "-q", "--output",
                   str(tmp_path)] + argv)
    assert rc == 0
    import json
    info = json.loads((tmp_path / "run.json").read_text())
    assert {k: info[k] for k in want} == want


def test_cli_quiet_prints_nothing(capsys):
    assert cli.main(["-b", "python", "-n", "20", "--steps", "2", "-q"]) == 0
    assert capsys.readouterr().out == ""


def test_cli_plot(tmp_path, capsys):
    rc = cli.main(["-b", "python", "-n", "20", "--dim", "3", "--periodic", "--steps", "2",
                   "-q", "--plot", "--output", str(tmp_path)])
    assert rc == 0
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        err = capsys.readouterr().err
        assert "matplotlib" in err and len(err.strip().splitlines()) == 1
    else:
        assert (tmp_path / "md.png").stat().st_size > 0


@pytest.mark.parametrize("argv", [
    ["-n", "0"], ["-n", "ten"], ["--dim", "4"], ["--periodic"], ["--dt", "-1"],
    ["--nnps", "magic"], ["--tf", "1", "--steps", "3"], ["--skin", "-0.1"],
    ["--log-every", "0"], ["--bogus"]])
def test_cli_bad_options_give_one_line_and_exit_2(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    assert "error" in err


def test_python_dash_m_entry_point():
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, "-m", "examples.md", "-b", "python", "-n", "16",
                          "--steps", "3"], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "3 steps in" in out.stdout
    bad = subprocess.run([sys.executable, "-m", "examples.md", "--dim", "5"], cwd=ROOT,
                         env=env, capture_output=True, text=True, timeout=300)
    assert bad.returncode == 2
    assert len(bad.stderr.strip().splitlines()) == 1


# -- the kernels a run launches, listed ahead -------------------------------------------

def _signature(args):
    """The types a call with ``args`` builds for: (dtype, array or not) of each."""
    return tuple((np.dtype(getattr(a, "dtype", type(a))).str, hasattr(a, "shape"))
                 for a in args)


def _kernel_of(kernel, args):
    """What a launch builds, the same for another simulation's kernel
    object of the same function and argument types."""
    what = getattr(kernel, "func", None) or getattr(kernel, "map_func", None) or \
        getattr(kernel, "input_func", None)
    return type(kernel).__name__, what, getattr(kernel, "reduce_expr", None), \
        _signature(args)


@pytest.mark.parametrize("backend", [BackendCase("cython", False, "float64")],
                         ids=lambda c: c.id, indirect=True)
def test_launches_list_every_kernel_a_run_launches(backend, md_groups, monkeypatch):
    """Simulation.launches() (what examples/md/prebuild.py builds together)
    lists exactly the Elementwise, Reduction and Scan launches of a run,
    with their argument types: construction, two steps (fused advance,
    rebuilds, the skin's copy and test), the separate kick-kick-drift and
    the energies, for every strategy, both dimensions, with and without a
    skin; and GROUP_SETUPS (md_groups) list every kernel of them.  On
    cython, whose kernels md_groups built (the launches cost microseconds);
    the lists do not depend on the backend."""
    from pcompute import Elementwise, Reduction, Scan
    launched = set()
    for cls in (Elementwise, Reduction, Scan):
        def spy(self, *args, _call=cls.__call__, **kwargs):
            launched.add((id(self), _signature(args)))
            return _call(self, *args, **kwargs)
        monkeypatch.setattr(cls, "__call__", spy)
    for geometry in ("2d", "3d-periodic"):
        every = set()
        for nnps in NNPS:
            for skin in (0.0, 0.2):
                launched.clear()
                sim = make(geometry, nnps, n=27, skin=skin, temperature=0.5)
                sim.step(2)
                sim._advance_apart(False)
                sim.energy()
                listed = {(id(k), _signature(args)) for k, args in sim.launches()}
                assert len(listed) >= 8
                assert listed == launched, (geometry, nnps, skin, listed ^ launched)
                every |= {_kernel_of(k, args) for k, args in sim.launches()}
        grouped = {_kernel_of(k, args) for sim in group_setups(geometry, np.float64)
                   for k, args in sim.launches()}
        assert grouped == every, geometry


# -- the CUDA dialect compiles (no GPU needed) ------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_md_kernels_compile_as_cuda(dtype):
    """Every kernel of every strategy, dimension and skin (the Elementwise,
    Reduction and Scan kernels Simulation.launches() lists: test above)
    generated as CUDA C and compiled by nvcc (one run for all)."""
    from pcompute import use_config
    from pcompute.build import cuda_builder
    if cuda_builder.nvcc_path() is None:
        pytest.skip("nvcc not found")
    from pcompute import Elementwise
    sources = set()
    with use_config(backend="python", use_double=dtype == np.float64):
        for geometry in ("2d", "3d-periodic"):
            for nnps in NNPS:
                for skin in (0.0, 0.2):
                    sim = make(geometry, nnps, n=27, skin=skin, dtype=dtype, start=False)
                    for kernel, args in sim.launches():
                        source = kernel.generate("cuda", *args)
                        # the energies' Reductions sum in double (dtype_out)
                        if dtype == np.float32 and isinstance(kernel, Elementwise):
                            assert "double" not in source, kernel.func.__name__
                        sources.add(source)
    assert len(sources) >= 25
    cuda_builder.check_cuda_sources(sorted(sources))    # one nvcc run for all
