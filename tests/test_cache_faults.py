"""The compile cache under faults, end to end through Elementwise.

Eight processes compiling the same new kernel at once all get the right answer
and one cache entry results; a full disk (ENOSPC on write) still runs the
kernel, with one warning.  (Lower-level faults, damaged artefacts, stale locks,
read-only roots and two versions are in tests/buildsys/test_cache.py.)
"""
import errno
import json
import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import pcompute as pc
from pcompute import diskcache, errors
from pcompute.build import cache, cython_builder
from pcompute.errors import CacheWarning

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

WORKER = textwrap.dedent("""
    import json, sys, time
    sys.path.insert(0, sys.argv[1])
    import numpy as np
    import pcompute as pc
    from pcompute.build import cython_builder
    import fault_kernel
    go = sys.argv[2]
    import os
    while not os.path.exists(go):
        time.sleep(0.01)
    x = np.arange(1000, dtype=np.float64)
    y = np.zeros(1000)
    pc.Elementwise(fault_kernel.scale, backend="cython")(x, y, 3.0)
    print(json.dumps({"ok": bool(np.all(y == 3.0 * x + %(salt)d)),
                      "compiled": cython_builder.stats["compiled"]}))
""")


def test_eight_processes_compile_one_new_kernel(tmp_path):
    salt = int.from_bytes(os.urandom(3), "big")
    (tmp_path / "fault_kernel.py").write_text(
        "def scale(i, x, y, a):\n    y[i] = a * x[i] + %d\n" % salt)
    (tmp_path / "worker.py").write_text(WORKER % {"salt": salt})
    go = tmp_path / "go"
    env = dict(os.environ, PCOMPUTE_CACHE_DIR=str(tmp_path / "cache"),
               PYTHONPATH=ROOT)
    procs = [subprocess.Popen([sys.executable, str(tmp_path / "worker.py"),
                               str(tmp_path), str(go)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=env)
             for _ in range(8)]
    go.write_text("go")
    results = []
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        results.append(json.loads(out.strip().splitlines()[-1]))
    assert all(r["ok"] for r in results)
    assert sum(r["compiled"] for r in results) == 1, results
    entries = [e for e in cache.Cache(root=tmp_path / "cache").list_entries("cython")
               if "scale" in str(e["path"])]
    assert len(entries) == 1


def test_full_disk_still_runs_the_kernel(tmp_path, monkeypatch):
    monkeypatch.setenv("PCOMPUTE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(errors, "_warned", set())

    def no_space(path, data):
        raise OSError(errno.ENOSPC, "No space left on device", str(path))
    monkeypatch.setattr(diskcache, "write_atomic", no_space)
    monkeypatch.setattr(cython_builder, "_memo", {})
    salt = int.from_bytes(os.urandom(3), "big")
    src = tmp_path / "disk_kernel.py"
    src.write_text("def add(i, x):\n    x[i] = x[i] + %d\n" % salt)
    monkeypatch.syspath_prepend(str(tmp_path))
    import disk_kernel
    x = np.zeros(10)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pc.Elementwise(disk_kernel.add, backend="cython")(x)
    np.testing.assert_array_equal(x, salt)
    messages = [str(w.message) for w in caught if issubclass(w.category, CacheWarning)]
    assert len(messages) == 1 and "No space left" in messages[0]
