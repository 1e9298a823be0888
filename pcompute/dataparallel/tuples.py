"""Sequences of tuples in a ``@dataparallel`` function: ``zip``, ``unzip``,
maps whose function returns tuples, and reductions of tuples.

A sequence of tuples is held as a tuple of sequences (:class:`~.values.Tuples`,
Copperhead's layout), so nothing is stored as records: ``unzip`` of a map
returning tuples gives one lazy sequence per component, and the kernel that
reads (or stores) them computes the function once per element.  A
``reduce(op, seq_of_tuples, init)`` is one tuple-accumulator Reduction (see
:mod:`pcompute.primitives.tuple_reduction`): the operator (a lambda or def
of two tuples returning a tuple, e.g. ``lambda a, b: a if a[0] <= b[0] else
b`` for argmin) is inlined once per component, its items are combined in
order (so an operator that only associates, like "the first of equal
minima", gives the oracle's answer), and ``init`` is combined on the host.
"""
import operator
import re

import numpy as np

from ..errors import KernelSyntaxError, KernelTypeError
from . import keep, operators, phases
from .builder import Builder
from .elems import Elem
from .inline import Inliner
from .plan import value_of
from .source import located
from .values import Lazy, Tuples

_ASSIGN = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*) = (.*)$")


def lazy(n, emit, what):
    """A Lazy whose proto is found by emitting one element in a scratch builder
    (which also tells whether the element function loops)."""
    scratch = Builder()
    text, proto = emit(scratch, "i")
    seq = Lazy(n, emit, proto, what)
    seq.heavy = any(ln.lstrip().startswith(("for ", "while ")) for ln in scratch.lines)
    return seq


def items(seq, b, index):
    """The element ``index`` of a map's argument: an Elem, or a tuple of
    Elems for a sequence of tuples."""
    if isinstance(seq, Tuples):
        return tuple(Elem(*c.element(b, index)) for c in seq.components)
    return Elem(*seq.element(b, index))


def map_result(n, apply, where):
    """The result of a map whose element at ``index`` is ``apply(b, index)``
    (an Elem, or a tuple of Elems: then a :class:`Tuples` whose components
    share one application per element and kernel)."""
    dry = apply(Builder(), "i")
    if not isinstance(dry, tuple):
        if not isinstance(dry, Elem):
            raise located(KernelTypeError, "the function given to map must return a "
                          "scalar or a tuple of scalars here, got %s"
                          % type(dry).__name__, where,
                          "reduce segments with sum/len/reduce inside the function")
        return lazy(n, lambda b, i: _text(apply(b, i)), "map")
    key = object()

    def component(k):
        def emit(b, index):
            memo = (id(key), index)
            if memo not in b.memo:
                b.memo[memo] = tuple(Elem(b.temp(e.text), e.proto)
                                     for e in apply(b, index))
            return _text(b.memo[memo][k])
        return lazy(n, emit, "map")
    return Tuples([component(k) for k in range(len(dry))])


def _text(e):
    return e.text, e.proto


def zip_(prog, args, where):
    """``zip(x, y, ...)``: a sequence of tuples (equal lengths)."""
    seqs = [prog.seq(a, where, "zip") for a in args]
    if not seqs:
        raise located(KernelTypeError, "zip needs a sequence", where, None)
    prog.same_length(seqs, where, "zip")
    return Tuples(seqs)


def unzip(prog, args, where):
    """``unzip(seq_of_tuples)``: its components, a tuple of sequences."""
    x = args[0] if len(args) == 1 else None
    if not isinstance(x, Tuples):
        raise located(KernelTypeError, "unzip expects a sequence of tuples (from zip or "
                      "a map returning tuples)", where, None)
    if x.n == 0:
        raise located(KernelTypeError, "unzip: the sequence is empty (the number of "
                      "components is unknown)", where, None)
    return x.components


