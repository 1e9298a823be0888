"""Content-addressed compile cache: the entries of
:mod:`pcompute.diskcache` (keys, root, layout, text entries), with compiled
artefacts published under a build lock.

Layout: ``<root>/v<version>/<kind>/<key[:2]>/<name><suffix>`` where ``name``
defaults to the key, with a JSON sidecar ``<artefact>.meta`` holding the key,
size and sha256 of the artefact.  An artefact whose sidecar is missing or does
not match (truncated, corrupted, half-written) is a miss and is rebuilt.

Publishing is atomic: the artefact is built in a private temporary directory,
copied next to its final place under a unique name and ``os.replace``-d in.
Builders of one key in several processes coordinate through a lock file
(``<artefact>.lock``) that its holder touches every second: waiters poll for
the artefact, a lock left by a killed process (on this host: its pid is gone;
held from another host: no heartbeat for ``stale_after`` seconds) is broken, and after ``lock_timeout`` seconds a
waiter builds on its own.  Correctness never depends on the lock.
"""

import hashlib
import json
import logging
import os
import shutil
import socket
import tempfile
import threading
import time
from pathlib import Path

from ..config import get_config
from ..errors import CacheWarning, warn_once
from .. import diskcache
# make_key, cache_root and pcompute_version are this module's too (builders
# call cache.make_key): the keys and root of every entry.
from ..diskcache import (META as _META, Entries, cache_root, make_key,  # noqa: F401
                         pcompute_version)

log = logging.getLogger("pcompute.build.cache")

_LOCK = ".lock"


def cache_dir():
    """The versioned cache directory of this pcompute version."""
    return Cache().dir


# --------------------------------------------------------------------------
# locking

def _pid_alive(pid):
    if os.name == "nt":
        return True  # os.kill(pid, 0) would terminate it on Windows
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    try:  # a killed but not yet reaped child is a zombie: dead for us
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


class _Lock:
    """An exclusive lock file with a heartbeat (mtime touched each second)."""

    def __init__(self, path, stale_after):
        self.path = path
        self.stale_after = stale_after
        self._stop = None

    def try_acquire(self):
        try:
            fd = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            return False
        with os.fdopen(fd, "w") as f:
            json.dump({"pid": os.getpid(), "host": socket.gethostname()}, f)
        self._stop = threading.Event()
        threading.Thread(target=self._beat, args=(self._stop,),
                         daemon=True, name="pcompute-cache-lock").start()
        return True

    def _beat(self, stop):
        while not stop.wait(1.0):
            try:
                os.utime(self.path)
            except OSError:
                return

    def release(self):
        if self._stop is None:
            return
        self._stop.set()
        self._stop = None
        try:
            os.unlink(self.path)
        except OSError:
            pass

    def break_if_stale(self):
        """Remove the lock if its holder is dead; True if it was removed."""
        try:
            age = time.time() - self.path.stat().st_mtime
            with open(self.path) as f:
                text = f.read()
        except FileNotFoundError:
            return True
        except OSError:
            return False
        # A holder on this host is asked directly: its lock is stale only when
        # its process is gone.  A heartbeat can stall for seconds on a loaded
        # machine (the CI's two test workers and eight compiling processes on
        # two cores broke a live builder's lock, and its kernel was compiled
        # twice); the heartbeat's age decides only for another host's lock,
        # or one without a readable holder.
        try:
            info = json.loads(text)
            if info.get("host") == socket.gethostname():
                stale = not _pid_alive(int(info["pid"]))
            else:
                stale = age > self.stale_after
        except (ValueError, KeyError, TypeError):
            stale = age > self.stale_after  # half-written, or by a killed process
        if stale:
            log.debug("breaking stale cache lock %s", self.path)
            try:
                os.unlink(self.path)
            except OSError:
                pass
        return stale


# --------------------------------------------------------------------------
# the cache

