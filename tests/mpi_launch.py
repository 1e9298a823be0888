"""Start a Python program under ``mpiexec`` from a test (the pip-installed MPI).

``run_mpi(ranks, [module, args...], case)`` runs ``python -m module`` on
``ranks`` ranks with the backend configuration of a ``backend`` fixture case
(PCOMPUTE_* variables), one OpenMP and one PoCL thread per rank, and a timeout: a hung
job is a failure, never a hang of the test suite.
"""
import os
import shutil
import signal
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def mpiexec_path():
    """mpiexec next to this Python (a virtual environment's), else on PATH."""
    local = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    return local if os.access(local, os.X_OK) else shutil.which("mpiexec")


def why_no_mpi():
    """None when mpi4py and mpiexec are here, else the reason."""
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return "mpi4py is not installed (pip install -e '.[test]' installs it)"
    if mpiexec_path() is None:
        return "no mpiexec next to %s or on PATH (pip install mpich)" % sys.executable
    return None


def require_mpi():
    reason = why_no_mpi()
    if reason is None:
        return
    if os.environ.get("PCOMPUTE_REQUIRE_BACKENDS") == "1":
        pytest.fail(reason)
    pytest.skip(reason)


def case_env(case=None, **extra):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([ROOT, HERE, env.get("PYTHONPATH", "")])
    env.setdefault("OMP_NUM_THREADS", "1")
    # PoCL's pthread device starts a thread per core in every rank, whatever
    # OMP_NUM_THREADS says: one per rank too
    env.setdefault("POCL_MAX_PTHREAD_COUNT", "1")
    if case is not None:
        env["PCOMPUTE_BACKEND"] = case.name
        env["PCOMPUTE_OPENMP"] = "1" if case.openmp else "0"
        env["PCOMPUTE_DOUBLE"] = "1" if case.use_double else "0"
    env.update({k: str(v) for k, v in extra.items()})
    return env


def run_mpi(ranks, argv, case=None, timeout=240, env=None):
    """``mpiexec -n ranks python argv...``; a CompletedProcess (text output)."""
    require_mpi()
    cmd = [mpiexec_path(), "-n", str(ranks), sys.executable] + list(argv)
    # stdin from /dev/null: mpiexec forwards its stdin to rank 0 and aborts the
    # job when nobody reads it
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env or case_env(case),
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail("mpiexec -n %d %s hung for %d s\nstdout:\n%s\nstderr:\n%s"
                    % (ranks, " ".join(argv), timeout, out[-3000:], err[-3000:]))
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


def check_ok(result):
    assert result.returncode == 0, "exit %d\nstdout:\n%s\nstderr:\n%s" % (
        result.returncode, result.stdout[-4000:], result.stderr[-6000:])
    return result.stdout
