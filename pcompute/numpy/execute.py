"""Evaluating graph nodes: fused kernels on the configured backend, or NumPy.

``evaluate(node)`` returns the :class:`~.graph.Source` holding the node's
value and caches it in ``node.result``.  A maximal region of elementwise
nodes becomes one kernel; a node that cannot join (a reduction inside an
expression, an operation without a kernel form, the input cap) is evaluated
first and enters the region as a leaf, and the reason is recorded for
:func:`pcompute.numpy.explain`.
"""
import math

import numpy as np

from ..array import empty
from ..array.core import adopt
from ..backends import host_pool
from .graph import EVALUATIONS, Const, Map, Reduce, Source, computed
from .lower import SCALAR_FIRST, Emitter, NotFusable
from .options import OPTIONS, eager_below
from .stats import STATS, FallbackError, logger
from . import kernels, plans, reduce as reduce_mod
from .devices import _DOUBLE, _precision, backend_now, device_view  # noqa: F401 (also imported from here)


_FLOAT64 = np.dtype(np.float64)


def new_output(n, dtype, be=None):
    """A new array of ``n`` items (n > 0) for a kernel to write on the
    backend ``be`` (None: the configured one), in ``_precision()``.
    On a host backend it comes from :mod:`~pcompute.backends.host_pool`:
    buffers already touched, given back when no array uses them, so a loop
    that drops its previous results does not pay the kernel's zeroing of
    fresh pages (a write pass over the output) on every evaluation."""
    be = be or backend_now()
    if be.on_host:
        return adopt(host_pool.empty(n, dtype), be)
    return adopt(be.empty(n, dtype), be)


def fallback(node, reason, what=None):
    """Count (and log, warn or raise, per the options) a host evaluation."""
    what = what or describe(node)
    STATS.fallbacks["%s: %s" % (what, reason)] += 1
    policy = OPTIONS["fallback"]
    message = "pcompute.numpy evaluates %s in NumPy on the host: %s" % (what, reason)
    if policy == "error":
        raise FallbackError(message)
    if policy == "warn":
        import warnings
        warnings.warn(message, stacklevel=3)
    logger.debug(message)


def describe(node):
    """A short description of a node for messages."""
    if isinstance(node, Map):
        return "numpy.%s (%s)" % (node.op, ", ".join(str(d) for d in node.loop))
    if isinstance(node, Reduce):
        return "%s(axis=%s) of %s" % (node.op, node.axis, node.arg.dtype)
    return type(node).__name__


def host_value(node):
    """The value of ``node`` as a NumPy array or Python scalar (for NumPy calls)."""
    if isinstance(node, Const):
        return node.value
    return evaluate(node).to_host()


def host_eval(node):
    """Evaluate ``node`` with NumPy (its inputs are evaluated as usual first)."""
    if isinstance(node, Map) and node.op == "astype":
        out = np.array(host_value(node.args[0]), dtype=node.dtype)
    elif isinstance(node, Map):     # NumPy's own warnings, as NumPy gives them
        out = getattr(np, node.op)(*[host_value(a) for a in node.args])
        out = np.asarray(out)
        if out.dtype != node.dtype:
            out = out.astype(node.dtype)
    elif isinstance(node, Reduce):
        out = reduce_mod.host_reduce(node, host_value(node.arg))
    else:
        raise TypeError("cannot evaluate %r" % (node,))
    return _finish(node, Source(out.shape, out.dtype, host=out))


def _finish(node, src):
    return computed(node, src)


def _eager(node):
    """True when ``node``'s region is small enough to run in NumPy directly;
    always for a 0-d value (a scalar: it becomes a kernel argument)."""
    return node.size < eager_below() or node.size == 0 or not node.shape


def evaluate(node):
    """The :class:`Source` of ``node``'s value (computed once, then cached)."""
    if node.result is not None:
        return node.result
    kind = type(node)
    if kind is Reduce:
        return _finish(node, reduce_mod.evaluate_reduce(node, TOOLS))
    if kind is not Map:
        raise TypeError("cannot evaluate %r" % (node,))
    shape = node.shape
    size = math.prod(shape)
    if size < eager_below() or size == 0 or not shape:     # see _eager
        STATS.eager += 1
        return host_eval(node)
    be = backend_now()
    if node.dtype == _FLOAT64 and not be.supports_double():
        fallback(node, "the %s device has no float64" % be.name)
        return host_eval(node)
    fp = plans.fingerprint(node, node.shape, device_view, _first, OPTIONS["max_inputs"],
                           ("pc_fused", OPTIONS["vector_math"]), be.name)
    plan = plans.get(fp)
    if plan is not None:                     # this structure was lowered before
        source, args, nodes = plan.source, plan.arguments(fp, shape), plan.nodes
        index_space = shape if plan.nd else None
    else:
        while True:
            emitter = Emitter(node.shape, device_view, max_leaves=OPTIONS["max_inputs"])
            try:
                out_expr = emitter.value(node)
                break
            except NotFusable as stop:
                _boundary(node, stop)
                if node.result is not None:      # the root itself ran in NumPy
                    return node.result
        source = emitter.function("pc_fused", ["out"], ["out[i] = %s" % out_expr], nd=True)
        plans.keep(fp, emitter, source)
        args, nodes, index_space = emitter.args, emitter.nodes, emitter.index_space
    with _DOUBLE:                            # _precision()
        out = new_output(size, node.dtype, be)
        kernels.run_elementwise(source, out, args, nodes, size=index_space)
    node.result = src = Source.made(shape, node.dtype, out, be.name)
    EVALUATIONS[0] += 1                      # graph.computed(node, src)
    return src


