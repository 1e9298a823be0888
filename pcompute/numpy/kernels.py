"""The cache of the layer's kernels, keyed by their generated source.

The source text of a lowered region is its canonical structure (operations,
dtypes, access patterns, ndim), so equal text means an equal kernel: the
:class:`~pcompute.Elementwise` or :class:`~pcompute.Reduction` made for it is
kept, and the primitives keep their compiled code per backend and
configuration.  The functions are made with ``exec`` from that text and get
a ``source`` attribute, as the front end expects of generated functions;
the names they call are NumPy's ufuncs, so on the python backend they run
with NumPy's scalar semantics.
"""
import contextlib
import hashlib

import numpy as np

from ..kernel_options import build_options
from ..parallel import Elementwise
from ..primitives.reduction import Reduction
from ..types import cast
from .options import OPTIONS
from .stats import STATS

_NAMESPACE = {
    "cast": cast, "sin": np.sin, "cos": np.cos, "tan": np.tan, "asin": np.arcsin,
    "acos": np.arccos, "atan": np.arctan, "atan2": np.arctan2, "sinh": np.sinh,
    "cosh": np.cosh, "tanh": np.tanh, "asinh": np.arcsinh, "acosh": np.arccosh,
    "atanh": np.arctanh, "exp": np.exp, "expm1": np.expm1, "log": np.log,
    "log10": np.log10, "log1p": np.log1p, "log2": np.log2, "sqrt": np.sqrt,
    "pow": np.power, "fabs": np.fabs, "floor": np.floor, "ceil": np.ceil,
    "trunc": np.trunc, "fmod": np.fmod, "hypot": np.hypot, "copysign": np.copysign,
    "isnan": np.isnan, "isinf": np.isinf, "INFINITY": np.inf, "NAN": np.nan,
}

_CACHE = {}
_MADE = []
_RECORDING = []      # a stack of lists: kernels recorded instead of run
_FILENAME = "<pcompute.numpy fused kernel>"


def make_function(source, name, filename=_FILENAME):
    """The Python function defined by ``source`` (with ``.source`` set).

    ``name`` in the text is renamed ``<name>_<hash of the text>`` so the
    profiler and ``pcompute source`` tell the fused kernels apart.  Another
    layer reusing this gives its own ``filename`` (what located errors show);
    only this layer's kernels are listed by :func:`cached_sources`."""
    digest = hashlib.sha1(source.encode()).hexdigest()[:8]
    unique = "%s_%s" % (name, digest)
    source = source.replace("def %s(" % name, "def %s(" % unique, 1)
    namespace = dict(_NAMESPACE)
    exec(compile(source, filename, "exec"), namespace)
    func = namespace[unique]
    func.source = source
    if filename == _FILENAME:
        _MADE.append(source)
    return func


def _kernel_function(source, name):
    """The layer's kernel function of ``source``, with its build options."""
    func = make_function(source, name)
    if OPTIONS["vector_math"]:
        build_options(func, vector_math=True)
    return func


def elementwise_for(source):
    """The cached :class:`Elementwise` of a fused kernel's source."""
    key = ("ew", source, OPTIONS["vector_math"])
    prim = _CACHE.get(key)
    if prim is None:
        STATS.compiles += 1
        name = source[len("def "):source.index("(")]
        prim = Elementwise(_kernel_function(source, name))
        _CACHE[key] = prim
    return prim


def reduction_for(source, reduce_expr, dtype, neutral):
    """The cached map+reduce :class:`Reduction` of a fused map function."""
    key = ("red", source, reduce_expr, np.dtype(dtype).str, neutral, OPTIONS["vector_math"])
    prim = _CACHE.get(key)
    if prim is None:
        STATS.compiles += 1
        prim = Reduction(reduce_expr, _kernel_function(source, "pc_map"), dtype_out=dtype,
                         neutral=neutral)
        _CACHE[key] = prim
    return prim


def run_elementwise(source, out, args, nodes, size=None):
    """Run the fused kernel ``source`` writing ``out`` (over ``size`` items
    when given, else ``len(out)``)."""
    prim = elementwise_for(source)
    if _RECORDING:
        _RECORDING[-1].append((prim, (out,) + tuple(args)))
        return prim
    STATS.kernels += 1
    STATS.fused_ops += nodes
    if size is None:
        prim(out, *args)
    else:
        prim(out, *args, shape=size)
    return prim


def run_reduction(source, reduce_expr, dtype, neutral, args, nodes):
    """Run a fused map+reduce; returns the host scalar."""
    prim = reduction_for(source, reduce_expr, dtype, neutral)
    if _RECORDING:
        _RECORDING[-1].append((prim, tuple(args)))
        return np.zeros((), dtype)[()]
    STATS.kernels += 1
    STATS.fused_ops += nodes
    return prim(*args)


@contextlib.contextmanager
def recording(records=None):
    """Within: :func:`run_elementwise` and :func:`run_reduction` run nothing
    and append ``(primitive, call arguments)`` to the list this yields
    (``records``, or a new one; a reduction's value is then 0)."""
    records = [] if records is None else records
    _RECORDING.append(records)
    try:
        yield records
    finally:
        _RECORDING.pop()


def recording_now():
    """True within :func:`recording` (a dry evaluation)."""
    return bool(_RECORDING)


def saved_state():
    """What :func:`restore_state` puts back: the kernels made so far."""
    return dict(_CACHE), len(_MADE)


def restore_state(state):
    """Forget the kernels made since :func:`saved_state` gave ``state``."""
    cache, made = state
    _CACHE.clear()
    _CACHE.update(cache)
    del _MADE[made:]


def cached_sources():
    """The sources of every kernel the layer made in this process."""
    return list(_MADE)


def clear_cache():
    """Forget the layer's kernels (the compile cache on disk is kept)."""
    _CACHE.clear()
    _MADE.clear()
