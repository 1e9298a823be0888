"""Particles across ranks: migration to the owning rank, and ghost (halo) copies.

Both work axis by axis, as LAMMPS does: along each axis a rank trades with
its lower and upper neighbour only, and what arrives along one axis is
forwarded along the next, so corners and edges need no messages of their own
(2 messages per axis and step for ghosts, 2 dim in all).

``migrate``       particles outside the owned region go to the neighbour
                  owning them (positions and any other per-particle fields)
``build_ghosts``  copies of the particles within ``reach`` of each face go to
                  the neighbours; the send lists are kept
``refresh``       the ghosts' positions again, from the kept lists (every
                  step between rebuilds)

Across a periodic boundary the copy is shifted by the box side, so a rank
never needs minimum-image arithmetic.  Selection, packing and unpacking are
kernels on the rank's backend (:mod:`pcompute.distributed.packing`); only
packed buffers go through MPI.
"""
from dataclasses import dataclass

import numpy as np

from .mpi import mpi
from .packing import Packer, grow

INF = np.inf


@dataclass
class Transfer:
    """One message of a ghost exchange, replayed by :meth:`Halo.refresh`."""
    axis: int
    dest: int
    source: int
    send: object          # int32 Array of the local indices sent
    shift: float          # added to the coordinate along ``axis``
    start: int            # where the received ghosts go in the local arrays
    count: int            # how many arrive


