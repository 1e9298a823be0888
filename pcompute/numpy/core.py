"""The lazy array type of :mod:`pcompute.numpy` and the operations building graphs.

Operations return at once with a new :class:`ndarray` over a graph node; the
value is computed when it is needed (see :mod:`.force`).
"""
import operator
import sys
import warnings

import numpy as np

from . import views
from .dtypes import reduction_dtype, resolve, resolve_keys
from .execute import evaluate, fallback
from .graph import EVALUATIONS, Const, Map, Reduce, Source, c_strides
from .options import OPTIONS, eager_below
from .plans import const_token, map_head
from .stats import STATS
from .together import forcing

_SCALARS = (bool, int, float, complex)

#: NumPy functions (and ``operator.getitem``/``setitem``) -> their lazy
#: versions.  :mod:`.api` fills it (``implements``); ``__array_function__``
#: and the methods that are those functions (``a.reshape``, ``a[k]``,
#: ``a.mean``, ``a @ b``...) call through it, so this module never imports
#: the functions built on it.
IMPLEMENTED = {}


def _lazy(func, *args, **kwargs):
    """Call the lazy version of ``func`` (registered by :mod:`.api`)."""
    return IMPLEMENTED[func](*args, **kwargs)


class GraphDepthWarning(UserWarning):
    """A graph grew past ``max_depth`` without being evaluated."""


class ndarray:
    """A lazy NumPy-compatible array.

    Arithmetic, comparisons, ufuncs and reductions build an expression graph
    and return immediately; ``numpy.asarray(x)``, printing, ``float(x)``,
    iteration, indexing with arrays, or :func:`pcompute.numpy.evaluate`
    compute it, fusing each chain of elementwise operations into one kernel.
    """

    __slots__ = ("_node", "__weakref__")
    __array_priority__ = 2000

    def __init__(self, node):
        self._node = node

    # -- attributes ---------------------------------------------------------
    shape = property(lambda self: self._node.shape, doc="The shape (a tuple).")
    dtype = property(lambda self: self._node.dtype, doc="The NumPy dtype.")
    ndim = property(lambda self: len(self._node.shape))
    size = property(lambda self: self._node.size)
    itemsize = property(lambda self: self._node.dtype.itemsize)
    nbytes = property(lambda self: self._node.size * self._node.dtype.itemsize)

    @property
    def T(self):
        """The transpose (a view)."""
        return self.transpose()

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    # -- forcing --------------------------------------------------------------
    def _source(self):
        STATS.forced += 1
        node = self._node
        if node.result is None:
            with forcing((node,)):      # its kernels built together
                src = evaluate(node)
        else:
            src = node.result
        self._node = src
        return src

    def get(self):
        """The value as a NumPy array (evaluates)."""
        return self._source().to_host()

    def __array__(self, dtype=None, copy=None):
        value = self.get()
        if dtype is not None and np.dtype(dtype) != value.dtype:
            return value.astype(dtype)
        return value.copy() if copy else value

    def __repr__(self):
        return repr(self.get())

    def __str__(self):
        return str(self.get())

    def __format__(self, spec):
        return format(self.get() if self.ndim else self.get()[()], spec)

    def __float__(self):
        return float(self.get())

    def __int__(self):
        return int(self.get())

    def __complex__(self):
        return complex(self.get())

    def __index__(self):
        return self.get().__index__()

    def __bool__(self):
        return bool(self.get())

    def __iter__(self):
        if not self.shape:
            raise TypeError("iteration over a 0-d array")
        return (self[k] for k in range(self.shape[0]))

    def item(self, *args):
        """The element as a Python scalar (evaluates)."""
        return self.get().item(*args)

    def tolist(self):
        """The value as nested Python lists (evaluates)."""
        return self.get().tolist()

    # -- NumPy protocols -------------------------------------------------------
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if method == "__call__" and not kwargs and ufunc.nout == 1:
            return apply_ufunc(ufunc, *inputs)
        return _host_call(getattr(ufunc, method), inputs, kwargs,
                          "numpy.%s.%s" % (ufunc.__name__, method))

    def __array_function__(self, func, types, args, kwargs):
        impl = IMPLEMENTED.get(func)
        if impl is not None:
            return impl(*args, **kwargs)
        return _host_call(func, args, kwargs, "numpy.%s" % getattr(func, "__name__", func))

    # -- conversions and views -------------------------------------------------
    def astype(self, dtype, copy=True):
        """A copy converted to ``dtype`` (fused with what produces it)."""
        return astype(self, dtype)

    def copy(self):
        """A copy (evaluated lazily)."""
        return ndarray(Map("astype", [self._node], [self.dtype], self.shape, self.dtype))

    def reshape(self, *shape, order="C"):
        """A view with a new shape (a copy first when the data is not contiguous)."""
        return _lazy(np.reshape, self, shape[0] if len(shape) == 1 else shape, order=order)

    def ravel(self):
        return self.reshape(-1)

    def flatten(self):
        return self.copy().reshape(-1)

    def transpose(self, *axes):
        return _lazy(np.transpose, self, views.transpose_axes(self.ndim, axes))

    def __getitem__(self, key):
        return _lazy(operator.getitem, self, key)

    def __setitem__(self, key, value):
        _lazy(operator.setitem, self, key, value)

    # -- reductions ------------------------------------------------------------
    def sum(self, axis=None, dtype=None, keepdims=False):
        return reduction("sum", self, axis, keepdims, dtype)

    def prod(self, axis=None, dtype=None, keepdims=False):
        return reduction("prod", self, axis, keepdims, dtype)

    def min(self, axis=None, keepdims=False):
        return reduction("min", self, axis, keepdims)

    def max(self, axis=None, keepdims=False):
        return reduction("max", self, axis, keepdims)

    def any(self, axis=None, keepdims=False):
        return reduction("any", self, axis, keepdims)

    def all(self, axis=None, keepdims=False):
        return reduction("all", self, axis, keepdims)

    def mean(self, axis=None, dtype=None, keepdims=False):
        return _lazy(np.mean, self, axis=axis, dtype=dtype, keepdims=keepdims)

    def var(self, axis=None, dtype=None, ddof=0, keepdims=False):
        return _lazy(np.var, self, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims)

    def std(self, axis=None, dtype=None, ddof=0, keepdims=False):
        return _lazy(np.std, self, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims)

    def argmin(self, axis=None):
        return reduction("argmin", self, axis, False)

    def argmax(self, axis=None):
        return reduction("argmax", self, axis, False)

    def dot(self, other):
        return _lazy(np.dot, self, other)


