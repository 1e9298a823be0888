"""Run under mpiexec by tests/test_md_mpi.py: the decomposed MD against the
plain-numpy reference (tests/md_reference.py) of the whole system.

``python -m mpi_programs.md [--steps=S] CONFIG...`` with each CONFIG ``grid:dim:bc:skin``
(``bc`` is ``walls`` or ``periodic``), e.g. ``2x2:3:periodic:0.3``.  The
particles form a jittered block that straddles the ranks' faces; in periodic
boxes it is moved by half a box so that it also straddles the periodic
boundaries; with walls it lies against the walls of the axes not split.  Every step the number of
particles and the sum of their ids are checked; the total energy every 25
steps against the reference (1e-10 relative in double; the first 25 steps
to 2e-3 in float32, whose trajectories part from double ones), and the final
positions.  Double runs S steps (100 unless ``--steps`` says otherwise, a
multiple of 25), float32 runs 25.  A failed check aborts the job.
"""
import sys

import numpy as np

import md_reference as ref
from examples.md.decomposed import DistributedSimulation
from pcompute import get_config
from pcompute.distributed import abort_on_error, parse_grid, world

STEPS, EVERY, DT = 100, 25, 0.02
N = {2: 150, 3: 125}


def initial_state(dim, periodic, grid, seed=7):
    pos, side = ref.lattice(N[dim], dim)
    rng = np.random.default_rng(seed)
    pos = pos + rng.uniform(-0.15, 0.15, pos.shape)
    if periodic:
        pos = np.mod(pos + 0.5 * side, side)
    else:
        # centred on the middle of the box along split axes (across the ranks'
        # faces), against the wall (within its range) along the others
        for d in range(dim):
            if d >= len(grid) or grid[d] == 1:
                pos[:, d] += 0.3 - pos[:, d].min()
    vel = rng.normal(0.0, 0.7, pos.shape)
    return pos, vel, side


def reference(pos, vel, side, periodic, steps):
    """Total energies every EVERY steps and the final positions (numpy, double)."""
    pos, vel = pos.copy(), vel.copy()
    acc, pe = ref.forces(pos, side, periodic)
    energies = [0.5 * np.sum(vel * vel) + pe.sum()]
    for step in range(1, steps + 1):
        vel += 0.5 * DT * acc
        pos += DT * vel
        if periodic:
            pos -= side * np.floor(pos / side)
        acc, pe = ref.forces(pos, side, periodic)
        vel += 0.5 * DT * acc
        if step % EVERY == 0:
            energies.append(0.5 * np.sum(vel * vel) + pe.sum())
    return np.array(energies), pos


def check(comm, text, double, steps):
    grid, dim, bc, skin = text.split(":")
    dim, periodic, skin = int(dim), bc == "periodic", float(skin)
    pos, vel, side = initial_state(dim, periodic, parse_grid(grid))
    n = len(pos)
    sim = DistributedSimulation(n=n, dim=dim, periodic=periodic, dt=DT, skin=skin,
                                positions=pos, velocities=vel, grid=grid, comm=comm)
    assert sim.side == side
    ids = n * (n - 1) // 2
    energies = [sim.energy()[2]]
    if not double:
        steps = EVERY
    for step in range(1, steps + 1):
        sim.step()
        assert sim.census() == (n, ids), (text, step, sim.census())
        if step % EVERY == 0:
            energies.append(sim.energy()[2])
    final = sim.host_positions()
    migrated = comm.allreduce(sim.halo.migrated)
    if double and comm.size > 1:
        assert migrated > 0, "%s: no particle changed rank; a weak test" % text
    if comm.rank == 0:
        want, want_pos = reference(pos, vel, side, periodic, steps)
        assert len(energies) == len(want) == steps // EVERY + 1, text
        if double:
            np.testing.assert_allclose(energies, want, rtol=1e-10, err_msg=text)
            if periodic:
                final = np.mod(final, side)
            np.testing.assert_allclose(final, want_pos, rtol=1e-9, atol=1e-9, err_msg=text)
        else:
            np.testing.assert_allclose(energies[:2], want[:2], rtol=2e-3, err_msg=text)
        print("%s: ok, %d rebuilds, %d migrations, %d ghosts on rank 0"
              % (text, sim.rebuilds, migrated, sim.halo.n_ghost))


def main():
    comm = world()
    abort_on_error(comm)
    args, steps = sys.argv[1:], STEPS
    if args and args[0].startswith("--steps="):
        steps = int(args.pop(0)[len("--steps="):])
        if steps < EVERY or steps % EVERY:
            raise ValueError("--steps=%d: a multiple of %d is needed" % (steps, EVERY))
    for text in args:
        check(comm, text, get_config().use_double, steps)
    comm.Barrier()


if __name__ == "__main__":
    main()
