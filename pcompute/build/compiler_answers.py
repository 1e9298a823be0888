"""The C compiler's answers kept in the cache until the compiler changes.

The compiler's ``--version`` and ``-###`` answers (:mod:`toolchain`) are
kept (kind ``toolchain``) so that a new process starts no compiler to make a
build key (5-40 ms a probe).  They are keyed on the compiler that really
runs: the file of the driver ``CC`` names and that of its compiler proper
(gcc's ``cc1``; clang runs itself with ``-cc1``), the program the driver's
``-###`` listing starts.  A launcher (``ccache gcc``, ccache's masquerading
links, a shell script) can run an upgraded or another compiler without a
change to its own file, so its compiler proper is asked for in every process
(one ``-###``: 2-4 ms); a driver binary names the same compiler proper until
the driver itself changes, so that answer is kept too and a new process only
looks at the two files (a stat each).
"""

import functools
import logging
import os
import shlex
import shutil
import subprocess

from pcompute import diskcache

log = logging.getLogger("pcompute.build.compiler_answers")

#: The cache kind of the compiler's kept answers.
PROBE_KIND = "toolchain"

#: Programs that run a compiler named after them or behind them (their own
#: file says nothing of the compiler's).
LAUNCHERS = frozenset(("ccache", "sccache", "distcc", "icecc", "buildcache"))


def kept_answer(what, command, extra, run, listing=True):
    """The text ``run()`` gives (``(text, keep)``) for the compiler
    ``command``, kept in the cache when ``keep``, keyed on ``what``,
    ``extra``, the command and :func:`compiler_files`: a new process reads it
    back instead of starting the compiler, and an upgraded (or replaced)
    driver or compiler proper is asked again.  ``listing`` False (MSVC: no
    ``-###``) keys on the driver's file alone."""
    files = compiler_files(tuple(command), listing)
    if files is None:           # probed (and said) every time
        return run()[0]
    key = diskcache.make_key("compiler-probe", what, list(command), list(extra),
                             [list(f) for f in files])
    entries = diskcache.Entries()
    text = entries.read_text(PROBE_KIND, key)
    if text is None:
        text, keep = run()
        if keep:
            entries.write_text(PROBE_KIND, key, text)
    return text


@functools.lru_cache(maxsize=None)
def compiler_files(command, listing=True):
    """``((path, size, mtime_ns), ...)`` of the compiler ``command``'s driver
    (its links resolved) and of its compiler proper, or None when they cannot
    be told (no such driver, or a launcher whose compiler names no compiler
    proper): answers are then not kept.  Once per process and command."""
    try:
        driver = _stat(os.path.realpath(shutil.which(command[0]) or command[0]))
    except OSError:
        return None
    if not listing:
        return (driver,)
    if is_launcher(driver[0]):
        proper = ask_proper(command)
        if not proper:
            return None
    else:
        proper = _kept_proper(command, driver)
        if not proper:          # a driver without a -### listing: keyed on itself
            return (driver,)
    try:
        return driver, _stat(proper)
    except OSError:             # gone since it was named: not kept this time
        return None


def _stat(path):
    st = os.stat(path)
    return path, st.st_size, st.st_mtime_ns


def is_launcher(path):
    """True for a known compiler launcher or a script (``#!``)."""
    name = os.path.basename(path).lower()
    if name.endswith(".exe"):
        name = name[:-4]
    if name in LAUNCHERS:
        return True
    try:
        with open(path, "rb") as f:
            return f.read(2) == b"#!"
    except OSError:
        return False


def _kept_proper(command, driver):
    """The compiler proper of a driver binary, asked once and kept keyed on
    the driver's file ("" when its listing names none); a driver that could
    not be run is asked again in the next process."""
    key = diskcache.make_key("compiler-proper", list(command), list(driver))
    entries = diskcache.Entries()
    proper = entries.read_text(PROBE_KIND, key)
    if proper is None:
        proper = ask_proper(command)
        if proper is not None:
            entries.write_text(PROBE_KIND, key, proper)
    return proper


def ask_proper(command):
    """The real path of the program the compiler ``command``'s ``-###``
    listing runs as its compiler proper; "" when the listing names none, None
    when the compiler could not be run."""
    exe = shutil.which(command[0]) or command[0]
    args = [exe] + list(command[1:]) + ["-###", "-E", "-x", "c", os.devnull]
    try:
        out = subprocess.run(args, capture_output=True, text=True,
                             errors="replace", timeout=30)
    except (OSError, subprocess.SubprocessError) as exc:
        log.debug("%s: no -### listing (%s)", " ".join(command), exc)
        return None
    for words in proper_lines(out.stderr or ""):
        path = shutil.which(words[0]) if not os.path.isabs(words[0]) else words[0]
        if path and os.path.exists(path):
            return os.path.realpath(path)
    log.debug("%s: no compiler proper in its -### listing", " ".join(command))
    return ""


def proper_lines(listing):
    """The words of each line of a ``-###`` listing that starts the compiler
    proper (gcc: ``.../cc1 ...``; clang: ``".../clang" "-cc1" ...``)."""
    for line in listing.splitlines():
        words = _words(line)
        if any(w.endswith(("cc1", "cc1.exe")) or w == "-cc1" for w in words):
            yield words


def _words(line):
    try:
        return shlex.split(line)
    except ValueError:
        return line.split()