def _binary(name, reflected=False):
    uf = getattr(np, name)
    if reflected:
        def op(self, other):
            return apply_ufunc(uf, other, self)
    else:
        def op(self, other):
            return apply_ufunc(uf, self, other)
    op.__name__ = name
    return op


for _op, _uf in (("add", "add"), ("sub", "subtract"), ("mul", "multiply"),
                 ("truediv", "true_divide"), ("floordiv", "floor_divide"),
                 ("mod", "remainder"), ("pow", "power"), ("and", "bitwise_and"),
                 ("or", "bitwise_or"), ("xor", "bitwise_xor"), ("lshift", "left_shift"),
                 ("rshift", "right_shift")):
    setattr(ndarray, "__%s__" % _op, _binary(_uf))
    setattr(ndarray, "__r%s__" % _op, _binary(_uf, reflected=True))
for _op, _uf in (("lt", "less"), ("le", "less_equal"), ("gt", "greater"),
                 ("ge", "greater_equal"), ("eq", "equal"), ("ne", "not_equal")):
    setattr(ndarray, "__%s__" % _op, _binary(_uf))
ndarray.__hash__ = None
ndarray.__neg__ = lambda self: apply_ufunc(np.negative, self)
ndarray.__pos__ = lambda self: apply_ufunc(np.positive, self)
ndarray.__abs__ = lambda self: apply_ufunc(np.absolute, self)
ndarray.__invert__ = lambda self: apply_ufunc(np.invert, self)
ndarray.__matmul__ = lambda self, other: _lazy(np.matmul, self, other)
ndarray.__rmatmul__ = lambda self, other: _lazy(np.matmul, other, self)


# -- building nodes ---------------------------------------------------------------
def node_of(x):
    """The graph node of an operand: lazy arrays, NumPy arrays and scalars,
    Python scalars (weak, NEP 50) and anything ``numpy.asarray`` accepts."""
    if isinstance(x, ndarray):
        return x._node
    if isinstance(x, _SCALARS) and not isinstance(x, np.generic):
        return Const(x)
    return Source.from_host(np.asarray(x))


def _operand(node):
    return node.value if isinstance(node, Const) else node


_new = object.__new__
_NAMES = {}             # ufunc -> its name (numpy makes the string at each read)
_RESOLVED = {}          # (ufunc, operand keys) -> (loop dtypes, output dtype, Map head)
_MAX_RESOLVED = 4096


