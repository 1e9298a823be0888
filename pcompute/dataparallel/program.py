"""Evaluating a ``@dataparallel`` function's body into phases.

The body is walked in order, with a :class:`~.plan.Tape` recording what it
does (later calls of the same signature replay the plan: see ``plan.py``).  Sequences stay lazy (element
functions) while primitives are complete element by element (``map``,
``gather``, ``indices``, ``replicate``, ``shift``, ``rotate``); a primitive
that needs all of its input (reductions, scans, ``permute``/``scatter``, the
return) is a sync point, and the lazy chain feeding it is fused into its
kernel: an elementwise chain into one elementwise kernel, map+reduce into one
reduction, a map into its scan's input, the values and positions of a
permute into the scatter kernel.  Host scalars (arguments, reduction
results, ``len``) are computed in Python (through the tape, so a replay
computes them again) and passed to kernels as arguments.
"""
import ast
import builtins
import operator

import numpy as np

from ..errors import KernelSyntaxError, KernelTypeError, KernelValueError
from . import comprehension, operators, phases, prelude, scatter_add, tuples
from .builder import Builder
from .inline import Elem, Inliner, proto_of, typed_zero
from .plan import Dyn, value_of
from .source import Closure, located
from .values import Lazy, Segments, Seq, SegView, Stored, Tuples

_HOST_BINOPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
                ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv,
                ast.Mod: operator.mod, ast.Pow: operator.pow}
#: sum/min/max of one sequence: the operator they reduce with
_REDUCE = {prelude.sum: operator.add, builtins.sum: operator.add,
           prelude.min: builtins.min, prelude.max: builtins.max,
           builtins.min: builtins.min, builtins.max: builtins.max}


