"""The functions of :mod:`pcompute.numpy` that mirror NumPy's namespace."""
import builtins as _builtins
import operator

import numpy as np

from . import lazyview, views
from .core import (IMPLEMENTED, _from_host, _to_host, apply_ufunc, astype as _astype,
                   ndarray, node_of, reduction, wrap_node)
from .dtypes import in_kernel
from .execute import device_view, evaluate as _evaluate_node, fallback, write_view
from .graph import Const, Map, Source
from .options import eager_below
from .stats import STATS
from .together import forcing


def implements(*numpy_funcs):
    """Register a function as the lazy version of NumPy functions (or of
    ``operator.getitem``/``setitem``) in :data:`.core.IMPLEMENTED`, used by
    ``ndarray.__array_function__`` and by the ndarray methods."""
    def deco(func):
        for f in numpy_funcs:
            IMPLEMENTED[f] = func
        return func
    return deco


# -- creation ---------------------------------------------------------------------
def _host(value):
    return ndarray(Source.from_host(value))


@implements(np.asarray)
def asarray(a, dtype=None, order=None, **kwargs):
    """``a`` as a lazy array (no copy of a lazy array of the same dtype)."""
    if isinstance(a, ndarray):
        return a if dtype is None or np.dtype(dtype) == a.dtype else _astype(a, dtype)
    return _host(np.asarray(_to_host(a), dtype=dtype, order=order, **kwargs))


@implements(np.array)
def array(a, dtype=None, copy=True, **kwargs):
    """A lazy array holding a copy of ``a`` (as ``numpy.array``)."""
    if isinstance(a, ndarray):
        return _astype(a, dtype or a.dtype) if copy else asarray(a, dtype)
    return _host(np.array(_to_host(a), dtype=dtype, copy=copy, **kwargs))


def _creator(npfunc):
    def make(*args, **kwargs):
        return _host(npfunc(*_to_host(args), **_to_host(kwargs)))
    make.__name__ = npfunc.__name__
    make.__doc__ = "Lazy ``numpy.%s`` (made in host memory, moved to the device " \
                   "when a kernel reads it)." % npfunc.__name__
    return implements(npfunc)(make)


zeros = _creator(np.zeros)
ones = _creator(np.ones)
empty = _creator(np.empty)
full = _creator(np.full)
arange = _creator(np.arange)
linspace = _creator(np.linspace)
eye = _creator(np.eye)
identity = _creator(np.identity)
zeros_like = _creator(np.zeros_like)
ones_like = _creator(np.ones_like)
empty_like = _creator(np.empty_like)
full_like = _creator(np.full_like)


# -- ufunc-like functions ------------------------------------------------------------
@implements(np.where)
def where(condition, x=None, y=None):
    """``x`` where ``condition`` else ``y`` (fused); one argument: nonzero()."""
    if x is None and y is None:
        return _from_host(np.where(_to_host(condition)))
    nodes = [node_of(v) for v in (condition, x, y)]
    ops = [n.value if hasattr(n, "value") else n for n in nodes[1:]]
    dtype = np.result_type(*[o if not hasattr(o, "dtype") else o.dtype for o in ops])
    shape = np.broadcast_shapes(*[n.shape for n in nodes])
    return wrap_node(Map("where", nodes, [np.dtype(bool), dtype, dtype], shape, dtype))


@implements(np.clip)
def clip(a, a_min=None, a_max=None):
    """``minimum(maximum(a, a_min), a_max)`` (NaN propagates, as in NumPy)."""
    out = a
    if a_min is not None:
        out = apply_ufunc(np.maximum, out, a_min)
    if a_max is not None:
        out = apply_ufunc(np.minimum, out, a_max)
    return out if out is not a else asarray(a).copy()


@implements(np.astype)
def astype(x, dtype, copy=True):
    """``x`` converted to ``dtype``."""
    return _astype(x, dtype)


