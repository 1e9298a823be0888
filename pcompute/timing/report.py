"""Reports of the recorded timings: the table, CSV, printing at exit."""
import atexit
import csv
import sys
import threading

from .store import get_profile_info, rows as _rows

_COLUMNS = ("calls", "total", "min", "mean", "max")


def _table(rows, width):
    head = "%-*s %8s %12s %12s %12s %12s" % ((width, "name") + _COLUMNS)
    lines = [head, "-" * len(head)]
    for name, d in rows:
        label = ("  " * min(d["level"], 4)) + name
        lines.append("%-*s %8d %12.6f %12.6f %12.6f %12.6f" % (
            width, label, d["calls"], d["total"], d["min"], d["mean"], d["max"]))
    return lines


def format_profile(info=None):
    """The profile table as text (times in seconds): the run times (level 0
    by total time, then the entries timed inside a ``profile`` block, indented
    by their level), then the compile times."""
    info = get_profile_info() if info is None else info
    if not info:
        return "pcompute profile: no profiling information recorded (is " \
               "get_config().profile / PCOMPUTE_PROFILE=1 set?)\n"
    ordered = sorted(_rows(info), key=lambda kv: (kv[1].get("level", 0) > 0,
                                                  -kv[1]["total"], kv[0]))
    runs = [(n, d) for n, d in ordered if d.get("kind", "run") != "compile"]
    builds = [(n, d) for n, d in ordered if d.get("kind", "run") == "compile"]
    width = max(24, max(len(n) + 2 * min(d.get("level", 0), 4) for n, d in ordered))
    lines = ["pcompute profile (times in seconds)"]
    if runs:
        lines += _table(runs, width)
        level0 = sum(d["total"] for _, d in runs if d.get("level", 0) == 0)
        lines.append("total profiled run time: %.6f s" % level0)
    if builds:
        lines += ["", "compile time (kept apart from the run times above)"]
        lines += _table(builds, width)
        lines.append("total compile time: %.6f s"
                     % sum(d["total"] for _, d in builds))
    return "\n".join(lines) + "\n"


def print_profile(file=None):
    """Write the profile table (:func:`format_profile`) to ``file``
    (default: standard output)."""
    (file or sys.stdout).write(format_profile())


def profile2csv(fname, info=None):
    """Write the timings to the CSV file ``fname``.

    Columns: ``rank, level, function, calls, time, min, mean, max, kind``
    (the first five as in Compyle; times in seconds).  ``info`` is a
    :func:`get_profile_info` result or a list of them, one per rank (for
    parallel runs); default: this process's timings as rank 0.
    """
    if info is None:
        info = [get_profile_info()]
    elif isinstance(info, dict):
        info = [info]
    with open(fname, "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["rank", "level", "function", "calls", "time", "min",
                      "mean", "max", "kind"])
        for rank, data in enumerate(info):
            for name, d in sorted(_rows(data),
                                  key=lambda kv: (kv[1].get("level", 0),
                                                  -kv[1]["time"], kv[0])):
                out.writerow([rank, d.get("level", 0), name, d["calls"],
                              repr(float(d["time"])), repr(float(d.get("min", 0.0))),
                              repr(float(d.get("mean", 0.0))),
                              repr(float(d.get("max", 0.0))), d.get("kind", "run")])


# ---------------------------------------------------------- print at exit

_at_exit_registered = False
_exit_lock = threading.Lock()


def _print_at_exit():
    try:
        sys.stderr.write(format_profile())
        sys.stderr.flush()
    except Exception:       # interpreter shutting down, stderr closed
        pass


def register_print_at_exit():
    """Print the profile table to stderr when the process exits (once, however
    often this is called)."""
    global _at_exit_registered
    with _exit_lock:
        if _at_exit_registered:
            return
        _at_exit_registered = True
    atexit.register(_print_at_exit)


__all__ = ["format_profile", "print_profile", "profile2csv", "register_print_at_exit"]
