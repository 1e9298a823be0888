"""``explain(x)``: the kernels evaluating ``x`` would run, and where fusion stops."""
from . import ufuncs
from .dtypes import in_kernel
from .graph import Const, Map, Reduce, Source
from .options import OPTIONS, eager_below


def _leaf_name(node, names):
    if isinstance(node, Const):
        return "scalar %r" % (node.value,)
    key = id(node)
    if key not in names:
        names[key] = "array%d %s %s" % (len(names), node.dtype, node.shape)
    return names[key]


def _fusable(node):
    return isinstance(node, Map) and node.op in ufuncs.FUSABLE and in_kernel(node.dtype) \
        and all(in_kernel(d) for d in node.loop)


def explain(x):
    """A text plan of the evaluation of lazy array ``x``: one entry per fused
    kernel (its operations and inputs) and, for each boundary, why fusion
    stopped there.  Nothing is computed."""
    from .core import ndarray
    node = x._node if isinstance(x, ndarray) else x
    lines, names, seen = [], {}, set()
    _plan(node, lines, names, seen)
    if not lines:
        lines.append("already evaluated: %s %s" % (node.dtype, node.shape))
    return "\n".join(lines)


def _plan(root, lines, names, seen):
    if id(root) in seen or root.result is not None:
        return
    seen.add(id(root))
    ops, inputs, stops = [], [], []

    def visit(node, top):
        if node.result is not None or isinstance(node, (Source, Const)):
            inputs.append(_leaf_name(node.result or node, names))
            return
        if isinstance(node, Map) and (_fusable(node) or top and not _fusable(node)):
            if not _fusable(node):
                return
            ops.append(node.op)
            for a in node.args:
                visit(a, False)
            return
        reason = ("a reduction is evaluated first" if isinstance(node, Reduce) else
                  "numpy.%s has no kernel form here: NumPy on the host" % node.op)
        stops.append((node, reason))
        inputs.append("result of %s" % (node.op,))

    if isinstance(root, Reduce):
        visit(root.arg, False)
        kind = "map+reduce %s(axis=%s)" % (root.op, root.axis)
    elif _fusable(root):
        visit(root, True)
        kind = "elementwise"
    else:
        for a in root.inputs():
            visit(a, False)
        kind = "NumPy on the host: numpy.%s" % getattr(root, "op", "?")
    for node, _ in stops:
        _plan(node, lines, names, seen)
    small = root.size < eager_below()
    lines.append("kernel %d: %s -> %s %s%s" % (
        len(lines), kind, root.dtype, root.shape,
        "  [eager in NumPy: %d elements < eager_below]" % root.size if small else ""))
    if ops:
        lines.append("    ops: %s" % ", ".join(ops))
    lines.append("    inputs: %s" % (", ".join(dict.fromkeys(inputs)) or "none"))
    for node, reason in stops:
        lines.append("    boundary at %s: %s" % (getattr(node, "op", "?"), reason))
    if len(set(inputs)) > OPTIONS["max_inputs"]:
        lines.append("    more than max_inputs=%d arrays: split into several kernels"
                     % OPTIONS["max_inputs"])