class Program:
    """One call of a ``@dataparallel`` function being evaluated."""

    def __init__(self, closure, trace):
        self.trace = trace
        self.closure = closure

    # -- statements ------------------------------------------------------------
    def call(self, closure, args):
        node = closure.node
        params = [a.arg for a in node.args.args]
        if len(params) != len(args):
            raise located(KernelTypeError, "%s takes %d argument(s), got %d"
                          % (closure.name, len(params), len(args)), closure.where(node),
                          None)
        env = dict(closure.env)
        env.update(zip(params, args))
        if isinstance(node, ast.Lambda):
            return self.expr(node.body, env, closure)
        for k, stmt in enumerate(node.body):
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
                continue
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
                value = self.expr(stmt.value, env, closure)
                value = self.store_if_reused(stmt.targets[0], value, node.body[k + 1:])
                self.bind(stmt.targets[0], value, env, closure)
            elif isinstance(stmt, ast.FunctionDef):
                env[stmt.name] = Closure(stmt, env, closure.globals, closure.filename,
                                         closure.firstline, closure.lines)
            elif isinstance(stmt, ast.Return) and stmt.value is not None:
                return self.expr(stmt.value, env, closure)
            else:
                raise located(KernelSyntaxError, "%s is not supported in a "
                              "@dataparallel function" % type(stmt).__name__,
                              closure.where(stmt), "write assignments, nested defs "
                              "and one return; loops are maps, scans and reductions")
        raise located(KernelSyntaxError, "%s does not return a value" % closure.name,
                      closure.where(node), "end it with return")

    def store_if_reused(self, target, value, later):
        """A lazy value whose element function loops (a nested map over
        segments, a tail-recursive helper) and that is read twice or more later
        is computed once, into an array, instead of once per reading kernel."""
        if not (isinstance(target, ast.Name) and isinstance(value, Lazy) and value.heavy):
            return value
        loads = sum(1 for st in later for n in ast.walk(st)
                    if isinstance(n, ast.Name) and n.id == target.id)
        return self.materialize([value])[0] if loads >= 2 else value

    def bind(self, target, value, env, closure):
        if isinstance(target, ast.Name):
            env[target.id] = value
        elif isinstance(target, ast.Tuple) and isinstance(value, tuple) and \
                len(target.elts) == len(value):
            for t, v in zip(target.elts, value):
                self.bind(t, v, env, closure)
        else:
            raise located(KernelSyntaxError, "cannot bind this target", closure.where(
                target), "bind names or a tuple of names to a tuple of values")

    # -- expressions -------------------------------------------------------------
    def expr(self, node, env, closure):
        where = closure.where(node)
        if isinstance(node, ast.Name):
            return env[node.id] if node.id in env else closure.lookup(node.id, where)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return node.value
        if isinstance(node, ast.Tuple):
            return tuple(self.expr(e, env, closure) for e in node.elts)
        if isinstance(node, ast.Lambda):
            return Closure(node, env, closure.globals, closure.filename,
                           closure.firstline, closure.lines)
        if isinstance(node, ast.Attribute):
            base = self.expr(node.value, env, closure)
            if isinstance(base, (Seq, Segments, tuple)):
                raise located(KernelSyntaxError, "attributes of sequences are not "
                              "supported", where, "use len(x)")
            return getattr(self.trace.static(base), node.attr)
        if isinstance(node, (ast.BinOp, ast.UnaryOp)):
            return self.host_op(node, env, closure, where)
        if isinstance(node, ast.Subscript):
            base = self.expr(node.value, env, closure)
            index = self.trace.static(self.expr(node.slice, env, closure))
            if isinstance(base, tuple):
                return base[index]
            if isinstance(base, Dyn):                 # a host function's tuple
                return self.trace.host(operator.getitem, base, index)
            raise located(KernelSyntaxError, "indexing a sequence outside an element "
                          "function is not supported", where,
                          "read elements in a map (lambda i: x[i]) or with gather")
        if isinstance(node, ast.Call) and not node.keywords:
            func = self.expr(node.func, env, closure)
            args = [self.expr(a, env, closure) for a in node.args]
            return self.apply(func, args, where)
        if isinstance(node, (ast.ListComp, ast.GeneratorExp)):
            return self.comprehension(node, env, closure, where)
        raise located(KernelSyntaxError, "%s is not supported in a @dataparallel "
                      "function" % type(node).__name__, where,
                      "use the primitives (map, gather, scan, ...) and lambdas")

    def comprehension(self, node, env, closure, where):
        """``[e for a, b in zip(x, y)]``: a map of ``lambda a, b: e``;
        ``range(n)``/``range(start, stop)`` is a lazy sequence of indices."""
        func, iterables = comprehension.parts(node, closure, env,
                                              lambda n: self.expr(n, env, closure))
        seqs = []
        for it in iterables:
            if isinstance(it, tuple) and it[0] == "range":
                bounds = [self.trace.static(v) for v in it[1]]
                start, stop = (0, bounds[0]) if len(bounds) == 1 else bounds
                seqs.append(_range(int(start), int(stop)))
            else:
                seqs.append(it)
        return _map(self, [func] + seqs, where)

    def host_op(self, node, env, closure, where):
        if isinstance(node, ast.UnaryOp):
            vals = [self.expr(node.operand, env, closure)]
            op = {ast.USub: operator.neg, ast.UAdd: operator.pos}.get(type(node.op))
        else:
            vals = [self.expr(node.left, env, closure), self.expr(node.right, env, closure)]
            op = _HOST_BINOPS.get(type(node.op))
        if op is None or any(isinstance(v, (Seq, Segments, Tuples, tuple, Closure))
                            for v in vals):
            raise located(KernelTypeError, "arithmetic here works on scalars only", where,
                          "combine sequences element by element with map(lambda a, b: "
                          "a + b, x, y)")
        return self.trace.host(op, *vals)

    # -- primitives ----------------------------------------------------------------
    def apply(self, func, args, where):
        if isinstance(func, Closure):
            return self.call(func, args)
        if hasattr(func, "closure") and hasattr(func, "py"):     # @dataparallel
            return self.call(func.closure, args)
        handler = _PRIMS.get(func)
        if handler is not None:
            return handler(self, args, where)
        if any(isinstance(a, (Seq, Segments)) for a in args):
            raise located(KernelTypeError, "%s cannot take a sequence in a @dataparallel "
                          "function" % getattr(func, "__name__", func), where,
                          "use the data-parallel primitives (map, reduce, scan, ...)")
        return self.trace.host(func, *args)      # a host computation on scalars

    def seq(self, value, where, what):
        if isinstance(value, Tuples):
            raise located(KernelTypeError, "%s expects a sequence of numbers, got a "
                          "sequence of tuples" % what, where,
                          "unzip it (a, b = unzip(t)), or reduce it with a function of "
                          "two tuples")
        if not isinstance(value, Seq):
            raise located(KernelTypeError, "%s expects a sequence, got %s"
                          % (what, type(value).__name__), where,
                          "pass a 1-D array argument or a sequence from a primitive")
        return value

    def same_length(self, seqs, where, what):
        lengths = [s.n for s in seqs]
        if len(set(lengths)) > 1:
            raise located(KernelValueError, "%s: the sequences must have equal lengths, "
                          "got %s" % (what, ", ".join(map(str, lengths))), where, None)
        return lengths[0]

    def materialize(self, seqs):
        """Stored sequences for ``seqs``: the lazy ones of one length computed by
        one fused elementwise kernel."""
        lazy = [s for s in seqs if isinstance(s, Lazy)]
        done = {}
        for n in sorted({s.n for s in lazy}):
            group = list({id(s): s for s in lazy if s.n == n}.values())
            outs = [self.trace.empty(n, s.dtype) for s in group]
            if n:
                b = Builder()
                names = [b.array(o) for o in outs]
                tail = []
                for name, s in zip(names, group):
                    text, _ = s.element(b, "i")
                    tail.append("%s[i] = %s" % (name, text))
                b.lead(n, self.trace.empty)
                phases.elementwise(self.trace, b.function("dp_map", ["i"], tail), b.args)
            for s, o in zip(group, outs):
                done[id(s)] = Stored(o)
        return [done.get(id(s), s) for s in seqs]


