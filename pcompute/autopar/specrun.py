"""Running a speculated loop: logs, copy-before, check, restore and rerun.

One :class:`Speculation` per speculated nest of a parallelised function
keeps its logs (int32 device arrays, one per instrumented array and kind,
kept from call to call) and the next iteration id, or the bitmaps of its
chunks (uint32 arrays, :mod:`.specchunk`), and the counts that
``explain()`` reports.  A run:

1. copies the arrays the loop may write (only those);
2. launches the speculative kernel: with the logs (:mod:`.speclower`), with
   iteration ids ``base .. base + count - 1``; or in chunks with private
   bitmaps, then their check (:mod:`.specchunk`); and reads the three
   violation flags;
3. passes, or restores the copies and runs the sequential kernel, so the
   result is always the sequential one.  A violation is counted, logged,
   warned (:class:`~pcompute.errors.SpeculationWarning`) or, under
   ``strict``, raised (:class:`~pcompute.errors.SpeculationError`).
"""
import logging
import time
from dataclasses import dataclass, field

import numpy as np

from ..array import zeros
from .specchunk import words
from .specmemo import KeyMemo
from .speclower import KINDS

logger = logging.getLogger("pcompute.autopar.speculate")

#: Iteration ids are int32: the logs are cleared when they would pass this.
ID_LIMIT = 2 ** 31 - 1


@dataclass
class SpeculationStats:
    """What happened to one speculated loop (see ``Parallelized.explain``)."""
    line: int
    runs: int = 0             # speculative attempts
    passed: int = 0
    violated: int = 0         # attempts that fell back to the sequential rerun
    unchecked: int = 0        # runs without checks (loop marked safe)
    sequential: int = 0       # runs without speculation (loop marked unsafe)
    clears: int = 0           # times the logs were cleared (ids ran out)
    reused: int = 0           # runs checked by an earlier run's verdict (specmemo)
    stale: int = 0            # runs whose keys had changed from that run's
    last: str = "not run"     # "passed", "violated: flow, output", ...
    check: str = ""           # how the last speculative run was checked
    times: dict = field(default_factory=dict)   # seconds of the last run's parts

    def summary(self):
        """One line: runs, passes, fallbacks and the last run's timings."""
        parts = ["%d speculative run(s), %d passed, %d fell back to the sequential "
                 "loop" % (self.runs, self.passed, self.violated)]
        if self.reused or self.stale:
            parts.append("%d run(s) reused the verdict of an earlier checked run on the "
                         "same keys, %d found the keys changed" % (self.reused, self.stale))
        if self.unchecked or self.sequential:
            parts.append("%d run(s) unchecked (marked safe), %d sequential (marked "
                         "unsafe)" % (self.unchecked, self.sequential))
        parts.append("last run: %s" % self.last)
        if self.check:
            parts.append("checked with %s" % self.check)
        if self.times:
            parts.append("last run's time: " + ", ".join(
                "%s %.3f ms" % (k, 1e3 * v) for k, v in self.times.items()))
        overhead = self.overhead()
        if overhead is not None:
            parts.append("checking overhead %+.0f%% (copy-before and checked run vs the "
                         "unchecked run)" % (100 * overhead))
        return "; ".join(parts)

    def overhead(self):
        """(copy-before + checked run) / unchecked run - 1, from the last
        ``explain()`` (None before one)."""
        unchecked = self.times.get("unchecked run (explain)")
        if not unchecked or "speculative run" not in self.times:
            return None
        spent = self.times["speculative run"] + self.times.get("copy-before", 0.0)
        return spent / unchecked - 1.0


@dataclass
class ProfileEntry:
    """A speculated loop as the profile mode saw it."""
    line: int
    runs: int = 0
    violated: int = 0
    kinds: set = field(default_factory=set)


