"""``@dataparallel``: a function of the data-parallel subset, run as fused phases."""
import functools

from ..array import Array
from .phases import Trace
from .program import Program, as_value
from .source import closure_of
from .values import Segments, Seq, Stored


class DataParallelFunction:
    """A function compiled into phases on the configured backend.

    Calling it evaluates the body once per call: each phase is one kernel,
    built on first use and cached by its source.  ``f.py(...)`` runs the
    undecorated function in plain Python (the prelude: the oracle);
    ``f.last_phases`` lists the ``(kind, kernel source)`` of the last call's
    kernels (``f.last_launches``: their primitives and arguments).  Sequence results are :class:`pcompute.Array` (``.get()`` or
    ``numpy.asarray`` gives NumPy); several results come as a tuple.
    """

    def __init__(self, func):
        functools.update_wrapper(self, func)
        self.py = func
        self._closure = None
        self.last_phases = []
        self.last_launches = []

    @property
    def closure(self):
        if self._closure is None:
            self._closure = closure_of(self.py)
        return self._closure

    def __call__(self, *args):
        trace = Trace()
        where = "%s()" % self.py.__qualname__
        values = [as_value(a, where) for a in args]
        prog = Program(self.closure, trace)
        result = prog.call(self.closure, values)
        out = _finish(prog, result, where)
        self.last_phases = trace.phases
        self.last_launches = trace.launches
        return out


def _finish(prog, result, where):
    flat = list(result) if isinstance(result, tuple) else [result]
    if any(isinstance(v, (Segments, tuple)) for v in flat):
        raise TypeError("%s: return sequences and scalars (or a tuple of them), not "
                        "segments or nested tuples" % where)
    stored = iter(prog.materialize([v for v in flat if isinstance(v, Seq)]))
    out = [next(stored).array if isinstance(v, Seq) else v for v in flat]
    return tuple(out) if isinstance(result, tuple) else out[0]


def dataparallel(func):
    """Compile ``func`` (written with the prelude's primitives) into fused phases."""
    return DataParallelFunction(func)
