"""Parallel LSD radix sort for the cython backend (OpenMP when configured).

Two generated Cython modules: the sort of one key type (template
``sort_cython``) and a gather applying the permutation to any number of
value arrays in one loop (``sort_gather_cython``; values are copied as
unsigned integers of their size, so one module serves every dtype of that
size).  See :mod:`pcompute.backends.sort_common` for the pass planning.

When the caller needs no permutation and there is one value array, the
passes carry the values instead of the indices: no gather (whose random
reads cost about a third of the passes at 10^7 keys).
"""
import functools

import numpy as np

from ..build.cython_builder import build_cython
from ..config import GENERATION
from ..templates import render
from . import host_pool
from .memo import per_generation
from .sort_common import (COPY_TYPES, KEY_TYPES, check_key_dtype, index_dtype,
                          key_range_error, plan_cpu_passes)

#: Widest digit (bits) of a pass; 2**MAX_WIDTH counters per thread.
MAX_WIDTH = 11
#: Digits wider than this are used only when they save enough passes
#: (:func:`~pcompute.backends.sort_common.plan_cpu_passes`).
NARROW_WIDTH = 8
#: Below this many keys the sort and the gather run on one thread.
SERIAL_BELOW = 1 << 15
#: Scratch buffers up to this many bytes are kept for the next sort (page
#: faults on fresh buffers cost as much as a radix pass); larger ones are freed.
KEEP_SCRATCH_BYTES = 1 << 28

_scratch = {}      # (slot, dtype) -> numpy array kept between sorts
_openmp = {}       # (generation, backend name, use_openmp) -> whether sorts use OpenMP

_C_INT = {np.dtype(np.int32): "int32_t", np.dtype(np.uint32): "uint32_t",
          np.dtype(np.int64): "int64_t", np.dtype(np.uint64): "uint64_t",
          np.dtype(np.uint8): "uint8_t", np.dtype(np.uint16): "uint16_t"}


def _address(a):
    return a.__array_interface__["data"][0]


def generate_sort(key_dtype, idx_dtype, openmp, value_dtype=None):
    """The Cython source of the radix sort module (compiles nothing): it
    carries the indices, or values of ``value_dtype`` if given."""
    key_dtype = check_key_dtype(key_dtype)
    udtype, sign = KEY_TYPES[key_dtype]
    payload = np.dtype(idx_dtype) if value_dtype is None else \
        COPY_TYPES[np.dtype(value_dtype).itemsize]
    return render("sort_cython", key=_C_INT[key_dtype], ukey=_C_INT[udtype],
                  sign="0x%xULL" % sign if sign else "0", idx=_C_INT[np.dtype(idx_dtype)],
                  payload=_C_INT[payload], openmp=openmp,
                  carried="indices" if value_dtype is None else "values",
                  omp_note=" (OpenMP)" if openmp else "", serial_below=SERIAL_BELOW)


def generate_gather(idx_dtype, value_dtypes, openmp):
    """The Cython source of the gather of arrays of ``value_dtypes``."""
    types = [_C_INT[COPY_TYPES[np.dtype(d).itemsize]] for d in value_dtypes]
    return render("sort_gather_cython", idx=_C_INT[np.dtype(idx_dtype)], types=types,
                  openmp=openmp, serial_below=SERIAL_BELOW, n_arrays=len(types),
                  type_list=", ".join(types), omp_note=" (OpenMP)" if openmp else "",
                  gather_params="".join(", size_t src%d, size_t dst%d" % (k, k)
                                        for k in range(len(types))))


@functools.lru_cache(maxsize=256)
def _passes(varying, key_bits):
    """``(shifts, widths)`` (tuples) of the passes sorting keys that differ in
    the bits of ``varying``: :func:`plan_cpu_passes`, memoised (planning took
    4.6 us a call, as much as the passes over 1000 keys, and a program
    sorting small arrays again and again plans the same passes each time)."""
    shifts, widths = plan_cpu_passes(varying, key_bits, NARROW_WIDTH, MAX_WIDTH)
    return tuple(shifts), tuple(widths)


