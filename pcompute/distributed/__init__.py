"""pcompute beyond one process: MPI (mpi4py) domain decomposition and
distributed primitives.

``Decomposition``          a Cartesian grid of ranks over a box
``DistributedReduction``   Reduction across ranks (local kernel + one collective)
``DistributedScan``        Scan across ranks (local scans + the carry of the ranks before)
``distributed_sort_by_keys``  stable sample sort across ranks
``allreduce``              several host numbers reduced in one message
``abort_on_error``         an uncaught exception on any rank aborts the job

mpi4py is imported when one of these is used, never by ``import pcompute``;
install it with ``pip install pcompute[mpi]``.
"""
from .decomposition import Decomposition, parse_grid
from .mpi import abort_on_error, get_comm, mpi, world
from .reduction import DistributedReduction, allreduce, allreduce_ints
from .scan import DistributedScan
from .sort import distributed_sort_by_keys

__all__ = ["Decomposition", "parse_grid", "abort_on_error", "get_comm", "mpi", "world",
           "DistributedReduction", "allreduce", "allreduce_ints", "DistributedScan",
           "distributed_sort_by_keys"]
