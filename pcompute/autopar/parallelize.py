"""``pcompute.parallelize``: plain Python loop nests run as kernels.

The function's top-level ``for`` statements are its loop nests; everything
else runs as plain Python between them.  At each call, every nest is analysed
with the call's values (:mod:`.analysis`: loop bounds, invariants, which
arguments are the same array), the result cached on what it depends on, and
the nest runs as:

- one Elementwise kernel over its outer parallel loops (up to three,
  perfectly nested, with bounds known at the call) with the inner loops
  sequential inside each item;
- a host loop launching kernels, when its outer loop is sequential but
  every statement of its body is a parallel nest;
- otherwise one sequential kernel (one item running the whole nest,
  compiled) and a :class:`~pcompute.errors.SequentialLoopWarning` naming the
  loop and the dependence (:class:`~pcompute.errors.SequentialLoopError`
  with ``strict=True``).

The kernels are kernel-language functions written by :mod:`.lower`; they
go through the front end and the configured backend like any user kernel.
"""
import ast
import copy
import inspect
import re
import textwrap
import warnings

import numpy as np

from ..errors import (KernelIndexError, KernelValueError, SequentialLoopError,
                      SequentialLoopWarning, SourceLocation, SpeculationWarning)
from ..kernel_options import build_options
from ..parallel import Elementwise
from ..primitives.reduction import Reduction
from ..types import atomic_max
from .analysis import PARALLEL, REDUCTION, analyse
from .interchange import interchanged_kernel, reduction_arrays
from .lower import parallel_kernel, perfect_prefix, reduction_kernel, sequential_kernel
from .nest import assigned_names, range_args
from .plans import Plan, Step
from .residency import Residency, is_array, same_memory
from .scalars import live_after
from .specplan import SpeculativeMixin


#: Reduction operators run in parallel: (reduce expression, combine, neutral).
_REDUCE = {
    "+": ("a+b", lambda x, y: x + y, lambda dt: 0),
    "*": ("a*b", lambda x, y: x * y, lambda dt: 1),
    "max": ("max(a, b)", max, lambda dt: -np.inf if dt.kind == "f" else np.iinfo(dt).min),
    "min": ("min(a, b)", min, lambda dt: np.inf if dt.kind == "f" else np.iinfo(dt).max),
}


