"""The sync points of a ``@dataparallel`` function: reductions, scans
(also segmented), ``permute``/``scatter``/``scatter_add``, ``split`` and the
sorts.  Each needs all of its input, so it launches one phase (kernel) into
which the lazy chain feeding it is fused; ``prog`` is the
:class:`~.program.Program` being evaluated, ``where`` the call's location.
"""
import builtins
import operator

import numpy as np

from ..config import get_config
from ..errors import KernelTypeError, KernelValueError
from . import offsets as offsets_check
from . import keep, operators, phases, prelude, scatter_add, tuples
from .builder import Builder
from .plan import value_of
from .source import located
from .values import Segments, Stored, Tuples

#: sum/min/max of one sequence: the operator they reduce with
REDUCE = {prelude.sum: operator.add, builtins.sum: operator.add,
           prelude.min: builtins.min, prelude.max: builtins.max,
           builtins.min: builtins.min, builtins.max: builtins.max}


def reduction(prog, op, x, where, what, empty_ok):
    x = prog.seq(x, where, what)
    dtype = x.dtype
    operators.check(op, dtype, where, what)
    if x.n == 0:
        if not empty_ok:
            raise located(KernelValueError, "%s of an empty sequence" % what, where, None)
        return dtype.type(0)
    b = Builder()
    text, _ = x.element(b, "i")
    stores, stored = keep.writes(prog, b, x.n)
    b.lead(x.n, prog.trace.empty)
    source = b.function("dp_reduce", ["i"], stores + ["return %s" % text])
    total = phases.reduction(prog.trace, source, operators.expression(op), dtype,
                             operators.neutral(op, dtype), b.args)
    stored()
    return prog.trace.host(dtype.type, total)


def reducer(name):
    def handler(prog, args, where):
        if len(args) != 1:
            return prog.trace.host(name, *args)       # min(a, b) of host scalars
        op = REDUCE[name]
        return reduction(prog, op, args[0], where, name.__name__, op is operator.add)
    return handler


def reduce(prog, args, where):
    op, x, init = args
    if isinstance(x, Tuples):
        return tuples.reduce_tuples(prog, op, x, init, where)
    if prog.seq(x, where, "reduce").n == 0:
        return init
    return prog.trace.host(op, init, reduction(prog, op, x, where, "reduce", False))


def scan_phase(prog, op, x, where, what, exclusive, init=None, reverse=False):
    segs = x if isinstance(x, Segments) else None
    x = prog.seq(x.data if segs else x, where, what)
    n = x.n
    dtype = x.dtype if init is None else np.result_type(x.dtype, value_of(init))
    operators.check(op, dtype, where, what)
    if segs and segs.summary is not None:
        offsets_check.check_covers(prog, segs.summary, n, where, what)
    out = prog.trace.empty(n, dtype)
    if not n:
        return Segments(Stored(out), segs.offsets, segs.summary) if segs else Stored(out)
    b = Builder()
    index = "i"
    if reverse:
        index = b.temp("%s - 1 - i" % b.scalar(np.int64(n)))
    text, _ = x.element(b, index)
    b.lead(n, prog.trace.empty)
    in_src = b.function("dp_in", ["i"], ["return %s" % text])
    o = Builder()
    o.params, o.args = ["dp_o"], [out]
    dst = "dp_N - 1 - i" if reverse else "i"
    if exclusive:
        o.params.append("dp_c"), o.args.append(init)
        body = ["dp_o[%s] = %s" % (dst, operators.text(op, "dp_c", "prev_item"))]
        head = ["i", "prev_item", "N"]
    else:
        body, head = ["dp_o[%s] = item" % dst], ["i", "item", "N"]
    body = ["dp_N = N"] + body
    out_src = o.function("dp_out", head, body)
    seg_src, seg_args = segment_starts(segs, n, reverse) if segs else (None, [])
    phases.scan(prog.trace, in_src, out_src, operators.expression(op), dtype,
                operators.neutral(op, dtype), b.args + seg_args + o.args, seg_src)
    return Segments(Stored(out), segs.offsets, segs.summary) if segs else Stored(out)


def segment_starts(segs, n, reverse):
    """The ``dp_seg`` function of a segmented scan: item ``i`` starts a
    segment where its flat index (the next one, scanning in reverse) is
    among the offsets (binary search); the offsets run from 0 to ``n``."""
    b = Builder(prefix="s")
    j = "i"
    if reverse:
        j = b.temp("%s - i" % b.scalar(np.int64(n)))        # (n - 1 - i) + 1
    m = b.scalar(np.int64(segs.offsets.n))
    lo = b.lower_bound(lambda k: segs.offsets.element(b, k)[0], m, j)
    last = b.temp("min(%s, %s - 1)" % (lo, m))          # past the end: not found
    text = "1 if %s == %s else 0" % (segs.offsets.element(b, last)[0], j)
    return b.function("dp_seg", ["i"], ["return %s" % text]), b.args


def scan(prog, args, where):
    return scan_phase(prog, args[0], args[1], where, "scan", False)


def rscan(prog, args, where):
    return scan_phase(prog, args[0], args[1], where, "rscan", False, reverse=True)


def exclusive_scan(prog, args, where):
    return scan_phase(prog, args[0], args[1], where, "exclusive_scan", True, args[2])


