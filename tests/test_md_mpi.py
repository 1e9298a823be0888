"""The MD example decomposed over MPI ranks (marked ``mpi``): trajectories
against the numpy reference of the whole system with 1, 2 and 4 ranks (slabs
and a 2x2 grid, walls and periodic, 2-D and 3-D), no particle lost or
duplicated, and the command line (rank-0 output, clear errors)."""
import os

import numpy as np
import pytest

from mpi_launch import case_env, check_ok, run_mpi

pytestmark = pytest.mark.mpi

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_decomposed_md_matches_numpy(backend):
    """Double: 4 ranks, a 2x2 grid (3-D periodic, skin) and slabs (2-D walls,
    rebuilt every step), 100 steps; the python backend (an interpreter in
    every rank) 50 steps, which still move particles between ranks (the
    program asserts it).  float32: 2 ranks, slabs, first 25 steps only."""
    if backend.use_double:
        ranks, configs = 4, ["2x2:3:periodic:0.3", "4:2:walls:0"]
    else:
        ranks, configs = 2, ["2:2:walls:0.3", "2:3:periodic:0"]
    steps = ["--steps=50"] if backend.name == "python" else []
    out = check_ok(run_mpi(ranks, ["-m", "mpi_programs.md"] + steps + configs, backend,
                           timeout=400))
    for config in configs:
        assert config + ": ok" in out


def test_decomposed_md_other_grids():
    """Cython, double: one rank (3-D walls), two ranks (2-D walls with a skin
    on a 1x2 grid; 3-D periodic slabs rebuilt every step), four ranks (2-D
    walls on a 2x2 grid, 3-D walls on a 2x1x2 grid)."""
    env = dict(PCOMPUTE_BACKEND="cython", PCOMPUTE_OPENMP="0", PCOMPUTE_DOUBLE="1")
    out = check_ok(run_mpi(1, ["-m", "mpi_programs.md", "1:3:walls:0.3"],
                           env=case_env(**env)))
    assert "1:3:walls:0.3: ok" in out
    for ranks, configs in ((2, ["1x2:2:walls:0.3", "2:3:periodic:0"]),
                           (4, ["2x2:2:walls:0.3", "2x1x2:3:walls:0"])):
        out = check_ok(run_mpi(ranks, ["-m", "mpi_programs.md"] + configs,
                               env=case_env(**env)))
        for config in configs:
            assert config + ": ok" in out


def _cli(ranks, args, tmp_path=None):
    env = case_env(PCOMPUTE_BACKEND="cython", PCOMPUTE_OPENMP="0")
    return run_mpi(ranks, ["-m", "examples.md"] + args, env=env, timeout=300)


def test_cli_decompose_writes_once_and_matches_one_process(tmp_path):
    args = ["-n", "300", "--steps", "30", "--log-every", "10", "--skin", "0.3",
            "--temperature", "0.5"]
    one = tmp_path / "one"
    check_ok(_cli(1, args + ["--output", str(one)]))
    many = tmp_path / "many"
    out = check_ok(_cli(2, args + ["--decompose", "2", "--output", str(many)]))
    assert out.count("30 steps in") == 1                  # rank 0 prints, once
    assert "2 MPI ranks (grid 2x1)" in out
    want = np.loadtxt(one / "energies.csv", delimiter=",", skiprows=1)
    got = np.loadtxt(many / "energies.csv", delimiter=",", skiprows=1)
    np.testing.assert_allclose(got, want, rtol=1e-10)
    pos_want = np.loadtxt(one / "positions.csv", delimiter=",", skiprows=1)
    pos_got = np.loadtxt(many / "positions.csv", delimiter=",", skiprows=1)
    np.testing.assert_allclose(pos_got, pos_want, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("ranks,args,words", [
    (4, ["-n", "100", "--decompose", "4x4"], "needs 16 ranks, but the job has 4"),
    (4, ["-n", "16", "--decompose", "4", "--skin", "2"], "too small for a 4x1 grid"),
    (2, ["-n", "100", "--decompose", "2", "--nnps", "count"], "--nnps cells"),
    (2, ["-n", "100", "--decompose", "2x"], "not a grid of ranks")])
def test_cli_decompose_errors_once_and_exit_2(ranks, args, words):
    result = _cli(ranks, args + ["--steps", "1"])
    assert result.returncode == 2, result.stderr
    lines = [line for line in result.stderr.splitlines() if "error" in line]
    assert len(lines) == 1 and words in lines[0], result.stderr


def test_failing_rank_aborts_a_decomposed_run():
    env = case_env(PCOMPUTE_BACKEND="cython", PCOMPUTE_OPENMP="0")
    result = run_mpi(2, ["-m", "mpi_programs.md_fail"], env=env, timeout=120)
    assert result.returncode != 0
    assert "rank 1 gives up at step 3" in result.stderr
    assert "not reached" not in result.stdout
