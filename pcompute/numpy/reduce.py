"""Reductions: fused map+reduce kernels over all axes or along one axis.

Over all axes (``axis=None``) the elementwise region feeding the reduction
becomes the map function of a :class:`~pcompute.Reduction` (one pass, no
temporary).  Along one axis it becomes an elementwise kernel over the kept
axes whose body loops over the reduced one.  ``min``/``max`` propagate NaN
as NumPy does; ``argmin``/``argmax`` return the first index of the extreme
(or of the first NaN).
"""
import numpy as np

from . import plans
from .dtypes import in_kernel
from .graph import Source
from .lower import Emitter, NotFusable, convert

#: the reductions the layer builds kernels for
OPS = ("sum", "prod", "min", "max", "any", "all", "argmin", "argmax")

_FULL = {
    # op: (reduce expression for floats, for integers, neutral)
    "sum": ("a + b", "a + b", "0"),
    "prod": ("a * b", "a * b", "1"),
    "max": ("a if (isnan(a) or a >= b) else b", "max(a, b)", "-INFINITY"),
    "min": ("a if (isnan(a) or a <= b) else b", "min(a, b)", "INFINITY"),
    "any": (None, "max(a, b)", "0"),
    "all": (None, "min(a, b)", "1"),
}


def host_reduce(node, value):
    """NumPy's answer for a Reduce node (eager path and fallback)."""
    out = getattr(np, node.op)(value, axis=node.axis)
    return np.asarray(out, dtype=node.dtype)


def acc_dtype(op, arg_dtype, out_dtype):
    """The accumulator dtype: NumPy's result dtype, float64 for float32 sums
    (the kernels accumulate along an axis serially), uint8 for any/all."""
    if op in ("any", "all"):
        return np.dtype(np.uint8)
    if op in ("argmin", "argmax"):
        return np.dtype(arg_dtype)
    if op in ("sum", "prod") and out_dtype == np.float32:
        return np.dtype(np.float64)
    return np.dtype(out_dtype)


def evaluate_reduce(node, tools):
    """The :class:`Source` of a Reduce node (``tools``: the executor's helpers)."""
    arg = node.arg
    kernel_ok = node.op in OPS and in_kernel(arg.dtype) and in_kernel(node.dtype) \
        and not (arg.dtype.kind == "b" and node.op in ("argmin", "argmax"))
    if tools.eager(arg):
        tools.count_eager()
        return tools.host(node)
    if not kernel_ok:
        tools.fallback(node, "no kernel form for %s of %s" % (node.op, arg.dtype))
        return tools.host(node)
    if node.axis is None:
        return _full(node, tools)
    if node.op in _ROWWISE and node.size <= FEW_ITEMS and \
            arg.shape[node.axis] >= LONG_AXIS:
        return _per_item(node, tools)
    if node.op in _ROWWISE and arg.shape[node.axis] <= FEW_ROWS:
        return _rowwise(node, tools)
    return _along_axis(node, tools)


#: Along an axis, a result of at most this many items whose reduced axis has
#: at least LONG_AXIS elements is computed item by item, each item a
#: parallel map+reduce kernel over its line (the kernel over the kept items
#: would give each thread one item, or none, and sum it serially).
FEW_ITEMS = 16
LONG_AXIS = 4096
#: A reduced axis this short is combined as an elementwise expression of its
#: lines (``x[0] + x[1] + x[2]`` for ``x.sum(axis=0)`` of a (3, N) array):
#: one kernel over the long kept axes that the compiler vectorises, adding
#: in NumPy's order (a loop over the short axis per item does not vectorise).
FEW_ROWS = 16
# (sum and prod only: NumPy's NaN-propagating maximum is a branch per
# element in the kernel language, mispredicted on data in no order: 4x
# slower than the loop per item at (3, 3e6).)
_ROWWISE = {"sum": "add", "prod": "multiply"}


def _rowwise(node, tools):
    """``node`` (a sum or product along a short axis) as a fused
    elementwise combination of the lines along that axis."""
    from .graph import Map
    from .lazyview import BasicKey, push_view
    arg, axis, dtype = node.arg, node.axis, node.dtype
    total = None
    for r in range(arg.shape[axis]):
        line = push_view(arg, BasicKey((slice(None),) * axis + (r,)), tools.evaluate)
        if line.dtype != dtype:
            line = Map("astype", [line], [line.dtype], line.shape, dtype)
        total = line if total is None else \
            Map(_ROWWISE[node.op], [total, line], [dtype, dtype], node.shape, dtype)
    if total.result is not None or not isinstance(total, Map):
        total = Map("astype", [total], [dtype], node.shape, dtype)
    return tools.evaluate(total)