# -- reductions ----------------------------------------------------------------------
def _reducer(op):
    def red(a, axis=None, dtype=None, out=None, keepdims=False, **kwargs):
        if out is not None or kwargs:
            fallback(None, "arguments %s" % sorted(set(kwargs) | ({"out"} if out is not None
                                                                  else set())),
                     what="numpy.%s" % op)
            return _from_host(getattr(np, op)(_to_host(a), axis=axis, out=out,
                                              keepdims=keepdims, **kwargs))
        if op in ("argmin", "argmax"):
            return reduction(op, a, axis, keepdims)
        if op in ("sum", "prod"):
            return reduction(op, a, axis, keepdims, dtype)
        return reduction(op, a, axis, keepdims)
    red.__name__ = op
    red.__doc__ = "Lazy ``numpy.%s`` (fused with the elementwise work feeding it)." % op
    return red


sum = implements(np.sum)(_reducer("sum"))                 # noqa: A001
prod = implements(np.prod)(_reducer("prod"))
min = implements(np.min, np.amin)(_reducer("min"))        # noqa: A001
max = implements(np.max, np.amax)(_reducer("max"))        # noqa: A001
amin, amax = min, max
any = implements(np.any)(_reducer("any"))                 # noqa: A001
all = implements(np.all)(_reducer("all"))                 # noqa: A001
argmin = implements(np.argmin)(_reducer("argmin"))
argmax = implements(np.argmax)(_reducer("argmax"))


@implements(np.mean)
def mean(a, axis=None, dtype=None, keepdims=False):
    """Lazy ``numpy.mean`` (a fused sum divided by the count)."""
    a = asarray(a)
    if dtype is None:
        dtype = np.float64 if a.dtype.kind in "biu" else a.dtype
    total = reduction("sum", a, axis, keepdims, dtype)
    count = a.size // _builtins.max(total.size, 1) if a.size else 0
    return apply_ufunc(np.true_divide, total, count)


@implements(np.var)
def var(a, axis=None, dtype=None, ddof=0, keepdims=False):
    """Lazy ``numpy.var``: the mean of squared deviations (two fused passes)."""
    a = asarray(a)
    centred = a - mean(a, axis=axis, dtype=dtype, keepdims=True)
    total = reduction("sum", centred * centred, axis, keepdims)
    count = a.size // _builtins.max(total.size, 1) if a.size else 0
    return apply_ufunc(np.true_divide, total, _builtins.max(count - ddof, 0))


@implements(np.std)
def std(a, axis=None, dtype=None, ddof=0, keepdims=False):
    """Lazy ``numpy.std`` (the square root of :func:`var`)."""
    return apply_ufunc(np.sqrt, var(a, axis=axis, dtype=dtype, ddof=ddof,
                                    keepdims=keepdims))


# -- shapes and views -------------------------------------------------------------------
def _on_device(src):
    """``src``, with a device buffer when it is big enough for kernels (so views
    of it are views of that buffer, not host copies made per view)."""
    if src.dev is None and src.size >= eager_below() and src.size \
            and in_kernel(src.dtype):
        device_view(src)
    return src


def _view(src, shape, strides, offset):
    return Source(shape, src.dtype, dev=src.dev, strides=strides, offset=offset,
                  backend=src.backend)


@implements(np.reshape)
def reshape(a, shape, order="C"):
    """A view with another shape (NumPy's rules; a copy when not contiguous)."""
    a = asarray(a)
    if order != "C":
        return _from_host(np.reshape(a.get(), shape, order=order))
    newshape = views.reshape_shape(a.size, shape)
    src = _on_device(a._source())
    if src.dev is None:
        return _host(src.host.reshape(newshape))
    if not src.contiguous():
        src = a.copy()._source()
    return ndarray(_view(src, newshape, views.c_strides(newshape), src.offset))


@implements(np.transpose)
def transpose(a, axes=None):
    """A transposed view."""
    a = asarray(a)
    axes = views.transpose_axes(a.ndim, () if axes is None else (tuple(axes),))
    pushed = lazyview.view_of(a._node, lazyview.Transpose(axes), _evaluate_node)
    if pushed is not None:       # fused with the pending expression
        return ndarray(pushed)
    src = _on_device(a._source())
    if src.dev is None:
        return _host(src.host.transpose(axes))
    return ndarray(_view(src, tuple(src.shape[k] for k in axes),
                         tuple(src.strides[k] for k in axes), src.offset))


