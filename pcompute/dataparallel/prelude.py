"""The data-parallel prelude as plain functions (Copperhead's contract).

Every primitive works on NumPy arrays, lists, tuples and pcompute Arrays
outside any decorated function, and is the oracle that compiled
``@dataparallel`` functions are checked against.  A sequence result is a 1-D
NumPy array (integers stay integers); ``zip``, ``split`` and a ``map`` whose
function returns tuples give lists (of tuples, of arrays).  Bad input raises
``ValueError``/``IndexError``/``TypeError`` naming the primitive.

Index arguments must lie in ``[0, len(x))``: Python's negative indices are
refused, because a compiled kernel cannot wrap them the same way on every
backend.
"""
import builtins
import functools
import itertools
import operator

import numpy as np

__all__ = ["map", "zip", "unzip", "gather", "scatter", "scatter_add", "permute", "reduce", "sum", "min",
           "max", "len", "scan", "rscan", "exclusive_scan", "sort", "sort_by_key",
           "indices", "replicate", "shift", "rotate", "split"]

_len = builtins.len


def as_sequence(x, what="argument"):
    """``x`` as something indexable with a length (NumPy array or list)."""
    if isinstance(x, np.ndarray):
        if x.ndim != 1:
            raise ValueError("%s: a sequence must be 1-D, got shape %s" % (what, x.shape))
        return x
    if isinstance(x, (list, tuple)):
        return x
    get = getattr(x, "get", None)
    if callable(get) and hasattr(x, "dtype"):       # pcompute.Array (device data)
        return as_sequence(np.asarray(get()).ravel(), what)
    if hasattr(x, "__array__"):                     # pcompute.numpy lazy arrays, ...
        return as_sequence(np.asarray(x), what)
    raise TypeError("%s: expected a sequence (NumPy array, list or tuple), got %s"
                    % (what, type(x).__name__))


def _sequence_like(x):
    return isinstance(x, (np.ndarray, list, tuple)) or hasattr(x, "__array__") or \
        (hasattr(x, "get") and hasattr(x, "dtype"))


def _result(values, like=None):
    """A list of element values as the prelude's sequence result."""
    if values and isinstance(values[0], tuple):
        return list(values)
    if values and isinstance(values[0], (np.ndarray, list)):
        return list(values)
    if not values and like is not None:            # an empty array keeps its dtype
        known = isinstance(like, np.ndarray) or _len(like)
        return np.empty(0, dtype=np.asarray(like).dtype if known else np.float64)
    return np.asarray(values)


def _check_index(idx, n, what):
    idx = np.asarray(as_sequence(idx, what))
    if idx.size and idx.dtype.kind not in "iub":
        raise TypeError("%s: indices must be integers, got %s" % (what, idx.dtype))
    idx = idx.astype(np.int64)
    bad = (idx < 0) | (idx >= n)
    if bad.any():
        k = int(np.argmax(bad))
        raise IndexError("%s: index %d at position %d is outside [0, %d)"
                         % (what, int(idx[k]), k, n))
    return idx


def _equal_lengths(seqs, what):
    lengths = [_len(s) for s in seqs]
    if _len(set(lengths)) > 1:
        raise ValueError("%s: the sequences must have equal lengths, got %s"
                         % (what, ", ".join(str(n) for n in lengths)))
    return lengths[0] if lengths else 0


def zip(*seqs):
    """The sequence of tuples ``(a[i], b[i], ...)``; lengths must be equal."""
    seqs = [as_sequence(s, "zip") for s in seqs]
    _equal_lengths(seqs, "zip")
    return list(builtins.zip(*seqs))


def unzip(x):
    """The tuple of sequences ``([t[0] for t in x], [t[1] for t in x], ...)``
    of a sequence of equal-length tuples (from ``zip`` or a ``map`` whose
    function returns tuples): Copperhead's transpose.  Compiled, the
    components of a map returning tuples are computed by one kernel."""
    x = as_sequence(x, "unzip")
    if not _len(x):
        raise ValueError("unzip: the sequence is empty (the number of components is "
                         "unknown)")
    if not all(isinstance(t, tuple) for t in x) or _len({_len(t) for t in x}) != 1:
        raise TypeError("unzip: expected a sequence of tuples of one length")
    return tuple(_result(list(c)) for c in builtins.zip(*x))