def _per_item(node, tools):
    """A reduction along an axis with few kept items (``x.sum(axis=1)`` of a
    (3, N) array): one map+reduce over all of each item's line (a view of
    the pending expression, see :mod:`.lazyview`; the lines share one
    kernel)."""
    from .graph import Reduce
    from .lazyview import BasicKey, push_view
    out = np.empty(node.shape, node.dtype)
    for idx in np.ndindex(*node.shape):
        key = idx[:node.axis] + (slice(None),) + idx[node.axis:]
        line = push_view(node.arg, BasicKey(key), tools.evaluate)
        part = Reduce(node.op, line, None, (), node.dtype, node.acc)
        out[idx] = tools.evaluate(part).to_host()
    return Source(node.shape, node.dtype, host=out)


def _emit(tools, node, make):
    """Lower the region feeding ``node`` (evaluating what cannot join)."""
    while True:
        emitter = make()
        try:
            return emitter, emitter.value(node.arg)
        except NotFusable as stop:
            tools.boundary(node.arg, stop)


def _full(node, tools):
    arg = node.arg
    acc = acc_dtype(node.op, arg.dtype, node.dtype)
    if node.op in ("argmin", "argmax"):
        return _arg_full(node, tools)
    isfloat = acc.kind == "f"
    if node.op in ("max", "min") and isfloat:
        return _float_extreme(node, tools, acc)
    if node.op in ("any", "all"):
        body = lambda e: "return cast(%s, 'uchar')" % convert(e, arg.dtype, np.bool_)  # noqa
        reduce_expr, neutral = _FULL[node.op][1], _FULL[node.op][2]
    else:
        body = lambda e: "return %s" % convert(e, arg.dtype, acc)  # noqa
        floats, ints, neutral = _FULL[node.op]
        reduce_expr = floats if isfloat else ints
    source, args, nodes = _map_kernel(node, tools, "value", body, acc)
    result = tools.run_reduction(source, reduce_expr, acc, neutral, args, nodes)
    return Source((), node.dtype, host=np.asarray(result).astype(node.dtype))


def _map_kernel(node, tools, tag, body, acc):
    """(source, arguments, operations) of the map function of a reduction of
    ``node.arg`` over all axes whose last line is ``body(expression)``
    (``tag`` names the body: the plan of the lowering is kept under it)."""
    arg = node.arg
    fp = plans.fingerprint(arg, arg.shape, tools.device, tools.first, tools.max_inputs,
                           ("pc_map", tag, node.op, arg.dtype, acc))
    plan = plans.get(fp)
    if plan is not None:
        return plan.source, plan.arguments(fp, arg.shape, lambda: tools.items(arg.size)), \
            plan.nodes
    make = lambda: Emitter(arg.shape, tools.device, max_leaves=tools.max_inputs)  # noqa
    emitter, expr = _emit(tools, node, make)
    if not emitter.first_exact:
        emitter.count_first(tools.items(arg.size))
    source = emitter.function("pc_map", [], [body(expr)])
    plans.keep(fp, emitter, source)
    return source, emitter.args, emitter.nodes


def _float_extreme(node, tools, acc):
    """max/min of floats over all axes: NaN counts as the infinity of the
    extreme's side, so the kernel is a plain ``max(a, b)`` reduction (one
    that the compiler vectorises); only when the result is that infinity does
    a second pass tell a NaN (NumPy's answer then) from a real infinity."""
    arg = node.arg
    inf = "INFINITY" if node.op == "max" else "-INFINITY"
    body = lambda e: "return %s" % convert("(%s if isnan(%s) else %s)" % (inf, e, e),  # noqa
                                           arg.dtype, acc)
    source, args, nodes = _map_kernel(node, tools, "extreme", body, acc)
    result = tools.run_reduction(source, "%s(a, b)" % node.op, acc,
                                 "-INFINITY" if node.op == "max" else "INFINITY", args, nodes)
    # (a dry evaluation records the second pass too: it runs whenever the
    # first gives the infinity)
    if tools.dry() or (np.isinf(result) and (result > 0) == (node.op == "max")):
        body = lambda e: "return cast(isnan(%s), 'uchar')" % e  # noqa
        source, args, nodes = _map_kernel(node, tools, "isnan", body, acc)
        if tools.run_reduction(source, "max(a, b)", np.dtype(np.uint8), "0", args, nodes):
            result = np.nan
    return Source((), node.dtype, host=np.asarray(result).astype(node.dtype))


