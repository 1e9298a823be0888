"""One timed MD run (run by ``python -m benchmarks.mpi``, possibly under mpiexec).

``python -m benchmarks.mpi.md_rank N STEPS GRID`` with GRID ``single`` (the
one-process Simulation) or a grid of ranks (DistributedSimulation).  Builds
the 2-D default lattice with skin 0.3, runs 5 untimed steps (kernel builds,
first neighbour lists), then STEPS timed steps ending with an energy (which
is a collective, so every rank has finished); rank 0 prints one JSON line.
"""
import json
import sys
import time

from examples.md import Simulation
from examples.md.decomposed import DistributedSimulation

SKIN = 0.3
WARMUP = 5


def main():
    n, steps, grid = int(float(sys.argv[1])), int(sys.argv[2]), sys.argv[3]
    t = time.perf_counter()
    if grid == "single":
        sim, rank, comm = Simulation(n=n, nnps="cells", skin=SKIN), 0, None
    else:
        sim = DistributedSimulation(n=n, nnps="cells", skin=SKIN, grid=grid)
        rank, comm = sim.rank, sim.comm
    sim.step(WARMUP)
    e0 = sim.energy()[2]
    setup = time.perf_counter() - t
    if comm is not None:
        comm.Barrier()
    rebuilds = sim.rebuilds
    t = time.perf_counter()
    sim.step(steps)
    e1 = sim.energy()[2]
    elapsed = time.perf_counter() - t
    if rank == 0:
        out = dict(n=n, steps=steps, grid=grid, ms_per_step=1e3 * elapsed / steps,
                   setup_s=setup, rebuilds=sim.rebuilds - rebuilds, energy=[e0, e1])
        if comm is not None:
            out.update(ghosts_rank0=sim.halo.n_ghost, owned_rank0=sim.n_owned,
                       messages_per_step=sim.halo.refresh_messages,
                       bytes_per_step_rank0=sim.halo.refresh_bytes)
        print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
