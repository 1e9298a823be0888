"""Large host arrays from a pool of buffers already touched.

A fresh array of tens of megabytes costs page faults (the kernel zeroes
every page on first touch) about as dear as a whole radix-sort pass; a
primitive that returns new large arrays on every call (the Cython sort)
takes them from here instead.  The array handed out does not own its
memory: its numpy ``base`` is a small owner object, which numpy keeps as
the base of every view made from it, so the buffer goes back to the pool
only when no array uses it any more.  Idle buffers are kept up to
:data:`KEEP_BYTES` in all: a buffer given back makes room by freeing the
idle buffers given back longest ago (the sizes a program used last are the
ones it asks for next; refusing the new buffer instead would leave the
pool full of sizes no longer used, and every later call would fault fresh
pages).  :func:`release` frees them all.
"""
import collections
import threading

import numpy as np

#: Arrays of at least this many bytes come from the pool (64 KiB: a fresh
#: array from about 128 KiB up is mapped and page-faulted on every call; a
#: fused 5-op chain over 65536 float64 items took 451 us with 1 MiB here, 192
#: us with 64 KiB, NumPy 405-488 us).
MIN_BYTES = 1 << 16
#: The pool keeps idle buffers up to this many bytes in all.
KEEP_BYTES = 1 << 28

_idle = {}            # nbytes -> [uint8 buffers], the last given back last
_order = collections.OrderedDict()   # id(buffer) -> buffer, oldest first
_idle_bytes = [0]
# Re-entrant: a garbage collection started by an allocation while the lock is
# held may run an _Owner's __del__ (an array in a reference cycle) in this thread.
_lock = threading.RLock()
stats = {"reused": 0, "allocated": 0, "evicted": 0}


class _Owner:
    """Owns one pooled buffer and shows ``n`` items of ``dtype`` of it."""

    def __init__(self, mem, n, dtype):
        self.mem = mem
        self.__array_interface__ = {"shape": (n,), "typestr": dtype.str, "version": 3,
                                    "data": (mem.__array_interface__["data"][0], False)}

    def __del__(self):
        try:
            _give_back(self.mem)
        except Exception:          # interpreter shutdown: nothing to keep
            pass


def _give_back(mem):
    with _lock:
        if mem.nbytes > KEEP_BYTES:
            return
        while _idle_bytes[0] + mem.nbytes > KEEP_BYTES:
            _, old = _order.popitem(last=False)
            same = _idle[old.nbytes]
            del same[next(k for k, m in enumerate(same) if m is old)]
            _idle_bytes[0] -= old.nbytes
            stats["evicted"] += 1
        _idle.setdefault(mem.nbytes, []).append(mem)
        _order[id(mem)] = mem
        _idle_bytes[0] += mem.nbytes


def empty(n, dtype):
    """An uninitialised 1-D array of ``n`` items of ``dtype``; from the pool
    (a buffer of exactly that many bytes) when it is large."""
    dtype = np.dtype(dtype)
    nbytes = n * dtype.itemsize
    if nbytes < MIN_BYTES:
        return np.empty(n, dtype)
    with _lock:
        kept = _idle.get(nbytes)
        mem = kept.pop() if kept else None
        if mem is not None:
            del _order[id(mem)]
            _idle_bytes[0] -= nbytes
    if mem is None:
        mem = np.empty(nbytes, np.uint8)
        stats["allocated"] += 1
    else:
        stats["reused"] += 1
    return np.asarray(_Owner(mem, n, dtype))


def release():
    """Free the idle buffers."""
    with _lock:
        _idle.clear()
        _order.clear()
        _idle_bytes[0] = 0