def write_phase(prog, src, idx, out, where):
    b = Builder()
    name = b.array(out)
    val, _ = src.element(b, "i")
    pos, _ = idx.element(b, "i")
    b.lead(src.n, prog.trace.empty)
    phases.elementwise(prog.trace, b.function("dp_map", ["i"], [
        "%s[%s] = %s" % (name, pos, val)]), b.args)


def permute(prog, args, where):
    x, idx = (prog.seq(a, where, "permute") for a in args)
    prog.same_length([x, idx], where, "permute")
    out = prog.trace.empty(x.n, x.dtype)
    if x.n and get_config().bounds_check:
        check_permutation(prog, idx, where)
    if x.n:
        write_phase(prog, x, idx, out, where)
    return Stored(out)


def check_permutation(prog, idx, where):
    """With ``bounds_check`` on: the places' owners claimed as for
    ``scatter``, then a Reduction phase counts the items that do not own their
    place (an index repeats): a located ``ValueError`` as in the prelude."""
    owner = claim_phases(prog, idx, idx.n, where, "permute")
    b = Builder()
    own = b.array(owner)
    pos, _ = idx.element(b, "i")
    b.lead(idx.n, prog.trace.empty)
    source = b.function("dp_reduce", ["i"], [
        "return cast(1 if %s[%s] != i else 0, 'long')" % (own, pos)])
    count = phases.reduction(prog.trace, source, "a+b", np.dtype(np.int64), "0", b.args)

    def check(count):
        if count:
            raise located(KernelValueError, "permute: idx is not a permutation (an index "
                          "repeats: %d item(s) share a place)" % count, where,
                          "use scatter for a partial or repeated write")
        return count
    prog.trace.host(check, count)


def claim_phases(prog, idx, m, where, what):
    """The ``owner`` array of a scatter into ``m`` places: ``owner[j]`` is the
    largest ``i`` with ``idx[i] == j`` (-1 where none), by a fill phase and an
    ``atomic_max`` phase, so that the write phase can keep the last write as
    the plain loop (the prelude) does, on every backend and run (``what``:
    the primitive, for the error)."""
    if idx.n > np.iinfo(np.int32).max:
        raise located(KernelValueError, "%s: at most 2**31 - 1 items (the owners "
                      "are claimed with int atomics)" % what, where,
                      "split the %s in parts" % what)
    owner = prog.trace.empty(m, np.int32)
    b = Builder()
    name = b.array(owner)
    b.lead(m, prog.trace.empty)
    phases.elementwise(prog.trace, b.function("dp_map", ["i"], [
        "%s[i] = -1" % name]), b.args)
    b = Builder()
    name = b.array(owner)
    pos, _ = idx.element(b, "i")
    b.lead(idx.n, prog.trace.empty)
    phases.elementwise(prog.trace, b.function("dp_map", ["i"], [
        "atomic_max(%s[%s], cast(i, 'int'))" % (name, pos)]), b.args)
    return owner


def scatter(prog, args, where):
    """``scatter(src, idx, out)``: with repeated indices the last write (the
    largest ``i``) wins on every backend, as in the plain loop: three phases
    (fill and claim the owners, then the writes of the owners)."""
    src, idx, dst = (prog.seq(a, where, "scatter") for a in args)
    prog.same_length([src, idx], where, "scatter")
    (dst,) = prog.materialize([dst])
    out = prog.trace.copy(dst.array)
    if src.n:
        owner = claim_phases(prog, idx, dst.n, where, "scatter")
        b = Builder()
        name, own = b.array(out), b.array(owner)
        val, _ = src.element(b, "i")
        pos = b.temp(idx.element(b, "i")[0])
        b.lead(src.n, prog.trace.empty)
        phases.elementwise(prog.trace, b.function("dp_map", ["i"], [
            "if %s[%s] == i:" % (own, pos), "    %s[%s] = %s" % (name, pos, val)]), b.args)
    return Stored(out)


def scatter_add_(prog, args, where):
    return scatter_add.scatter_add(prog, args, where, sort_phase, phases.reduction)


def split(prog, args, where):
    x, offsets = (prog.seq(a, where, "split") for a in args)
    if offsets.n < 1 or offsets.dtype.kind not in "iu":
        raise located(KernelTypeError, "split: offsets must be integers with at least "
                      "one entry", where, None)
    summary = None
    if get_config().bounds_check:
        summary = offsets_check.check_split(prog, offsets, x.n, where)
    return Segments(x, offsets, summary)


def sort_phase(prog, seqs, where, what):
    seqs = [prog.seq(a, where, what) for a in seqs]
    prog.same_length(seqs, where, what)
    if seqs[0].dtype.kind not in "iu":
        raise located(KernelTypeError, "%s in a @dataparallel function sorts integer keys, "
                      "got %s" % (what, seqs[0].dtype), where,
                      "sort float keys outside the function (the prelude uses NumPy)")
    if seqs[0].n == 0:
        return [s for s in prog.materialize(seqs)]
    stored = prog.materialize(seqs)
    return [Stored(a) for a in phases.sort(prog.trace, [s.array for s in stored])]


def sort(prog, args, where):
    return sort_phase(prog, args[:1], where, "sort")[0]


def sort_by_key(prog, args, where):
    return tuple(sort_phase(prog, args[:2], where, "sort_by_key"))
