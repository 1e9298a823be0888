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
computes them again) and passed to kernels as arguments.  The primitives
themselves are in ``lazy_ops.py`` (element by element), ``sync_ops.py``
(sync points) and ``tuples.py`` (sequences of tuples); this module walks
the statements and expressions and dispatches calls to them.
"""
import ast
import builtins
import operator

from ..errors import KernelSyntaxError, KernelTypeError, KernelValueError
from . import comprehension, keep, lazy_ops, phases, prelude, sync_ops, tuples
from .builder import Builder
from .plan import Dyn
from .source import Closure, located
from .values import Lazy, Segments, Seq, Stored, Tuples

_HOST_BINOPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
                ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv,
                ast.Mod: operator.mod, ast.Pow: operator.pow}


class Program:
    """One call of a ``@dataparallel`` function being evaluated."""

    def __init__(self, closure, trace):
        self.trace = trace
        self.closure = closure
        self.offset_summaries = {}        # id(offsets) -> (offsets, summary): offsets.py

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
        """A lazy value returned and read before is stored by the first
        reduction computing it (``keep.py``).  Else a lazy value whose element
        function loops (a nested map over segments, a tail-recursive helper)
        and that is read twice or more later is computed once, into an array,
        instead of once per reading kernel."""
        if not (isinstance(target, ast.Name) and isinstance(value, Lazy)) or \
                keep.mark(target, value, later) or not value.heavy:
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
                seqs.append(lazy_ops.range_seq(int(start), int(stop)))
            else:
                seqs.append(it)
        return lazy_ops.map_seq(self, [func] + seqs, where)

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
        seqs = [s.stored if isinstance(s, Lazy) and s.stored is not None else s
                for s in seqs]
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


_PRIMS = {prelude.map: lazy_ops.map_seq, prelude.gather: lazy_ops.gather, prelude.indices: lazy_ops.indices,
          prelude.replicate: lazy_ops.replicate, prelude.rotate: lazy_ops.rotate, prelude.shift: lazy_ops.shift,
          prelude.len: lazy_ops.length, builtins.len: lazy_ops.length, prelude.reduce: sync_ops.reduce,
          prelude.scan: sync_ops.scan, prelude.rscan: sync_ops.rscan,
          prelude.exclusive_scan: sync_ops.exclusive_scan, prelude.permute: sync_ops.permute,
          prelude.scatter: sync_ops.scatter, prelude.scatter_add: sync_ops.scatter_add_,
          prelude.split: sync_ops.split,
          prelude.sort: sync_ops.sort, prelude.sort_by_key: sync_ops.sort_by_key, prelude.zip: tuples.zip_,
          builtins.zip: tuples.zip_, prelude.unzip: tuples.unzip}
for _f in sync_ops.REDUCE:
    _PRIMS[_f] = sync_ops.reducer(_f)
