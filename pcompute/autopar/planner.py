"""Planning a nest of a parallelised function (:class:`~pcompute.autopar.Parallelized`):
from the dependence report of :mod:`.analysis` to a :class:`~.plans.Plan`: one
kernel over the outer parallel loops (:mod:`.lower`), the loop interchange of
array reductions (:mod:`.interchange`), a scalar reduction, a host loop
launching the parallel nests inside it, or one sequential kernel; and the
Elementwise each kernel text becomes.  A mixin: it uses the function's
source lines, names and kernel cache."""
import ast

from ..backends.pyreads import NUMBERS
from ..kernel_options import build_options
from ..parallel import Elementwise
from ..types import atomic_max, cast, prefetch
from .analysis import PARALLEL, REDUCTION
from .callee import module_reads
from .execute import REDUCE
from .interchange import interchanged_kernel, reduction_arrays
from .lower import (aligned_store, parallel_kernel, perfect_prefix, reduction_kernel,
                    sequential_kernel)
from .nest import assigned_names, range_args
from .plans import Plan
from .residency import is_array

#: Below this many items a launch whose items run loops of non-constant
#: length runs serially (the ``serial_below`` build option): such items are
#: heavy, so few of them already gain from the threads.
HEAVY_SERIAL_BELOW = 16


class PlannerMixin:
    """The plans and kernels of :class:`~pcompute.autopar.Parallelized`."""

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
                and not loop.lo.coeffs and set(ops.values()) <= set(REDUCE)):
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
        # the kernel reads the function's globals as constants: one kernel
        # per source and values of the global numbers it reads
        # (and its helpers' module-level numbers, compiled in the same way)
        tree = ast.parse(text.source)
        names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        key = (text.source, global_numbers(self.func.__globals__, names),
               helper_numbers(module_reads(tree, self.func.__globals__.get)))
        ew = self._kernels.get(key)
        if ew is None:
            namespace = dict(self.func.__globals__)
            namespace["atomic_max"] = atomic_max
            namespace["cast"] = cast
            namespace["prefetch"] = prefetch
            exec(compile(text.source, filename or self.filename, "exec"), namespace)
            kfunc = namespace[text.name]
            kfunc.source = text.source
            if text.serial:
                kfunc.is_serial = True
            # Built for this CPU as a JIT compiler does (Numba: the host's
            # vector instructions), with no FMA contraction: same results.
            build_options(kfunc, host_cpu=True, vector_math=self.vector_math,
                          parallel_items=text.parallel_items)
            align = aligned_store(text)
            if align is not None:                   # each row's stores aligned
                build_options(kfunc, align_rows=align)
            if getattr(text, "uneven", False):     # triangular, early exits: balance
                build_options(kfunc, balance=True)
            if getattr(text, "heavy", False):      # items run loops: threads pay
                build_options(kfunc, serial_below=HEAVY_SERIAL_BELOW)
            if getattr(text, "early_exit", False):  # scalar loops carrying values
                build_options(kfunc, unroll=True)
            ew = (Elementwise(kfunc), text)
            self._kernels[key] = ew
        return ew


def global_numbers(namespace, names):
    """``((name, type, value), ...)`` of the numbers among ``names`` in
    ``namespace`` (:data:`~pcompute.backends.pyreads.NUMBERS`), sorted."""
    out = []
    for name in sorted(names):
        value = namespace.get(name)
        if isinstance(value, NUMBERS):
            out.append((name, type(value), value))
    return tuple(out)


def helper_numbers(reads):
    """``((module, name, type, value), ...)`` of the numbers among the
    module-level names helpers read (``reads``: :func:`.callee.module_reads`)."""
    out = set()
    for module, name in reads:
        value = module.get(name)
        if isinstance(value, NUMBERS):
            out.add((module.get("__name__"), name, type(value), value))
    return tuple(sorted(out, key=repr))