def _map(prog, args, where):
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


def _range(start, stop):
    n = max(stop - start, 0)
    return tuples.lazy(n, lambda b, i: ("cast(%s + %s, 'long')" % (i, b.scalar(np.int64(start))),
                                  np.int64(0)), "range")


def _gather(prog, args, where):
    x, idx = (prog.seq(a, where, "gather") for a in args)
    return tuples.lazy(idx.n, lambda b, i: x.element(b, b.temp(idx.element(b, i)[0])), "gather")


def _indices(prog, args, where):
    x = prog.seq(args[0], where, "indices")
    return tuples.lazy(x.n, lambda b, i: ("cast(%s, 'long')" % i, np.int64(0)), "indices")


def _replicate(prog, args, where):
    v, n = args[0], prog.trace.static(args[1])
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)) or n < 0:
        raise located(KernelValueError, "replicate: n must be a non-negative integer",
                      where, None)
    return tuples.lazy(int(n), lambda b, i: (b.scalar(v), proto_of(v)), "replicate")


def _rotate(prog, args, where):
    x, k = prog.seq(args[0], where, "rotate"), prog.trace.static(args[1])
    n = x.n
    k = int(k) % n if n else 0

    def emit(b, i):
        j = b.temp("(%s + %s) %% %s" % (i, b.scalar(np.int64(k)), b.scalar(np.int64(n))))
        return x.element(b, j)
    return tuples.lazy(n, emit, "rotate") if n else x


def _shift(prog, args, where):
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


def _len(prog, args, where):
    x = args[0]
    if isinstance(x, (Seq, Segments)):
        return x.n
    raise located(KernelTypeError, "len expects a sequence", where, None)


def _reduction(prog, op, x, where, what, empty_ok):
    x = prog.seq(x, where, what)
    dtype = x.dtype
    operators.check(op, dtype, where, what)
    if x.n == 0:
        if not empty_ok:
            raise located(KernelValueError, "%s of an empty sequence" % what, where, None)
        return dtype.type(0)
    b = Builder()
    text, _ = x.element(b, "i")
    b.lead(x.n, prog.trace.empty)
    source = b.function("dp_reduce", ["i"], ["return %s" % text])
    return prog.trace.host(dtype.type, phases.reduction(
        prog.trace, source, operators.expression(op), dtype,
        operators.neutral(op, dtype), b.args))


def _reducer(name):
    def handler(prog, args, where):
        if len(args) != 1:
            return prog.trace.host(name, *args)       # min(a, b) of host scalars
        op = _REDUCE[name]
        return _reduction(prog, op, args[0], where, name.__name__, op is operator.add)
    return handler


def _reduce(prog, args, where):
    op, x, init = args
    if isinstance(x, Tuples):
        return tuples.reduce_tuples(prog, op, x, init, where)
    if prog.seq(x, where, "reduce").n == 0:
        return init
    return prog.trace.host(op, init, _reduction(prog, op, x, where, "reduce", False))


def _scan_phase(prog, op, x, where, what, exclusive, init=None, reverse=False):
    segs = x if isinstance(x, Segments) else None
    x = prog.seq(x.data if segs else x, where, what)
    n = x.n
    dtype = x.dtype if init is None else np.result_type(x.dtype, value_of(init))
    operators.check(op, dtype, where, what)
    out = prog.trace.empty(n, dtype)
    if not n:
        return Segments(Stored(out), segs.offsets) if segs else Stored(out)
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
    seg_src, seg_args = _segment_starts(segs, n, reverse) if segs else (None, [])
    phases.scan(prog.trace, in_src, out_src, operators.expression(op), dtype,
                operators.neutral(op, dtype), b.args + seg_args + o.args, seg_src)
    return Segments(Stored(out), segs.offsets) if segs else Stored(out)


