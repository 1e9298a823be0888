"""Run under mpiexec by tests/test_md_mpi.py: rank 1 raises in the middle of a
decomposed MD run while the others are inside the step's collectives; the
job must end (abort_on_error) instead of hanging."""
from examples.md.decomposed import DistributedSimulation
from pcompute.distributed import abort_on_error, world

comm = world()
abort_on_error(comm)
sim = DistributedSimulation(n=400, dim=2, skin=0.3, temperature=0.5, grid=str(comm.size),
                            comm=comm)
for step in range(200):
    if comm.rank == 1 and step == 3:
        raise RuntimeError("rank 1 gives up at step 3")
    sim.step()
print("not reached: the job should have been aborted")
