"""Array algorithms built on Scan and Reduction (part of :mod:`pcompute.array`).

``cumsum``, ``where(cond)`` and ``take_bool`` (stream compaction) are scans;
``where(cond, a, b)`` is an Elementwise kernel;
``sum``, ``dot``, ``minimum`` and ``maximum`` are reductions.  They take
:class:`~pcompute.array.Array` objects (or numpy arrays, wrapped on the
backend first) and run on the Array's backend unless ``backend`` is given.
The primitives are built once per backend, configuration and dtype, like any
other kernel.  Results that are arrays stay on the device; scalars come back
as numpy scalars.
"""
import numpy as np

from ..errors import KernelTypeError, KernelValueError
from ..primitives import library
from ..primitives.elementwise import Elementwise
from ..primitives.library import cached as _cached
from ..primitives.reduction import Reduction
from ..primitives.scan import Scan
from .core import Array, empty, get_backend_name, wrap, zeros


def _on_backend(arrays, backend):
    """(backend name, Arrays): ``arrays`` wrapped on one backend."""
    if backend is None:
        backend = next((a.backend for a in arrays if isinstance(a, Array)), None)
    name = get_backend_name(backend)
    out = []
    for a in arrays:
        if isinstance(a, Array) and a.backend == name:
            out.append(a)
        else:
            out.append(wrap(a.get() if isinstance(a, Array) else np.asarray(a),
                            backend=name))
    return name, out


# -- scans -------------------------------------------------------------------------

def cumsum(a, backend=None, out=None):
    """The inclusive prefix sum of ``a`` as a new Array of ``a``'s dtype
    (or written into the Array ``out``, which is returned)."""
    name, (a,) = _on_backend([a], backend)
    if out is None:
        out = empty(len(a), a.dtype, backend=name)
    elif len(out) != len(a):
        raise KernelValueError("cumsum(): out has %d elements, the input %d"
                               % (len(out), len(a)))
    scan = _cached(("cumsum", name, a.dtype.str, out.dtype.str),
                   lambda: Scan(dtype=a.dtype, backend=name))
    if len(a):
        scan(input=a, output=out)
    return out


def _compact(kind, cond, values, backend):
    arrays = [cond] if values is None else [cond, values]
    name, arrays = _on_backend(arrays, backend)
    cond = arrays[0]
    n = len(cond)
    if values is not None and len(arrays[1]) != n:
        raise KernelValueError("take_bool(): the mask has %d elements, the array %d"
                               % (n, len(arrays[1])))
    dtype = np.dtype(np.int64) if values is None else arrays[1].dtype
    result = empty(n, dtype, backend=name)
    if n == 0:
        return result
    count = zeros(1, np.int64, backend=name)
    library.compact(cond, None if values is None else arrays[1], result, count,
                    result._backend)
    result.resize(int(count[0]))
    result.squeeze()
    return result


def _select(i, cond, a, b, out):
    if cond[i] != 0:
        out[i] = a[i]
    else:
        out[i] = b[i]


def where(cond, a=None, b=None, backend=None):
    """``where(cond, a, b)``: a new Array with ``a[i]`` where ``cond[i] != 0``
    and ``b[i]`` elsewhere (Compyle's and ``numpy.where``'s three-argument
    form; ``a`` and ``b`` must be Arrays of one backend and one dtype).

    ``where(cond)``: the indices ``i`` (int64) where ``cond[i] != 0``, as an
    Array (``numpy.flatnonzero``), by stream compaction with a scan.
    """
    if a is None and b is None:
        return _compact("where", cond, None, backend)
    if a is None or b is None:
        raise KernelTypeError("where() takes one argument (cond) or three (cond, a, b), "
                              "not two", hint="write where(cond, a, b)")
    for what, x in (("a", a), ("b", b)):
        if not isinstance(x, Array):
            raise KernelTypeError("where(cond, a, b): %s is a %s, not an Array"
                                  % (what, type(x).__name__), hint="wrap it first: wrap(x)")
    if a.backend != b.backend:
        raise KernelTypeError("where(cond, a, b): a is on the %s backend, b on %s"
                              % (a.backend, b.backend),
                              hint="create both on one backend")
    if a.dtype != b.dtype:
        raise KernelTypeError("where(cond, a, b): a has dtype %s, b %s"
                              % (a.dtype, b.dtype), hint="convert one: b.astype(a.dtype)")
    name, (cond, a, b) = _on_backend([cond, a, b], backend or a.backend)
    if not len(cond) == len(a) == len(b):
        raise KernelValueError("where(cond, a, b): lengths differ (%d, %d, %d)"
                               % (len(cond), len(a), len(b)))
    out = empty(len(a), a.dtype, backend=name)
    if len(out):
        _cached(("select", name), lambda: Elementwise(_select, backend=name))(cond, a, b,
                                                                              out)
    return out


def take_bool(a, mask, backend=None):
    """The elements ``a[i]`` where ``mask[i] != 0``, in order, as an Array."""
    return _compact("take_bool", mask, a, backend)


# -- reductions ----------------------------------------------------------------------

def _dot_map(i, x, y):
    return x[i] * y[i]


def _sum_dtype(dtype):
    """numpy's accumulator for sums: 64-bit for small integers and bools."""
    if dtype.kind == "b" or (dtype.kind == "i" and dtype.itemsize < 8):
        return np.dtype(np.int64)
    if dtype.kind == "u" and dtype.itemsize < 8:
        return np.dtype(np.uint64)
    return dtype


def sum(a, backend=None):
    """The sum of ``a`` (integers of < 64 bits accumulate in 64 bits, as numpy)."""
    name, (a,) = _on_backend([a], backend)
    dtype = _sum_dtype(a.dtype)
    red = _cached(("sum", name, a.dtype.str),
                  lambda: Reduction("a+b", dtype_out=dtype, backend=name))
    return red(a)


def dot(a, b, backend=None):
    """The dot product ``sum(a[i] * b[i])`` in numpy's result dtype."""
    name, (a, b) = _on_backend([a, b], backend)
    if len(a) != len(b):
        raise KernelValueError("dot(): lengths differ (%d and %d)" % (len(a), len(b)))
    dtype = np.result_type(a.dtype, b.dtype)
    red = _cached(("dot", name, a.dtype.str, b.dtype.str),
                  lambda: Reduction("a+b", map_func=_dot_map, dtype_out=dtype, backend=name))
    return red(a, b)


def _extremum(kind, a, backend):
    _, (a,) = _on_backend([a], backend)
    return library.extremum(kind, a, a._backend)


def minimum(a, backend=None):
    """The smallest element of ``a`` (NaNs follow C's min: not propagated)."""
    return _extremum("minimum", a, backend)


def maximum(a, backend=None):
    """The largest element of ``a`` (NaNs follow C's max: not propagated)."""
    return _extremum("maximum", a, backend)


__all__ = ["cumsum", "where", "take_bool", "sum", "dot", "minimum", "maximum"]
