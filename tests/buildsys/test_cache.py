"""Tests of the content-addressed compile cache (pcompute.build.cache)."""

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
import warnings
from pathlib import Path

import pytest

from pcompute import diskcache, errors
from pcompute.build import cache
from pcompute.errors import CacheWarning

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def fresh_state(monkeypatch, tmp_path):
    """A private cache root per test, and no remembered roots or warnings."""
    monkeypatch.setattr(diskcache, "_resolved_roots", {})
    monkeypatch.setattr(errors, "_warned", set())
    monkeypatch.setenv("PCOMPUTE_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


class Builder:
    """A build_fn that writes ``payload`` and counts its calls."""

    def __init__(self, payload=b"artefact-bytes" * 100):
        self.payload = payload
        self.calls = 0

    def __call__(self, workdir):
        self.calls += 1
        out = workdir / "out.bin"
        out.write_bytes(self.payload)
        return out


def subprocess_env(root):
    env = dict(os.environ, PCOMPUTE_CACHE_DIR=str(root))
    env["PYTHONPATH"] = os.pathsep.join(
        [str(REPO)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep)
                       if p])
    return env


# ---------------------------------------------------------------- keys

def test_key_changes_with_every_part():
    base = ("source", b"flags", 3, None, ("a", "b"))
    key = cache.make_key(*base)
    assert len(key) == 64 and int(key, 16) >= 0
    assert cache.make_key(*base) == key
    for i in range(len(base)):
        changed = list(base)
        changed[i] = "other"
        assert cache.make_key(*changed) != key
    assert cache.make_key(*base, "") != key


def test_key_joining_is_unambiguous():
    assert cache.make_key("ab", "c") != cache.make_key("a", "bc")
    assert cache.make_key("a") != cache.make_key(b"a")
    assert cache.make_key(("a", "b")) != cache.make_key("a", "b")
    assert cache.make_key("1") != cache.make_key(1)
    with pytest.raises(TypeError):
        cache.make_key(object())


# ---------------------------------------------------------------- hits

def test_build_once_then_hit(fresh_state):
    store = cache.Cache()
    build = Builder()
    key = cache.make_key("hit")
    path = store.get_or_build("test", key, build, suffix=".bin")
    assert path == fresh_state / ("v" + cache.pcompute_version()) / "test" \
        / key[:2] / (key + ".bin")
    assert path.read_bytes() == build.payload
    assert store.get_or_build("test", key, build, suffix=".bin") == path
    assert build.calls == 1
    assert store.lookup("test", key, ".bin") == path
    assert [e["key"] for e in store.list_entries()] == [key]


def test_named_artefact():
    store = cache.Cache()
    key = cache.make_key("named")
    path = store.get_or_build("test", key, Builder(), ".so", name="pc_x")
    assert path.name == "pc_x.so" and path.parent.name == key[:2]


