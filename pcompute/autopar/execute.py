"""Running a planned nest of a parallelised function
(:class:`~pcompute.autopar.Parallelized`): the launch over the parallel loops,
a host loop launching kernels, a sequential kernel with its scalars passed
through one-element arrays, and a scalar reduction (partials per item, then
one :class:`~pcompute.primitives.reduction.Reduction` per scalar).  A mixin:
it uses the function's reductions cache and the speculation side."""
import ast

import numpy as np

from ..primitives.reduction import Reduction
from .residency import is_array

#: Reduction operators run in parallel: (reduce expression, combine, neutral).
REDUCE = {
    "+": ("a+b", lambda x, y: x + y, lambda dt: 0),
    "*": ("a*b", lambda x, y: x * y, lambda dt: 1),
    "max": ("max(a, b)", max, lambda dt: -np.inf if dt.kind == "f" else np.iinfo(dt).min),
    "min": ("min(a, b)", min, lambda dt: np.inf if dt.kind == "f" else np.iinfo(dt).max),
}



def launch_extent(plan):
    """``(tail, shape)`` of a "launch" plan: the values passed after the
    kernel's parameters (first value and step of each launched loop) and the
    index space (an int for one loop, else a tuple; None when it is empty)."""
    loop, text = plan.loop, plan.kernel[1]
    prefix = [loop]
    while len(prefix) < text.dims:
        prefix.append(next(c for c in prefix[-1].children
                           if c.node is prefix[-1].node.body[0]))
    prefix = [prefix[k] for k in text.order]     # launch order
    counts = [lp.count for lp in prefix]
    if min(counts) == 0:
        return [], None
    tail = []
    for lp in prefix:
        tail += [lp.lo.const, lp.step]
    return tail, counts[0] if len(counts) == 1 else tuple(counts)


def box_arrays(plan, scope):
    """The one-element arrays through which the sequential kernel of a
    "serial" plan reads and writes its scalars (float64 for a float value
    or a name the nest sets first, else int64)."""
    boxes = []
    for name in plan.kernel[1].boxes:
        value = scope.get(name, 0)
        dtype = np.float64 if isinstance(value, (float, np.floating)) else np.int64
        if name not in scope and not _is_loop_var(plan.loop, name):
            dtype = np.float64
        boxes.append(np.array([value], dtype=dtype))
    return boxes


def reduction_parts(plan, scope):
    """``(dtypes, inits)`` of the per-item partials of a "reduce" plan's
    scalars: float64 for a float or new scalar, else int64, and each
    operator's neutral value."""
    dtypes = [np.dtype(np.float64) if isinstance(scope.get(r), (float, np.floating))
              or r not in scope else np.dtype(np.int64) for r, _ in plan.reductions]
    inits = [REDUCE[op][2](dt) for (r, op), dt in zip(plan.reductions, dtypes)]
    return dtypes, [float(v) if dt.kind == "f" else int(v) for v, dt in zip(inits, dtypes)]


def _is_loop_var(loop, name):
    return any(isinstance(n, ast.For) and isinstance(n.target, ast.Name)
               and n.target.id == name for n in ast.walk(loop.node))


class ExecutorMixin:
    """Running the plans of :class:`~pcompute.autopar.Parallelized`."""

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
        if plan.kind == "launch":
            values = [residency.launch_value(scope[p]) if is_array(scope[p]) else scope[p]
                      for p in text.params]
        else:
            values = [residency.device(scope[p]) if is_array(scope[p]) else scope[p]
                      for p in text.params]
        if plan.kind == "speculate":
            self._speculate(plan, values, scope, residency)
            return
        if plan.kind == "reduce":
            self._reduce(plan, values, scope, residency)
            return
        if plan.kind == "launch":
            tail, shape = launch_extent(plan)
            if shape is not None:
                ew(*values, *tail, shape=shape)
            return
        boxes = [residency.device(box) for box in box_arrays(plan, scope)]
        ew(*(values + boxes), shape=1)
        for name, box in zip(text.boxes, boxes):
            scope[name] = box.get()[0].item()

    def _reduce(self, plan, values, scope, residency):
        """Partials per item in one kernel, then one Reduction per scalar,
        combined with the scalar's value before the loop."""
        loop, (ew, _) = plan.loop, plan.kernel
        if loop.count == 0:
            return
        dtypes, inits = reduction_parts(plan, scope)
        parts = [residency.device(np.empty(loop.count, dtype=dt)) for dt in dtypes]
        ew(*(values + [loop.lo.const, loop.step] + inits + parts), shape=loop.count)
        for (r, op), dt, part in zip(plan.reductions, dtypes, parts):
            expr, combine, neutral = REDUCE[op]
            key = (expr, dt.str)
            red = self._reductions.get(key)
            if red is None:
                red = Reduction(expr, dtype_out=part.dtype, neutral=repr(neutral(dt)).replace(
                    "inf", "INFINITY"))
                self._reductions[key] = red
            total = red(part)
            total = total.item() if hasattr(total, "item") else total
            scope[r] = combine(scope[r], total) if r in scope else total