def map(f, *seqs):
    """``[f(*t) for t in zip(*seqs)]`` (at least one sequence, equal lengths)."""
    if not callable(f):
        raise TypeError("map: the first argument must be a function, got %s"
                        % type(f).__name__)
    if not seqs:
        raise TypeError("map: give at least one sequence")
    seqs = [as_sequence(s, "map") for s in seqs]
    _equal_lengths(seqs, "map")
    return _result([f(*t) for t in builtins.zip(*seqs)])


def gather(x, idx):
    """``[x[i] for i in idx]`` with every ``i`` in ``[0, len(x))``."""
    x = as_sequence(x, "gather")
    idx = _check_index(idx, _len(x), "gather")
    if isinstance(x, np.ndarray):
        return x[idx]
    return _result([x[i] for i in idx], like=x)


def scatter(src, idx, out):
    """A copy of ``out`` with ``copy[idx[i]] = src[i]`` (``out`` is not changed).

    With repeated indices the last write (the largest ``i``) wins, as in the
    plain loop."""
    src, out = as_sequence(src, "scatter"), as_sequence(out, "scatter")
    idx = _check_index(idx, _len(out), "scatter")
    if _len(idx) != _len(src):
        raise ValueError("scatter: src and idx must have equal lengths, got %d and %d"
                         % (_len(src), _len(idx)))
    copy = np.array(out)
    copy[idx] = np.asarray(src)       # NumPy assigns in order: the last one wins
    return copy


def scatter_add(src, idx, out):
    """A copy of ``out`` with ``src[i]`` added at ``idx[i]``, in the order of
    ``i``: ``copy[j] = out[j] + src[i0] + src[i1] + ...`` for the ``i`` with
    ``idx[i] == j``, ascending (the same sums, bit for bit, on every run and
    backend).  The result has the type of ``out + src``."""
    src, out = as_sequence(src, "scatter_add"), as_sequence(out, "scatter_add")
    idx = _check_index(idx, _len(out), "scatter_add")
    if _len(idx) != _len(src):
        raise ValueError("scatter_add: src and idx must have equal lengths, got %d and %d"
                         % (_len(src), _len(idx)))
    src, out = np.asarray(src), np.asarray(out)
    copy = out.astype(np.result_type(out, src))
    for i, j in enumerate(idx.tolist()):
        copy[j] = copy[j] + src[i]
    return copy


def permute(x, idx):
    """``y`` with ``y[idx[i]] = x[i]``; ``idx`` must be a permutation of
    ``0 .. len(x)-1``."""
    x = as_sequence(x, "permute")
    idx = _check_index(idx, _len(x), "permute")
    if _len(idx) != _len(x):
        raise ValueError("permute: x and idx must have equal lengths, got %d and %d"
                         % (_len(x), _len(idx)))
    if _len(np.unique(idx)) != _len(idx):
        raise ValueError("permute: idx is not a permutation (an index repeats); "
                         "use scatter for a partial or repeated write")
    y = np.empty_like(np.asarray(x))
    y[idx] = np.asarray(x)
    return y


def reduce(op, x, init):
    """``init op x[0] op x[1] ...`` left to right."""
    return functools.reduce(op, as_sequence(x, "reduce"), init)


def sum(x):
    """The sum of the elements (0 for an empty sequence); integers stay integers.
    An iterable that is not a sequence (a generator, a set) is summed by the
    builtin ``sum``."""
    if not _sequence_like(x) and hasattr(x, "__iter__"):
        return builtins.sum(x)
    x = as_sequence(x, "sum")
    if isinstance(x, np.ndarray):
        return x.sum(dtype=x.dtype) if x.dtype.kind in "iuf" else x.sum()
    return builtins.sum(x)


def min(x, *more):
    """The smallest element; an empty sequence is a ValueError.  With several
    arguments (``min(a, b)``), or an iterable that is not a sequence, it is the
    builtin ``min``."""
    if more or not _sequence_like(x):
        return builtins.min(x, *more)
    x = as_sequence(x, "min")
    if not _len(x):
        raise ValueError("min: the sequence is empty")
    return x.min() if isinstance(x, np.ndarray) else builtins.min(x)


def max(x, *more):
    """The largest element; an empty sequence is a ValueError.  With several
    arguments (``max(a, b)``), or an iterable that is not a sequence, it is the
    builtin ``max``."""
    if more or not _sequence_like(x):
        return builtins.max(x, *more)
    x = as_sequence(x, "max")
    if not _len(x):
        raise ValueError("max: the sequence is empty")
    return x.max() if isinstance(x, np.ndarray) else builtins.max(x)


