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
import numpy as np

from . import ufuncs
from .dtypes import in_kernel
from .graph import Const, Map, Reduce, Source, broadcast_strides, c_strides
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


def fingerprint(root, shape, device, evaluate, max_leaves, extra=()):
    """The :class:`Fingerprint` of the elementwise region under ``root`` over
    the index space ``shape``, or None when the region needs the emitter's
    own decisions (an operation without a kernel form, a dtype kernels do not
    have, more than ``max_leaves`` inputs).  Reductions and 0-d values met in
    the region are evaluated first (``evaluate(node, reason)``), as the
    emitter would;
    ``device(src)`` gives an input's (buffer, offset, strides)."""
    fp = Fingerprint()
    parts = []
    cstrides = c_strides(shape)
    size = int(np.prod(shape, dtype=np.int64))
    numbers = {}
    arrays = [0]

    def visit(node):
        kind = type(node)
        if kind is not Source and kind is not Const and node.result is not None:
            node = node.result          # a value computed already: an input
            kind = type(node)
        number = numbers.get(id(node))
        if number is not None:
            return number
        if kind is Map:
            if not node.shape and shape:
                evaluate(node, SCALAR_FIRST)   # a 0-d value: a scalar argument
                return visit(node.result)
            head = _map_head(node)
            token = (head, tuple([_const_token(fp, a, node.op) if type(a) is Const
                                  else visit(a) for a in node.args]))
        elif kind is Const:
            return _const_token(fp, node, None)
        elif kind is Source:
            token = _source_token(fp, node, shape, cstrides, size, device, arrays,
                                  max_leaves)
        elif kind is Reduce:
            evaluate(node, "a Reduce must be evaluated first")   # its own kernel first
            return visit(node.result)
        else:
            raise _Skip
        number = numbers[id(node)] = len(parts)
        parts.append(token)
        return number

    try:
        visit(root)
    except _Skip:
        return None
    finally:
        # visit refers to itself through its cell: without this the cycle
        # keeps fp, and through it the inputs' buffers, alive until the
        # next garbage collection (evolve held 4 grids instead of 2)
        visit = None
    fp.key = (len(shape), tuple(parts)) + tuple(extra)
    return fp


_HEADS = {}
_DIVISIONS = frozenset(ufuncs._PLAIN_DIVISION)


def _const_token(fp, const, op):
    """The token of a constant operand of ``op``: what of its value changes
    the kernel text there (0 as a divisor: the by-zero branch; 2 and 0.5 as
    an exponent: x * x and sqrt).  Each use is its own argument."""
    _add(fp, const, None)
    v = const.value
    if op in _DIVISIONS:
        return ("c", type(v) is bool, v == 0)
    if op == "power":
        return ("c", type(v) is bool, v == 2, v == 0.5)
    return ("c", type(v) is bool)


def _map_head(node):
    """("m", op, loop, dtype) of a Map a kernel can compute (memoised)."""
    key = (node.op, node.loop, node.dtype)
    head = _HEADS.get(key)
    if head is None:
        if node.op not in ufuncs.FUSABLE or not in_kernel(node.dtype) or \
                not all(in_kernel(d) for d in node.loop):
            raise _Skip
        head = _HEADS[key] = ("m",) + key
    return head


def _add(fp, obj, view):
    fp.index[id(obj)] = len(fp.objects)
    fp.objects.append(obj)
    fp.views.append(view)


def _source_token(fp, src, shape, cstrides, size, device, arrays, max_leaves):
    if not in_kernel(src.dtype):
        raise _Skip
    if src.dev is None and src.host is not None and src.host.ndim == 0 \
            and src.dtype.kind in "biuf":
        _add(fp, src, None)
        return ("s", src.dtype)
    arrays[0] += 1
    if arrays[0] > max_leaves:
        raise _Skip
    buf, offset, strides = device(src)
    bstrides = broadcast_strides(src.shape, strides, shape)
    _add(fp, src, (buf, offset, bstrides))
    return ("a", src.dtype, src.shape == shape and bstrides == cstrides,
            offset == 0 and len(buf) == size,
            tuple(0 if s == 0 else 1 if s == 1 else 2 for s in bstrides))


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


def clear():
    """Forget the plans."""
    _PLANS.clear()
