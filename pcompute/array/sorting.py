"""Sorting and gathering Arrays (part of :mod:`pcompute.array`, as Compyle's
``compyle.array`` functions).

``sort_by_keys`` and ``argsort`` run each backend's own stable sort (a
parallel LSD radix sort on cython, opencl and cuda; numpy's stable argsort
on python).  ``align``/``take`` gather any number of arrays by one index
array in one generated Elementwise kernel; ``diff`` is an Elementwise
kernel; ``trapezoid``/``trapz``, ``minimum``/``maximum`` and
``update_min_max`` are Reductions.  Everything stays on the device.
"""

import numpy as np

from ..backends.registry import get_backend
from ..backends.sort_common import check_key_dtype, key_range_error
from ..config import get_config
from ..errors import KernelTypeError, KernelValueError
from ..primitives import library
from ..primitives.elementwise import Elementwise
from ..primitives.library import function as _function
from ..primitives.reduction import Reduction
from .algorithms import maximum, minimum
from .core import Array, empty, wrap

__all__ = ["sort_by_keys", "argsort", "align", "take", "diff", "trapezoid", "trapz",
           "minimum", "maximum", "update_min_max", "update_minmax_gpu"]


# ------------------------------------------------------------------- helpers

def _as_arrays(arrays, backend, what):
    """``arrays`` (Arrays or numpy arrays) as Arrays on one backend, and it."""
    if isinstance(arrays, (Array, np.ndarray)):
        raise KernelTypeError("%s takes a list of arrays, not a single array" % what,
                              hint="pass [keys, values, ...]")
    arrays = list(arrays)
    if backend is None:
        first = next((a for a in arrays if isinstance(a, Array)), None)
        backend = first.backend if first is not None else None
    be = get_backend(backend)
    be.require()
    result = []
    for k, a in enumerate(arrays):
        if isinstance(a, Array):
            if a.backend != be.name:
                raise KernelValueError(
                    "%s: array %d is on the %s backend, not %s" % (what, k, a.backend,
                                                                   be.name),
                    hint="create all arrays on one backend")
            why = be.foreign_array(a.dev)
            if why is not None:
                raise KernelValueError("%s: array %d cannot be used: %s" % (what, k, why),
                                       hint="make it again: wrap(a.get(), backend=%r)"
                                       % be.name)
            result.append(a)
        elif isinstance(a, np.ndarray):
            result.append(wrap(a, backend=be.name))
        else:
            raise KernelTypeError("%s: array %d is a %s, not an Array or numpy array"
                                  % (what, k, type(a).__name__))
    return result, be


def _one_array(a, backend, what):
    arrays, be = _as_arrays([a], backend, what)
    return arrays[0], be


def _same_length(arrays, n, what):
    for k, a in enumerate(arrays):
        if len(a) != n:
            raise KernelValueError("%s: array %d has %d elements, the first %d"
                                   % (what, k, len(a), n),
                                   hint="all arrays must have the same length")


def _output(out, n, dtype, be, what):
    """``out`` checked (and resized to ``n``), or a new Array."""
    if out is None:
        return empty(n, dtype, backend=be.name)
    if not isinstance(out, Array) or out.backend != be.name:
        raise KernelTypeError("%s: outputs must be Arrays of the %s backend" % (what, be.name))
    if out.dtype != dtype:
        raise KernelTypeError("%s: an output Array has dtype %s, but %s is needed"
                              % (what, out.dtype, dtype))
    out.resize(n)
    return out


# --------------------------------------------------------------------- sorting

def _check_key_bits(keys, key_bits, be):
    """Validate ``key_bits`` and that every key lies in [0, 2**key_bits)."""
    if key_bits is None:
        return None
    bits = 8 * keys.dtype.itemsize
    # Any integral value: Compyle code passes np.ceil(np.log2(...)), a float.
    integral = isinstance(key_bits, (int, np.integer)) or \
        isinstance(key_bits, (float, np.floating)) and float(key_bits).is_integer()
    if isinstance(key_bits, bool) or not integral or not 0 <= key_bits <= 64:
        raise KernelValueError("key_bits must be an integer from 0 to 64, not %r"
                               % (key_bits,))
    key_bits = int(key_bits)
    if key_bits >= bits:        # every bit is sorted: any key is fine
        return None
    if len(keys) and not be.sort_checks_key_bits and \
            library.unsigned_max(keys, be) >= 2 ** key_bits:
        raise key_range_error(key_bits)
    return min(key_bits, bits)


def _sort(arrays, key_bits, backend, what, permutation=True):
    """(Arrays of sorted keys and values, permutation Array or None)."""
    arrays, be = _as_arrays(arrays, backend, what)
    if not arrays:
        raise KernelValueError("%s needs at least the keys array" % what)
    keys = arrays[0]
    try:
        check_key_dtype(keys.dtype)
    except KernelTypeError as exc:
        raise KernelTypeError("%s: %s" % (what, exc.message), hint=exc.hint) from None
    _same_length(arrays, len(keys), what)
    key_bits = _check_key_bits(keys, key_bits, be)
    out_k, outs, perm = be.sort_by_keys(keys.dev, [a.dev for a in arrays[1:]], key_bits,
                                        get_config(), permutation=permutation)
    wrapped = [Array._wrap_device(d, be) for d in [out_k] + list(outs)]
    return wrapped, None if perm is None else Array._wrap_device(perm, be)


