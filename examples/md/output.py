"""Results on disk: energies and final positions as CSV, a PNG plot."""
import json
import os

import numpy as np

AXES = "xyz"


def write_csv(directory, sim, history, info, pos=None, vel=None):
    """``energies.csv``, ``positions.csv`` and ``run.json`` in ``directory``
    (``pos``/``vel``: (n, dim) host arrays, default the simulation's)."""
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, "energies.csv")
    with open(path, "w") as f:
        f.write("step,time,kinetic,potential,total\n")
        for step, time, ke, pe, total in history:
            f.write("%d,%.6f,%.17g,%.17g,%.17g\n" % (step, time, ke, pe, total))
    pos = sim.host_positions() if pos is None else pos
    vel = sim.host_velocities() if vel is None else vel
    axes = AXES[:sim.dim]
    header = ",".join(["id"] + list(axes) + ["v" + a for a in axes])
    table = np.column_stack([np.arange(sim.n), pos, vel])
    fmt = ["%d"] + ["%.17g"] * (2 * sim.dim)
    np.savetxt(os.path.join(directory, "positions.csv"), table, fmt=fmt, delimiter=",",
               header=header, comments="")
    with open(os.path.join(directory, "run.json"), "w") as f:
        json.dump(info, f, indent=2, sort_keys=True)
        f.write("\n")
    return path


def plot(path, sim, history, pos=None):
    """A PNG of the energy history and a snapshot; False if matplotlib is missing."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    data = np.array(history)
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 5))
    for column, label in ((4, "total"), (2, "kinetic"), (3, "potential")):
        left.plot(data[:, 1], data[:, column], label=label)
    left.set_xlabel("time")
    left.set_ylabel("energy")
    left.legend()
    left.set_title("energy, N = %d" % sim.n)
    pos = sim.host_positions() if pos is None else pos
    color = pos[:, 2] if sim.dim == 3 else None
    right.scatter(pos[:, 0], pos[:, 1], s=max(0.05, min(4.0, 4000.0 / sim.n)), c=color)
    right.set_xlim(0, sim.side)
    right.set_ylim(0, sim.side)
    right.set_aspect("equal")
    right.set_title("particles at t = %g%s" % (sim.time, " (x-y, colour: z)"
                                              if sim.dim == 3 else ""))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True
