"""Run under mpiexec by tests/test_distributed.py: the distributed primitives
and the decomposition against numpy on the whole (global) data.

Every rank builds the same global arrays from one seed and keeps its block
(uneven blocks, an empty one with 4 ranks).  Any failed check raises, which
aborts the whole job (``abort_on_error``), so the test sees a non-zero exit.
The backend and precision come from PCOMPUTE_BACKEND / _OPENMP / _DOUBLE.
"""
import sys

import numpy as np

from pcompute import get_config, wrap, zeros
from pcompute.distributed import (Decomposition, DistributedReduction, DistributedScan,
                                  abort_on_error, allreduce, allreduce_ints,
                                  distributed_sort_by_keys, mpi, world)


def blocks(n, size):
    """Uneven block bounds: rank r gets (r + 1) parts of n, the last rank none
    when there are 4 ranks."""
    weights = np.arange(1, size + 1, dtype=float)
    if size == 4:
        weights[-1] = 0.0
    edges = np.concatenate([[0], np.cumsum(weights)]) / weights.sum() * n
    return np.round(edges).astype(int)


def check_reductions(comm, rng, mine, real, rtol):
    full = rng.uniform(-1, 1, 3001).astype(real)
    fulli = rng.integers(-1000, 1000, 3001).astype(np.int32)
    lo, hi = mine(3001)
    x, xi = wrap(full[lo:hi].copy()), wrap(fulli[lo:hi].copy())
    total = DistributedReduction("a+b", dtype_out=real)(x)
    np.testing.assert_allclose(total, full.astype(np.float64).sum(), rtol=rtol)
    assert DistributedReduction("a+b", dtype_out=np.int64)(xi) == fulli.astype(np.int64).sum()
    assert DistributedReduction("min(a, b)", dtype_out=np.int32,
                                neutral="INFINITY")(xi) == fulli.min()
    assert DistributedReduction("max(a, b)", dtype_out=np.int32,
                                neutral="-INFINITY")(xi) == fulli.max()

    def square(i, v):
        return v[i] * v[i]
    sq = DistributedReduction("a+b", map_func=square, dtype_out=real)(x)
    np.testing.assert_allclose(sq, np.sum(full.astype(np.float64) ** 2), rtol=rtol)
    # several numbers in one message; every rank gets the same values
    got = allreduce([1.0, comm.rank], "sum", comm)
    assert got.tolist() == [comm.size, comm.size * (comm.size - 1) / 2]
    assert allreduce_ints(comm.rank, "max", comm) == comm.size - 1
    assert comm.allgather(float(total)) == [float(total)] * comm.size


def check_scans(comm, rng, mine, real, rtol):
    fulli = rng.integers(-50, 100, 2500).astype(np.int32)
    full = rng.uniform(0, 1, 2500).astype(real)
    lo, hi = mine(2500)
    xi, x = wrap(fulli[lo:hi].copy()), wrap(full[lo:hi].copy())
    out = zeros(hi - lo, np.int32)
    DistributedScan(dtype=np.int32)(xi, out)
    np.testing.assert_array_equal(out.get(), np.cumsum(fulli)[lo:hi])
    DistributedScan(dtype=np.int32, exclusive=True)(xi, out)
    exclusive = np.concatenate([[0], np.cumsum(fulli)[:-1]])
    np.testing.assert_array_equal(out.get(), exclusive[lo:hi])
    # a running maximum (not a sum), from a map function
    def shifted(i, v):
        return v[i] + 7
    DistributedScan(input=shifted, scan_expr="max(a, b)", dtype=np.int32,
                    neutral="-INFINITY")(xi, out)
    np.testing.assert_array_equal(out.get(), np.maximum.accumulate(fulli + 7)[lo:hi])
    outf = zeros(hi - lo, real)
    DistributedScan(dtype=real)(x, outf)
    np.testing.assert_allclose(outf.get(), np.cumsum(full.astype(np.float64))[lo:hi],
                               rtol=rtol)


