"""Lowering a fused region of the graph to a kernel-language function.

A region is a tree of :class:`~.graph.Map` nodes over leaves (values that
exist) and constants.  It becomes the Python source of one kernel function
(``def k(i, out, ...)``) that the normal front end checks, types and
translates for whichever backend runs it.  Leaves are read through a flat
buffer, an offset and strides; shapes, strides, offsets and scalars are
kernel arguments, so the same structure with other shapes or values reuses
the compiled kernel (the source text, which is the cache key, is unchanged).
"""
from dataclasses import dataclass, field

import numpy as np

from . import ufuncs
from .dtypes import in_kernel, kernel_type_name
from .graph import Const, Map, Source, broadcast_strides, c_strides
from .stats import STATS


class NotFusable(Exception):
    """A node that has to be evaluated on its own first (carries the reason)."""

    def __init__(self, node, reason):
        super().__init__(reason)
        self.node = node
        self.reason = reason


@dataclass
class Lowered:
    """The product of lowering one region."""
    source: str                 # Python source of the kernel-language function
    name: str                   # its function name
    args: list                  # argument values after ``i`` (and ``out``)
    nodes: int                  # operations fused into it
    leaves: list = field(default_factory=list)   # the Source nodes it reads
    first_exact: bool = True    # the first array argument has exactly n elements


#: the reason given when a 0-d operation is evaluated before the region using it
SCALAR_FIRST = "a 0-d value is computed first and passed as a scalar"


def _nonzero_const(node):
    """True when ``node``'s second operand is a scalar constant other than 0
    (a division by it needs no by-zero branch)."""
    return len(node.args) > 1 and isinstance(node.args[1], Const) and \
        node.args[1].value != 0


def convert(expr, src, dst):
    """``expr`` of dtype ``src`` converted to ``dst`` in the kernel language."""
    src, dst = np.dtype(src), np.dtype(dst)
    if src == dst:
        return expr
    if dst.kind == "b":
        return "(%s != 0)" % expr
    return "cast(%s, '%s')" % (expr, kernel_type_name(dst))


