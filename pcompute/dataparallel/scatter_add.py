"""``scatter_add`` inside a ``@dataparallel`` function: deterministic sums.

The (position, value) pairs are sorted by position with pcompute's stable
radix sort (one ``sort`` phase), so the values sent to each position lie
together in the order of ``i``.  The result is then lazy, complete element
by element: element ``j`` finds its run of sorted positions by binary
search and adds ``out[j]`` and the run's values left to right (the
oracle's order, so the same sums on every run and backend), inside
whichever kernel reads it.  With the configuration's ``bounds_check`` on, a
reduction first counts positions outside ``[0, len(out))`` and a located
``IndexError`` reports them (otherwise such values are dropped).
"""
import numpy as np

from ..config import get_config
from ..errors import KernelIndexError, KernelTypeError
from ..numpy.dtypes import kernel_type_name
from .builder import Builder
from .source import located
from .values import Lazy


def scatter_add(prog, args, where, sort_phase, reduction):
    """The lazy result of ``scatter_add(src, idx, out)``; ``sort_phase`` and
    ``reduction`` are the walk's sort and map+reduce phases."""
    src, idx, dst = (prog.seq(a, where, "scatter_add") for a in args)
    prog.same_length([src, idx], where, "scatter_add")
    if idx.dtype.kind not in "iu":
        raise located(KernelTypeError, "scatter_add: positions must be integers, got %s"
                      % idx.dtype, where, None)
    dtype = np.result_type(dst.dtype, src.dtype)
    ktype, proto, m = kernel_type_name(dtype), dtype.type(0), src.n
    if m and get_config().bounds_check:
        _check_positions(prog, idx, dst.n, where, reduction)
    keys, values = sort_phase(prog, [idx, src], where, "scatter_add") if m else (None, None)

    def emit(b, index):
        acc = b.fresh("acc")
        b.line("%s = cast(%s, '%s')" % (acc, dst.element(b, index)[0], ktype))
        if m:
            _add_run(b, b.temp(index), acc, keys.array, values.array, m)
        return acc, proto
    lazy = Lazy(dst.n, emit, proto, "scatter_add")
    lazy.heavy = bool(m)
    return lazy


def _add_run(b, j, acc, keys, values, m):
    """Lines adding ``values[k]`` for the run of ``keys[k] == j`` to ``acc``."""
    K, V, M = b.array(keys), b.array(values), b.scalar(np.int64(m))
    lo = b.lower_bound(lambda k: "%s[%s]" % (K, k), M, j)
    b.line("while (%s < %s) and (%s[%s] == %s):" % (lo, M, K, lo, j))
    with b.scope():
        b.line("%s = %s + %s[%s]" % (acc, acc, V, lo))
        b.line("%s = %s + 1" % (lo, lo))


def _check_positions(prog, idx, n, where, reduction):
    b = Builder()
    pos, _ = idx.element(b, "i")
    outside = "cast(1 if (%s < 0) or (%s >= %s) else 0, 'long')" % (
        pos, pos, b.scalar(np.int64(n)))
    b.lead(idx.n, prog.trace.empty)
    source = b.function("dp_reduce", ["i"], ["return %s" % outside])
    count = reduction(prog.trace, source, "a+b", np.dtype(np.int64), "0", b.args)

    def check(count):
        if count:
            raise located(KernelIndexError, "scatter_add: %d position(s) outside [0, %d)"
                          % (count, n), where, "positions index the output sequence")
        return count
    prog.trace.host(check, count)