class Parallelized(SpeculativeMixin):
    """A function whose loop nests run as kernels (see :func:`parallelize`)."""

    def __init__(self, func, strict=False, speculate=None, vector_math=False):
        if not inspect.isfunction(func):
            raise KernelValueError("parallelize() needs a Python function, got %r" % (func,))
        self.func = func
        self.strict = strict
        self.speculate = speculate
        self.vector_math = bool(vector_math)
        self.__name__ = func.__name__
        self.__doc__ = func.__doc__
        self.__wrapped__ = func
        self._parse()
        self._analyses = {}
        self._kernels = {}
        self._reductions = {}
        self._warned = set()
        self._speculations = {}     # line of a speculated loop -> Speculation
        self._marks = {}            # line -> "safe" / "unsafe"
        self._profiling = False
        self._explaining = False
        self._profile = {}          # line -> ProfileEntry (profile mode)
        self.last_plans = []

    # ------------------------------------------------------------ static stage
    def _parse(self):
        lines, first = inspect.getsourcelines(self.func)
        text = textwrap.dedent("".join(lines))
        tree = ast.parse(text)
        ast.increment_lineno(tree, first - 1)
        fdef = tree.body[0]
        fdef.decorator_list = []
        self.filename = self.func.__code__.co_filename
        self.first = first
        self.lines = [""] * (first - 1) + text.splitlines()
        self.signature = inspect.signature(self.func)
        self.params = list(self.signature.parameters)
        self.local_names = set(self.params) | assigned_names(fdef)
        self.steps = []
        body = fdef.body
        for k, stmt in enumerate(body):
            loaded = live_after(body[k + 1:])
            if isinstance(stmt, ast.For) and range_args(stmt) is not None:
                names = tuple(sorted({n.id for n in ast.walk(stmt)
                                      if isinstance(n, ast.Name)}))
                self.steps.append(Step("nest", stmt, None, frozenset(loaded), names))
            elif isinstance(stmt, ast.Return):
                value = stmt.value if stmt.value is not None else ast.Constant(None)
                expr = ast.Expression(value)
                ast.copy_location(expr, stmt)
                self.steps.append(Step("return", stmt, compile(
                    expr, self.filename, "eval")))
            else:
                module = ast.Module([stmt], [])
                kind = "python-loop" if any(isinstance(n, (ast.For, ast.While))
                                            for n in ast.walk(stmt)) else "python"
                self.steps.append(Step(kind, stmt, compile(
                    module, self.filename, "exec")))

    def _segment(self, node):
        line = self.lines[node.lineno - 1] if node.lineno <= len(self.lines) else ""
        if getattr(node, "end_lineno", None) == node.lineno:
            return line[node.col_offset:node.end_col_offset]
        return ast.unparse(node)

    # ------------------------------------------------------------ a call
    def __call__(self, *args, **kwargs):
        return self._run(args, kwargs, record=None)

    def explain(self, *args, **kwargs):
        """The report of a call with these arguments: for every loop, parallel,
        reduction or sequential and the dependence that decided it, with file
        and lines, and how each nest runs.  The function runs on copies of the
        array arguments (the arguments are not changed).  Returns the text."""
        memo = {}           # one memo: an array passed twice stays one array
        args = [copy.deepcopy(a, memo) if isinstance(a, np.ndarray) else a for a in args]
        kwargs = {k: copy.deepcopy(v, memo) if isinstance(v, np.ndarray) else v
                  for k, v in kwargs.items()}
        record = []
        self._explaining = True
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", SequentialLoopWarning)
                warnings.simplefilter("ignore", SpeculationWarning)
                self._run(args, kwargs, record=record)
        finally:
            self._explaining = False
        return self._report(record)

    def _run(self, args, kwargs, record):
        bound = self.signature.bind(*args, **kwargs)
        bound.apply_defaults()
        scope = dict(self.func.__globals__)
        scope.update(bound.arguments)
        residency = Residency()
        self.last_plans = []
        try:
            for index, step in enumerate(self.steps):
                if step.kind == "nest":
                    self._nest(index, step, scope, residency, record)
                    continue
                residency.sync()
                if step.kind == "return":
                    return eval(step.code, scope)
                if step.kind == "python-loop":
                    self._interpreted(index, step, record)
                exec(step.code, scope)
            return None
        finally:
            residency.sync()

    # ------------------------------------------------------------ one nest
    def _nest(self, index, step, scope, residency, record):
        report, plan = self._analysis(index, step, scope)
        self.last_plans.append(plan)
        if record is not None:
            record.append((step, report, plan))
        if plan.kind not in ("launch", "reduce", "speculate"):
            self._warn(index, plan)
        try:
            self._execute(plan, scope, residency)
        except KernelIndexError as error:
            raise self._user_index_error(error, step) from None

    def _user_index_error(self, error, step):
        """``error`` (an index out of range in a kernel of nest ``step``, under
        ``bounds_check``) told in the user's terms: their function and the
        nest's line, not the generated kernel's name."""
        where = "%s() (the loop nest at line %d)" % (self.__name__, step.node.lineno)
        message = re.sub(r"autopar_(nest|spec)_\w+(\(\))?", where, error.message)
        loc = error.location
        if loc is not None and loc.filename == self.filename:
            loc = SourceLocation(loc.filename, loc.lineno, loc.col, loc.end_col,
                                 self.__name__, loc.line)
        return KernelIndexError(message, loc, error.hint)

    def _analysis(self, index, step, scope):
        """(report, plan) of nest ``index`` for the values in ``scope`` (cached
        on the integer values and array identities the nest reads)."""
        ints, arrays = [], []
        for name in step.loaded:
            value = scope.get(name)
            if is_array(value):
                arrays.append((name, id(value), np.ndim(value)))
            elif isinstance(value, (int, np.integer)) and not isinstance(value, bool):
                ints.append((name, int(value)))
        aliases = tuple(
            (a[0], b[0], same_memory(scope[a[0]], scope[b[0]]))
            for x, a in enumerate(arrays) for b in arrays[x + 1:]
            if same_memory(scope[a[0]], scope[b[0]]))
        key = (index, tuple(ints), tuple((a[0], a[2]) for a in arrays), aliases,
               self._speculating(), tuple(sorted(self._marks)))
        cached = self._analyses.get(key)
        if cached is not None:
            return cached
        for a, b, kind in aliases:
            if kind == 2:
                raise KernelValueError(
                    "%s(): the arguments %s and %s overlap without being the same "
                    "array; the loop nest at line %d cannot be analysed"
                    % (self.__name__, a, b, step.node.lineno),
                    self._location(step.node),
                    hint="pass separate arrays (a copy of one), or the same array once")
        same = {a: a for a, _, _ in arrays}
        for a, b, _ in aliases:
            same[b] = same[a]
        array_names = {a[0] for a in arrays}
        env = {k: v for k, v in ints}
        report = analyse(step.node, env, lambda n: n in array_names,
                         lambda a, b: same.get(a, a) == same.get(b, b),
                         live_out=step.live_out, segment=self._segment)
        canon = (lambda name: same.get(name, name))
        plan = self._plan(report.root, report, scope, step, canon)
        self._analyses[key] = (report, plan)
        return report, plan

    def _plan(self, loop, report, scope, step, canon):
        plan = self._plan_parallel(loop, report, scope, step, canon)
        if plan.kind == "serial" and (self._speculating() or loop.lineno in self._marks):
            plan = self._speculative_plan(plan, loop, report, scope, canon)
        return plan

    def _plan_parallel(self, loop, report, scope, step, canon):
        names = {n for n in self.local_names if n in scope}

        def launchable(lp):
            return (report.verdict(lp).kind == PARALLEL and lp.count is not None
                    and lp.lo is not None and not lp.lo.coeffs)

        prefix = perfect_prefix(loop, launchable)
        if prefix:
            return Plan("launch", loop, self._kernel(parallel_kernel(
                self.lines, prefix, names | {lp.var for lp in loop.ancestors()[:-1]})))
        plan = self._plan_interchange(loop, report, names, canon, launchable)
        if plan is not None:
            return plan
        verdict = report.verdict(loop)
        ops = {r.name: r.op for r in verdict.reductions}
        if (verdict.kind == REDUCTION and loop.count is not None and loop.lo is not None
                and not loop.lo.coeffs and set(ops.values()) <= set(_REDUCE)):
            names_here = names | {lp.var for lp in loop.ancestors()[:-1]}
            text = reduction_kernel(self.lines, loop, names_here, sorted(ops))
            return Plan("reduce", loop, self._kernel(text), (), tuple(verdict.reasons),
                         tuple((r, ops[r]) for r in sorted(ops)))
        body = loop.node.body
        if (loop.count is not None and loop.lo is not None and not loop.lo.coeffs
                and range_args(loop.node) is not None and loop.var is not None
                and all(isinstance(s, ast.For) for s in body)):
            kids = [c for c in loop.children if any(c.node is s for s in body)]
            inner = [self._plan(c, report, scope, step, canon) for c in kids]
            if len(kids) == len(body) and all(p.kind in ("launch", "host", "speculate")
                                              for p in inner):
                return Plan("host", loop, None, tuple(inner), tuple(verdict.reasons))
        boxes = self._boxes(loop, scope, step)
        names |= {lp.var for lp in loop.ancestors()[:-1]}
        kernel = self._kernel(sequential_kernel(self.lines, loop.node, names, boxes))
        return Plan("serial", loop, kernel, (), tuple(verdict.reasons) or (
            "inner loop bounds depend on the outer loops",))

    def _plan_interchange(self, loop, report, names, canon, launchable):
        """A launch over the parallel loops inside ``loop`` with ``loop`` run
        inside each item, when ``loop`` carries only array reductions
        (:mod:`.interchange`); else None."""
        body = loop.node.body
        if range_args(loop.node) is None or len(body) != 1:
            return None
        arrays = reduction_arrays(loop, report, canon)
        kid = next((c for c in loop.children if c.node is body[0]), None)
        if not arrays or kid is None or range_args(kid.node) is None:
            return None
        inner = perfect_prefix(kid, launchable)
        if not inner:
            return None
        names_here = names | {lp.var for lp in loop.ancestors()[:-1]}
        text = interchanged_kernel(self.lines, loop, inner, names_here)
        return Plan("launch", kid, self._kernel(text), (), (
            "the loop at line %d carries only updates of %s: it runs inside each item "
            "(loop interchange)" % (loop.lineno, ", ".join(arrays)),))

    def _boxes(self, loop, scope, step):
        stored = assigned_names(loop.node)
        return tuple(sorted(n for n in stored
                            if not is_array(scope.get(n))
                            and (n in scope or n in step.live_out)))

    def _kernel(self, text, filename=None):
        ew = self._kernels.get(text.source)
        if ew is None:
            namespace = dict(self.func.__globals__)
            namespace["atomic_max"] = atomic_max
            exec(compile(text.source, filename or self.filename, "exec"), namespace)
            kfunc = namespace[text.name]
            kfunc.source = text.source
            if text.serial:
                kfunc.is_serial = True
            # Built for this CPU as a JIT compiler does (Numba: the host's
            # vector instructions), with no FMA contraction: same results.
            build_options(kfunc, host_cpu=True, vector_math=self.vector_math)
            ew = (Elementwise(kfunc), text)
            self._kernels[text.source] = ew
        return ew

    # ------------------------------------------------------------ running
    def _execute(self, plan, scope, residency):
        loop = plan.loop
        if plan.kind == "host":
            start, step = loop.lo.const, loop.step
            for t in range(loop.count):
                scope[loop.var] = start + step * t
                for child in plan.children:
                    self._execute(child, scope, residency)
            return
        ew, text = plan.kernel
        values = [residency.device(scope[p]) if is_array(scope[p]) else scope[p]
                  for p in text.params]
        if plan.kind == "speculate":
            self._speculate(plan, values, scope, residency)
            return
        if plan.kind == "reduce":
            self._reduce(plan, values, scope, residency)
            return
        if plan.kind == "launch":
            prefix = [loop]
            while len(prefix) < text.dims:
                prefix.append(next(c for c in prefix[-1].children
                                   if c.node is prefix[-1].node.body[0]))
            prefix = [prefix[k] for k in text.order]     # launch order
            counts = [lp.count for lp in prefix]
            if min(counts) == 0:
                return
            for lp in prefix:
                values += [lp.lo.const, lp.step]
            ew(*values, shape=counts[0] if len(counts) == 1 else tuple(counts))
            return
        boxes = []
        for name in text.boxes:
            value = scope.get(name, 0)
            dtype = np.float64 if isinstance(value, (float, np.floating)) else np.int64
            if name not in scope and not self._is_loop_var(loop, name):
                dtype = np.float64
            boxes.append(residency.device(np.array([value], dtype=dtype)))
        ew(*(values + boxes), shape=1)
        for name, box in zip(text.boxes, boxes):
            scope[name] = box.get()[0].item()

    def _reduce(self, plan, values, scope, residency):
        """Partials per item in one kernel, then one Reduction per scalar,
        combined with the scalar's value before the loop."""
        loop, (ew, text) = plan.loop, plan.kernel
        if loop.count == 0:
            return
        dtypes = [np.dtype(np.float64) if isinstance(scope.get(r), (float, np.floating))
                  or r not in scope else np.dtype(np.int64) for r, _ in plan.reductions]
        inits = [_REDUCE[op][2](dt) for (r, op), dt in zip(plan.reductions, dtypes)]
        inits = [float(v) if dt.kind == "f" else int(v) for v, dt in zip(inits, dtypes)]
        parts = [residency.device(np.empty(loop.count, dtype=dt)) for dt in dtypes]
        ew(*(values + [loop.lo.const, loop.step] + inits + parts), shape=loop.count)
        for (r, op), dt, part in zip(plan.reductions, dtypes, parts):
            expr, combine, neutral = _REDUCE[op]
            key = (expr, dt.str)
            red = self._reductions.get(key)
            if red is None:
                red = Reduction(expr, dtype_out=part.dtype, neutral=repr(neutral(dt)).replace(
                    "inf", "INFINITY"))
                self._reductions[key] = red
            total = red(part)
            total = total.item() if hasattr(total, "item") else total
            scope[r] = combine(scope[r], total) if r in scope else total

    @staticmethod
    def _is_loop_var(loop, name):
        return any(isinstance(n, ast.For) and isinstance(n.target, ast.Name)
                   and n.target.id == name for n in ast.walk(loop.node))

    def _interpreted(self, index, step, record):
        """A loop that is not a top-level ``for ... in range(...)`` runs in the
        interpreter: said (warning, or error under strict), never silent."""
        message = ("this statement holds a loop but is not a top-level `for v in "
                   "range(...)` nest: it runs as plain Python, not compiled")
        if record is not None:
            record.append((step, None, None))
        error = SequentialLoopError(
            message, self._location(step.node),
            hint="make the loop a top-level `for v in range(...)` statement of %s() "
                 "(move conditions inside it)" % self.__name__)
        if self.strict:
            raise error
        if (index, "python") not in self._warned:
            self._warned.add((index, "python"))
            warnings.warn(SequentialLoopWarning(str(error)), stacklevel=5)

    # ------------------------------------------------------------ reports
    def _location(self, node):
        line = self.lines[node.lineno - 1] if node.lineno <= len(self.lines) else ""
        return SourceLocation(self.filename, node.lineno, node.col_offset,
                              node.col_offset + 3, self.__name__, line)

    def _warn(self, index, plan):
        loop = plan.loop
        what = ("runs its iterations in order, each launching the parallel loops "
                "inside" if plan.kind == "host" else "runs sequentially (compiled, "
                "one work item)")
        message = "the loop over %s %s: %s" % (loop.var, what, "; ".join(plan.reasons))
        error = SequentialLoopError(
            message, self._location(loop.node),
            hint="see %s.explain(...) for every loop's verdict" % self.__name__)
        if self.strict:
            raise error
        key = (index, message)
        if key not in self._warned:
            self._warned.add(key)
            warnings.warn(SequentialLoopWarning(str(error)), stacklevel=5)

    def _report(self, record):
        out = ["parallelize report for %s() in %s" % (self.__name__, self.filename)]
        for step, report, plan in record:
            out.append("")
            if report is None:
                out.append("line %d: plain Python (not compiled): the loop in it is not a "
                           "top-level for-range nest" % step.node.lineno)
                continue
            out.append("loop nest at line %d: %s" % (step.node.lineno, _describe(plan)))
            for part in _plans(plan):
                if part.kind == "speculate":
                    stats = self._speculations[part.loop.lineno].stats
                    out.append("  speculated loop at line %d: %s" % (part.loop.lineno,
                                                                    stats.summary()))
                out.extend("  line %d: %s" % (part.loop.lineno, r) for r in part.reasons
                           if r.startswith("not speculated"))
            for verdict in report.verdicts:
                lp = verdict.loop
                head = self.lines[lp.lineno - 1].strip()
                out.append("  line %d: %s" % (lp.lineno, head))
                out.append("      %s" % verdict.kind)
                for reason in verdict.reasons:
                    out.append("        - %s" % reason)
        return "\n".join(out)


