"""What the benchmarks ran on: CPU, cores, library and compiler versions, date."""
import datetime
import os
import platform
import subprocess
import sys
from importlib import metadata

from .reference import compiler_version


def _version(dist):
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "not installed"


def _pcompute_version():
    try:
        import pcompute
        return pcompute.__version__
    except Exception as exc:
        return "unimportable (%s)" % exc


def cpu_model():
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def memory_gib():
    try:
        with open("/proc/meminfo") as fh:
            info = dict(line.split(":", 1) for line in fh)
        return round(int(info["MemTotal"].split()[0]) / 2**20, 1)
    except (OSError, KeyError, ValueError):
        return None


def available_bytes():
    """MemAvailable in bytes (None if unknown)."""
    try:
        with open("/proc/meminfo") as fh:
            info = dict(line.split(":", 1) for line in fh)
        return int(info["MemAvailable"].split()[0]) * 1024
    except (OSError, KeyError, ValueError):
        return None


def load_average():
    """The 1-minute load average (None where unknown)."""
    try:
        return round(os.getloadavg()[0], 2)
    except (AttributeError, OSError):
        return None


def git_revision():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root,
                             capture_output=True, text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                               cwd=root, capture_output=True, text=True,
                               timeout=10).stdout.strip()
        return rev + ("+dirty" if dirty else "") if rev else "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def opencl_device():
    try:
        from pcompute.backends.registry import get_backend
        be = get_backend("opencl")
        if be.why_unavailable():
            return "unavailable: " + be.why_unavailable()[:120]
        dev = be.queue.device
        return "%s (%s)" % (dev.name.strip(), dev.platform.name.strip())
    except Exception as exc:  # report, never fail
        return "unavailable: %s" % exc


def machine_info():
    """A flat dict of strings describing this machine and run."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:
        cores = os.cpu_count()
    return {
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "cpu": cpu_model(),
        "cores": cores,
        "memory_gib": memory_gib(),
        "load_average": load_average(),
        "omp_num_threads": os.environ.get("OMP_NUM_THREADS", "unset"),
        "os": platform.platform(),
        "python": sys.version.split()[0],
        "numpy": _version("numpy"),
        "cython": _version("Cython"),
        "gcc": compiler_version(),
        "pyopencl": _version("pyopencl"),
        "opencl_device": opencl_device(),
        "numba": _version("numba"),
        "pcompute": _pcompute_version() + " @ " + git_revision(),
    }