@implements(np.broadcast_to)
def broadcast_to(a, shape):
    """A read-only broadcast view (lazy: nothing is copied)."""
    a = asarray(a)
    shape = tuple(shape) if not isinstance(shape, int) else (shape,)
    np.broadcast_shapes(a.shape, shape)
    return apply_ufunc(np.add, a, np.zeros(shape, dtype=bool)) if a.dtype.kind != "b" \
        else apply_ufunc(np.logical_or, a, np.zeros(shape, dtype=bool))


@implements(operator.getitem)
def getitem(a, key):
    """``a[key]``: basic indexing is a view (of a pending cheap elementwise
    expression: the expression over views of its inputs, see
    :mod:`.lazyview`); other keys are done by NumPy."""
    if isinstance(key, ndarray):
        key = key.get()
    if views.is_basic_key(key):
        pushed = lazyview.view_of(node_of(a), lazyview.BasicKey(key), _evaluate_node)
        if pushed is not None:
            return ndarray(pushed)
    src = _on_device(a._source())
    if views.is_basic_key(key) and src.dev is not None:
        shape, strides, offset = views.basic_view(src.shape, src.strides, src.offset, key)
        if not shape:
            return src.to_host()[key]
        return ndarray(_view(src, shape, strides, offset))
    if not views.is_basic_key(key):
        fallback(None, "indexing with arrays", what="a[...]")
    value = src.to_host()[_to_host(key)]
    return _host(value) if isinstance(value, np.ndarray) else value


@implements(operator.setitem)
def setitem(a, key, value):
    """``a[key] = value`` on a fresh copy of ``a``'s data: views taken of ``a``
    earlier keep the old values (a difference from NumPy, see the docs).
    With a basic key (slices, ints) on data that is not small, the copy and
    the store are kernels on the device, the store fused with the work that
    computes ``value``."""
    if isinstance(key, ndarray):
        key = key.get()
    src = a._source()
    if views.is_basic_key(key) and src.size >= eager_below() \
            and in_kernel(src.dtype):
        value_node = node_of(value)
        if not isinstance(value_node, Const) and not in_kernel(value_node.dtype):
            value_node = node_of(np.asarray(_to_host(value)).astype(src.dtype))
        copy = _evaluate_node(Map("astype", [src], [src.dtype], src.shape, src.dtype))
        if copy.dev is not None:
            shape, strides, offset = views.basic_view(copy.shape, copy.strides,
                                                      copy.offset, key)
            if np.broadcast_shapes(value_node.shape, shape) != shape:
                raise ValueError("could not broadcast input array from shape %s into "
                                 "shape %s" % (value_node.shape, shape))
            write_view(_view(copy, shape, strides, offset), value_node)
            a._node = copy
            return
    host = src.to_host().copy()
    host[_to_host(key)] = _to_host(value)
    a._node = Source.from_host(host)


# -- joining (these evaluate their inputs) -------------------------------------------------
@implements(np.concatenate)
def concatenate(arrays, axis=0, **kwargs):
    """``numpy.concatenate``: on the device, each input's work fused into the
    store of its part (NumPy on the host for small data, ``axis=None`` or
    other arguments)."""
    arrays = list(arrays)
    nodes = [node_of(a) for a in arrays]
    total = _builtins.sum(n.size for n in nodes)
    if kwargs or axis is None or not nodes or total < eager_below() or \
            _builtins.any(isinstance(n, Const) or not in_kernel(n.dtype) for n in nodes):
        return _from_host(np.concatenate(_to_host(arrays), axis=axis, **kwargs))
    ndim = nodes[0].ndim
    if ndim == 0 or _builtins.any(n.ndim != ndim for n in nodes):
        return _from_host(np.concatenate(_to_host(arrays), axis=axis))  # NumPy's error
    axis = views.normalize_axis(axis, ndim)
    rest = [n.shape[:axis] + n.shape[axis + 1:] for n in nodes]
    if _builtins.any(r != rest[0] for r in rest):
        return _from_host(np.concatenate(_to_host(arrays), axis=axis))  # NumPy's error
    dtype = np.result_type(*[n.dtype for n in nodes])
    shape = list(nodes[0].shape)
    shape[axis] = _builtins.sum(n.shape[axis] for n in nodes)
    out = _evaluate_node(Map("astype", [Source.from_host(np.zeros((), dtype))], [dtype],
                             tuple(shape), dtype))
    start = 0
    for n in nodes:
        key = (slice(None),) * axis + (slice(start, start + n.shape[axis]),)
        part = views.basic_view(out.shape, out.strides, out.offset, key)
        write_view(_view(out, *part), n)
        start += n.shape[axis]
    return ndarray(out)


