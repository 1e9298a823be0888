"""``import pcompute.numpy as np``: lazy NumPy arrays fused into kernels.

Operations on :class:`ndarray` build an expression graph; the graph is
evaluated when a value is needed, each chain of elementwise operations (and
the reduction it feeds) running as one generated kernel on the configured
backend.  Results match NumPy 2 (NEP 50 promotion, broadcasting, NaN rules).
Names this module does not define are NumPy's own (``np.pi``, ``np.float32``,
``np.random``...), and a NumPy function called on lazy arrays evaluates them.
See the documentation page "NumPy code, fused".
"""
import numpy as _np

from .api import *  # noqa: F401,F403
from .api import UFUNCS as _UFUNCS
from .core import GraphDepthWarning, ndarray  # noqa: F401
from .options import get_options, set_options  # noqa: F401
from .stats import FallbackError  # noqa: F401
from .explain import explain  # noqa: F401

globals().update({k: v for k, v in _UFUNCS.items() if k not in globals()})
abs = _UFUNCS["absolute"]  # noqa: A001
pow = _UFUNCS["power"]  # noqa: A001


def __getattr__(name):
    """NumPy's own names (dtypes, constants, submodules) for the rest."""
    try:
        return getattr(_np, name)
    except AttributeError:
        raise AttributeError("module 'pcompute.numpy' has no attribute %r" % name) from None
