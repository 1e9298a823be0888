"""The primitives that are complete element by element (``map``, ``gather``,
``indices``, ``replicate``, ``shift``, ``rotate``, ``range``) and ``len``:
each gives a lazy sequence (an element function), inlined later into
whichever kernel reads it; ``prog`` is the :class:`~.program.Program` being
evaluated, ``where`` the call's location.
"""
import numpy as np

from ..errors import KernelTypeError, KernelValueError
from . import tuples
from .elems import Elem, proto_of, typed_zero
from .inline import Inliner
from .source import located
from .values import Segments, Seq, SegView, Tuples


def map_seq(prog, args, where):
    if len(args) < 2:
        raise located(KernelTypeError, "map needs a function and a sequence", where, None)
    f, seqs = args[0], args[1:]
    if all(isinstance(s, (Segments, Seq, Tuples)) for s in seqs):
        n = prog.same_length(seqs, where, "map")
    else:
        n = prog.same_length([prog.seq(s, where, "map") for s in seqs], where, "map")

    def apply(b, index):
        items = []
        for s in seqs:
            if isinstance(s, Segments):
                start = b.temp(s.offsets.element(b, index)[0])
                end = b.temp(s.offsets.element(b, "%s + 1" % index)[0])
                items.append(SegView(start, end, lambda il, k, d=s.data: Elem(
                    *d.element(il.b, k)), s.data.proto))
            else:
                items.append(tuples.items(s, b, index))
        return Inliner(b).apply(f, items, where)
    return tuples.map_result(n, apply, where)


def range_seq(start, stop):
    n = max(stop - start, 0)
    return tuples.lazy(n, lambda b, i: ("cast(%s + %s, 'long')" % (i, b.scalar(np.int64(start))),
                                  np.int64(0)), "range")


def gather(prog, args, where):
    x, idx = (prog.seq(a, where, "gather") for a in args)
    return tuples.lazy(idx.n, lambda b, i: x.element(b, b.temp(idx.element(b, i)[0])), "gather")


def indices(prog, args, where):
    x = prog.seq(args[0], where, "indices")
    return tuples.lazy(x.n, lambda b, i: ("cast(%s, 'long')" % i, np.int64(0)), "indices")


def replicate(prog, args, where):
    v, n = args[0], prog.trace.static(args[1])
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)) or n < 0:
        raise located(KernelValueError, "replicate: n must be a non-negative integer",
                      where, None)
    return tuples.lazy(int(n), lambda b, i: (b.scalar(v), proto_of(v)), "replicate")


def rotate(prog, args, where):
    x, k = prog.seq(args[0], where, "rotate"), prog.trace.static(args[1])
    n = x.n
    k = int(k) % n if n else 0

    def emit(b, i):
        j = b.temp("(%s + %s) %% %s" % (i, b.scalar(np.int64(k)), b.scalar(np.int64(n))))
        return x.element(b, j)
    return tuples.lazy(n, emit, "rotate") if n else x


def shift(prog, args, where):
    x, fill = prog.seq(args[0], where, "shift"), prog.trace.static(args[2])
    k = int(prog.trace.static(args[1]))
    n = x.n
    if not n:
        return x

    def emit(b, i):
        t = b.temp("%s + %s" % (i, b.scalar(np.int64(k))))
        last = b.scalar(np.int64(n - 1))
        clamped = b.temp("min(max(%s, 0), %s)" % (t, last))
        text, proto = x.element(b, clamped)
        res_proto = np.result_type(np.asarray(proto).dtype, fill).type(0)
        return ("(%s if (%s >= 0) and (%s <= %s) else %s)"
                % (text, t, t, last, typed_zero(res_proto, fill)), res_proto)
    return tuples.lazy(n, emit, "shift")


def length(prog, args, where):
    x = args[0]
    if isinstance(x, (Seq, Segments)):
        return x.n
    raise located(KernelTypeError, "len expects a sequence", where, None)