@pytest.mark.parametrize("damage", ["corrupt", "truncate", "no-meta", "empty"])
def test_damaged_artefact_is_rebuilt(damage):
    store = cache.Cache()
    build = Builder()
    key = cache.make_key("damaged", damage)
    path = store.get_or_build("test", key, build)
    data = path.read_bytes()
    if damage == "corrupt":
        path.write_bytes(data[:10] + bytes([data[10] ^ 0xFF]) + data[11:])
    elif damage == "truncate":
        path.write_bytes(data[: len(data) // 2])
    elif damage == "empty":
        path.write_bytes(b"")
    else:
        os.unlink(str(path) + ".meta")
    assert store.lookup("test", key) is None
    again = store.get_or_build("test", key, build)
    assert build.calls == 2
    assert again.read_bytes() == build.payload


def test_failed_build_leaves_no_entry():
    store = cache.Cache()
    key = cache.make_key("fails")

    def boom(workdir):
        raise RuntimeError("compiler exploded")

    with pytest.raises(RuntimeError, match="exploded"):
        store.get_or_build("test", key, boom)
    assert store.list_entries() == []
    assert not list(store.dir.rglob("*.lock"))
    assert store.get_or_build("test", key, Builder()).exists()


# ---------------------------------------------------------------- versions

def test_two_versions_do_not_mix(tmp_path):
    old = cache.Cache(tmp_path / "shared", version="1.0")
    new = cache.Cache(tmp_path / "shared", version="2.0")
    key = cache.make_key("same key")
    build_old, build_new = Builder(b"old"), Builder(b"new")
    p_old = old.get_or_build("test", key, build_old)
    p_new = new.get_or_build("test", key, build_new)
    assert p_old != p_new
    assert (p_old.read_bytes(), p_new.read_bytes()) == (b"old", b"new")
    assert build_old.calls == build_new.calls == 1
    assert [e["path"] for e in old.list_entries()] == [p_old]
    assert [e["path"] for e in new.list_entries()] == [p_new]
    old.clear()
    assert not p_old.exists() and p_new.exists()


def test_default_version_is_in_the_directory():
    assert cache.cache_dir().name == "v" + cache.pcompute_version()
    assert cache.cache_dir().parent == cache.cache_root()


# ---------------------------------------------------------------- roots

def test_default_root_is_platformdirs(monkeypatch, tmp_path):
    import platformdirs
    monkeypatch.delenv("PCOMPUTE_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    expected = Path(platformdirs.user_cache_dir("pcompute"))
    assert cache.cache_root() == expected
    assert expected.is_dir()


def _unwritable_dir(tmp_path):
    """A cache path that cannot be written, even by root."""
    ro = tmp_path / "readonly"
    ro.mkdir()
    os.chmod(ro, 0o500)
    try:
        (ro / "probe").write_text("x")
    except OSError:
        return ro  # an ordinary user: chmod is enough
    os.unlink(ro / "probe")  # root ignores the mode bits
    blocker = tmp_path / "a-regular-file"
    blocker.write_text("not a directory")
    return blocker / "cache"


def test_unwritable_root_falls_back_with_one_warning(monkeypatch, tmp_path):
    bad = _unwritable_dir(tmp_path)
    monkeypatch.setenv("PCOMPUTE_CACHE_DIR", str(bad))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        root = cache.cache_root()
        assert cache.cache_root() == root
        path = cache.Cache().get_or_build("test", cache.make_key("ro"),
                                          Builder())
    found = [w for w in caught if issubclass(w.category, CacheWarning)]
    assert len(found) == 1, [str(w.message) for w in caught]
    message = str(found[0].message)
    assert str(bad) in message and str(root) in message
    assert root.is_relative_to(tmp_path / "tmp")
    assert path.is_relative_to(root) and path.exists()
    os.chmod(tmp_path / "readonly", 0o700)


# ---------------------------------------------------------------- sources

def test_save_source_and_clear():
    key = cache.make_key("src")
    path = cache.save_source("cython", key, "pyx", "def f(): pass\n")
    assert path.name == key + ".pyx"
    assert path.read_text() == "def f(): pass\n"
    cache.Cache().get_or_build("cython", key, Builder())
    assert len(cache.list_entries()) == 1
    cache.clear()
    assert cache.list_entries() == []
    assert not path.exists()


def test_save_source_enabled(monkeypatch):
    from pcompute.config import Config, use_config
    with use_config(save_source=True, debug=False):
        assert cache.save_source_enabled()
    with use_config(save_source=False, debug=False):
        assert not cache.save_source_enabled()
        monkeypatch.setenv("PCOMPUTE_SAVE_SOURCE", "1")
        # The environment is read into the configuration (Config()), and an
        # explicit setting in code takes precedence over it.
        assert not cache.save_source_enabled()
        assert Config().save_source


# ---------------------------------------------------------------- processes

WORKER = textwrap.dedent("""
    import json, os, sys, time
    from pathlib import Path
    from pcompute.build import cache
    key, go, delay = sys.argv[1], Path(sys.argv[2]), float(sys.argv[3])
    built = []
    def build(workdir):
        built.append(os.getpid())
        time.sleep(delay)
        out = workdir / "a.bin"
        out.write_bytes(b"payload" * 1000)
        return out
    while not go.exists():
        time.sleep(0.005)
    path = cache.Cache().get_or_build("proc", key, build, ".bin")
    print(json.dumps({"built": len(built), "path": str(path),
                      "ok": path.read_bytes() == b"payload" * 1000}))
""")


def test_eight_processes_build_one_key(tmp_path, fresh_state):
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    go = tmp_path / "go"
    key = cache.make_key("concurrent", str(tmp_path))
    procs = [subprocess.Popen([sys.executable, str(script), key, str(go), "0.5"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, env=subprocess_env(fresh_state))
             for _ in range(8)]
    time.sleep(0.5)  # let them all start and spin on the go file
    go.write_text("go")
    results = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        results.append(json.loads(out))
    assert all(r["ok"] for r in results)
    assert len({r["path"] for r in results}) == 1
    # the lock file makes the others wait instead of building again
    assert sum(r["built"] for r in results) == 1
    entries = cache.Cache().list_entries("proc")
    assert len(entries) == 1 and entries[0]["key"] == key
    leftovers = [p for p in cache.Cache().dir.rglob("*")
                 if ".tmp-" in p.name or p.name.endswith(".lock")]
    assert leftovers == []


HOLDER = textwrap.dedent("""
    import sys, time
    from pcompute.build import cache
    def build(workdir):
        print("building", flush=True)
        time.sleep(600)
    cache.Cache().get_or_build("proc", sys.argv[1], build, ".bin")
""")


def test_killed_builder_does_not_block(tmp_path, fresh_state):
    script = tmp_path / "holder.py"
    script.write_text(HOLDER)
    key = cache.make_key("killed", str(tmp_path))
    proc = subprocess.Popen([sys.executable, str(script), key],
                            stdout=subprocess.PIPE, text=True,
                            env=subprocess_env(fresh_state))
    assert proc.stdout.readline().strip() == "building"
    store = cache.Cache()
    lock = Path(str(store.path_for("proc", key, ".bin")) + ".lock")
    assert lock.exists()
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert lock.exists()  # left behind by the killed process
    start = time.monotonic()
    path = store.get_or_build("proc", key, Builder(), ".bin")
    assert time.monotonic() - start < 3.0
    assert path.exists() and not lock.exists()


def _held_lock(store, name, host, heartbeat_age=0.0):
    """A build lock on a new key of kind 'test' as this (live) process on
    ``host`` writes it, its heartbeat (modification time) ``heartbeat_age``
    seconds old; returns the key and the lock's path."""
    key = cache.make_key(name)
    final = store.path_for("test", key)
    final.parent.mkdir(parents=True)
    lock = Path(str(final) + ".lock")
    lock.write_text(json.dumps({"pid": os.getpid(), "host": host}))
    old = time.time() - heartbeat_age
    os.utime(lock, (old, old))
    return key, lock


def test_lock_without_heartbeat_is_broken(tmp_path):
    """A lock of a live process on another host that stopped beating."""
    store = cache.Cache(stale_after=2.0)
    key, _ = _held_lock(store, "foreign lock", "elsewhere", heartbeat_age=30)
    start = time.monotonic()
    assert store.get_or_build("test", key, Builder()).exists()
    assert time.monotonic() - start < 1.0


@pytest.mark.parametrize("heartbeat_age", [0, 30], ids=["fresh", "late-heartbeat"])
def test_live_lock_is_waited_for_then_ignored(tmp_path, heartbeat_age):
    """A lock held by a live process on this host: waited for, never broken,
    then the kernel is built anyway at the lock timeout; the lock is left
    alone.  A heartbeat 30 s late (past stale_after: a loaded machine) does
    not make it stale while its process lives."""
    store = cache.Cache(lock_timeout=0.5, stale_after=2.0)
    key, lock = _held_lock(store, "live lock %s" % heartbeat_age,
                           socket.gethostname(), heartbeat_age)
    start = time.monotonic()
    assert store.get_or_build("test", key, Builder()).exists()
    assert 0.4 < time.monotonic() - start < 3.0
    assert lock.exists()  # not ours: left alone


def test_config_cache_dir_and_save_source(tmp_path, monkeypatch):
    """Config fields set in code win over the environment and take effect."""
    import numpy as np
    import pcompute as pc
    monkeypatch.setenv("PCOMPUTE_CACHE_DIR", str(tmp_path / "from-env"))
    with pc.use_config(cache_dir=str(tmp_path / "from-config"), save_source=True):
        assert str(cache.cache_root()).startswith(str(tmp_path / "from-config"))
        assert cache.save_source_enabled()
        salt = int.from_bytes(os.urandom(3), "big")
        src = tmp_path / "saved_kernel.py"
        src.write_text("def bump(i, x):\n    x[i] = x[i] + %d\n" % salt)
        monkeypatch.syspath_prepend(str(tmp_path))
        import saved_kernel
        x = np.zeros(3)
        pc.Elementwise(saved_kernel.bump, backend="cython")(x)
    assert x[0] == salt
    saved = list((tmp_path / "from-config").rglob("*.pyx"))
    assert saved and "bump" in saved[0].read_text()
    assert str(cache.cache_root()).startswith(str(tmp_path / "from-env"))
