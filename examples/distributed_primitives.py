"""pcompute's distributed primitives: run with ``mpiexec -n 4 python
examples/distributed_primitives.py``.

Each rank holds a block of a global array; the results are those of the
single-process primitives on the whole array.
"""
import numpy as np

from pcompute import wrap, zeros
from pcompute.distributed import (DistributedReduction, DistributedScan, abort_on_error,
                                  distributed_sort_by_keys, world)

comm = world()
abort_on_error(comm)                 # an exception on one rank ends the whole job
rank, size = comm.Get_rank(), comm.Get_size()

# Rank r holds the integers [1000 r, 1000 (r + 1)).
mine = np.arange(1000 * rank, 1000 * (rank + 1), dtype=np.int64)
x = wrap(mine)

total = DistributedReduction("a+b", dtype_out=np.int64)(x)             # every rank
offsets = zeros(len(mine), np.int64)
DistributedScan(dtype=np.int64, exclusive=True)(x, offsets)          # global prefix
keys = wrap((mine * 7919) % 1009)                                  # scrambled keys
sorted_keys, ids = distributed_sort_by_keys([keys, x])             # sample sort

n = 1000 * size
assert total == n * (n - 1) // 2
assert offsets.get()[0] == 1000 * rank * (1000 * rank - 1) // 2
everything = np.concatenate(comm.allgather(sorted_keys.get()))
assert np.all(np.diff(everything) >= 0) and len(everything) == n
if rank == 0:
    print("sum %d over %d ranks; the global sort holds %d keys" % (total, size,
                                                                     len(everything)))