def apply_ufunc(ufunc, *operands):
    """``ufunc(*operands)`` as a lazy node (NumPy's dtypes and broadcasting).

    Lazy arrays and Python ``float``/``int`` operands (what arithmetic on
    arrays gives, once per operation the user writes) take a quick path:
    one pass over the operands, the dtype resolution memoised per operand
    dtypes, the node made from final parts; anything else goes through
    :func:`_apply_general`."""
    values = _eager_now(operands)
    if values is not None:      # small host values: NumPy now
        STATS.eager += 1
        return host_array(ufunc(*values))
    name = _NAMES.get(ufunc) or _NAMES.setdefault(ufunc, ufunc.__name__)
    nodes, keys, sigs, leaves = [], [ufunc], [], ()
    weak_int, shape, depth = False, (), 0
    stamp = EVALUATIONS[0]
    for x in operands:
        kind = type(x)
        if kind is ndarray:
            node = x._node
            keys.append(node.dtype)
            part = type(node)
            if part is Source:
                if sigs is not None:
                    sigs.append(0)
                    leaves += (node,)
            else:
                if sigs is not None and part is Map and node.stamp == stamp \
                        and node.sig is not None and node.shape:
                    sigs.append(node.sig)
                    leaves += node.leaves
                else:
                    sigs = None         # no incremental fingerprint (see Map)
            s = node.shape
            if s != shape and s:
                if shape:
                    return _apply_general(ufunc, operands)     # broadcasting
                shape = s
            if node.depth > depth:
                depth = node.depth
        elif kind is float or kind is int:
            node = Const(x)
            keys.append(kind)
            weak_int = weak_int or kind is int
            if sigs is not None:
                sigs.append(const_token(x, name))
                leaves += (node,)
        else:
            return _apply_general(ufunc, operands)
        nodes.append(node)
    keys = tuple(keys)
    resolved = _RESOLVED.get(keys)
    if resolved is None:
        resolved = _resolution(ufunc, keys)
    loop, dtype, head = resolved
    if weak_int:
        for x, want in zip(operands, loop):
            if type(x) is int and want.kind in "iu":
                want.type(x)    # NumPy 2 raises OverflowError for out-of-range ints
    # The Map and the array made field by field (no __init__: this runs once
    # per operation the user writes; graph.Map says what each field is).
    node = _new(Map)
    node.shape = shape
    node.dtype = dtype
    node.result = None
    node.depth = depth + 1
    node.op = name
    node.args = tuple(nodes)
    node.loop = loop
    node.head = head
    node.sig = (head, tuple(sigs)) if sigs is not None and head is not None and shape \
        else None
    node.leaves = leaves
    node.stamp = stamp
    arr = _new(ndarray)
    arr._node = node
    if depth >= OPTIONS["max_depth"]:
        _warn_depth(node)
        arr._source()
    return arr


def host_array(value):
    """An :class:`ndarray` holding ``value``, a NumPy result (made field by
    field: the eager path runs this once per small operation)."""
    if type(value) is not np.ndarray:
        value = np.asarray(value)
    src = _new(Source)
    src.shape = shape = value.shape
    src.dtype = value.dtype
    src.depth = 0
    src.host = value
    src.dev = None
    src.offset = 0
    src.backend = None
    src.strides = (1,) if len(shape) == 1 else c_strides(shape)
    arr = _new(ndarray)
    arr._node = src
    return arr


def _resolution(ufunc, keys):
    """(loop dtypes, output dtype, Map head) of ``ufunc`` over the operand
    keys ``keys[1:]`` (kept in :data:`_RESOLVED`)."""
    loop, outs = resolve_keys(ufunc, keys[1:])
    if len(_RESOLVED) >= _MAX_RESOLVED:
        _RESOLVED.clear()
    resolved = _RESOLVED[keys] = (loop, outs[0], map_head(ufunc.__name__, loop, outs[0]))
    return resolved


def _apply_general(ufunc, operands):
    """:func:`apply_ufunc` for any operands (broadcasting, NumPy arrays and
    scalars, lists) that are not all small host values (apply_ufunc's
    :func:`_eager_now` looked)."""
    nodes = [node_of(x) for x in operands]
    loop, outs = resolve(ufunc, [_operand(n) for n in nodes])
    shape = broadcast_shape(nodes)
    return wrap_node(Map(ufunc.__name__, nodes, loop, shape, outs[0]))


_PY_SCALARS = frozenset((bool, int, float))