def sort_by_keys(arrays, out_list=None, key_bits=None, backend=None, use_radix_sort=False):
    """Sort ``arrays`` by the integer keys in ``arrays[0]`` (stable, ascending).

    Returns a list of Arrays: the sorted keys, then each other array permuted
    the same way.  ``out_list``, if given, receives the results (its Arrays
    are resized and written) and is returned.  ``key_bits`` promises that
    every key lies in ``[0, 2**key_bits)`` (checked; a
    :class:`~pcompute.errors.KernelValueError` otherwise), which saves the
    passes over higher bits.  Keys are int32, uint32, int64 or uint64
    (negative keys sort correctly); the other arrays may have any dtype.
    ``backend`` defaults to the arrays' backend.  ``use_radix_sort`` is
    accepted for Compyle compatibility: every backend sorts the same way.
    """
    results, _ = _sort(arrays, key_bits, backend, "sort_by_keys()", permutation=False)
    if out_list is None:
        return results
    out_list = list(out_list)
    if len(out_list) != len(results):
        raise KernelValueError("sort_by_keys(): %d arrays but %d in out_list"
                               % (len(results), len(out_list)))
    for out, res in zip(out_list, results):
        _output(out, len(res), res.dtype, res._backend, "sort_by_keys()")
        out.set(res)
    return out_list


def argsort(a, backend=None, key_bits=None):
    """The permutation sorting integer Array ``a`` stably (an int32 Array, or
    int64 beyond 2**31 elements); ``a`` is not modified.  ``key_bits``, as
    for :func:`sort_by_keys`, promises keys in ``[0, 2**key_bits)`` (checked)
    so that only those digits are sorted."""
    _, perm = _sort([a], key_bits, backend, "argsort()")
    return perm


# ----------------------------------------------------------------- gathering

def align(arrays, order, out_list=None, backend=None):
    """Gather every Array of ``arrays`` by the index Array ``order`` in one
    kernel: ``out[i] = a[order[i]]``.  Returns the list of new Arrays, or
    ``out_list`` filled (resized to ``len(order)``).  Indices are checked to
    lie in ``[0, len(arrays[0]))``.
    """
    arrays, be = _as_arrays(arrays, backend, "align()")
    if not arrays:
        return [] if out_list is None else list(out_list)
    order, _ = _one_array(order, be.name, "align()")
    n, m = len(order), len(arrays[0])
    _same_length(arrays, m, "align()")
    library.check_indices(order, m, be, "align()")
    outs = out_list if out_list is not None else [None] * len(arrays)
    if len(outs) != len(arrays):
        raise KernelValueError("align(): %d arrays but %d in out_list"
                               % (len(arrays), len(outs)))
    outs = [_output(o, n, a.dtype, be, "align()") for o, a in zip(outs, arrays)]
    library.gather(order, arrays, outs, be)
    return outs


def take(a, indices, backend=None, out=None):
    """``a[indices]`` as a new Array (or into ``out``): a gather on the device."""
    return align([a], indices, out_list=None if out is None else [out], backend=backend)[0]


# ------------------------------------------------------- differences, integrals

def diff(a, n=1, backend=None):
    """``out[i] = a[i + 1] - a[i]``, ``n`` times (like ``numpy.diff``).

    As in Compyle, ``n`` must lie in ``[0, len(a))`` (numpy would return an
    empty array for larger ``n``); other values raise ``ValueError``.
    """
    a, be = _one_array(a, backend, "diff()")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise KernelValueError("diff(): n must be a non-negative integer, not %r" % (n,))
    if n and n >= len(a):
        raise KernelValueError("diff(): n = %d needs more than %d elements, the array "
                               "has %d" % (n, n, len(a)),
                               hint="use n < len(a) (numpy.diff would give an empty "
                                    "array)")
    kernel = library.cached(("diff", be.name), lambda: Elementwise(_function(
        "pc_diff", ["i", "out", "a"], ["out[i] = a[i + 1] - a[i]"]), backend=be.name))
    for _ in range(int(n)):
        out = empty(max(len(a) - 1, 0), a.dtype, backend=be.name)
        if len(out):
            kernel(out, a)
        a = out
    return a


def trapezoid(y, x=None, dx=1.0, backend=None):
    """The integral of ``y`` by the trapezoidal rule (``numpy.trapezoid``):
    over the sample points ``x`` (an Array) or spacing ``dx``."""
    y, be = _one_array(y, backend, "trapezoid()")
    n = len(y)
    if n < 2:
        return np.float64(0.0)
    if x is None:
        red = library.cached(("trapz_dx", be.name), lambda: Reduction("a + b", _function(
            "pc_trapz_dx", ["i", "y", "dx", "n"],
            ["r = 0.0", "if i + 1 < n:", "    r = 0.5 * dx * (y[i + 1] + y[i])",
             "return r"]), dtype_out=np.float64, backend=be.name))
        return red(y, float(dx), n)
    x, _ = _one_array(x, be.name, "trapezoid()")
    _same_length([y, x], n, "trapezoid()")
    red = library.cached(("trapz_x", be.name), lambda: Reduction("a + b", _function(
        "pc_trapz_x", ["i", "y", "x", "n"],
        ["r = 0.0", "if i + 1 < n:", "    r = 0.5 * (x[i + 1] - x[i]) * (y[i + 1] + y[i])",
         "return r"]), dtype_out=np.float64, backend=be.name))
    return red(y, x, n)


#: numpy's former name.
trapz = trapezoid


# ------------------------------------------------------------------ extrema

def update_min_max(arrays, only_min=False, only_max=False, backend=None):
    """Store each Array's smallest and largest elements in its ``minimum``
    and ``maximum`` attributes (Compyle's ``update_minmax_gpu``)."""
    if only_min and only_max:
        raise KernelValueError("update_min_max(): only one of only_min and only_max "
                               "can be True")
    if isinstance(arrays, Array):
        arrays = [arrays]
    for a in arrays:
        if not only_max:
            a.minimum = minimum(a, backend)
        if not only_min:
            a.maximum = maximum(a, backend)


#: Compyle's name.
update_minmax_gpu = update_min_max
