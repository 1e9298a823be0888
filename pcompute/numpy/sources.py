"""The generated source of the kernels that evaluating a lazy array would
build (``fused_sources``; the command ``pcompute source FILE:NAME`` prints
them for a lazy array ``NAME`` of a module).

The graph is lowered as :func:`~.execute.evaluate` lowers it, on the python
backend with placeholder values and without running a kernel; each fused
kernel's primitive then generates its source for the backend asked for (so
CUDA C comes without a GPU).  The graph is left as it was: nothing is
evaluated, no counter of :func:`pcompute.numpy.stats` moves.
"""
import copy

import numpy as np

from ..config import use_config
from . import kernels
from .execute import evaluate
from .graph import Source, computed
from .stats import STATS

_SOURCE_FIELDS = ("host", "dev", "strides", "offset", "backend")


def _nodes(root):
    seen, stack, out = set(), [root], []
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        out.append(node)
        stack.extend(node.inputs())
    return out


def _snapshot(nodes):
    saved = []
    for node in nodes:
        fields = tuple(getattr(node, f) for f in _SOURCE_FIELDS) \
            if isinstance(node, Source) else None
        saved.append((node, node.result, fields))
    return saved


def _restore(saved):
    for node, result, fields in saved:
        computed(node, result)
        if fields is not None:
            for name, value in zip(_SOURCE_FIELDS, fields):
                setattr(node, name, value)


def fused_sources(x, backend=None):
    """``[(kernel name, source)]`` of the kernels evaluating the lazy array
    ``x`` would build on ``backend`` (a name; None: the configured backend),
    in the order they would run.  Builds and runs nothing and leaves ``x``
    unevaluated.  Values computed by NumPy on the host (small or 0-d values,
    fallbacks) make no kernel and are not listed."""
    from ..backends.registry import get_backend
    from .core import ndarray
    target = get_backend(backend).name
    node = x._node if isinstance(x, ndarray) else x
    saved = _snapshot(_nodes(node))
    stats = copy.deepcopy(STATS.__dict__)
    try:
        with kernels.recording() as records, np.errstate(all="ignore"), \
                use_config(backend="python"):
            evaluate(node)
    finally:
        _restore(saved)
        STATS.__dict__.update(stats)
    out = []
    with use_config(use_double=True):      # the layer's kernels keep their dtypes
        for prim, args in records:
            out.append((prim.name, prim.generate(target, *args)))
    return out