class Speculation:
    """The logs and statistics of one speculated nest."""

    def __init__(self, line):
        self.stats = SpeculationStats(line)
        self.base = 1
        self._logs = {}
        self._flags = {}
        self._saved = ()          # (array, its copy) of the run in progress
        self._copies = {}         # position -> the buffer its copy-before reuses
        self._maps = {}           # (kind, array, backend) -> bitmaps of the chunks
        self.memo = KeyMemo()     # the keys of the last checked run (specmemo)

    def _log(self, key, size):
        log = self._logs.get(key)
        if log is None or log.size < size:
            log = zeros(max(size, 1), np.int32)
            self._logs[key] = log
        return log

    def _copy(self, k, array):
        """A copy of ``array`` (the ``k``-th written array) in a buffer kept
        from the previous run when it fits: a fresh copy each run would
        also pay for the new memory's page faults."""
        buffer = self._copies.get(k)
        if not _same_kind(array, buffer):
            buffer = self._copies[k] = array.copy()
        else:
            restore(buffer, array)
        return buffer

    def logs(self, text, arrays, count):
        """The log Arrays for the kernel's parameters, in order: for each
        logged array (canonical name, with a read log or not) its rd and wr
        logs.  Clears them when the ids ``base + count`` would overflow."""
        if self.base + count >= ID_LIMIT:
            for log in self._logs.values():
                log.fill(0)
            self.base = 1
            self.stats.clears += 1
        out = []
        for name, has_read, has_write in text.logged:
            array = arrays[name]
            kinds = ("rd",) * has_read + ("wr",) * has_write
            for kind in kinds:
                out.append(self._log((kind, name, array.backend), array.size))
        return out

    def bitmaps(self, logged, arrays, chunks):
        """(bitmaps, words per chunk) for the chunked kernel (:mod:`.specchunk`):
        for each instrumented array with a write map, its read map (if any)
        and write map, uint32 arrays of ``chunks`` rows, zero (the check
        clears them), kept from run to run; and each array's row length."""
        maps, nwords = [], []
        for name, has_read, has_write in logged:
            if not has_write:
                continue
            array = arrays[name]
            n = words(array.size)
            nwords.append(n)
            for kind in ("rd",) * has_read + ("wr",):
                key = (kind, name, array.backend)
                bitmap = self._maps.get(key)
                if bitmap is None or bitmap.size != chunks * n:
                    bitmap = self._maps[key] = zeros(chunks * n, np.uint32)
                maps.append(bitmap)
        return maps, nwords

    def clear_bitmaps(self):
        """Zero the bitmaps (a chunked run that stopped before its check)."""
        for bitmap in self._maps.values():
            bitmap.fill(0)

    def restore_written(self):
        """Put back the arrays the run in progress may have written (the
        speculative kernel failed part-way: an index out of range under
        ``bounds_check``), so the sequential kernel starts from them."""
        for array, copy in self._saved:
            restore(array, copy)

    def flags(self, backend):
        """The violation flags (one int32 per kind of :data:`KINDS`) on
        ``backend``, zeroed for a new run; kept from run to run."""
        flags = self._flags.get(backend)
        if flags is None:
            # one more slot: a key differed from the stored one (specmemo)
            flags = self._flags[backend] = zeros(len(KINDS) + 1, np.int32)
        else:
            flags.fill(0)
        return flags

    def run(self, launch, written, rerun, on_violation):
        """Speculate: ``launch(self)`` runs the kernel and returns the host
        violation flags,
        ``written`` are the device Arrays the loop may write, ``rerun()``
        runs the sequential kernel, ``on_violation(kinds)`` reports (it may
        raise, after the arrays are restored)."""
        stats = self.stats
        stats.runs += 1
        t0 = time.perf_counter()
        saved = [self._copy(k, a) for k, a in enumerate(written)]
        t1 = time.perf_counter()
        self._saved = tuple(zip(written, saved))
        try:
            found = launch(self)
        finally:
            self._saved = ()
        t2 = time.perf_counter()
        kinds = [k for k, f in zip(KINDS, found) if f]
        stats.times = {"copy-before": t1 - t0, "speculative run": t2 - t1}
        if not kinds:
            stats.passed += 1
            stats.last = "passed"
            return ()
        stats.violated += 1
        stats.last = "violated: %s dependence" % ", ".join(kinds)
        logger.info("speculated loop at line %d violated a %s dependence: restoring "
                    "and rerunning it sequentially", stats.line, "/".join(kinds))
        for array, copy in zip(written, saved):
            restore(array, copy)
        t3 = time.perf_counter()
        stats.times["restore"] = t3 - t2
        on_violation(kinds)
        rerun()
        stats.times["sequential rerun"] = time.perf_counter() - t3
        return tuple(kinds)


def _same_kind(a, b):
    return (b is not None and a.backend == b.backend and a.shape == b.shape
            and a.dtype == b.dtype)


def restore(array, saved):
    """Copy the values of ``saved`` (a copy of ``array``) back into ``array``."""
    array.dev[...] = saved.dev
