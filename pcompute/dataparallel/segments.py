"""Primitives over segments (from ``split``), inside element functions:
``sum``, ``len``, ``reduce`` (any operator or function of two scalars, in
order), and ``map``/``gather``/comprehensions over a segment, which stay
lazy until reduced.  Each reduction becomes a sequential loop over the
segment in the kernel being built; ``inl`` is the
:class:`~.inline.Inliner` building it.
"""
import builtins

import numpy as np

from ..errors import KernelTypeError
from . import operators, prelude
from .builder import Builder
from .elems import Elem, typed, typed_zero
from .source import located
from .values import Seq, SegView


def _seg(value, inl, where):
    if isinstance(value, SegView):
        return value
    if isinstance(value, Seq):
        return SegView("0", inl.b.scalar(np.int64(value.n)),
                       lambda il, k, s=value: Elem(*s.element(il.b, k)), value.proto)
    raise located(KernelTypeError, "expected a segment (from split) or a sequence, "
                  "got %s" % type(value).__name__, where, "")


def seg_map(inl, args, where):
    f, segs = args[0], [_seg(a, inl, where) for a in args[1:]]
    if not segs:
        raise located(KernelTypeError, "map needs a sequence", where, "")
    first = segs[0]

    def elem(il, k):
        items = [Elem(s.elem(il, "(%s - %s + %s)" % (k, first.start, s.start)).text,
                      s.proto) if s is not first else s.elem(il, k) for s in segs]
        items = [Elem(il.b.temp(it.text), it.proto) for it in items]
        return il.apply(f, items, where)
    proto = _dry(inl, lambda il: il.apply(f, [Elem(typed_zero(s.proto), s.proto)
                                               for s in segs], where)).proto
    return SegView(first.start, first.end, elem, proto)


def _dry(inl, make):
    """What ``make`` gives in a throwaway builder (for the proto only)."""
    return make(type(inl)(Builder()))


def _seg_gather(inl, args, where):
    x, idx = args
    seg = _seg(idx, inl, where)
    if not isinstance(x, Seq):
        raise located(KernelTypeError, "gather reads a sequence argument", where, "")

    def elem(il, k):
        j = il.b.temp(seg.elem(il, k).text)
        return Elem(*x.element(il.b, j))
    return SegView(seg.start, seg.end, elem, x.proto)


def _loop(inl, seg, init, step, proto):
    b = inl.b
    acc, k = b.fresh("acc"), b.fresh("k")
    b.line("%s = %s" % (acc, typed_zero(proto, init)))
    b.line("for %s in range(%s, %s):" % (k, seg.start, seg.end))
    saved_indent, saved_memo = b.indent, b.memo
    b.indent, b.memo = saved_indent + "    ", dict(saved_memo)
    item = seg.elem(inl, k)
    b.line("%s = %s" % (acc, step(acc, item.text)))
    b.indent, b.memo = saved_indent, saved_memo
    return Elem(acc, np.asarray(proto).dtype.type(init))


def _seg_sum(inl, args, where):
    seg = _seg(args[0], inl, where)
    return _loop(inl, seg, 0, lambda a, x: "%s + %s" % (a, x), seg.proto)


def _seg_len(inl, args, where):
    seg = _seg(args[0], inl, where)
    return Elem(inl.b.temp("(%s - %s)" % (seg.end, seg.start)), np.int64(0))


def _seg_reduce(inl, args, where):
    """``reduce(op, segment, init)`` in order, as the oracle does: ``op`` is
    any operator or function of two scalars (a lambda, a def)."""
    op, x, init = args
    seg = _seg(x, inl, where)
    first = inl.elem(init, where)
    item0 = Elem(typed_zero(seg.proto), seg.proto)
    if operators.known(op):
        operators.check(op, np.asarray(seg.proto).dtype, where, "reduce")
        step = np.result_type(first.proto, seg.proto).type(0) \
            if op in (builtins.min, builtins.max, prelude.min, prelude.max) \
            else op(first.proto, seg.proto)
    else:
        step = _dry(inl, lambda il: il.apply(op, [Elem(typed_zero(first.proto),
                                                       first.proto), item0], where)).proto
    proto = np.result_type(first.proto, step).type(0)
    b = inl.b
    acc, k = b.fresh("acc"), b.fresh("k")
    b.line("%s = %s" % (acc, typed(Elem(first.text, proto))))
    b.line("for %s in range(%s, %s):" % (k, seg.start, seg.end))
    with b.scope():
        item = seg.elem(inl, k)
        if operators.known(op):
            new = operators.text(op, acc, item.text)
        else:
            new = inl.elem(inl.apply(op, [Elem(acc, proto), item], where), where).text
        b.line("%s = %s" % (acc, new))
    return Elem(acc, proto)


def _seg_extreme(inl, args, where):
    raise located(KernelTypeError, "min/max of a segment (which may be empty) is not "
                  "compiled", where, "write reduce(min, segment, init) with the value "
                  "an empty segment should give")


SEG_PRIMS = {prelude.map: seg_map, prelude.gather: _seg_gather, prelude.sum: _seg_sum,
              prelude.len: _seg_len, prelude.reduce: _seg_reduce, builtins.sum: _seg_sum,
              builtins.len: _seg_len, prelude.min: _seg_extreme, prelude.max: _seg_extreme,
              builtins.min: _seg_extreme, builtins.max: _seg_extreme}
