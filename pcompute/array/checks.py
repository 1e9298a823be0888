"""Checks and conversions of what the Array functions are given: backends,
dtypes (and the float64 storage rule of GPU backends), lengths, indices and
host data; see :mod:`pcompute.array`.  Nothing here knows the Array class.
"""
import logging
import numbers
import sys
import warnings

import numpy as np

from ..backends.registry import get_backend as _backend_object
from ..config import get_config
from ..errors import KernelTypeError, KernelValueError, PrecisionWarning

logger = logging.getLogger("pcompute.array")

#: Capacity of an Array created with no elements (room for a few appends).
MIN_CAPACITY = 16
#: Factor by which :meth:`Array.resize` grows the capacity when it must.
GROWTH = 2

_DTYPE_KINDS = "biuf"          # bool, signed, unsigned, floating
_precision_warned = False      # PrecisionWarning is emitted once per process


def _backend_of(backend):
    """The Backend object for a name, a Backend object or None (configured)."""
    if backend is not None and not isinstance(backend, str) \
            and not hasattr(backend, "on_host"):
        raise KernelValueError("backend must be a backend name or None, not %r"
                               % (backend,),
                               hint="use one of 'python', 'cython', 'opencl', 'cuda'")
    return _backend_object(backend)


def get_backend_name(backend=None):
    """The name of ``backend`` (a name, a backend object, or None: configured)."""
    return _backend_of(backend).name


# Compyle-compatible name: pcompute.array.get_backend(backend) gives a name.
get_backend = get_backend_name


def _check_dtype(dtype):
    """``dtype`` as a numpy dtype, if it is a kind kernels can use."""
    if dtype is None:
        raise KernelTypeError("an array needs a dtype, not None",
                              hint="pass e.g. numpy.float32 or numpy.int32")
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise KernelTypeError("%r is not a numpy dtype" % (dtype,),
                              hint="pass e.g. numpy.float32 or 'int32'") from None
    if dt.kind not in _DTYPE_KINDS or dt.shape or dt.fields:
        raise KernelTypeError("arrays of dtype %s are not supported" % dt,
                              hint="use a boolean, integer or floating point dtype")
    return dt


def _warn_demoted(backend):
    """Warn (once per process) that float64 is stored as float32."""
    global _precision_warned
    logger.debug("float64 data stored as float32 on the %s backend", backend.name)
    if _precision_warned or get_config().suppress_warnings:
        return
    _precision_warned = True
    frame, level = sys._getframe(0), 1
    while frame.f_back is not None \
            and frame.f_globals.get("__name__", "").startswith("pcompute"):
        frame, level = frame.f_back, level + 1
    warnings.warn(
        "float64 data is stored as float32 on the %s backend because "
        "get_config().use_double is False; set get_config().use_double = True "
        "(or PCOMPUTE_DOUBLE=1) to keep double precision, or pass float32 data "
        "to silence this warning" % backend.name, PrecisionWarning, stacklevel=level)


def _storage_dtype(dtype, backend):
    """The dtype data of ``dtype`` is stored as on ``backend`` (see module doc)."""
    dt = _check_dtype(dtype)
    if dt == np.float64 and backend.demote_double(get_config()):
        _warn_demoted(backend)
        return np.dtype(np.float32)
    return dt


def _check_length(n):
    if isinstance(n, bool) or not isinstance(n, (numbers.Integral, np.integer)):
        raise KernelTypeError("an array length must be an integer, not %r" % (n,))
    if n < 0:
        raise KernelValueError("an array length must be >= 0, not %d" % n)
    return int(n)


def _is_int(key):
    return isinstance(key, (numbers.Integral, np.integer)) and not isinstance(key, bool)


def _is_scalar(value):
    return isinstance(value, (numbers.Number, np.generic)) or \
        (isinstance(value, np.ndarray) and value.ndim == 0)


def _host_1d(values, dtype=None, what="the data"):
    """``values`` as a contiguous 1-D numpy array (of ``dtype`` if given)."""
    host = np.asarray(values)
    if host.ndim != 1:
        raise KernelValueError("%s must be 1-D, got a %d-D array of shape %s"
                               % (what, host.ndim, host.shape),
                               hint="pass x.ravel() and index it as x[i*n + j]")
    if dtype is not None and host.dtype != dtype:
        host = host.astype(dtype)
    if not host.flags.c_contiguous:
        logger.debug("%s is not contiguous: copying it", what)
        host = np.ascontiguousarray(host)
    return host