def _segment_starts(segs, n, reverse):
    """The ``dp_seg`` function of a segmented scan: item ``i`` starts a
    segment where its flat index (the next one, scanning in reverse) is
    among the offsets (binary search); the offsets run from 0 to ``n``."""
    b = Builder(prefix="s")
    j = "i"
    if reverse:
        j = b.temp("%s - i" % b.scalar(np.int64(n)))        # (n - 1 - i) + 1
    m = b.scalar(np.int64(segs.offsets.n))
    lo, hi, mid = b.fresh("lo"), b.fresh("hi"), b.fresh("mid")
    b.line("%s = cast(0, 'long')" % lo)
    b.line("%s = %s" % (hi, m))
    b.line("while %s < %s:" % (lo, hi))
    with b.scope():
        b.line("%s = (%s + %s) // 2" % (mid, lo, hi))
        b.line("if %s < %s:" % (segs.offsets.element(b, mid)[0], j))
        with b.scope():
            b.line("%s = %s + 1" % (lo, mid))
        b.line("else:")
        with b.scope():
            b.line("%s = %s" % (hi, mid))
    last = b.temp("min(%s, %s - 1)" % (lo, m))          # past the end: not found
    text = "1 if %s == %s else 0" % (segs.offsets.element(b, last)[0], j)
    return b.function("dp_seg", ["i"], ["return %s" % text]), b.args


def _scan(prog, args, where):
    return _scan_phase(prog, args[0], args[1], where, "scan", False)


def _rscan(prog, args, where):
    return _scan_phase(prog, args[0], args[1], where, "rscan", False, reverse=True)


def _exclusive_scan(prog, args, where):
    return _scan_phase(prog, args[0], args[1], where, "exclusive_scan", True, args[2])


def _write_phase(prog, src, idx, out, where):
    b = Builder()
    name = b.array(out)
    val, _ = src.element(b, "i")
    pos, _ = idx.element(b, "i")
    b.lead(src.n, prog.trace.empty)
    phases.elementwise(prog.trace, b.function("dp_map", ["i"], [
        "%s[%s] = %s" % (name, pos, val)]), b.args)


def _permute(prog, args, where):
    x, idx = (prog.seq(a, where, "permute") for a in args)
    prog.same_length([x, idx], where, "permute")
    out = prog.trace.empty(x.n, x.dtype)
    if x.n:
        _write_phase(prog, x, idx, out, where)
    return Stored(out)


def _scatter(prog, args, where):
    src, idx, dst = (prog.seq(a, where, "scatter") for a in args)
    prog.same_length([src, idx], where, "scatter")
    (dst,) = prog.materialize([dst])
    out = prog.trace.copy(dst.array)
    if src.n:
        _write_phase(prog, src, idx, out, where)
    return Stored(out)


def _scatter_add(prog, args, where):
    return scatter_add.scatter_add(prog, args, where, _sort_phase, phases.reduction)


def _split(prog, args, where):
    x, offsets = (prog.seq(a, where, "split") for a in args)
    if offsets.n < 1 or offsets.dtype.kind not in "iu":
        raise located(KernelTypeError, "split: offsets must be integers with at least "
                      "one entry", where, None)
    return Segments(x, offsets)


def _sort_phase(prog, seqs, where, what):
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


def _sort(prog, args, where):
    return _sort_phase(prog, args[:1], where, "sort")[0]


def _sort_by_key(prog, args, where):
    return tuple(_sort_phase(prog, args[:2], where, "sort_by_key"))


_PRIMS = {prelude.map: _map, prelude.gather: _gather, prelude.indices: _indices,
          prelude.replicate: _replicate, prelude.rotate: _rotate, prelude.shift: _shift,
          prelude.len: _len, builtins.len: _len, prelude.reduce: _reduce,
          prelude.scan: _scan, prelude.rscan: _rscan,
          prelude.exclusive_scan: _exclusive_scan, prelude.permute: _permute,
          prelude.scatter: _scatter, prelude.scatter_add: _scatter_add,
          prelude.split: _split,
          prelude.sort: _sort, prelude.sort_by_key: _sort_by_key, prelude.zip: tuples.zip_,
          builtins.zip: tuples.zip_, prelude.unzip: tuples.unzip}
for _f in _REDUCE:
    _PRIMS[_f] = _reducer(_f)
