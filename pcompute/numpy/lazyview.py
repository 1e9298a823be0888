"""Views (basic indexing, transposes) of values not computed yet.

A view of an elementwise expression is the same expression over the same
view of its inputs: an elementwise operation commutes with slicing,
transposing and broadcasting.  So ``rows[:, :-2] - rows[:, 2:]`` of a lazy
``rows = a[:-2] + 2 * a[1:-1] + a[2:]`` becomes one kernel that reads ``a``
through shifted strides, instead of a kernel writing ``rows`` to a temporary
and a second one reading it back (the stencil of specialconvolve: half the
memory traffic and no temporary).  Each view recomputes the part of the
expression it shows, so a view is pushed down only into a cheap expression
(:data:`MAX_COST`); a dearer one is computed once and viewed, as before.
"""
import numpy as np

from . import views
from .dtypes import in_kernel
from .devices import device_view
from .graph import Const, Map, Source, broadcast_strides, c_strides
from .options import eager_below

#: The most work (see :func:`cost`) a view recomputes instead of reading a
#: computed value.  Writing and reading back a temporary costs about as much
#: as a few arithmetic operations per element on a CPU (memory bound).
MAX_COST = 8

# Functions computed by a libm call (each counted as several operations).
_DEAR = frozenset((
    "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh",
    "arcsinh", "arccosh", "arctanh", "exp", "expm1", "log", "log10", "log1p", "log2",
    "arctan2", "hypot", "power", "float_power", "true_divide", "divide",
    "floor_divide", "remainder", "mod", "fmod", "divmod"))


class BasicKey:
    """The view ``x[key]`` for a basic-indexing key (ints, slices, None, ...)."""

    def __init__(self, key):
        self.key = key

    def strided(self, shape, strides, offset):
        return views.basic_view(shape, strides, offset, self.key)

    def numpy(self, array):
        return array[self.key]


class Transpose:
    """The view ``x.transpose(axes)``."""

    def __init__(self, axes):
        self.axes = tuple(axes)

    def strided(self, shape, strides, offset):
        return (tuple(shape[k] for k in self.axes), tuple(strides[k] for k in self.axes),
                offset)

    def numpy(self, array):
        return array.transpose(self.axes)


def cost(node, limit=MAX_COST):
    """The work of computing one element of ``node``'s pending elementwise
    expression: 1 per operation, 4 per division or libm function, counting
    each node once; stops counting past ``limit`` (the value is then over
    it).  A value already computed, or a reduction (computed once before
    the view), costs nothing."""
    total, seen, stack = 0, set(), [node]
    while stack and total <= limit:
        n = stack.pop()
        if id(n) in seen or n.result is not None or isinstance(n, Const):
            continue
        seen.add(id(n))
        if not isinstance(n, Map):
            continue                # a reduction: computed once, first, then viewed
        total += 4 if n.op in _DEAR else 1
        stack.extend(n.args)
    return total


def view_of(node, view, evaluate):
    """The node of ``view`` applied to the pending elementwise ``node`` (its
    inputs viewed the same way; a reduction met inside is computed first),
    or None when ``node`` is better computed first and viewed (a value
    already computed, a small or dear expression, a 0-d view)."""
    if not isinstance(node, Map) or node.result is not None or \
            node.size < eager_below() or not in_kernel(node.dtype):
        return None
    shape = view.strided(node.shape, c_strides(node.shape), 0)[0]
    if not shape or cost(node) > MAX_COST:
        return None
    return _push(node, node.shape, view, {}, evaluate)


def push_view(node, view, evaluate):
    """``view`` of ``node`` whatever its cost: the node of its value seen
    through the view, or the pending expression over views of its inputs
    (for views that do not overlap, such as the lines of a reduction, this
    computes nothing twice)."""
    if isinstance(node, Map) and node.result is None:
        return _push(node, node.shape, view, {}, evaluate)
    return _view_source(evaluate(node), node.shape, view)


def _push(node, shape, view, done, evaluate):
    """``view`` of ``node`` broadcast to ``shape`` (``evaluate(node)`` computes
    a value that cannot be viewed pending: the caller's evaluation, passed in
    so that this module does not import :mod:`.execute`)."""
    if node.result is not None:
        node = node.result
    if isinstance(node, Const):
        return node
    key = id(node)
    if key in done:                  # a value used twice stays one node
        return done[key]
    if isinstance(node, Map):
        args = [_push(a, shape, view, done, evaluate) for a in node.args]
        vshape = view.strided(shape, c_strides(shape), 0)[0]
        out = Map(node.op, args, node.loop, vshape, node.dtype)
    elif isinstance(node, Source):
        out = _view_source(node, shape, view)
    else:                            # a reduction: its value, then the view
        out = _view_source(evaluate(node), shape, view)
    done[key] = out
    return out


def _view_source(src, shape, view):
    if src.dev is None and src.size >= eager_below() and src.size and \
            in_kernel(src.dtype):
        device_view(src)             # one copy to the device, viewed by each view
    if src.dev is not None:
        bstrides = broadcast_strides(src.shape, src.strides, shape)
        vshape, vstrides, offset = view.strided(shape, bstrides, src.offset)
        return Source(vshape, src.dtype, dev=src.dev, strides=vstrides, offset=offset,
                      backend=src.backend)
    host = view.numpy(np.broadcast_to(src.to_host(), shape))
    return Source(host.shape, host.dtype, host=host)