@implements(np.stack)
def stack(arrays, axis=0, **kwargs):
    """``numpy.stack`` of the evaluated inputs."""
    return _from_host(np.stack(_to_host(list(arrays)), axis=axis, **kwargs))


# -- linear algebra ------------------------------------------------------------------------------
@implements(np.dot)
def dot(a, b):
    """1-D·1-D is a fused multiply+sum kernel; other shapes use NumPy's BLAS
    on the host (counted as a fallback)."""
    a, b = asarray(a), asarray(b)
    if a.ndim == 1 and b.ndim == 1:
        if a.shape != b.shape:
            raise ValueError("shapes %s and %s not aligned" % (a.shape, b.shape))
        return reduction("sum", apply_ufunc(np.multiply, a, b))
    if a.ndim == 0 or b.ndim == 0:
        return apply_ufunc(np.multiply, a, b)
    fallback(None, "BLAS on the host", what="numpy.dot")
    return _from_host(np.dot(a.get(), b.get()))


@implements(np.matmul)
def matmul(a, b):
    """``a @ b``: as :func:`dot` for 1-D operands, NumPy's BLAS otherwise."""
    a, b = asarray(a), asarray(b)
    if a.ndim == 1 and b.ndim == 1:
        return dot(a, b)
    fallback(None, "BLAS on the host", what="numpy.matmul")
    return _from_host(np.matmul(a.get(), b.get()))


@implements(np.shape)
def shape(a):
    return asarray(a).shape


@implements(np.ndim)
def ndim(a):
    return asarray(a).ndim


@implements(np.size)
def size(a, axis=None):
    a = asarray(a)
    return a.size if axis is None else a.shape[axis]


# -- forcing and tools -----------------------------------------------------------------------
def evaluate(*arrays):
    """Compute the given lazy arrays now (their values stay on the device).
    On the cython backend the kernels they need that are not built yet are
    compiled together, as one module (:mod:`pcompute.numpy.together`)."""
    pending = tuple(a._node for a in arrays if isinstance(a, ndarray)
                    and a._node.result is None)
    with forcing(pending):
        for a in arrays:
            if isinstance(a, ndarray):
                a._source()
    return arrays[0] if len(arrays) == 1 else arrays


def stats():
    """What the layer did so far: kernels, fused operations, compiles,
    lowerings (regions lowered to kernel text: a structure seen before reuses
    its plan), eager (small) evaluations, fallbacks and fusion boundaries
    with reasons."""
    return STATS.as_dict()


def kernel_sources():
    """The kernel-language source of every fused kernel made in this process."""
    from .kernels import cached_sources
    return cached_sources()


def reset_stats():
    """Zero the counters of :func:`stats`."""
    STATS.reset()


def _ufunc_function(uf):
    def func(*args, out=None, **kwargs):
        if out is not None or kwargs or uf.nout != 1:
            fallback(None, "arguments or several outputs", what="numpy.%s" % uf.__name__)
            return _from_host(uf(*_to_host(args), out=out, **_to_host(kwargs)))
        return apply_ufunc(uf, *args)
    func.__name__ = uf.__name__
    func.__doc__ = "Lazy ``numpy.%s`` (fused into kernels)." % uf.__name__
    return func


UFUNCS = {}
for _name in dir(np):
    _uf = getattr(np, _name)
    if isinstance(_uf, np.ufunc) and not _name.startswith("_"):
        UFUNCS[_name] = _ufunc_function(_uf)


__all__ = [
    "asarray", "array", "zeros", "ones", "empty", "full", "arange", "linspace", "eye",
    "identity", "zeros_like", "ones_like", "empty_like", "full_like", "where", "clip",
    "astype", "sum", "prod", "min", "max", "amin", "amax", "any", "all", "argmin",
    "argmax", "mean", "var", "std", "reshape", "transpose", "broadcast_to",
    "concatenate", "stack", "dot", "matmul", "shape", "ndim", "size", "evaluate",
    "stats", "reset_stats", "kernel_sources",
]