def len(x):
    """The number of elements of a sequence (of any sized object, as the builtin)."""
    if not _sequence_like(x) and hasattr(x, "__len__"):
        return _len(x)
    return _len(as_sequence(x, "len"))


def _segments(x):
    """True for a list of segments (the result of ``split``)."""
    return isinstance(x, list) and builtins.all(isinstance(s, np.ndarray) for s in x) \
        and _len(x) > 0


def scan(op, x):
    """The inclusive scan: ``y[i] = x[0] op ... op x[i]``; of segments (from
    ``split``), the scan of each segment (a segmented scan)."""
    if _segments(x):
        return [scan(op, s) for s in x]
    x = as_sequence(x, "scan")
    return _result(list(itertools.accumulate(x, op)), like=x)


def rscan(op, x):
    """The reverse inclusive scan: ``y[i] = x[i] op ... op x[n-1]`` (of
    each segment, for segments)."""
    if _segments(x):
        return [rscan(op, s) for s in x]
    x = as_sequence(x, "rscan")
    items = list(x)[::-1]
    return _result(list(itertools.accumulate(items, lambda a, b: op(b, a)))[::-1], like=x)


def exclusive_scan(op, x, init):
    """``y[0] = init``, ``y[i] = init op x[0] op ... op x[i-1]`` (length
    ``len(x)``; of each segment, for segments)."""
    if _segments(x):
        return [exclusive_scan(op, s, init) for s in x]
    x = as_sequence(x, "exclusive_scan")
    out = list(itertools.accumulate(x, op, initial=init))[:-1]
    return _result(out, like=x)


def sort(x):
    """The elements in ascending order (stable)."""
    x = as_sequence(x, "sort")
    if isinstance(x, np.ndarray):
        return np.sort(x, kind="stable")
    return _result(sorted(x), like=x)


def sort_by_key(keys, values):
    """``(keys, values)`` reordered so the keys ascend; stable."""
    keys, values = as_sequence(keys, "sort_by_key"), as_sequence(values, "sort_by_key")
    _equal_lengths([keys, values], "sort_by_key")
    order = np.argsort(np.asarray(keys), kind="stable")
    return np.asarray(keys)[order], np.asarray(values)[order]


def indices(x):
    """``0, 1, ..., len(x)-1`` as an integer array."""
    return np.arange(_len(as_sequence(x, "indices")), dtype=np.int64)


def replicate(v, n):
    """A sequence of ``n`` copies of the scalar ``v``."""
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)):
        raise TypeError("replicate: n must be an integer, got %s" % type(n).__name__)
    if n < 0:
        raise ValueError("replicate: n must not be negative, got %d" % n)
    return np.full(int(n), v)


def shift(x, k, fill):
    """``y[i] = x[i+k]``, or ``fill`` where ``i+k`` is outside ``[0, len(x))``."""
    x = np.asarray(as_sequence(x, "shift"))
    n = _len(x)
    y = np.full(n, fill, dtype=np.result_type(x, fill))
    src = np.arange(n) + int(k)
    ok = (src >= 0) & (src < n)
    y[ok] = x[src[ok]]
    return y


def rotate(x, k):
    """``y[i] = x[(i+k) mod len(x)]``."""
    x = np.asarray(as_sequence(x, "rotate"))
    if not _len(x):
        return x.copy()
    return x[(np.arange(_len(x)) + int(k)) % _len(x)]


def split(x, offsets):
    """The segments ``x[offsets[s]:offsets[s+1]]`` (CSR offsets; possibly empty)."""
    x = as_sequence(x, "split")
    off = np.asarray(as_sequence(offsets, "split"))
    if not _len(off):
        raise ValueError("split: offsets needs at least one entry (0)")
    if off.dtype.kind not in "iu":
        raise TypeError("split: offsets must be integers, got %s" % off.dtype)
    if (np.diff(off) < 0).any():
        raise ValueError("split: offsets must not decrease")
    if off[0] < 0 or off[-1] > _len(x):
        raise IndexError("split: offsets must lie in [0, %d], got %d .. %d"
                         % (_len(x), off[0], off[-1]))
    return [x[int(a):int(b)] for a, b in builtins.zip(off[:-1], off[1:])]


#: Operators usable by name in reduce/scan (Copperhead's op_add, ...).
op_add, op_mul = operator.add, operator.mul
