"""Global reductions over arrays partitioned across the ranks of a communicator.

Each rank reduces its own part with the ordinary :class:`~pcompute.Reduction`
(one kernel on its backend); the per-rank values are then combined with one
collective.  The combination is deterministic and the same on every rank:
the rank values are gathered and folded in rank order with the reduction's
own operator, so any associative ``reduce_expr`` works (commutative or not)
and the result equals the single-process reduction of the concatenated
arrays (exactly for integers, min and max; to rounding for float sums).
"""
import numpy as np

from ..primitives.exprfunc import make_function, neutral_value
from ..primitives.reduction import Reduction
from .mpi import fold, get_comm, mpi

class DistributedReduction:
    """:class:`~pcompute.Reduction` across the ranks of ``comm``.

    Takes the arguments of :class:`~pcompute.Reduction` plus ``comm``
    (default ``COMM_WORLD``); called like it, with each rank's own arrays.
    Every rank gets the global value (a numpy scalar of ``dtype_out``).
    """

    def __init__(self, reduce_expr, map_func=None, dtype_out=np.float64, neutral="0",
                 backend=None, ordered=False, comm=None):
        self.local = Reduction(reduce_expr, map_func=map_func, dtype_out=dtype_out,
                               neutral=neutral, backend=backend, ordered=ordered)
        self.comm = get_comm(comm)
        self.dtype_out = self.local.dtype_out
        self._op = make_function("pc_reduce_op", ("a", "b"), reduce_expr, "reduce_expr")
        self._neutral = neutral_value(neutral, self.dtype_out)

    def __call__(self, *args):
        value = self.dtype_out.type(self.local(*args))
        return self.combine(value)

    def combine(self, value):
        """The global value from this rank's ``value`` (a collective call)."""
        values = self.comm.allgather(value)
        return self.dtype_out.type(fold(values, self._op))


def allreduce(values, op="sum", comm=None):
    """Several host numbers reduced across ranks in one message.

    ``values``: a number or a sequence of numbers; ``op``: ``'sum'``,
    ``'min'``, ``'max'`` or ``'prod'``.  Returns a float64 numpy array of the
    same length (a scalar for a scalar).  Float sums use MPI's ``Allreduce``
    (its order of summation, the same on every rank).
    """
    MPI = mpi()
    ops = {"sum": MPI.SUM, "min": MPI.MIN, "max": MPI.MAX, "prod": MPI.PROD}
    if op not in ops:
        raise ValueError("allreduce op must be one of %s, not %r" % (", ".join(ops), op))
    scalar = np.ndim(values) == 0
    send = np.atleast_1d(np.asarray(values, dtype=np.float64)).copy()
    recv = np.empty_like(send)
    get_comm(comm).Allreduce(send, recv, op=ops[op])
    return recv[0] if scalar else recv


def allreduce_ints(values, op="sum", comm=None):
    """As :func:`allreduce` for integers (int64, exact)."""
    MPI = mpi()
    ops = {"sum": MPI.SUM, "min": MPI.MIN, "max": MPI.MAX}
    if op not in ops:
        raise ValueError("allreduce_ints op must be one of %s, not %r"
                         % (", ".join(ops), op))
    scalar = np.ndim(values) == 0
    send = np.atleast_1d(np.asarray(values, dtype=np.int64)).copy()
    recv = np.empty_like(send)
    get_comm(comm).Allreduce(send, recv, op=ops[op])
    return recv[0] if scalar else recv