def write_view(target, value):
    """Store ``value`` (a node, broadcast to ``target.shape``) into the strided
    device view ``target``, fusing ``value``'s elementwise work into the store."""
    if target.size == 0:
        return
    fp = plans.fingerprint(value, target.shape, device_view, _first, OPTIONS["max_inputs"],
                           ("pc_store", target.dtype,
                            tuple(s == 1 for s in target.strides)))
    plan = plans.get(fp)
    if plan is not None:                     # this structure was lowered before
        source, nodes = plan.source, plan.nodes
        args = plan.arguments(fp, target.shape, target=(target.offset, target.strides))
        size = target.shape if plan.nd else target.size
    else:
        while True:
            emitter = Emitter(target.shape, device_view, max_leaves=OPTIONS["max_inputs"])
            try:
                expr = emitter.operand(value, target.dtype)
                break
            except NotFusable as stop:
                _boundary(value, stop)
        index = emitter.store_index(target.strides, target.offset)
        source = emitter.function("pc_store", ["out"], ["out[%s] = %s" % (index, expr)],
                                  nd=True)
        plans.keep(fp, emitter, source)
        args, nodes = emitter.args, emitter.nodes
        size = emitter.index_space or target.size
    with _precision():
        kernels.run_elementwise(source, target.dev, args, nodes, size=size)


def _first(node, reason):
    """Evaluate ``node`` before the region reading it (a boundary of fusion
    met by :func:`.plans.fingerprint`), counted and logged as the emitter's."""
    STATS.boundaries[reason] += 1
    logger.debug("fusion stops at %s: %s", describe(node), reason)
    return evaluate(node)


def _boundary(root, stop):
    """Deal with a node that stopped fusion: evaluate it (or, at the input
    cap, the root's operands) on its own first."""
    STATS.boundaries[stop.reason] += 1
    logger.debug("fusion stops at %s: %s", describe(stop.node), stop.reason)
    if isinstance(stop.node, Source):
        # The input cap: evaluate the root's operands as separate kernels.
        pending = [a for a in root.args if isinstance(a, Map) and a.result is None]
        if not pending:
            raise RuntimeError("pcompute.numpy: internal error, a single operation "
                               "reads more arrays than max_inputs")
        biggest = max(pending, key=lambda a: a.depth)
        evaluate(biggest)
        return
    node = stop.node
    if stop.reason == SCALAR_FIRST:  # a 0-d value: NumPy computes it (see _eager)
        evaluate(node)
        return
    if isinstance(node, Map):        # an operation without a kernel form
        fallback(node, stop.reason)
        host_eval(node)
    else:                            # a reduction: its own kernel first
        evaluate(node)


_ITEMS = {}


class _Tools:
    """What the reduction lowering needs from the executor."""

    device = staticmethod(device_view)
    evaluate = staticmethod(evaluate)
    first = staticmethod(_first)
    eager = staticmethod(_eager)
    fallback = staticmethod(fallback)
    host = staticmethod(host_eval)
    boundary = staticmethod(_boundary)

    @property
    def max_inputs(self):
        return OPTIONS["max_inputs"]

    @staticmethod
    def items(n):
        """An n-element array whose only use is to tell a Reduction n
        (allocated, never written or read; kept for the next reduction)."""
        be = backend_now()
        key = (be.name, n)
        arr = _ITEMS.get(key)
        if arr is None:
            with _precision():
                arr = empty(n, np.uint8)
            _ITEMS.clear()
            _ITEMS[key] = arr
        return arr

    dry = staticmethod(kernels.recording_now)

    @staticmethod
    def count_eager():
        STATS.eager += 1

    @staticmethod
    def run_reduction(source, reduce_expr, acc, neutral, args, nodes):
        with _precision():
            return kernels.run_reduction(source, reduce_expr, acc, neutral, args, nodes)

    @staticmethod
    def run_kernel(source, node, args, nodes):
        be = backend_now()
        with _precision():
            out = new_output(max(node.size, 1), node.dtype, be)
            kernels.run_elementwise(source, out, args, nodes)
        return Source(node.shape, node.dtype, dev=out, backend=be.name)


TOOLS = _Tools()
