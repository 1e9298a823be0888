"""The kernels behind the Array methods and the array functions.

Gathers, stream compaction and extrema, as memoised Elementwise, Scan and
Reduction objects (built once per backend, configuration and dtype, like any
kernel).  They work on device buffers: the arguments are Arrays or
:class:`~pcompute.arraybase.DeviceBuffer` objects of one Backend, and the
caller allocates the outputs, so this module never imports
:mod:`pcompute.array`, which uses it (``Array.remove``, ``Array.align``, ...)
as do the array functions above it (``take``, ``where``, ``minimum``, ...).
"""
import numpy as np

from ..arraybase import DeviceBuffer
from ..errors import KernelTypeError, KernelValueError
from .elementwise import Elementwise
from .reduction import Reduction
from .scan import Scan

#: Unsigned integer dtype of each size: arrays are gathered as their bits.
BITS = {1: np.dtype(np.uint8), 2: np.dtype(np.uint16), 4: np.dtype(np.uint32),
        8: np.dtype(np.uint64)}

_CACHE = {}        # (kind, details..., backend name) -> Elementwise / Reduction / Scan


def cached(key, make):
    """The primitive memoised under ``key`` (``make()`` builds it once)."""
    prim = _CACHE.get(key)
    if prim is None:
        prim = _CACHE[key] = make()
    return prim


def function(name, params, body):
    """A Python function ``name(*params)`` with ``body`` lines and a ``source``
    (kernels whose shape depends on a count, e.g. a gather of k arrays)."""
    source = "def %s(%s):\n%s\n" % (name, ", ".join(params),
                                    "\n".join("    " + line for line in body))
    namespace = {}
    exec(compile(source, "<pcompute %s>" % name, "exec"), namespace)
    func = namespace[name]
    func.source = source
    return func


def bits(a, backend):
    """A buffer sharing ``a``'s memory, read as unsigned integers of its size."""
    return DeviceBuffer(a.dev.view(BITS[a.dtype.itemsize]), backend)


# ------------------------------------------------------------------ reductions

def unsigned_max(a, backend):
    """The largest element of the integer array ``a`` read as unsigned (so that
    negative values count as huge ones): one Reduction."""
    udtype = BITS[a.dtype.itemsize]
    red = cached(("umax", udtype.name, backend.name), lambda: Reduction(
        "max(a, b)", dtype_out=udtype, neutral="0", backend=backend.name))
    return int(red(bits(a, backend)))


def extremum(kind, a, backend):
    """The smallest (``kind`` 'minimum') or largest ('maximum') element of the
    non-empty array ``a`` (NaNs follow C's min/max: not propagated)."""
    if len(a) == 0:
        raise KernelValueError("%s() of an empty array has no value" % kind,
                               hint="check len(a) first")
    expr, neutral = ("min(a, b)", "INFINITY") if kind == "minimum" else \
        ("max(a, b)", "-INFINITY")
    red = cached((kind, backend.name, a.dtype.str), lambda: Reduction(
        expr, dtype_out=a.dtype, neutral=neutral, backend=backend.name))
    return red(a)


# ---------------------------------------------------------------------- gather

def check_indices(order, length, backend, what):
    """Raise unless ``order`` holds integers in ``[0, length)`` (one Reduction)."""
    if order.dtype.kind not in "iu":
        raise KernelTypeError("%s: the indices must be integers, not %s"
                              % (what, order.dtype))
    if len(order) and unsigned_max(order, backend) >= length:
        raise KernelValueError("%s: indices must lie in [0, %d)" % (what, length))


def _gather_kernel(k, backend):
    """One Elementwise gathering ``k`` arrays: dst_j[i] = src_j[order[i]]."""
    params = ["i", "order"] + ["src%d" % j for j in range(k)] + ["dst%d" % j for j in range(k)]
    body = ["j = order[i]"] + ["dst%d[i] = src%d[j]" % (j, j) for j in range(k)]
    return cached(("align", k, backend.name), lambda: Elementwise(
        function("pc_align_%d" % k, params, body), backend=backend.name))


def gather(order, sources, targets, backend):
    """``targets[j][i] = sources[j][order[i]]`` for ``i < len(order)``, in one
    kernel, each array moved as the unsigned integers of its size (indices
    already checked; every target holds ``len(order)`` elements)."""
    if len(order) and sources:
        _gather_kernel(len(sources), backend)(
            order, *([bits(a, backend) for a in sources] +
                     [bits(t, backend) for t in targets]))


# ------------------------------------------------------------ stream compaction

def _flag_input(i, cond):
    return 1 if cond[i] != 0 else 0


def _where_output(i, item, prev_item, N, cond, result, count):
    if cond[i] != 0:
        result[prev_item] = i
    if i == N - 1:
        count[0] = item


def _take_output(i, item, prev_item, N, cond, values, result, count):
    if cond[i] != 0:
        result[prev_item] = values[i]
    if i == N - 1:
        count[0] = item


def compact(cond, values, result, count, backend):
    """Stream compaction by one Scan: ``result`` receives, in order, the
    indices ``i`` (``values`` None; ``result`` of int64) or the elements
    ``values[i]`` where ``cond[i] != 0``; ``count`` (one int64) receives how
    many.  ``result`` holds ``len(cond)`` elements; ``cond`` is not empty."""
    key = ("where" if values is None else "take_bool", backend.name, cond.dtype.str,
           result.dtype.str)
    if values is None:
        scan = cached(key, lambda: Scan(_flag_input, _where_output, dtype=np.int64,
                                        backend=backend.name))
        scan(cond=cond, result=result, count=count)
    else:
        scan = cached(key, lambda: Scan(_flag_input, _take_output, dtype=np.int64,
                                        backend=backend.name))
        scan(cond=cond, values=values, result=result, count=count)


__all__ = ["BITS", "cached", "function", "bits", "unsigned_max", "extremum",
           "check_indices", "gather", "compact"]
