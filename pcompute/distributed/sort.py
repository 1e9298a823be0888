"""Global stable sort by keys across ranks: a sample sort.

1. each rank sorts its part with the ordinary :func:`~pcompute.sort_by_keys`
   (the backend's radix sort, on its device);
2. every rank contributes evenly spaced samples of its sorted keys; the
   gathered samples give ``size - 1`` splitters, the same on every rank;
3. rank ``r``'s sorted keys fall into contiguous ranges, one per destination
   (keys equal to a splitter all go the same way), exchanged with one
   ``Alltoallv`` per array;
4. each rank stably sorts what it received (concatenated in source-rank
   order, so equal keys keep their global order).

The concatenation of the ranks' results (rank 0 first) is exactly the
single-process ``sort_by_keys`` of the concatenated inputs, values included.
Parts may end up uneven when keys repeat a lot (a key never spans ranks).
"""
import numpy as np

from ..array import Array, wrap
from ..backends.registry import get_backend
from ..errors import KernelTypeError
from ..array.sorting import sort_by_keys
from .mpi import get_comm

#: Samples per rank (more gives better balanced parts).
OVERSAMPLE = 64


def _host(a):
    return a.get() if isinstance(a, Array) else np.asarray(a)


def _local_sort(arrays, key_bits, backend):
    if len(arrays[0]) == 0:
        return [_host(a) for a in arrays]
    return [a.get() for a in sort_by_keys(arrays, key_bits=key_bits, backend=backend)]


def splitters(sorted_keys, comm, oversample=OVERSAMPLE):
    """``size - 1`` keys splitting the global key range into ``size`` parts
    (from evenly spaced samples of every rank's sorted keys; collective)."""
    size = comm.Get_size()
    n = len(sorted_keys)
    take = min(n, oversample)
    picks = sorted_keys[(np.arange(take) * n) // max(take, 1)] if take else sorted_keys[:0]
    samples = np.sort(np.concatenate(comm.allgather(picks)), kind="stable")
    if len(samples) == 0:
        return samples
    return samples[(np.arange(1, size) * len(samples)) // size]


def _exchange(comm, data, send_counts):
    """One Alltoallv: ``data`` split by ``send_counts``; the received array."""
    recv_counts = np.empty_like(send_counts)
    comm.Alltoall(send_counts, recv_counts)
    send_displs = np.concatenate([[0], np.cumsum(send_counts)[:-1]])
    recv_displs = np.concatenate([[0], np.cumsum(recv_counts)[:-1]])
    out = np.empty(int(recv_counts.sum()), dtype=data.dtype)
    # Buffers as bytes: any dtype, no MPI datatype mapping needed.
    item = data.dtype.itemsize
    comm.Alltoallv([np.ascontiguousarray(data).view(np.uint8),
                    (send_counts * item, send_displs * item)],
                   [out.view(np.uint8), (recv_counts * item, recv_displs * item)])
    return out


def distributed_sort_by_keys(arrays, key_bits=None, backend=None, comm=None):
    """Sort ``[keys, values...]`` spread across the ranks of ``comm`` (stable).

    Each rank passes its own part (Arrays or numpy arrays, as
    :func:`~pcompute.sort_by_keys`); each gets back its part of the globally
    sorted sequence as Arrays on ``backend`` (default: the arrays').  Rank 0
    holds the smallest keys.  A collective call: every rank must call it.
    """
    comm = get_comm(comm)
    arrays = list(arrays)
    if not arrays or not isinstance(arrays[0], (Array, np.ndarray)):
        raise KernelTypeError("distributed_sort_by_keys takes a list of arrays "
                              "[keys, values...]")
    if backend is None:
        backend = next((a.backend for a in arrays if isinstance(a, Array)), None)
    be = get_backend(backend)
    ordered = _local_sort(arrays, key_bits, be.name)
    keys = ordered[0]
    cuts = np.searchsorted(keys, splitters(keys, comm), side="right")
    edges = np.concatenate([[0], cuts, [len(keys)]])
    counts = np.diff(edges).astype(np.int64)
    received = [wrap(_exchange(comm, a, counts), backend=be.name) for a in ordered]
    if len(received[0]) == 0:
        return received
    return sort_by_keys(received, key_bits=key_bits, backend=be.name)