def _arg_full(node, tools):
    """argmin/argmax over all axes: the extreme (NaN first), then its first index."""
    arg = node.arg
    extreme = "min" if node.op == "argmin" else "max"
    from .graph import Reduce
    value = tools.evaluate(Reduce(extreme, arg, None, (), arg.dtype, arg.dtype)).to_host()
    isnan = arg.dtype.kind == "f" and bool(np.isnan(value))
    if tools.dry() and arg.dtype.kind == "f":
        _first_index(node, tools, value, not isnan)    # recorded: the other outcome's
    result = _first_index(node, tools, value, isnan)
    return Source((), node.dtype, host=np.asarray(result, dtype=node.dtype))


def _first_index(node, tools, value, isnan):
    """The first index of ``node.arg`` equal to ``value`` (``isnan``: of its
    first NaN), by a map+reduce kernel."""
    arg = node.arg
    make = lambda: Emitter(arg.shape, tools.device, max_leaves=tools.max_inputs)  # noqa
    emitter, expr = _emit(tools, node, make)
    if not emitter.first_exact:
        emitter.count_first(tools.items(arg.size))
    n = emitter._param("c_n", np.int64(arg.size))
    if isnan:
        test = "isnan(%s)" % expr
    else:
        target = emitter._param("c_v", arg.dtype.type(value))
        test = "%s == %s" % (expr, target)
    source = emitter.function("pc_map", [], ["return i if %s else %s" % (test, n)])
    return tools.run_reduction(source, "min(a, b)", np.dtype(np.int64), "INFINITY",
                               emitter.args, emitter.nodes)


def _along_axis(node, tools):
    arg, axis = node.arg, node.axis
    acc = acc_dtype(node.op, arg.dtype, node.dtype)
    fp = plans.fingerprint(arg, arg.shape, tools.device, tools.first, tools.max_inputs,
                           ("pc_axis", node.op, axis, arg.dtype, acc, node.dtype))
    plan = plans.get(fp)
    if plan is not None:                    # this structure was lowered before
        return tools.run_kernel(plan.source, node, plan.arguments(fp, arg.shape),
                                plan.nodes)
    holder = {}

    def make():
        em = Emitter(arg.shape, tools.device, axis=axis, max_leaves=tools.max_inputs)
        em._param("m", int(arg.shape[axis]), ("extent", axis))
        init = _init(node.op, acc)
        holder["init"] = em._param("c_init", init, ("fixed", init))
        return em
    emitter, expr = _emit(tools, node, make)
    init = holder["init"]
    isfloat = arg.dtype.kind == "f"
    pre = ["acc = %s" % init]
    if node.op in ("argmin", "argmax"):
        cmp = "<" if node.op == "argmin" else ">"
        nan = " or (isnan(v) and not isnan(acc))" if isfloat else ""
        pre.append("bi = -1")
        update = ["v = %s" % expr,
                  "if bi < 0 or v %s acc%s:" % (cmp, nan),
                  "    acc = v", "    bi = r"]
        post = ["out[i] = %s" % convert("bi", np.int64, node.dtype)]
    else:
        update = ["v = %s" % _acc_value(node.op, expr, arg.dtype, acc)]
        update += _combine(node.op, acc.kind == "f" and isfloat)
        post = ["out[i] = %s" % convert("acc", acc, node.dtype)]
    source = emitter.function("pc_fused", ["out"], [], (pre, update, post))
    plans.keep(fp, emitter, source)
    return tools.run_kernel(source, node, emitter.args, emitter.nodes)


def _acc_value(op, expr, dtype, acc):
    if op in ("any", "all"):
        return convert(expr, dtype, np.bool_)
    return convert(expr, dtype, acc)


def _combine(op, isfloat):
    if op == "sum":
        return ["acc = acc + v"]
    if op == "prod":
        return ["acc = acc * v"]
    if op in ("max", "min"):
        cmp = ">" if op == "max" else "<"
        nan = "isnan(v) or " if isfloat else ""
        return ["if %sv %s acc:" % (nan, cmp), "    acc = v"]
    if op == "any":
        return ["if v:", "    acc = 1"]
    if op == "all":
        return ["if not v:", "    acc = 0"]
    raise ValueError(op)


def _init(op, acc):
    if op in ("sum", "any", "argmin", "argmax"):
        return acc.type(0)
    if op in ("prod", "all"):
        return acc.type(1)
    if acc.kind == "f":
        return acc.type(np.inf if op == "min" else -np.inf)
    info = np.iinfo(acc)
    return acc.type(info.max if op == "min" else info.min)