def _sha256_file(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


class Cache(Entries):
    """A versioned, content-addressed artefact cache under ``root``: the
    :class:`~pcompute.diskcache.Entries` of one pcompute version, with
    compiled artefacts published under a build lock.

    ``root`` defaults to :func:`cache_root`, ``version`` to
    :func:`pcompute_version`; entries of different versions never mix.
    """

    def __init__(self, root=None, version=None, lock_timeout=60.0,
                 stale_after=5.0):
        super().__init__(root, version)
        self.lock_timeout = lock_timeout
        self.stale_after = stale_after

    def lookup(self, kind, key, suffix="", name=None):
        """The path of a valid artefact for ``key``, or None."""
        path = self.path_for(kind, key, suffix, name)
        return path if self._valid(path, key) else None

    def _valid(self, path, key):
        try:
            with open(str(path) + _META) as f:
                meta = json.load(f)
            size = path.stat().st_size
        except (OSError, ValueError):
            return False
        try:
            if meta["key"] != key or meta["size"] != size:
                return False
            return _sha256_file(path) == meta["sha256"]
        except (KeyError, TypeError, OSError):
            return False

    def get_or_build(self, kind, key, build_fn, suffix="", name=None):
        """Return the path of a valid artefact for ``key``, building it if
        needed with ``build_fn(workdir) -> Path`` in a private directory."""
        final = self.path_for(kind, key, suffix, name)
        if self._valid(final, key):
            log.debug("cache hit %s", final)
            return final
        try:
            final.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            return self._build_uncached(build_fn, final, exc)
        lock = _Lock(Path(str(final) + _LOCK), self.stale_after)
        deadline = time.monotonic() + self.lock_timeout
        while not lock.try_acquire():
            if lock.break_if_stale():
                continue
            if self._valid(final, key):
                log.debug("cache hit %s (built by another process)", final)
                return final
            if time.monotonic() > deadline:
                log.info("gave up waiting for %s; building anyway", lock.path)
                break
            time.sleep(0.05)
        try:
            if self._valid(final, key):
                return final
            return self._build_and_publish(build_fn, final, key, kind)
        finally:
            lock.release()

    def _build_and_publish(self, build_fn, final, key, kind):
        with tempfile.TemporaryDirectory(prefix="pcompute-build-") as work:
            built = Path(build_fn(Path(work)))
            data = built.read_bytes()
            meta = {"key": key, "kind": kind, "file": final.name,
                    "size": len(data),
                    "sha256": hashlib.sha256(data).hexdigest(),
                    "created": time.time(), "version": self.version}
            try:
                diskcache.write_atomic(final, data)
                diskcache.write_atomic(Path(str(final) + _META),
                              json.dumps(meta).encode())
            except OSError as exc:
                return self._build_uncached(lambda w: built, final, exc)
        log.debug("cached %s", final)
        return final

    def _build_uncached(self, build_fn, final, exc):
        warn_once("cannot write to the pcompute cache (%s); artefacts are "
                  "kept for this process only" % exc, CacheWarning)
        keep = Path(tempfile.mkdtemp(prefix="pcompute-uncached-"))
        import atexit
        atexit.register(shutil.rmtree, keep, True)
        with tempfile.TemporaryDirectory(prefix="pcompute-build-") as work:
            built = Path(build_fn(Path(work)))
            target = keep / final.name
            shutil.copyfile(built, target)
        return target

    def save_source(self, kind, key, name, text):
        """Write ``text`` beside the artefact as ``<key>.<name>``; its path."""
        path = self.dir / kind / key[:2] / ("%s.%s" % (key, name))
        path.parent.mkdir(parents=True, exist_ok=True)
        diskcache.write_atomic(path, text.encode("utf-8"))
        return path

    def list_entries(self, kind=None):
        """Dicts (kind, key, path, size, created) of the entries in this
        version's directory, optionally of one kind only."""
        entries = []
        base = self.dir / kind if kind else self.dir
        for meta_path in sorted(base.rglob("*" + _META)):
            try:
                meta = json.loads(meta_path.read_text())
                path = meta_path.with_name(meta["file"])
                entries.append({"kind": meta["kind"], "key": meta["key"],
                                "path": path, "size": meta["size"],
                                "created": meta.get("created")})
            except (OSError, ValueError, KeyError, TypeError):
                continue
        return entries

    def clear(self, all_versions=False):
        """Remove this version's entries (every version's if asked)."""
        target = self.dir.parent if all_versions else self.dir
        if all_versions:
            for child in target.glob("v*"):
                shutil.rmtree(child, ignore_errors=True)
        else:
            shutil.rmtree(target, ignore_errors=True)


# --------------------------------------------------------------------------
# module-level conveniences on the default cache

def get_or_build(kind, key, build_fn, suffix="", name=None):
    """:meth:`Cache.get_or_build` on the default cache."""
    return Cache().get_or_build(kind, key, build_fn, suffix, name)


def save_source(kind, key, name, text):
    """:meth:`Cache.save_source` on the default cache."""
    return Cache().save_source(kind, key, name, text)


def list_entries(kind=None):
    """:meth:`Cache.list_entries` on the default cache."""
    return Cache().list_entries(kind)


def clear(all_versions=False):
    """:meth:`Cache.clear` on the default cache."""
    Cache().clear(all_versions)


def save_source_enabled():
    """True if ``get_config().save_source`` or ``.debug`` asks to keep
    generated sources (``PCOMPUTE_SAVE_SOURCE`` sets ``save_source`` in the
    configuration, so ``set_config``/``use_config`` take precedence)."""
    config = get_config()
    return bool(config.save_source or config.debug)