class Emitter:
    """Builds one kernel function over the index space ``shape``.

    With ``axis`` set, the index ``i`` runs over ``shape`` without that axis
    and the body sits in a loop ``for r in range(m)`` over the axis.
    """

    def __init__(self, shape, device, axis=None, direct_ok=True, max_leaves=None):
        self.shape = tuple(shape)
        self.axis = axis
        self.device = device              # Source -> (buffer, offset, strides)
        self.outer = [d for d in range(len(shape)) if d != axis]
        self.size = int(np.prod(self.shape, dtype=np.int64))
        self.direct_ok = direct_ok and axis is None
        self.max_leaves = max_leaves
        self.params, self.args = [], []
        self.origins = []                 # where each argument comes from (see .plans)
        self.pre, self.body = [], []
        self.names, self.leaf_names = {}, {}
        self.leaves = []
        self.nodes = 0
        self.uses_digits = False
        self.first_exact = False

    # -- parameters ------------------------------------------------------------
    def _param(self, name, value, origin=None):
        """A kernel parameter ``name`` with the argument ``value``; ``origin``
        says how to find the value again in another graph of the same shape
        (None: it cannot be, and the lowering is not kept as a plan)."""
        self.params.append(name)
        self.args.append(value)
        self.origins.append(origin)
        return name

    def _scalar(self, value, dtype, origin=None):
        dtype = np.dtype(dtype)
        origin = origin and origin + (dtype,)
        if dtype.kind == "b":       # kernels take truth values as int arguments
            return self._param("c%d" % len(self.args), np.int32(bool(value)), origin)
        return self._param("c%d" % len(self.args), dtype.type(value), origin)

    def _leaf(self, src):
        key = id(src)
        if key in self.leaf_names:
            return self.leaf_names[key]
        if src.dev is None and src.host is not None and src.host.ndim == 0 \
                and src.dtype.kind in "biuf":
            return self._scalar(src.host[()], src.dtype, ("scalar", src))
        if self.max_leaves is not None and len(self.leaves) >= self.max_leaves:
            raise NotFusable(src, "the kernel input cap (%d arrays) is reached"
                             % self.max_leaves)
        buf, offset, strides = self.device(src)
        name = "a%d" % len(self.leaves)
        self.leaves.append(src)
        bstrides = broadcast_strides(src.shape, strides, self.shape)
        self._param(name, buf, ("buf", src))
        off = self._param(name + "_o", int(offset), ("offset", src))
        if self.direct_ok and src.shape == self.shape and \
                bstrides == c_strides(self.shape):
            access = "%s[%s + i]" % (name, off)
            if offset == 0 and len(buf) == self.size and len(self.leaves) == 1:
                self.first_exact = True
        elif not any(bstrides):
            access = "%s[%s]" % (name, off)
        else:
            self.uses_digits = True
            terms = [off] + [self._term(k, "%s_s%d" % (name, k), bstrides[d],
                                        ("stride", src, d))
                             for k, d in enumerate(self.outer) if bstrides[d]]
            base = name + "_b"
            self.pre.append("%s = %s" % (base, " + ".join(terms)))
            if self.axis is not None and bstrides[self.axis]:
                step = self._term(0, name + "_r", bstrides[self.axis],
                                  ("stride", src, self.axis)).replace("x0", "r", 1)
                access = "%s[%s + %s]" % (name, base, step)
            else:
                access = "%s[%s]" % (name, base)
        self.leaf_names[key] = access
        return access

    # -- expressions -----------------------------------------------------------
    def operand(self, node, loop_dtype):
        """The expression of ``node`` converted to ``loop_dtype``."""
        if isinstance(node, Const):
            return self._scalar(node.value, loop_dtype, ("const", node))
        if not in_kernel(node.dtype) and in_kernel(loop_dtype):
            # e.g. a float16 value (computed by NumPy) read as float32
            if node.result is None:
                raise NotFusable(node, "dtype %s has no kernel type" % node.dtype)
            host = node.result.to_host().astype(loop_dtype)
            return self._leaf(self._converted(node, host))
        return convert(self.value(node), node.dtype, loop_dtype)

    def _converted(self, node, host):
        """A leaf holding ``host`` (kept per node, so it is made once)."""
        key = ("converted", id(node), host.dtype.str)
        if key not in self.names:
            self.names[key] = Source.from_host(host)
        return self.names[key]

    def value(self, node):
        """The expression (a local name or a leaf access) of ``node``'s value."""
        if node.result is not None:
            node = node.result
        if isinstance(node, Source):
            return self._leaf(node)
        key = id(node)
        if key in self.names:
            return self.names[key]
        if not isinstance(node, Map):
            raise NotFusable(node, "a %s must be evaluated first" % type(node).__name__)
        if not in_kernel(node.dtype) or not all(in_kernel(d) for d in node.loop):
            raise NotFusable(node, "dtype %s has no kernel type" % node.dtype)
        if node.op not in ufuncs.FUSABLE:
            raise NotFusable(node, "numpy.%s is not fused" % node.op)
        if not node.shape and self.shape:
            # A scalar computed from scalars (``w - rate * mean``): computed
            # once, then a kernel argument, so its history is not in the
            # kernel text (which would change, and recompile, every step).
            raise NotFusable(node, SCALAR_FIRST)
        expr = self._scalar_power(node)
        if expr is None:
            args = [self.operand(a, d) for a, d in zip(node.args, node.loop)]
            expr = ufuncs.expression(node.op, node.loop, node.dtype, args,
                                     nonzero_divisor=_nonzero_const(node))
        if expr is None:
            raise NotFusable(node, "numpy.%s has no kernel form for %s" % (
                node.op, ", ".join(str(d) for d in node.loop)))
        if node.dtype.kind != "b":
            expr = "cast(%s, '%s')" % (expr, kernel_type_name(node.dtype))
        name = "t%d" % len(self.names)
        self.body.append("%s = %s" % (name, expr))
        self.names[key] = name
        self.nodes += 1
        return name

    def _scalar_power(self, node):
        """``x ** 2`` as ``x * x`` and ``x ** 0.5`` as ``sqrt(x)``: the exponents
        NumPy itself computes specially (a different exponent is a different
        kernel, as NumPy's fast paths make it a different computation)."""
        if node.op != "power" or not isinstance(node.args[1], Const):
            return None
        value, kind = node.args[1].value, node.loop[0].kind
        if isinstance(value, bool) or value not in (2, 0.5) or kind not in "iuf":
            return None
        if value == 0.5 and kind != "f":
            return None
        base = self.operand(node.args[0], node.loop[0])
        return "(%s * %s)" % (base, base) if value == 2 else "sqrt(%s)" % base

    def count_first(self, items):
        """Make ``items`` (an array of exactly n elements, never read) the first
        array argument, for primitives that take n from their first array."""
        self.params.insert(0, "n_items")
        self.args.insert(0, items)
        self.origins.insert(0, ("items",))
        self.first_exact = True

    def store_index(self, strides, offset):
        """The index expression of a strided output view of this index space."""
        self.uses_digits = True
        off = self._param("o_o", int(offset), ("target_offset",))
        terms = [off] + [self._term(k, "o_s%d" % k, strides[d], ("target_stride", d))
                         for k, d in enumerate(self.outer)]
        return " + ".join(terms)

    def _term(self, k, name, stride, origin=None):
        """``x<k> * <stride>`` of an index expression: a stride argument, or
        ``x<k>`` alone for a stride of 1 (the innermost axis of a contiguous
        view: the loop over it then reads memory in order, and vectorises).
        Whether a stride is 1 is part of the kernel's structure; its other
        values are arguments."""
        if stride == 1:
            return "x%d" % k
        return "x%d * %s" % (k, self._param(name, int(stride), origin))

    # -- assembling --------------------------------------------------------------
    def digits(self):
        """Lines that split ``i`` into the digits x<d> of the outer axes."""
        if not self.uses_digits:
            return []
        # Digits are named by their position among the outer axes, so reducing
        # another axis of the same rank gives the same kernel text.
        # The index and the extents are non-negative, so the splitting is done
        # in unsigned integers: plain C division, without the sign fix-ups that
        # Python's // and % need for negative operands.
        dims = self.outer
        lines = ["q = cast(i, 'ulong')"]
        for k in reversed(range(1, len(dims))):
            n = self._param("d%d" % k, np.uint64(self.shape[dims[k]]), ("extent64", dims[k]))
            lines.append("x%d = cast(q %% %s, 'long')" % (k, n))
            lines.append("q = q // %s" % n)
        if dims:
            lines.append("x0 = cast(q, 'long')")
        return lines

    def function(self, name, head, tail, loop_lines=None, nd=False):
        """The source of ``def name(i, <head>, <params>)`` with the body.  With
        ``nd``, a 2-D or 3-D region read through strides becomes
        ``def name(x0, x1[, x2], <head>, <params>)`` over an n-D index space
        (its indices are the digits: no division); ``index_space`` is then
        its shape, else None."""
        STATS.lowerings += 1
        self.index_space = None
        if nd and self.uses_digits and self.axis is None and 2 <= len(self.shape) <= 3:
            self.index_space = self.shape
            nd = len(self.shape)
            dims = [self._param("d%d" % k, int(self.shape[k]), ("extent", k))
                    for k in range(1, nd)]
            flat = "x0"
            for k in range(1, nd):
                flat = "%s * %s + x%d" % (flat if k == 1 else "(%s)" % flat, dims[k - 1], k)
            index = ["x%d" % k for k in range(nd)]
            params = ", ".join(index + list(head) + self.params)
            lines = ["def %s(%s):" % (name, params), "    i = %s" % flat]
            lines += ["    " + ln for ln in self.pre + self.body + tail]
            return "\n".join(lines) + "\n"
        digits = self.digits()
        params = ", ".join(["i"] + list(head) + self.params)
        lines = ["def %s(%s):" % (name, params)]
        inner = digits + self.pre
        if loop_lines is not None:
            pre_loop, loop_update, post = loop_lines
            inner += pre_loop + ["for r in range(m):"]
            inner += ["    " + ln for ln in self.body + loop_update]
            inner += post
        else:
            inner += self.body + tail
        lines += ["    " + ln for ln in inner]
        return "\n".join(lines) + "\n"
