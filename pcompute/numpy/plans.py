"""Lowering plans: a lowered region kept per graph shape.

Lowering a region (:class:`~.lower.Emitter`) prints the kernel's text and
collects its arguments; the text depends only on the region's structure:
the operations and their dtypes, which values are shared, how each input is
read (contiguous, broadcast, which strides are 1) and which constants are 0,
2 or 0.5 (they change the text).  :func:`fingerprint` walks a region and
returns that structure as a key, with the inputs and constants in a fixed
order; a :class:`Plan` keeps the text and, for each argument, where to find
it (an input's buffer, offset or stride, a constant, an extent of the index
space).  The same expression on new data (a time loop, a function called
again) then takes its kernel text and arguments from the plan instead of
lowering again.
"""
import math

import numpy as np

from . import ufuncs
from .dtypes import KERNEL_DTYPES, in_kernel
from .graph import EVALUATIONS, Const, Map, Reduce, Source, broadcast_strides, c_strides
from .lower import SCALAR_FIRST

#: Plans kept (the oldest are dropped past this many).
MAX_PLANS = 1024
_PLANS = {}


class _Skip(Exception):
    """The region has a part a plan does not describe (the emitter decides)."""


class Fingerprint:
    """A region's structure (``key``) and its inputs: ``objects`` (Sources and
    Consts, in walk order) and ``views`` ((buffer, offset, strides broadcast
    to the index space) of each array input, None for scalars)."""

    __slots__ = ("key", "objects", "views", "index")

    def __init__(self):
        self.objects, self.views, self.index = [], [], {}


class _Walk:
    """The state of one :func:`fingerprint` walk (no closure: nothing refers
    back to it, so the inputs it holds go when the walk is done)."""

    __slots__ = ("fp", "parts", "numbers", "shape", "cstrides", "size", "device", "on",
                 "evaluate", "max_leaves", "arrays")


def fingerprint(root, shape, device, evaluate, max_leaves, extra=(), on=None):
    """The :class:`Fingerprint` of the elementwise region under ``root`` over
    the index space ``shape``, or None when the region needs the emitter's
    own decisions (an operation without a kernel form, a dtype kernels do not
    have, more than ``max_leaves`` inputs).  Reductions and 0-d values met in
    the region are evaluated first (``evaluate(node, reason)``), as the
    emitter would;
    ``device(src)`` gives an input's (buffer, offset, strides); an input
    already on the backend named ``on`` is read directly (what ``device``
    would give)."""
    w = _Walk()
    w.fp = fp = Fingerprint()
    w.parts, w.numbers, w.shape = [], {}, shape
    w.cstrides, w.size = c_strides(shape), math.prod(shape)
    w.device, w.on, w.evaluate, w.max_leaves, w.arrays = device, on, evaluate, max_leaves, 0
    try:
        if type(root) is Map and root.sig is not None and root.stamp == EVALUATIONS[0] \
                and root.shape == shape:
            return _built(root, w, extra)
        _visit(root, w)
    except _Skip:
        return None
    fp.key = (len(shape), tuple(w.parts)) + tuple(extra)
    return fp


def _built(root, w, extra):
    """The fingerprint from the structure the builder hashed (``root.sig``,
    ``root.leaves``; nothing in the tree is computed: see
    :class:`~.graph.Map`): each distinct leaf is added once, the key holds
    which leaf each use is and how each array input is read."""
    fp = w.fp
    index = fp.index
    uses, tokens = [], []
    for leaf in root.leaves:
        k = index.get(id(leaf))
        if k is None:
            if type(leaf) is Const:
                k = index[id(leaf)] = len(fp.objects)
                fp.objects.append(leaf)
                fp.views.append(None)
            else:
                tokens.append(_source_token(leaf, w))
                k = index[id(leaf)]
        uses.append(k)
    fp.key = ("built", len(w.shape), root.sig, tuple(uses), tuple(tokens)) + tuple(extra)
    return fp


def _visit(node, w):
    """The number of ``node`` in the walk ``w`` (its token appended first)."""
    kind = type(node)
    if kind is not Source and kind is not Const and node.result is not None:
        node = node.result          # a value computed already: an input
        kind = type(node)
    number = w.numbers.get(id(node))
    if number is not None:
        return number
    if kind is Map:
        if not node.shape and w.shape:
            w.evaluate(node, SCALAR_FIRST)   # a 0-d value: a scalar argument
            return _visit(node.result, w)
        head = node.head or _map_head(node)
        op, fp, children = node.op, w.fp, []
        for a in node.args:
            if type(a) is Const:
                children.append(_const_token(fp, a, op))
            else:
                children.append(_visit(a, w))
        token = (head, tuple(children))
    elif kind is Const:
        return _const_token(w.fp, node, None)
    elif kind is Source:
        token = _source_token(node, w)
    elif kind is Reduce:
        w.evaluate(node, "a Reduce must be evaluated first")   # its own kernel first
        return _visit(node.result, w)
    else:
        raise _Skip
    number = w.numbers[id(node)] = len(w.parts)
    w.parts.append(token)
    return number


_HEADS = {}
_DIVISIONS = frozenset(ufuncs._PLAIN_DIVISION)
_VALUE_TOKENS = _DIVISIONS | {"power"}
_PLAIN_CONST = ("c", False)
_BOOL_CONST = ("c", True)
_STRIDE_CLASSES = {}


def const_token(v, op):
    """The token of a constant ``v`` operand of ``op``: what of its value
    changes the kernel text there (0 as a divisor: the by-zero branch; 2 and
    0.5 as an exponent: x * x and sqrt)."""
    if op not in _VALUE_TOKENS:
        return _BOOL_CONST if type(v) is bool else _PLAIN_CONST
    if op in _DIVISIONS:
        return ("c", type(v) is bool, v == 0)
    return ("c", type(v) is bool, v == 2, v == 0.5)


