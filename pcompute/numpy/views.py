"""Basic indexing, reshape and transpose as views (shape, strides, offset in
elements) over the same buffer, as NumPy's views are."""
import numbers
import operator

import numpy as np

from .graph import c_strides


def _is_basic(item):
    return item is None or item is Ellipsis or isinstance(item, slice) or (
        isinstance(item, (numbers.Integral, np.integer)) and not isinstance(item, bool))


def is_basic_key(key):
    """True for keys made of ints, slices, None and Ellipsis only."""
    key = key if isinstance(key, tuple) else (key,)
    return all(_is_basic(k) for k in key)


def basic_view(shape, strides, offset, key):
    """(shape, strides, offset) of ``view[key]`` for a basic-indexing key."""
    key = key if isinstance(key, tuple) else (key,)
    used = sum(1 for k in key if k is not None and k is not Ellipsis)
    if used > len(shape):
        raise IndexError("too many indices for array: array is %d-dimensional, but %d "
                         "were indexed" % (len(shape), used))
    if sum(1 for k in key if k is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    expanded = []
    for k in key:
        if k is Ellipsis:
            expanded.extend([slice(None)] * (len(shape) - used))
        else:
            expanded.append(k)
    expanded.extend([slice(None)] * (len(shape) - sum(1 for k in expanded
                                                       if k is not None)))
    out_shape, out_strides, dim = [], [], 0
    for k in expanded:
        if k is None:
            out_shape.append(1)
            out_strides.append(0)
            continue
        n, s = shape[dim], strides[dim]
        if isinstance(k, slice):
            start, stop, step = k.indices(n)
            length = len(range(start, stop, step))
            if length:
                offset += start * s
            out_shape.append(length)
            out_strides.append(s * step)
        else:
            idx = operator.index(k)
            if not -n <= idx < n:
                raise IndexError("index %d is out of bounds for axis %d with size %d"
                                 % (idx, dim, n))
            offset += (idx % n) * s
        dim += 1
    return tuple(out_shape), tuple(out_strides), offset


def reshape_shape(size, newshape):
    """The full new shape (one -1 allowed), or NumPy's ValueError."""
    if isinstance(newshape, (numbers.Integral, np.integer)):
        newshape = (newshape,)
    newshape = tuple(operator.index(n) for n in newshape)
    if newshape.count(-1) > 1:
        raise ValueError("can only specify one unknown dimension")
    known = int(np.prod([n for n in newshape if n != -1], dtype=np.int64))
    if -1 in newshape:
        if known == 0 or size % known:
            raise ValueError("cannot reshape array of size %d into shape %s"
                             % (size, newshape))
        newshape = tuple(size // known if n == -1 else n for n in newshape)
    elif known != size:
        raise ValueError("cannot reshape array of size %d into shape %s"
                         % (size, newshape))
    return newshape


def transpose_axes(ndim, axes):
    """Normalised axes of a transpose (NumPy's checks)."""
    if not axes:
        return tuple(reversed(range(ndim)))
    if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
        axes = tuple(axes[0])
    axes = tuple(normalize_axis(a, ndim) for a in axes)
    if sorted(axes) != list(range(ndim)):
        raise ValueError("axes don't match array")
    return axes


def normalize_axis(axis, ndim):
    """``axis`` in [0, ndim) or NumPy's AxisError."""
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise np.exceptions.AxisError(axis, ndim)
    return axis % ndim


__all__ = ["basic_view", "is_basic_key", "reshape_shape", "transpose_axes",
           "normalize_axis", "c_strides"]