def _use_openmp(backend, config):
    """``backend.use_openmp(config)``, asked once per configuration
    generation (:data:`~pcompute.config.GENERATION`) and value of
    ``config.use_openmp``, as the sort modules are looked up once per
    generation (:func:`_sort_module`): the toolchain's answer reads three
    environment variables, 4 us, at every sort."""
    key = (GENERATION[0], backend.name, bool(config.use_openmp))
    found = _openmp.get(key)
    if found is None:
        if len(_openmp) >= 64:
            _openmp.clear()
        found = _openmp[key] = backend.use_openmp(config)
    return found


@per_generation
def _sort_module(key_dtype, idx_dtype, openmp, value_dtype=None):
    """The sort module (rendered and looked up once per configuration)."""
    return build_cython(generate_sort(key_dtype, idx_dtype, openmp, value_dtype),
                        "radix_sort_%s" % np.dtype(key_dtype).name, openmp)


@per_generation
def _gather_module(idx_dtype, value_dtypes, openmp):
    """The gather module of ``value_dtypes`` (a tuple)."""
    return build_cython(generate_gather(idx_dtype, value_dtypes, openmp),
                        "gather_%d" % len(value_dtypes), openmp)


def gather(order, sources, openmp):
    """``[src[order] for src in sources]`` in one parallel loop."""
    n = len(order)
    outs = [host_pool.empty(n, s.dtype) for s in sources]
    if not sources or n == 0:
        return outs
    module = _gather_module(order.dtype, tuple(s.dtype for s in sources), openmp)
    args = []
    for s, o in zip(sources, outs):
        args += [_address(np.ascontiguousarray(s)), _address(o)]
    module.gather(n, _address(order), *args)
    return outs


def take_scratch(slot, n, dtype):
    """An uninitialised array of ``n`` items of ``dtype``: the one kept in
    ``slot`` if it is large enough (taken out, so that concurrent sorts never
    share it; hand it back with :func:`give_scratch`)."""
    dtype = np.dtype(dtype)
    kept = _scratch.pop((slot, dtype), None)
    if kept is None or len(kept) < n:
        kept = np.empty(n, dtype)
    return kept


def give_scratch(slot, array):
    """Keep ``array`` for the next sort, unless it is large."""
    if array.nbytes <= KEEP_SCRATCH_BYTES:
        _scratch[(slot, array.dtype)] = array


def release_scratch():
    """Free the scratch buffers kept between sorts (and the idle output
    buffers of :mod:`~pcompute.backends.host_pool`)."""
    _scratch.clear()
    host_pool.release()


def sort_by_keys(backend, keys, values, key_bits, config, permutation=True):
    """Stable sort of numpy ``keys``; returns (keys, values, permutation).

    With ``permutation=False`` the permutation returned may be None (it is
    when one value array is carried through the passes).
    """
    openmp = _use_openmp(backend, config)
    keys = np.ascontiguousarray(keys)
    values = [np.ascontiguousarray(v) for v in values]
    n = len(keys)
    idx_dtype = index_dtype(n)
    carry = values[0] if not permutation and len(values) == 1 else None
    out_k = host_pool.empty(n, keys.dtype)
    out_p = host_pool.empty(n, idx_dtype if carry is None else carry.dtype)
    if n:
        module = _sort_module(keys.dtype, idx_dtype, openmp,
                              None if carry is None else carry.dtype)
        bits_or, bits_and = module.key_bits_varying(n, _address(keys))
        if key_bits is not None and bits_or >> key_bits:
            raise key_range_error(key_bits)          # some key is not in [0, 2**key_bits)
        shifts, widths = _passes(bits_or ^ bits_and, key_bits)
        many = n if len(shifts) > 1 else 0
        payload = out_p.dtype if carry is None else COPY_TYPES[carry.dtype.itemsize]
        tmp_k = take_scratch("keys", many, keys.dtype)
        tmp_p = take_scratch("payload", many, payload)
        module.sort(n, _address(keys), 0 if carry is None else _address(carry),
                    _address(out_k), _address(out_p), _address(tmp_k), _address(tmp_p),
                    shifts, widths)
        give_scratch("keys", tmp_k)
        give_scratch("payload", tmp_p)
    if carry is not None:
        return out_k, [out_p], None
    return out_k, gather(out_p, values, openmp), out_p