def _eager_now(operands):
    """The NumPy operands when every operand is a small host value or a
    Python scalar (the operation then runs in NumPy at once: cheaper than a
    graph and a kernel launch), else None."""
    limit = eager_below()
    values = []
    for x in operands:
        kind = type(x)
        if kind is ndarray:
            n = x._node
            if type(n) is not Source or n.host is None or n.host.size >= limit:
                return None
            values.append(n.host)
        elif kind in _PY_SCALARS:
            values.append(x)
        elif kind is np.ndarray and x.size < limit:
            values.append(x)
        else:
            return None
    return values


def broadcast_shape(nodes):
    """The broadcast shape of the nodes (NumPy's error if they do not broadcast)."""
    shapes = {n.shape for n in nodes if n.shape}
    if len(shapes) <= 1:
        return shapes.pop() if shapes else ()
    return np.broadcast_shapes(*shapes)


def astype(x, dtype):
    """``x`` converted to ``dtype`` (NumPy's unsafe casting)."""
    node = node_of(x)
    dtype = np.dtype(dtype)
    return wrap_node(Map("astype", [node], [dtype], node.shape, dtype))


def wrap_node(node):
    """An :class:`ndarray` over ``node``; a graph past ``max_depth`` is
    evaluated here, with a warning located in the caller's code."""
    arr = ndarray(node)
    if node.depth > OPTIONS["max_depth"]:
        _warn_depth(node)
        arr._source()
    return arr


def _warn_depth(node):
    frame, level = sys._getframe(1), 2
    while frame is not None and frame.f_globals.get("__name__", "").startswith(
            "pcompute.numpy"):
        frame, level = frame.f_back, level + 1
    warnings.warn(
        "a pcompute.numpy graph grew to depth %d without being evaluated (a loop that "
        "never uses its arrays' values?); evaluating it here. Call "
        "pcompute.numpy.evaluate(x) inside the loop to choose where" % node.depth,
        GraphDepthWarning, stacklevel=level)


def reduction(op, x, axis=None, keepdims=False, dtype=None):
    """A lazy reduction ``op`` of ``x`` over ``axis`` (None, an int or a tuple)."""
    if dtype is not None:
        x = astype(x, dtype)
    node = node_of(x)
    if isinstance(node, Const):
        node = Source.from_host(np.asarray(node.value))
    if node.dtype.kind == "b" and op in ("min", "max"):
        op = "all" if op == "min" else "any"
    if node.dtype.kind == "b" and op in ("argmin", "argmax"):
        node = Map("astype", [node], [np.dtype(np.uint8)], node.shape, np.uint8)
    if axis is None:
        axes = tuple(range(node.ndim))
    elif isinstance(axis, tuple):
        if op in ("argmin", "argmax"):
            raise TypeError("'tuple' object cannot be interpreted as an integer")
        axes = tuple(views.normalize_axis(a, node.ndim) for a in axis)
        if len(set(axes)) != len(axes):
            raise ValueError("duplicate value in 'axis'")
    else:
        axes = (views.normalize_axis(axis, node.ndim),)
    out_dtype = reduction_dtype(op, node.dtype)
    if axis is None or len(axes) == node.ndim and op not in ("argmin", "argmax"):
        result = Reduce(op, node, None, (), out_dtype, out_dtype)
    else:
        result = node
        for ax in sorted(axes, reverse=True):
            shape = result.shape[:ax] + result.shape[ax + 1:]
            result = Reduce(op, result, ax, shape, out_dtype, out_dtype)
    arr = wrap_node(result)
    if keepdims:
        kept = tuple(1 if d in axes else n for d, n in enumerate(node.shape))
        arr = arr.reshape(kept)
    return arr


def _host_call(func, args, kwargs, what):
    """Run a NumPy function the layer does not implement on evaluated inputs,
    counting it, and bring array results back into the lazy world."""
    fallback(None, "not implemented lazily", what=what)
    args = _to_host(args)
    kwargs = _to_host(kwargs)
    return _from_host(func(*args, **kwargs))


def _to_host(obj):
    if isinstance(obj, ndarray):
        return obj.get()
    if isinstance(obj, (list, tuple)):
        return type(obj)(_to_host(o) for o in obj)
    if isinstance(obj, dict):
        return {k: _to_host(v) for k, v in obj.items()}
    return obj


def _from_host(obj):
    if isinstance(obj, np.ndarray):
        return ndarray(Source.from_host(obj))
    if isinstance(obj, tuple):
        return tuple(_from_host(o) for o in obj)
    if isinstance(obj, list):
        return [_from_host(o) for o in obj]
    return obj
