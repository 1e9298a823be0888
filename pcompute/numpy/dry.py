"""A dry evaluation: the kernels evaluating lazy arrays would run, recorded
instead of run, and everything left as it was (for :func:`.sources.fused_sources`
and for building a forcing's kernels together, :mod:`.together`)."""
import contextlib
import copy

import numpy as np

from . import kernels, plans
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


class DryRecords(list):
    """The kernels a dry evaluation recorded: ``(primitive, call arguments)``
    in the order they would run (see :func:`dry_evaluation`)."""

    def __init__(self):
        super().__init__()
        self.saved, self._seen = [], set()

    def evaluate(self, node):
        """Evaluate ``node`` dry (its graph is put back as it was on leaving
        :func:`dry_evaluation`)."""
        new = [n for n in _nodes(node) if id(n) not in self._seen]
        self._seen.update(id(n) for n in new)
        self.saved.extend(_snapshot(new))
        return evaluate(node)


@contextlib.contextmanager
def dry_evaluation():
    """Within: ``records.evaluate(node)`` (``records``, what this yields)
    evaluates ``node`` as :func:`~.execute.evaluate` does, on the configured
    backend, but every kernel is appended to ``records`` instead of run
    (:func:`.kernels.recording`: a reduction's value is 0; where the kernel
    that follows depends on that value, the kernels of both outcomes are
    recorded).  On leaving, all is as before: the graphs evaluated, the
    counters of :func:`pcompute.numpy.stats`, the layer's kernel and plan
    caches (so a later evaluation lowers and counts as it would have)."""
    records = DryRecords()
    stats = copy.deepcopy(STATS.__dict__)
    made, kept = kernels.saved_state(), plans.saved_state()
    try:
        with kernels.recording(records), np.errstate(all="ignore"):
            yield records
    finally:
        _restore(records.saved)
        STATS.__dict__.update(stats)
        kernels.restore_state(made)
        plans.restore_state(kept)