def _plans(plan):
    """``plan`` and the plans of the loops it runs (a host loop's children)."""
    yield plan
    if plan.kind == "host":
        for child in plan.children:
            yield from _plans(child)


def _describe(plan):
    if plan.kind == "speculate":
        return ("speculative parallel kernel with dependence checks on %s (%s); on a "
                "violation: restore, then %s" % (
                    ", ".join(sorted({c for _, c in plan.canon})), plan.kernel[0].name,
                    _describe(plan.children[0])))
    if plan.kind == "launch":
        ew, text = plan.kernel
        text = "one kernel over %d parallel loop(s) (%s)" % (text.dims, plan.kernel[0].name)
        return text + ("; " + plan.reasons[0] if plan.reasons else "")
    if plan.kind == "reduce":
        return "one kernel computing partial %s, then a Reduction (%s)" % (
            ", ".join("%s of %s" % (op, r) for r, op in plan.reductions),
            plan.kernel[0].name)
    if plan.kind == "host":
        return "host loop over %s launching %s" % (
            plan.loop.var, "; ".join(_describe(c) for c in plan.children))
    return "one sequential kernel (%s)" % plan.kernel[0].name


def parallelize(func=None, *, strict=False, speculate=None, vector_math=False):
    """Run the loop nests of ``func`` as kernels on the configured backend.

    Use as ``@parallelize`` / ``@parallelize(strict=True)`` or
    ``parallelize(f)``.  The returned callable leaves the arrays with the
    values ``func`` would have produced and returns what it returns; its
    ``explain(*args)`` gives each loop's verdict and reasons.  A nest that
    cannot run in parallel runs compiled and sequential with a
    :class:`~pcompute.errors.SequentialLoopWarning` (an error with
    ``strict=True``).

    ``speculate=True`` (default: the configuration's ``speculate``) runs a
    nest whose outer loop carries dependences only through data-dependent
    subscripts (``x[p[i]] = ...``) in parallel with exact dependence checks;
    a violation restores the arrays and reruns the loop sequentially, with a
    :class:`~pcompute.errors.SpeculationWarning` (an error with
    ``strict=True``).  See the speculation section of the docs.

    The kernels are built for the CPU that runs them (the ``host_cpu`` build
    option: its vector instructions, no fused multiply-add, so the results
    are those of plain Python).  ``vector_math=True`` lets loops calling
    ``exp``, ``log``, ``sin``, ... run vectorised (the ``vector_math``
    build option): their results may then differ from Python's by a few
    units in the last place."""
    def make(f):
        return Parallelized(f, strict=strict, speculate=speculate, vector_math=vector_math)
    return make if func is None else make(func)
