"""``bounds_check`` of ``split``'s offsets: what the prelude's ``split``
rejects is a located error on every backend too.

The prelude checks the offsets where ``split`` is called (they must not
decrease and must lie in ``[0, len(x)]``), whatever then uses the segments:
a map or reduce over them (one item per segment, the CSR SpMV), a
segmented scan.  With ``bounds_check`` on, ``split`` does the same: one
tuple Reduction phase over the offsets (the count of decreases, the least
and the largest; computed once per offsets sequence in a call, however many
``split`` calls share it), then a host check with the prelude's messages,
located at the ``split`` call.  A segmented scan also needs the offsets to
cover the whole sequence (0 to ``len(x)``; the prelude accepts segments that
do not); :func:`check_covers` checks that from the same summary, at the scan.
Without ``bounds_check`` bad offsets are a documented precondition.
"""
import builtins
import operator

import numpy as np

from ..errors import KernelIndexError, KernelValueError
from . import operators, phases
from .builder import Builder
from .source import located


def summary(prog, offsets):
    """``(decreases, least, largest)`` of ``offsets`` (a Dyn: a reduction's
    result), one phase per offsets sequence and call."""
    known = prog.offset_summaries.get(id(offsets))
    if known is not None:
        return known[1]
    b = Builder(prefix="c")
    m = b.scalar(np.int64(offsets.n))
    here = offsets.element(b, "i")[0]
    after = offsets.element(b, b.temp("min(i + 1, %s - 1)" % m))[0]
    texts = ["cast(1 if %s < %s else 0, 'long')" % (after, here),
             "cast(%s, 'long')" % here, "cast(%s, 'long')" % here]
    b.lead(offsets.n, prog.trace.empty)
    sources = [b.function("dp_reduce", ["i"], ["return %s" % t]) for t in texts]
    ops = [operator.add, builtins.min, builtins.max]
    long_ = np.dtype(np.int64)
    total = phases.tuple_reduction(
        prog.trace, sources, ["a0 + b0", "min(a1, b1)", "max(a2, b2)"], [long_] * 3,
        b.args, tuple(operators.neutral(op, long_) for op in ops))
    prog.offset_summaries[id(offsets)] = (offsets, total)     # (keeps the id alive)
    return total


def check_split(prog, offsets, n, where):
    """The prelude's checks of ``split(x, offsets)`` (``n = len(x)``) at
    ``where``; gives the summary for :func:`check_covers`."""
    total = summary(prog, offsets)

    def check(total):
        drops, first, last = (int(v) for v in total)
        if drops:
            raise located(KernelValueError, "split: offsets must not decrease (%d "
                          "decrease(s))" % drops, where, None)
        if first < 0 or last > n:
            raise located(KernelIndexError, "split: offsets must lie in [0, %d], got "
                          "%d .. %d" % (n, first, last), where, None)
        return drops
    prog.trace.host(check, total)
    return total


def check_covers(prog, total, n, where, what):
    """A segmented ``what`` (a scan) needs offsets from 0 to ``n``."""
    def check(total):
        first, last = int(total[1]), int(total[2])
        if first != 0 or last != n:
            raise located(KernelValueError, "split: a segmented %s needs offsets from 0 to "
                          "%d, got %d .. %d" % (what, n, first, last), where,
                          "split the whole sequence: offsets[0] == 0 and "
                          "offsets[-1] == len(x)")
        return first
    prog.trace.host(check, total)
