"""The generated source of the kernels that evaluating a lazy array would
build (``fused_sources``; the command ``pcompute source FILE:NAME`` prints
them for a lazy array ``NAME`` of a module).

The graph is lowered as :func:`~.execute.evaluate` lowers it, on the python
backend with placeholder values and without running a kernel; each fused
kernel's primitive then generates its source for the backend asked for (so
CUDA C comes without a GPU).  The graph is left as it was: nothing is
evaluated, no counter of :func:`pcompute.numpy.stats` moves.
That evaluation is :func:`.dry.dry_evaluation` (also used to build a
forcing's kernels together, :mod:`.together`).
"""
from ..config import use_config
from .dry import dry_evaluation


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
    with use_config(backend="python"), dry_evaluation() as records:
        records.evaluate(node)
    out = []
    with use_config(use_double=True):      # the layer's kernels keep their dtypes
        for prim, args in records:
            out.append((prim.name, prim.generate(target, *args)))
    return out
