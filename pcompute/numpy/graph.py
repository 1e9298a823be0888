"""The nodes of the lazy expression graph.

A graph is made of :class:`Source` (values that exist: host NumPy arrays or
device buffers with a strided view), :class:`Const` (Python scalars, weakly
typed as NEP 50 says), :class:`Map` (one elementwise ufunc) and
:class:`Reduce` (a reduction over some axes).  Nodes are immutable except for
``result``, which caches the :class:`Source` a node evaluated to, so a value
used by several arrays is computed once.
"""
import math

import numpy as np

#: ``EVALUATIONS[0]`` grows whenever a node of a graph gets (or loses) a
#: ``result`` (:func:`computed`).  A :class:`Map` records it when it is
#: made: a Map whose stamp is still the count has no computed node below it
#: (see ``Map.sig``).
EVALUATIONS = [0]


def computed(node, result):
    """Set ``node.result`` (counted in :data:`EVALUATIONS`); returns ``result``."""
    node.result = result
    EVALUATIONS[0] += 1
    return result


class Node:
    """Base of the graph nodes: ``shape``, ``dtype`` and the cached ``result``."""

    __slots__ = ("shape", "dtype", "result", "depth", "__weakref__")

    def __init__(self, shape, dtype, depth=0):
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)
        self.result = None
        self.depth = depth

    @property
    def size(self):
        return math.prod(self.shape)

    @property
    def ndim(self):
        return len(self.shape)

    def inputs(self):
        return ()


class Source(Node):
    """A value that exists.

    ``host`` is a NumPy array (any layout) or None; ``dev`` a flat
    :class:`pcompute.Array` seen through ``strides``/``offset`` (in elements)
    or None.  ``scalar`` is a NumPy scalar for 0-d values computed on the
    host (a full reduction's result).
    """

    __slots__ = ("host", "dev", "strides", "offset", "backend")

    def __init__(self, shape, dtype, host=None, dev=None, strides=None, offset=0,
                 backend=None):
        self.shape, self.dtype, self.depth = tuple(shape), np.dtype(dtype), 0
        self.host = host
        self.dev = dev
        self.strides = tuple(strides) if strides is not None else c_strides(self.shape)
        self.offset = offset
        self.backend = backend

    # A Source is its own value.  Not an attribute pointing at itself: that
    # would be a reference cycle, and a value's memory (a pooled buffer) would
    # then wait for the garbage collector instead of going back when the
    # last array using it goes.
    @property
    def result(self):
        return self

    @result.setter
    def result(self, value):
        if value is not None and value is not self:
            raise ValueError("a Source's value is itself")

    @classmethod
    def made(cls, shape, dtype, dev, backend):
        """A Source of the contiguous device array ``dev`` on ``backend`` (a
        name) with ``shape`` (a tuple) and ``dtype`` (a NumPy dtype): the
        quick constructor for a kernel's output."""
        self = cls.__new__(cls)
        self.shape, self.dtype, self.depth = shape, dtype, 0
        self.host, self.dev, self.offset, self.backend = None, dev, 0, backend
        self.strides = c_strides(shape)
        return self

    @classmethod
    def from_host(cls, arr):
        """A Source holding the NumPy array ``arr`` (made quickly: this is the
        eager path's constructor)."""
        arr = np.asarray(arr)
        self = cls.__new__(cls)
        self.shape, self.dtype, self.depth = arr.shape, arr.dtype, 0
        self.host, self.dev, self.offset, self.backend = arr, None, 0, None
        self.strides = c_strides(arr.shape)
        return self

    def contiguous(self):
        """True when the view is C-contiguous (strides of its shape)."""
        return all(s == c or n == 1 for s, c, n in
                   zip(self.strides, c_strides(self.shape), self.shape))

    def to_host(self):
        """The value as a NumPy array (a copy of device data, kept)."""
        if self.host is None:
            flat = self.dev.get()
            item = flat.dtype.itemsize
            view = np.lib.stride_tricks.as_strided(
                flat[self.offset:], self.shape, tuple(s * item for s in self.strides))
            self.host = view.copy() if not self.contiguous() or self.offset else \
                flat[:self.size].reshape(self.shape)
        return self.host


class Const(Node):
    """A Python scalar operand; its dtype is settled by the operation using it."""

    __slots__ = ("value",)

    _DTYPES = {bool: np.dtype(np.bool_), int: np.dtype(np.int64),
               float: np.dtype(np.float64), complex: np.dtype(np.complex128)}

    def __init__(self, value):
        dtype = self._DTYPES.get(type(value)) or np.result_type(value)
        self.shape, self.dtype, self.depth = (), dtype, 0
        self.value = value

    @property
    def result(self):
        """A constant is its own value (not a self-reference: no cycle)."""
        return self

    @result.setter
    def result(self, value):
        if value is not None and value is not self:
            raise ValueError("a Const's value is itself")


class Map(Node):
    """One elementwise operation: ufunc ``op`` over ``args``.

    ``loop`` holds the dtype each input is converted to (NumPy's loop dtypes).
    ``head`` is the operation's part of a region's structure key (see
    :mod:`.plans`), when the builder knew it (None: worked out there).

    The ufunc builder also hashes the structure as it builds (an incremental
    fingerprint, used while nothing below was computed since: ``stamp`` is
    :data:`EVALUATIONS` when the Map was made): ``sig`` is ``(head, the
    operands' sigs)`` with 0 for an input Source and the
    :func:`~.plans.const_token` of a constant, and ``leaves`` the Sources
    and Consts of the tree in the order of ``sig`` (each use listed).  None
    (no ``sig``) when a part has no kernel form, is a reduction or 0-d
    value inside a larger region, or was computed already."""

    __slots__ = ("op", "args", "loop", "head", "sig", "leaves", "stamp")

    def __init__(self, op, args, loop, shape, dtype):
        depth = 1 + max((a.depth for a in args), default=0)
        super().__init__(shape, dtype, depth)
        self.op = op
        self.args = tuple(args)
        self.loop = tuple(loop)
        self.head = self.sig = self.leaves = self.stamp = None

    def inputs(self):
        return self.args


class Reduce(Node):
    """A reduction ``op`` ('sum', 'max', 'argmin', ...) of ``arg`` over ``axis``
    (None: all axes; an int otherwise; the result drops that axis)."""

    __slots__ = ("op", "arg", "axis", "acc")

    def __init__(self, op, arg, axis, shape, dtype, acc):
        super().__init__(shape, dtype, arg.depth + 1)
        self.op = op
        self.arg = arg
        self.axis = axis
        self.acc = np.dtype(acc)

    def inputs(self):
        return (self.arg,)


def c_strides(shape):
    """C-order strides, in elements, of ``shape``."""
    if len(shape) < 2:
        return (1,) * len(shape)
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


def broadcast_strides(shape, strides, target):
    """The strides of a view of ``shape``/``strides`` broadcast to ``target``."""
    pad = len(target) - len(shape)
    out = [0] * pad
    for n, s, t in zip(shape, strides, target[pad:]):
        out.append(0 if n == 1 and t != 1 else s)
    return tuple(out)