def check_sort(comm, rng, mine, real):
    """Exactly numpy's stable sort of the whole data, values included."""
    for n, high, dtype in ((4000, 50, np.int32), (3001, 2 ** 40, np.int64),
                           (1500, 7, np.uint32)):
        keys = rng.integers(0, high, n).astype(dtype)
        if dtype == np.int64:
            keys[::3] *= -1                      # negative keys too
        values = rng.uniform(0, 1, n).astype(real)
        ids = np.arange(n, dtype=np.int32)
        lo, hi = mine(n)
        got = distributed_sort_by_keys([wrap(keys[lo:hi].copy()), wrap(values[lo:hi].copy()),
                                        wrap(ids[lo:hi].copy())], comm=comm)
        parts = [np.concatenate(comm.allgather(a.get())) for a in got]
        order = np.argsort(keys, kind="stable")
        np.testing.assert_array_equal(parts[0], keys[order])
        np.testing.assert_array_equal(parts[1], values[order])
        np.testing.assert_array_equal(parts[2], ids[order])
        # a key never spans two ranks
        mine_keys = set(got[0].get().tolist())
        others = comm.allgather(mine_keys)
        for r, other in enumerate(others):
            assert r == comm.rank or not (mine_keys & other)


def check_decomposition(comm, rng):
    MPI = mpi()
    dim = 2 if comm.size != 1 else 3
    side = np.array([12.0, 9.0, 6.0][:dim])
    for periodic in (False, True):
        dec = Decomposition(np.zeros(dim), side, periodic=periodic, comm=comm)
        assert np.prod(dec.grid) == comm.size
        # owned regions tile the box
        volumes = comm.allgather(float(np.prod(dec.owned_hi - dec.owned_lo)))
        np.testing.assert_allclose(sum(volumes), np.prod(side))
        points = rng.uniform(0, 1, (500, dim)) * side
        corners = np.array(comm.allgather(dec.owned_lo))   # every rank's lower corner
        points[:len(corners)] = corners
        owners = dec.owners(points)
        for p, owner in zip(points, owners):
            inside = all(dec.owned_lo[d] <= p[d] < dec.owned_hi[d] for d in range(dim))
            assert inside == (owner == dec.rank), (p, owner, dec)
        counts = comm.allreduce(int(np.sum(owners == dec.rank)))
        assert counts == len(points)
        for axis in range(dim):
            lower, upper = dec.neighbours(axis)
            # the upper neighbour's lower neighbour is this rank
            back = comm.sendrecv(dec.rank, dest=upper, source=lower) if comm.size > 1 \
                else (dec.rank if periodic else None)
            edge = dec.coords[axis] == 0
            if periodic or not edge:
                assert back == lower and lower != MPI.PROC_NULL, (axis, back, lower)
            else:
                assert lower == MPI.PROC_NULL and dec.bounds(axis)[0] == -np.inf
                assert dec.shift(axis, -1) == 0.0
            if periodic and edge:
                assert dec.shift(axis, -1) == side[axis]
        try:
            dec.check_reach(float(min(dec.width)) * 1.01)
        except ValueError as exc:
            assert "too small" in str(exc)
        else:
            if periodic or any(g > 1 for g in dec.grid):
                raise AssertionError("check_reach accepted a reach wider than a rank")
        dec.check_reach(float(min(dec.width)) * 0.99)
    try:
        Decomposition(np.zeros(dim), side, grid=(comm.size + 1,), comm=comm)
    except ValueError as exc:
        assert "mpiexec -n" in str(exc)
    else:
        raise AssertionError("a grid of the wrong size was accepted")


def main():
    comm = world()
    abort_on_error(comm)
    config = get_config()
    real = np.float64 if config.use_double else np.float32
    rtol = 1e-10 if real == np.float64 else 2e-4
    edges = {}

    def mine(n):
        if n not in edges:
            edges[n] = blocks(n, comm.size)
        return edges[n][comm.rank], edges[n][comm.rank + 1]

    rng = np.random.default_rng(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
    check_reductions(comm, rng, mine, real, rtol)
    check_scans(comm, rng, mine, real, rtol)
    check_sort(comm, rng, mine, real)
    check_decomposition(comm, rng)
    comm.Barrier()
    if comm.rank == 0:
        print("distributed primitives ok on %d ranks" % comm.size)


if __name__ == "__main__":
    main()
