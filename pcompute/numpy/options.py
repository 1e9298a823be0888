"""Settings of the lazy layer (``set_options``/``get_options``).

``eager_below``  regions with fewer elements run in NumPy directly (small
                 arrays lose to a kernel launch); counted in ``stats()``.
                 None (the default): :data:`HOST_EAGER_BELOW` on backends
                 computing on the host, :data:`DEVICE_EAGER_BELOW` on
                 device backends (see :func:`eager_below`).
                 Environment: ``PCOMPUTE_LAZY_EAGER_BELOW``.
``max_inputs``   the most arrays one fused kernel reads (fusion stops there).
``fallback``     what a host evaluation of an operation the layer cannot fuse
                 does: 'count' (log at debug level), 'warn' or 'error'.
                 Environment: ``PCOMPUTE_LAZY_FALLBACK``.
``max_depth``    a graph deeper than this is evaluated where it grows, with
                 a warning (a time loop that never forces its arrays).
``vector_math``  the kernels are built with ``build_options(vector_math=True)``
                 (vectorised math functions on the CPU, e.g. glibc's libmvec:
                 results within a few ulp of the scalar functions, as NumPy's
                 own SIMD loops).  True by default; environment:
                 ``PCOMPUTE_LAZY_VECTOR_MATH=0`` turns it off.
"""
import os
import warnings

from ..backends.registry import get_backend
from ..config import GENERATION
from ..errors import ConfigWarning

#: ``eager_below`` on the backends computing on the host (cython, python):
#: the size from which a warm fused 5-op chain on cython (one thread) costs
#: less CPU time than the same chain run eagerly, measured side by side
#: (AMD EPYC; docs/numpy.rst, "Small arrays": time / NumPy's, eager and
#: fused: 1.50 and 2.13 at 16384, 1.26 and 1.13 at 32768); with OpenMP (2
#: threads) the crossover lies between 24576 and 32768 too (the same page).
HOST_EAGER_BELOW = 32768
#: ``eager_below`` on device backends (opencl, cuda): there a small region
#: evaluated in NumPy brings its inputs to the host and its result is on the
#: host, so only small regions are (the value before the host crossover was
#: measured).
DEVICE_EAGER_BELOW = 4096

DEFAULTS = {"eager_below": None, "max_inputs": 32, "fallback": "count", "max_depth": 400,
            "vector_math": True}
_FALLBACKS = ("count", "warn", "error")


def _from_env():
    opts = dict(DEFAULTS)
    raw = os.environ.get("PCOMPUTE_LAZY_EAGER_BELOW")
    if raw:
        try:
            opts["eager_below"] = max(0, int(raw))
        except ValueError:
            warnings.warn("PCOMPUTE_LAZY_EAGER_BELOW=%r is not an integer; using the "
                          "backend's default" % (raw,), ConfigWarning)
    raw = os.environ.get("PCOMPUTE_LAZY_FALLBACK")
    if raw:
        if raw in _FALLBACKS:
            opts["fallback"] = raw
        else:
            warnings.warn("PCOMPUTE_LAZY_FALLBACK=%r is not one of %s; using 'count'"
                          % (raw, ", ".join(_FALLBACKS)), ConfigWarning)
    raw = os.environ.get("PCOMPUTE_LAZY_VECTOR_MATH")
    if raw:
        if raw.strip().lower() in ("0", "1", "true", "false", "yes", "no", "on", "off"):
            opts["vector_math"] = raw.strip().lower() in ("1", "true", "yes", "on")
        else:
            warnings.warn("PCOMPUTE_LAZY_VECTOR_MATH=%r is not 0 or 1; using 1" % raw,
                          ConfigWarning)
    return opts


OPTIONS = _from_env()


def set_options(**kwargs):
    """Change settings (see the module docstring); returns the previous ones."""
    old = dict(OPTIONS)
    for key, value in kwargs.items():
        if key not in DEFAULTS:
            raise TypeError("unknown pcompute.numpy option %r (known: %s)"
                            % (key, ", ".join(sorted(DEFAULTS))))
        if key == "fallback" and value not in _FALLBACKS:
            raise ValueError("fallback must be one of %s, not %r" % (_FALLBACKS, value))
        if key == "vector_math" and not isinstance(value, bool):
            raise ValueError("vector_math must be True or False, not %r" % (value,))
        if key == "eager_below" and value is None:
            pass
        elif key not in ("fallback", "vector_math") and (
                isinstance(value, bool) or not isinstance(value, int) or value < 0):
            raise ValueError("%s must be a non-negative integer, not %r" % (key, value))
        OPTIONS[key] = value
    _IN_EFFECT[0] = None        # eager_below() looks again
    return old


def get_options():
    """A copy of the current settings."""
    return dict(OPTIONS)


_IN_EFFECT = [None, None]       # (configuration stamp, eager_below in effect then)


def eager_below():
    """The ``eager_below`` in effect: the option, or when it is None the
    default of the configured backend (memoised per configuration stamp;
    :func:`set_options` forgets it).  Called once per operation the user
    writes: the memoised value costs one comparison."""
    if _IN_EFFECT[0] == GENERATION[0]:
        return _IN_EFFECT[1]
    value = OPTIONS["eager_below"]
    if value is None:
        value = HOST_EAGER_BELOW if get_backend(None).on_host else DEVICE_EAGER_BELOW
    _IN_EFFECT[:] = [GENERATION[0], value]
    return value
