"""Each MPI rank gets its own PoCL kernel cache (pcompute.build.opencl_ranks):
PoCL's shared cache fails concurrent builds (seen with 4 ranks of the
decomposed MD on a cold cache)."""
import os

from pcompute.build.opencl_ranks import launcher_rank, separate_pocl_cache


def test_a_rank_started_by_a_launcher_gets_its_own_cache(tmp_path):
    env = {"PMI_RANK": "3", "XDG_CACHE_HOME": str(tmp_path)}
    path = separate_pocl_cache(env)
    assert path == os.path.join(str(tmp_path), "pocl", "kcache-rank3")
    assert env["POCL_CACHE_DIR"] == path
    other = {"PMI_RANK": "1", "XDG_CACHE_HOME": str(tmp_path)}
    assert separate_pocl_cache(other) != path


def test_every_launchers_rank_variable_is_read():
    for name in ("PMI_RANK", "PMIX_RANK", "OMPI_COMM_WORLD_RANK",
                 "SLURM_PROCID"):
        assert launcher_rank({name: "2"}) == 2
    assert launcher_rank({}) is None
    assert launcher_rank({"PMI_RANK": ""}) is None


def test_the_users_choice_and_plain_processes_are_left_alone():
    env = {"PMI_RANK": "0", "POCL_CACHE_DIR": "/somewhere"}
    assert separate_pocl_cache(env) is None
    assert env["POCL_CACHE_DIR"] == "/somewhere"
    plain = {}
    assert separate_pocl_cache(plain) is None
    assert "POCL_CACHE_DIR" not in plain