def _const_token(fp, const, op):
    """:func:`const_token` of the Const ``const``, added to ``fp`` (each use
    is its own argument)."""
    fp.index[id(const)] = len(fp.objects)
    fp.objects.append(const)
    fp.views.append(None)
    return const_token(const.value, op)


def map_head(op, loop, dtype):
    """("m", op, loop, dtype): the token of a Map a kernel can compute, or
    None when it cannot (memoised)."""
    key = (op, loop, dtype)
    head = _HEADS.get(key)
    if head is None:
        if op not in ufuncs.FUSABLE or not in_kernel(dtype) or \
                not all(in_kernel(d) for d in loop):
            return None
        head = _HEADS[key] = ("m",) + key
    return head


def _map_head(node):
    """:func:`map_head` of ``node``; :class:`_Skip` when it has none."""
    head = map_head(node.op, node.loop, node.dtype)
    if head is None:
        raise _Skip
    return head


def _source_token(src, w):
    dtype = src.dtype
    if dtype not in KERNEL_DTYPES:
        raise _Skip
    fp = w.fp
    if src.dev is None and src.host is not None and src.host.ndim == 0 \
            and dtype.kind in "biuf":
        fp.index[id(src)] = len(fp.objects)
        fp.objects.append(src)
        fp.views.append(None)
        return ("s", dtype)
    w.arrays += 1
    if w.arrays > w.max_leaves:
        raise _Skip
    if src.dev is not None and src.backend == w.on:
        buf, offset, strides = src.dev, src.offset, src.strides
    else:
        buf, offset, strides = w.device(src)
    shape = w.shape
    same = src.shape == shape
    bstrides = strides if same else broadcast_strides(src.shape, strides, shape)
    fp.index[id(src)] = len(fp.objects)
    fp.objects.append(src)
    fp.views.append((buf, offset, bstrides))
    classes = _STRIDE_CLASSES.get(bstrides)
    if classes is None:
        if len(_STRIDE_CLASSES) > 4096:
            _STRIDE_CLASSES.clear()
        classes = _STRIDE_CLASSES[bstrides] = tuple(
            0 if s == 0 else 1 if s == 1 else 2 for s in bstrides)
    return ("a", dtype, same and bstrides == w.cstrides,
            offset == 0 and len(buf) == w.size, classes)


class Plan:
    """A region's kernel text and how to find its arguments again."""

    __slots__ = ("source", "nodes", "nd", "recipe")

    def __init__(self, source, nodes, nd, recipe):
        self.source, self.nodes, self.nd, self.recipe = source, nodes, nd, recipe

    def arguments(self, fp, shape, items=None, target=None):
        """The kernel's arguments for the region ``fp`` over ``shape``
        (``items()``: the array telling a Reduction its length, when the
        kernel takes one; ``target``: the (offset, strides) of a strided
        output view)."""
        out = []
        objects, views = fp.objects, fp.views
        for kind, k, extra in self.recipe:
            if kind == "buf":
                out.append(views[k][0])
            elif kind == "offset":
                out.append(int(views[k][1]))
            elif kind == "stride":
                out.append(int(views[k][2][extra]))
            elif kind == "const":
                out.append(_scalar(objects[k].value, extra))
            elif kind == "scalar":
                out.append(_scalar(objects[k].host[()], extra))
            elif kind == "extent":
                out.append(int(shape[k]))
            elif kind == "extent64":
                out.append(np.uint64(shape[k]))
            elif kind == "items":
                out.append(items())
            elif kind == "fixed":
                out.append(extra)
            elif kind == "target_offset":
                out.append(int(target[0]))
            else:                           # target_stride
                out.append(int(target[1][k]))
        return out


def _scalar(value, dtype):
    """A scalar argument as :meth:`~.lower.Emitter._scalar` makes it."""
    if dtype.kind == "b":
        return np.int32(bool(value))
    return dtype.type(value)


def get(fp):
    """The plan of the region ``fp`` (None: lower it)."""
    return _PLANS.get(fp.key) if fp is not None else None


def keep(fp, emitter, source):
    """Keep the lowering ``emitter`` made of the region ``fp`` (its kernel
    text ``source``) as a plan, when every argument has a known origin."""
    if fp is None:
        return
    recipe = []
    for origin in emitter.origins:
        if origin is None:
            return
        kind = origin[0]
        if kind in ("buf", "offset", "stride", "const", "scalar"):
            k = fp.index.get(id(origin[1]))
            if k is None:
                return
            recipe.append((kind, k, origin[2] if len(origin) > 2 else None))
        elif kind in ("extent", "extent64", "target_stride"):
            recipe.append((kind, origin[1], None))
        elif kind == "fixed":                 # a value fixed by the key (an initial value)
            recipe.append((kind, 0, origin[1]))
        else:                               # items, target_offset
            recipe.append((kind, 0, None))
    if len(_PLANS) >= MAX_PLANS:
        del _PLANS[next(iter(_PLANS))]
    _PLANS[fp.key] = Plan(source, emitter.nodes, emitter.index_space is not None, recipe)


def saved_state():
    """What :func:`restore_state` puts back: the plans kept so far."""
    return dict(_PLANS)


def restore_state(state):
    """Forget the plans kept since :func:`saved_state` gave ``state``."""
    _PLANS.clear()
    _PLANS.update(state)


def clear():
    """Forget the plans."""
    _PLANS.clear()
