"""Where the layer's values live: the backend selected now, one copy of a
value on its device, the precision rule of the layer's kernels (split from
:mod:`.execute` so that :mod:`.lazyview` needs no evaluation machinery)."""
import numpy as np

from ..array import wrap
from ..backends.registry import get_backend
from ..config import GENERATION, ConfigOverlay
from .graph import c_strides


_NOW = [None, None]             # (configuration stamp, its backend)


def backend_now():
    """The backend the configuration selects now (memoised per configuration
    stamp: a new backend, a registered one or another OpenCL context is a
    new stamp, see :data:`pcompute.config.GENERATION`)."""
    if _NOW[0] != GENERATION[0]:
        _NOW[:] = [GENERATION[0], get_backend(None)]
    return _NOW[1]


def device_view(src):
    """(buffer, offset, strides) of ``src`` on the current backend (copied there
    from the host, or from another backend, once)."""
    be = backend_now()
    if src.dev is not None and src.backend == be.name:
        return src.dev, src.offset, src.strides
    host = src.to_host()
    flat = np.ascontiguousarray(host).reshape(-1)
    if not flat.flags.writeable:
        flat = flat.copy()
    if flat.size == 0:
        flat = np.zeros(1, dtype=flat.dtype)
    with _precision():
        src.dev = wrap(flat)
    src.backend, src.offset, src.strides = be.name, 0, c_strides(src.shape)
    return src.dev, 0, src.strides


_DOUBLE = ConfigOverlay(use_double=True)


def _precision():
    """Kernels of the layer compute in the arrays' own dtypes (NumPy's rule),
    so float64 is never demoted to float32 here: the configuration with
    ``use_double=True`` (one reusable overlay: entering it again around each
    launch costs no configuration copy)."""
    return _DOUBLE