def reduce_tuples(prog, op, x, init, where):
    """``reduce(op, x, init)`` over the sequence of tuples ``x``: one
    Reduction phase; the result is a tuple of host scalars."""
    m = len(x.components)
    if not isinstance(init, tuple) or len(init) != m:
        raise located(KernelTypeError, "reduce over tuples of %d values needs an init "
                      "tuple of %d values" % (m, m), where, None)
    if operators.known(op):
        raise located(KernelTypeError, "reduce over tuples takes a function of two "
                      "tuples returning a tuple (a lambda or def)", where,
                      "e.g. lambda a, b: a if a[0] <= b[0] else b (argmin)")
    if x.n == 0:
        return init
    dtypes = [np.result_type(c.dtype, value_of(v)) for c, v in zip(x.components, init)]
    exprs, dtypes = _operator(op, dtypes, where)
    b = Builder()
    texts = [c.element(b, "i")[0] for c in x.components]
    stores, stored = keep.writes(prog, b, x.n)
    b.lead(x.n, prog.trace.empty)
    sources = [b.function("dp_reduce", ["i"], (stores if k == 0 else []) + ["return %s" % t])
               for k, t in enumerate(texts)]
    neutrals = _neutrals(exprs, dtypes)
    if neutrals is not None:        # as users write them: backends recognise these
        exprs = [e[1:-1] for e in exprs]
    total = phases.tuple_reduction(prog.trace, sources, exprs, dtypes, b.args, neutrals)
    stored()
    fns = [phases.make_function(_op_source(m, e), "dp_op") for e in exprs]
    both = prog.trace.host(_combiner(fns, dtypes), *init, total)
    return tuple(prog.trace.host(operator.getitem, both, k) for k in range(m))


def _operator(op, dtypes, where):
    """The kernel expression of each component of ``op(a, b)`` over
    ``a0.., b0..`` and the accumulator dtypes (widened by what ``op`` gives)."""
    m = len(dtypes)
    for _ in range(2):             # a second pass with the widened types
        b = Builder()
        a_ = tuple(Elem("a%d" % k, d.type(0)) for k, d in enumerate(dtypes))
        b_ = tuple(Elem("b%d" % k, d.type(0)) for k, d in enumerate(dtypes))
        res = Inliner(b).apply(op, [a_, b_], where)
        if not isinstance(res, tuple) or len(res) != m:
            raise located(KernelTypeError, "the function given to reduce must return a "
                          "tuple of %d values here" % m, where, None)
        res = [Inliner(b).elem(r, where) for r in res]
        wider = [np.result_type(d, np.asarray(r.proto).dtype) for d, r in zip(dtypes, res)]
        if wider == dtypes:
            break
        dtypes = wider
    if b.params:
        raise located(KernelTypeError, "the function given to reduce over tuples reads "
                      "values from outside it", where,
                      "pass them in the tuples (zip them with replicate(v, n))")
    return [_substitute(b.lines, r.text, where) for r in res], dtypes


def _substitute(lines, text, where):
    """``text`` with the temporaries of ``lines`` (``t = expr``) written out."""
    for line in reversed(lines):
        found = _ASSIGN.match(line)
        if found is None:
            raise located(KernelSyntaxError, "the function given to reduce over tuples "
                          "must be an expression (no loops)", where, None)
        name, expr = found.groups()
        text = re.sub(r"\b%s\b" % name, "(%s)" % expr, text)
    return text


_OWN = {"(a{k} + b{k})": operator.add, "(a{k} * b{k})": operator.mul,
        "(min(a{k}, b{k}))": min, "(max(a{k}, b{k}))": max}


def _neutrals(exprs, dtypes):
    """Neutral elements when every component combines with itself only by
    ``+``, ``*``, ``min`` or ``max`` (the backends may then interleave SIMD lanes); else
    None (no neutral elements needed)."""
    out = []
    for k, (expr, dtype) in enumerate(zip(exprs, dtypes)):
        op = next((f for text, f in _OWN.items() if text.format(k=k) == expr), None)
        if op is None:
            return None
        out.append(operators.neutral(op, dtype))
    return tuple(out)


def _op_source(m, expr):
    params = ["a%d" % k for k in range(m)] + ["b%d" % k for k in range(m)]
    return "def dp_op(%s):\n    return %s\n" % (", ".join(params), expr)


def _combiner(fns, dtypes):
    """``init op total`` on the host (the kernel's own operator text)."""
    m = len(fns)

    def combine(*values):
        init, total = values[:m], values[m]
        both = [d.type(v) for d, v in zip(dtypes, init)] + list(total)
        return tuple(d.type(f(*both)) for d, f in zip(dtypes, fns))
    return combine
