"""Entries on disk under the cache directory: keys, the root, text entries.

The bottom of pcompute's content-addressed cache, beside :mod:`pcompute.config`
and :mod:`pcompute.errors` on the import page (ARCHITECTURE.md): every stage
may use it.  :mod:`pcompute.templates` keeps its rendered texts here, and
:class:`pcompute.build.cache.Cache` (compiled artefacts, build locks) is a
:class:`Entries` with more.

Layout: ``<root>/v<version>/<kind>/<key[:2]>/<name><suffix>`` with a JSON
sidecar ``<entry>.meta`` holding the key, size and sha256 of the entry; an
entry whose sidecar is missing or does not match is a miss.  Writes are
atomic (a unique temporary name, then ``os.replace``).
"""

import functools
import hashlib
import json
import logging
import os
import struct
import sys
import tempfile
import threading
import time
from pathlib import Path

from .config import get_config
from .errors import CacheWarning, warn_once

log = logging.getLogger("pcompute.diskcache")

_DEFAULT_VERSION = "0.1.0"
META = ".meta"
_TMP = ".tmp-"

_state_lock = threading.Lock()
_resolved_roots = {}      # requested root -> resolved Path


# --------------------------------------------------------------------------
# version and keys

def pcompute_version():
    """The running pcompute version: ``pcompute.__version__`` if the package
    is initialised, else the installed distribution's, else "0.1.0"."""
    pkg = sys.modules.get("pcompute")
    version = getattr(pkg, "__version__", None)
    if isinstance(version, str) and version:
        return version
    return _metadata_version()


@functools.lru_cache(maxsize=None)
def _metadata_version():
    try:
        from importlib.metadata import version
        return version("pcompute")
    except Exception:  # not installed, or broken metadata
        return _DEFAULT_VERSION


def make_key(*parts):
    """sha256 hex digest of ``parts``, joined unambiguously.

    Each part is a str, bytes, int, float, bool, None, or a tuple/list of
    those (recursively); every item is type-tagged and length-prefixed, so
    ``make_key("ab", "c") != make_key("a", "bc")``.
    """
    digest = hashlib.sha256()
    for part in parts:
        _feed(digest, part)
    return digest.hexdigest()


def _feed(digest, part):
    if isinstance(part, bytes):
        tag, data = b"b", part
    elif isinstance(part, str):
        tag, data = b"s", part.encode("utf-8", "surrogatepass")
    elif part is None or isinstance(part, (bool, int, float)):
        tag, data = b"r", repr(part).encode()
    elif isinstance(part, (tuple, list)):
        digest.update(b"t" + struct.pack("<Q", len(part)))
        for item in part:
            _feed(digest, item)
        return
    else:
        raise TypeError("make_key: cannot hash a %s" % type(part).__name__)
    digest.update(tag + struct.pack("<Q", len(data)) + data)


# --------------------------------------------------------------------------
# root directory

def _usable_dir(path, private=False):
    """Create ``path`` if needed; True if we can write into it."""
    try:
        path.mkdir(parents=True, exist_ok=True, mode=0o700 if private else 0o777)
        if private and hasattr(os, "getuid"):
            st = path.stat()
            if st.st_uid != os.getuid() or st.st_mode & 0o022:
                return False  # someone else's shared temp directory
        return os.access(path, os.W_OK | os.X_OK)
    except OSError:
        return False


def _user_id():
    if hasattr(os, "getuid"):
        return str(os.getuid())
    import getpass
    return getpass.getuser()


def cache_root():
    """The unversioned cache root (created if missing).

    ``get_config().cache_dir`` if set in code, else ``PCOMPUTE_CACHE_DIR``,
    else ``platformdirs.user_cache_dir``.  If
    that cannot be written, a per-user temporary directory is used instead and
    a :class:`CacheWarning` naming both is emitted once.
    """
    config = get_config()
    requested = config.cache_dir if config.cache_dir_explicit else \
        os.environ.get("PCOMPUTE_CACHE_DIR")
    if not requested:
        import platformdirs
        requested = platformdirs.user_cache_dir("pcompute")
    requested = os.path.expanduser(requested)
    with _state_lock:
        root = _resolved_roots.get(requested)
    if root is not None:
        return root
    root = Path(requested)
    if not _usable_dir(root):
        fallback = Path(tempfile.gettempdir()) / ("pcompute-cache-" + _user_id())
        if not _usable_dir(fallback, private=True):
            fallback = Path(tempfile.mkdtemp(prefix="pcompute-cache-"))
        warn_once("pcompute cache directory %s is not writable; using %s "
                  "instead (set PCOMPUTE_CACHE_DIR to choose another)"
                  % (requested, fallback), CacheWarning)
        root = fallback
    with _state_lock:
        _resolved_roots[requested] = root
    return root


# --------------------------------------------------------------------------
# entries

def write_atomic(path, data):
    """Write ``data`` to ``path`` through a unique temporary name and
    ``os.replace``: a reader sees the old file or the new one, whole."""
    tmp = path.with_name("%s%s%d-%s" % (path.name, _TMP, os.getpid(),
                                         os.urandom(4).hex()))
    try:
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        unlink_quietly(tmp)
        raise


def unlink_quietly(path):
    try:
        os.unlink(path)
    except OSError:
        pass


class Entries:
    """The entries of one pcompute version under ``root`` (default
    :func:`cache_root`; ``version``, default :func:`pcompute_version`):
    entries of different versions never mix."""

    def __init__(self, root=None, version=None):
        root = Path(root) if root is not None else cache_root()
        self.version = version or pcompute_version()
        self.dir = root / ("v" + self.version)

    def path_for(self, kind, key, suffix="", name=None):
        """Where the entry of ``key`` lives (it may not exist)."""
        return self.dir / kind / key[:2] / ((name or key) + suffix)

    def read_text(self, kind, key, suffix=".txt"):
        """The text :meth:`write_text` stored under ``key``, or None (none
        stored, or a damaged entry: a miss)."""
        path = self.path_for(kind, key, suffix)
        try:
            with open(str(path) + META) as f:
                meta = json.load(f)
            data = path.read_bytes()
            if meta["key"] != key or meta["size"] != len(data) or \
                    hashlib.sha256(data).hexdigest() != meta["sha256"]:
                return None
            return data.decode("utf-8")
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def write_text(self, kind, key, text, suffix=".txt"):
        """Store ``text`` under ``key`` as an entry like any other (atomic
        writes, checksummed), for a text that can be made again: when it
        cannot be written, nothing is kept (said at debug level; the
        artefacts that cannot be made again warn) and False is returned."""
        final = self.path_for(kind, key, suffix)
        data = text.encode("utf-8")
        meta = {"key": key, "kind": kind, "file": final.name, "size": len(data),
                "sha256": hashlib.sha256(data).hexdigest(), "created": time.time(),
                "version": self.version}
        try:
            final.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(final, data)
            write_atomic(Path(str(final) + META), json.dumps(meta).encode())
        except OSError as exc:
            log.debug("not cached: %s (%s)", final, exc)
            return False
        return True