class Halo:
    """Migration and ghost exchange for the particles of one rank of ``decomposition``."""

    def __init__(self, decomposition, backend=None):
        self.dec = decomposition
        self.comm = decomposition.comm
        self.packer = Packer(backend)
        self.transfers = []
        self.n_owned = 0
        self.n_ghost = 0
        self.reach = None
        self._null = mpi().PROC_NULL
        #: Messages and bytes sent by this rank in the last refresh / overall.
        self.refresh_messages = 0
        self.refresh_bytes = 0
        #: Particles this rank has sent away by migration so far.
        self.migrated = 0

    # -- messages -------------------------------------------------------------

    def _exchange(self, host, dtypes, count, dest, source, recv_count=None):
        """Send ``host`` ({dtype: array} of ``count`` particles) to ``dest`` and
        receive from ``source``; returns ({dtype: array}, received count)."""
        comm = self.comm
        if recv_count is None:
            got = np.zeros(1, np.int64)
            comm.Sendrecv(np.array([count], np.int64), dest=dest, recvbuf=got,
                          source=source)
            recv_count = int(got[0])
        send = np.concatenate([host[d].view(np.uint8) for d in dtypes]) if count \
            else np.empty(0, np.uint8)
        sizes = [(d, self._members[d] * recv_count) for d in dtypes]
        recv = np.empty(sum(n * d.itemsize for d, n in sizes), np.uint8)
        comm.Sendrecv(send, dest=dest, recvbuf=recv, source=source)
        out, at = {}, 0
        for d, n in sizes:
            out[d] = recv[at:at + n * d.itemsize].view(d)
            at += n * d.itemsize
        return out, recv_count, len(send)

    def _layout(self, fields):
        members = {}
        for f in fields:
            members[f.dtype] = members.get(f.dtype, 0) + 1
        self._members = members
        return sorted(members, key=str)

    # -- migration -----------------------------------------------------------------

    def migrate(self, positions, fields=()):
        """Send owned particles that left this rank's region to their owner.

        ``positions``: one Array per axis holding exactly the owned particles
        (drop the ghosts first: resize to the owned count); ``fields``: other
        per-particle Arrays of the same length (velocities, ids, ...).  All
        are compacted and extended in place; returns the new owned count.
        Particles may only have moved into a neighbouring rank's region
        (true between neighbour-list rebuilds when reach <= rank side).
        """
        arrays = list(positions) + list(fields)
        dtypes = self._layout(arrays)
        pk = self.packer
        for axis in range(self.dec.dim):
            if self.dec.grid[axis] == 1 and not self.dec.periodic[axis]:
                continue
            lo, hi = self.dec.bounds(axis)
            x = positions[axis]
            n = len(x)
            lower, upper = self.dec.neighbours(axis)
            outgoing = []
            for direction, a, b, dest in ((-1, -INF, lo, lower), (1, hi, INF, upper)):
                idx = pk.select(x, a, b, "leave")
                shifts = [0.0] * len(arrays)
                shifts[axis] = self.dec.shift(axis, direction)
                outgoing.append((pk.pack(idx, arrays, shifts), len(idx), dest))
            left = sum(k for _, k, _ in outgoing)
            self.migrated += left
            if left:
                stay = pk.select(x, lo, hi, "stay")
                self._compact(stay, arrays)
                n = len(stay)
            grow(arrays, n)
            for (host, count, dest), source in zip(outgoing, (upper, lower)):
                got, k, _ = self._exchange(host, dtypes, count, dest, source)
                grow(arrays, n + k)
                pk.unpack(got, arrays, n, k)
                n += k
        self.n_owned = len(positions[0])
        self.n_ghost = 0
        self.transfers = []
        return self.n_owned

    def _compact(self, idx, arrays):
        pk = self.packer
        for a in arrays:
            tmp = pk.buffer("compact", len(idx), a.dtype)
            pk._pack(idx, a, tmp, np.int64(0))
            a.resize(len(idx))
            pk._unpack(tmp, a, np.int64(0))

    # -- ghosts ---------------------------------------------------------------------

    def build_ghosts(self, positions, reach):
        """Append ghost copies of the particles within ``reach`` of this rank's
        faces (from the neighbours) to ``positions`` (which hold the owned
        particles, possibly followed by old ghosts, dropped here).

        Raises ValueError when a rank is narrower than ``reach`` along an
        exchanging axis.  Returns the number of ghosts.
        """
        self.dec.check_reach(reach)
        self.reach = reach
        grow(positions, self.n_owned)
        dtypes = self._layout(positions)
        pk = self.packer
        n = self.n_owned
        self.transfers = []
        for axis in range(self.dec.dim):
            if self.dec.grid[axis] == 1 and not self.dec.periodic[axis]:
                continue
            lo, hi = self.dec.owned_lo[axis], self.dec.owned_hi[axis]
            lower, upper = self.dec.neighbours(axis)
            x = positions[axis]
            plans = []
            for direction, a, b, dest, source in ((-1, -INF, lo + reach, lower, upper),
                                                   (1, hi - reach, INF, upper, lower)):
                idx = pk.select(x, a, b, "ghost").copy() if dest != self._null else \
                    pk.buffer("none", 0, np.int32).copy()
                plans.append((direction, idx, dest, source))
            for direction, idx, dest, source in plans:
                shift = self.dec.shift(axis, direction)
                t = Transfer(axis, dest, source, idx, shift, n, 0)
                got, t.count, _ = self._exchange(self._pack(t, positions), dtypes, len(idx),
                                                 dest, source)
                grow(positions, n + t.count)
                pk.unpack(got, positions, n, t.count)
                n += t.count
                self.transfers.append(t)
        self.n_ghost = n - self.n_owned
        return self.n_ghost

    def _pack(self, t, positions):
        shifts = [0.0] * len(positions)
        shifts[t.axis] = t.shift
        return self.packer.pack(t.send, positions, shifts)

    def refresh(self, positions):
        """Copy the current positions of the particles sent at the last
        :meth:`build_ghosts` into the neighbours' ghosts (same order)."""
        dtypes = self._layout(positions)
        messages = sent = 0
        for t in self.transfers:
            got, _, nbytes = self._exchange(self._pack(t, positions), dtypes, len(t.send),
                                            t.dest, t.source, recv_count=t.count)
            self.packer.unpack(got, positions, t.start, t.count)
            messages += t.dest != self._null
            sent += nbytes
        self.refresh_messages, self.refresh_bytes = messages, sent
