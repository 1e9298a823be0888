"""pcompute.distributed under mpiexec with 1, 2 and 4 ranks (marked ``mpi``).

The MPI programs live in tests/mpi_programs; each checks its results against
numpy on the whole data and aborts the job on the first failure.
"""
import pytest

from mpi_launch import check_ok, run_mpi
from pcompute.distributed import parse_grid

pytestmark = pytest.mark.mpi


def test_primitives_match_numpy(backend):
    """Each backend on 2 ranks (float32) and 4 ranks (float64, one rank empty)."""
    ranks = 4 if backend.use_double else 2
    out = check_ok(run_mpi(ranks, ["-m", "mpi_programs.primitives"], backend))
    assert "ok on %d ranks" % ranks in out


def test_primitives_on_one_rank():
    out = check_ok(run_mpi(1, ["-m", "mpi_programs.primitives", "11"]))
    assert "ok on 1 ranks" in out


def test_failing_rank_aborts_the_job():
    code = ("from pcompute.distributed import abort_on_error, world\n"
            "comm = world(); abort_on_error(comm)\n"
            "if comm.rank == 1: raise ValueError('rank one is broken')\n"
            "comm.Barrier()\n")
    result = run_mpi(2, ["-c", code], timeout=60)
    assert result.returncode != 0
    assert "rank one is broken" in result.stderr
    assert "rank 1 of 2 failed" in result.stderr


def test_killed_rank_ends_the_job():
    code = ("import os, signal\nfrom pcompute.distributed import world\n"
            "comm = world()\n"
            "if comm.rank == 1: os.kill(os.getpid(), signal.SIGKILL)\n"
            "comm.Barrier()\n")
    assert run_mpi(2, ["-c", code], timeout=60).returncode != 0


@pytest.mark.parametrize("text,dim,grid", [("2x2", 2, (2, 2)), ("4", 3, (4, 1, 1)),
                                           ("2*1*2", 3, (2, 1, 2)), ("3", None, (3,))])
def test_parse_grid(text, dim, grid):
    assert parse_grid(text, dim) == grid


@pytest.mark.parametrize("text,dim,words", [("2x", 2, "not a grid"), ("0x2", 2, "at least"),
                                            ("2x2x2", 2, "has 3 axes")])
def test_parse_grid_errors(text, dim, words):
    with pytest.raises(ValueError, match=words):
        parse_grid(text, dim)


def test_missing_mpi4py_is_a_clear_error(monkeypatch):
    import sys
    from pcompute.distributed import mpi
    from pcompute.errors import BackendUnavailableError
    monkeypatch.setitem(sys.modules, "mpi4py", None)
    with pytest.raises(BackendUnavailableError, match=r"pip install pcompute\[mpi\]"):
        mpi()


def test_documented_example_runs():
    """examples/distributed_primitives.py, shown in docs/distributed.rst."""
    out = check_ok(run_mpi(2, ["examples/distributed_primitives.py"]))
    assert "sum 1999000 over 2 ranks" in out
