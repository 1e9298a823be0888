"""One PoCL kernel cache per MPI rank.

PoCL keeps compiled kernels in one directory per user (``~/.cache/pocl``).
Several processes building programs into it at the same time is not safe:
a build can fail with ``BUILD_PROGRAM_FAILURE`` and an empty log (PoCL issue
1480; seen here with 4 MPI ranks of the decomposed MD building the same
kernel on a cold cache).  Before the first OpenCL call of a process that an
MPI launcher started, and unless the user chose ``POCL_CACHE_DIR``, pcompute
gives each rank its own directory, ``<cache>/pocl/kcache-rank<N>``: ranks never
share one, and a later run's rank N finds its kernels again.  Other OpenCL
drivers ignore the variable.
"""

import logging
import os

log = logging.getLogger("pcompute.build.opencl")

#: Environment variables in which MPI launchers give a process its rank
#: (MPICH/Hydra and Intel MPI, PMIx, Open MPI, Slurm).
RANK_VARIABLES = ("PMI_RANK", "PMIX_RANK", "OMPI_COMM_WORLD_RANK",
                  "SLURM_PROCID")


def launcher_rank(environ=None):
    """This process's MPI rank as its launcher set it, or None."""
    environ = os.environ if environ is None else environ
    for name in RANK_VARIABLES:
        value = environ.get(name, "").strip()
        if value.isdigit():
            return int(value)
    return None


def separate_pocl_cache(environ=None):
    """Set ``POCL_CACHE_DIR`` to a directory of this rank's own, if this
    process was started by an MPI launcher and the variable is unset.

    Returns the directory set, or None when nothing was changed.  Must run
    before the OpenCL platform is first queried (PoCL reads it then).
    """
    environ = os.environ if environ is None else environ
    if environ.get("POCL_CACHE_DIR"):
        return None
    rank = launcher_rank(environ)
    if rank is None:
        return None
    base = environ.get("XDG_CACHE_HOME") or os.path.join(
        os.path.expanduser("~"), ".cache")
    path = os.path.join(base, "pocl", "kcache-rank%d" % rank)
    environ["POCL_CACHE_DIR"] = path
    log.info("MPI rank %d: PoCL kernel cache %s (PoCL's shared cache is not "
             "safe for concurrent builds; set POCL_CACHE_DIR to choose)",
             rank, path)
    return path
