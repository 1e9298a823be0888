"""The MPI layer: mpi4py, loaded on first use, and job-wide error handling.

pcompute's distributed layer runs on MPI through mpi4py (``pip install
pcompute[mpi]`` installs mpi4py and the MPICH wheel, whose ``mpiexec`` lands
in the virtual environment; on a cluster, build mpi4py against the system MPI
instead).  Nothing here imports mpi4py until a distributed object is made, so
``import pcompute`` never needs it.
"""
import logging
import sys

from ..errors import BackendUnavailableError

log = logging.getLogger("pcompute.distributed")

_INSTALL_HINT = ("install it with `pip install pcompute[mpi]` (mpi4py and the MPICH wheel), "
                 "or build mpi4py against your cluster's MPI: `pip install mpi4py`")


def mpi():
    """The ``mpi4py.MPI`` module (a clear error when mpi4py is missing)."""
    try:
        from mpi4py import MPI
    except ImportError as exc:
        raise BackendUnavailableError("pcompute.distributed needs mpi4py (%s); %s"
                                      % (exc, _INSTALL_HINT)) from None
    return MPI


def world():
    """``MPI.COMM_WORLD``."""
    return mpi().COMM_WORLD


def get_comm(comm=None):
    """``comm``, or ``MPI.COMM_WORLD`` when it is None."""
    return world() if comm is None else comm


def abort_on_error(comm=None, stream=None):
    """Make an uncaught exception on any rank abort the whole job.

    Without this, a rank that raises leaves the others blocked in their next
    collective call, and the job hangs.  The hook prints the traceback (with
    the rank) on ``stream`` (stderr), then calls ``comm.Abort(1)``, which ends
    every rank with a non-zero exit status.  Applications call it once at
    start-up (the MD example does); returns the previous hook.
    """
    comm = get_comm(comm)
    previous = sys.excepthook

    def hook(kind, value, tb):
        out = sys.stderr if stream is None else stream
        if comm.Get_size() > 1:
            out.write("rank %d of %d failed; aborting the MPI job\n"
                      % (comm.Get_rank(), comm.Get_size()))
        previous(kind, value, tb)
        out.flush()
        if comm.Get_size() > 1:
            comm.Abort(1)

    sys.excepthook = hook
    return previous


def fold(values, op):
    """``op(...op(op(values[0], values[1]), values[2])...)``, left to right."""
    values = list(values)
    result = values[0]
    for v in values[1:]:
        result = op(result, v)
    return result
