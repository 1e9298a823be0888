"""Tests of compiler identity and OpenMP detection (pcompute.build.toolchain)."""

import os
import shutil
import subprocess
import sys
import time
import warnings

import pytest

from pcompute import diskcache, errors
from pcompute.build import cache, compiler_answers, toolchain
from pcompute.errors import CacheWarning, OpenMPWarning

needs_gcc = pytest.mark.skipif(
    sys.platform == "win32" or shutil.which(toolchain.compiler_command()[0])
    is None, reason="no Unix C compiler found")


@pytest.fixture(autouse=True)
def fresh_state(monkeypatch, tmp_path):
    """Private cache dir; forget per-process probe results and warnings."""
    monkeypatch.setenv("PCOMPUTE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(diskcache, "_resolved_roots", {})
    monkeypatch.delenv("PCOMPUTE_OPENMP_CFLAGS", raising=False)
    monkeypatch.delenv("PCOMPUTE_OPENMP_LDFLAGS", raising=False)
    monkeypatch.setattr(errors, "_warned", set())
    toolchain._openmp_flags.cache_clear()
    yield
    toolchain._openmp_flags.cache_clear()


def test_compiler_identity():
    ident = toolchain.compiler_identity()
    assert toolchain.compiler_command()[0] in ident
    assert toolchain.compiler_identity() is ident  # cached


@needs_gcc
def test_compiler_identity_follows_cc(monkeypatch):
    before = toolchain.compiler_identity()
    monkeypatch.setenv("CC", toolchain.compiler_command()[0] + " -O1")
    assert toolchain.compiler_identity() != before
    assert "-O1" in toolchain.compiler_identity()


def test_python_build_flags():
    flags = toolchain.python_build_flags()
    assert any(os.path.exists(os.path.join(d, "Python.h"))
               for d in flags["include_dirs"])
    assert flags["ext_suffix"].endswith((".so", ".pyd"))
    assert sys.implementation.cache_tag in flags["python"]


@needs_gcc
def test_openmp_found_here_and_stored(monkeypatch):
    start = time.perf_counter()
    flags = toolchain.openmp_flags()
    elapsed = time.perf_counter() - start
    assert flags is not None and "-fopenmp" in flags[0] + flags[1]
    assert elapsed < 5.0
    stored = list((cache.cache_dir() / "toolchain").glob("openmp-*.json"))
    assert len(stored) == 1
    # A new process (simulated: forget the in-process memo) reads the file
    # instead of probing again.
    toolchain._openmp_flags.cache_clear()

    def no_probe(*args, **kwargs):
        raise AssertionError("probed again")

    monkeypatch.setattr(toolchain, "probe_openmp", no_probe)
    assert toolchain.openmp_flags() == flags


@needs_gcc
def test_env_override_is_honoured(monkeypatch):
    monkeypatch.setenv("PCOMPUTE_OPENMP_CFLAGS", "-fopenmp -DPC_MARK=1")
    monkeypatch.setenv("PCOMPUTE_OPENMP_LDFLAGS", "-fopenmp -lm")
    with warnings.catch_warnings():
        warnings.simplefilter("error", OpenMPWarning)
        flags = toolchain.openmp_flags()
    assert flags == (["-fopenmp", "-DPC_MARK=1"], ["-fopenmp", "-lm"])


@needs_gcc
def test_ldflags_default_to_cflags(monkeypatch):
    monkeypatch.setenv("PCOMPUTE_OPENMP_CFLAGS", "-fopenmp")
    assert toolchain.openmp_flags() == (["-fopenmp"], ["-fopenmp"])


@needs_gcc
def test_bogus_override_warns_and_falls_back(monkeypatch):
    monkeypatch.setenv("PCOMPUTE_OPENMP_CFLAGS", "--no-such-flag-pcompute")
    with pytest.warns(OpenMPWarning, match="PCOMPUTE_OPENMP_CFLAGS"):
        flags = toolchain.openmp_flags()
    assert flags is not None and "-fopenmp" in flags[0]


@needs_gcc
def test_probe_reports_failure_log():
    ok, log = toolchain.probe_openmp(["--no-such-flag-pcompute"], [])
    assert not ok and "no-such-flag-pcompute" in log
    ok, log = toolchain.probe_openmp(["-fopenmp"], ["-fopenmp"])
    assert ok, log


def test_no_openmp_warning_once():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        toolchain.warn_no_openmp()
        toolchain.warn_no_openmp()
    found = [w for w in caught if issubclass(w.category, OpenMPWarning)]
    assert len(found) == 1
    text = str(found[0].message)
    assert "serially" in text and "PCOMPUTE_OPENMP_CFLAGS" in text
    # errors.warn_once keys on the class and the message: the same text as
    # another class is a warning of its own, once too.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(2):
            errors.warn_once(text, CacheWarning)
            toolchain.warn_no_openmp()
    assert [w.category for w in caught] == [CacheWarning]


def test_no_candidate_works(monkeypatch):
    monkeypatch.setattr(toolchain, "probe_openmp",
                        lambda *a, **k: (False, "nope"))
    assert toolchain.openmp_flags() is None


FAKE_CC = """#!/bin/sh
here="$(dirname "$0")"
echo "$*" >> "$here/calls"
case "$*" in
  *-march=native*) echo ' "'"$here"'/cc1" -E %(target)s' >&2 ;;
  *-###*) echo ' "'"$here"'/cc1" -E' >&2 ;;
  *--version*) echo "fakecc (%(name)s) 1.0" ;;
esac
"""


def _fake_compiler(folder, name, target=True):
    """A /bin/sh stand-in for gcc in ``folder`` (``fakecc``) whose -### listing
    runs ``folder/cc1`` (written too), answering for the CPU ``name`` (no
    target options with ``target`` False); an existing one is upgraded in
    place (both files rewritten, their modification times a second later)."""
    cc, proper = folder / "fakecc", folder / "cc1"
    flags = "-march=%s -mavx2 -mtune=%s" % (name, name) if target else ""
    for path, text in ((cc, FAKE_CC % {"name": name, "target": flags}), (proper, name)):
        old = path.stat().st_mtime_ns if path.exists() else None
        path.write_text(text)
        if old is not None:
            os.utime(path, ns=(old, old + 10 ** 9))
    cc.chmod(0o755)
    return cc


def _calls(folder):
    return (folder / "calls").read_text().splitlines()


def _as_a_new_process():
    toolchain._identity.cache_clear()
    toolchain._native_target.cache_clear()
    compiler_answers.compiler_files.cache_clear()


@needs_gcc
def test_compiler_answers_are_kept_until_the_compiler_changes(tmp_path, monkeypatch):
    """The compiler's --version and -### answers are asked once, and which
    compiler proper a driver binary runs: a new process reads them from the
    cache and starts no compiler; an upgraded compiler proper (the driver
    unchanged) is asked again."""
    script = _fake_compiler(tmp_path, "znver3")
    stub = tmp_path / "driver.c"
    stub.write_text('#include <unistd.h>\nint main(int c, char **v) '
                    '{ execv("%s", v); return 127; }\n' % script)
    driver = tmp_path / "driver"
    subprocess.run(toolchain.compiler_command() + [str(stub), "-o", str(driver)], check=True)
    shutil.copy(driver, tmp_path / "ccache")
    assert not compiler_answers.is_launcher(str(driver))
    assert compiler_answers.is_launcher(str(tmp_path / "ccache"))
    assert compiler_answers.is_launcher(str(script))
    monkeypatch.setenv("CC", str(driver))
    monkeypatch.setattr(toolchain, "native_flags", lambda: ["-march=native"])
    _as_a_new_process()
    try:
        first = toolchain.compiler_identity(), toolchain.native_target()
        assert "fakecc (znver3) 1.0" in first[0] and first[1] == \
            "-march=znver3 -mavx2 -mtune=znver3"
        assert len(_calls(tmp_path)) == 3     # its compiler proper, --version, -march=native
        _as_a_new_process()
        assert (toolchain.compiler_identity(), toolchain.native_target()) == first
        assert len(_calls(tmp_path)) == 3     # not asked
        _fake_compiler(tmp_path, "znver4")    # upgraded: cc1 (and the answers) changed
        _as_a_new_process()
        assert "fakecc (znver4) 1.0" in toolchain.compiler_identity()
        assert toolchain.native_target() == "-march=znver4 -mavx2 -mtune=znver4"
        assert len(_calls(tmp_path)) == 5     # the same driver: the same proper, not asked
    finally:
        _as_a_new_process()


@pytest.mark.skipif(sys.platform == "win32", reason="a /bin/sh compiler stand-in")
def test_an_upgrade_behind_a_wrapper_is_seen(tmp_path, monkeypatch):
    """CC a script that runs the compiler (as ``ccache gcc`` runs gcc): the
    script does not change when the compiler behind it does, so each process
    asks it for its compiler proper (one -###) and keys on that."""
    script = _fake_compiler(tmp_path, "znver3")
    wrapper = tmp_path / "wrapper"
    wrapper.write_text('#!/bin/sh\nexec "%s" "$@"\n' % script)
    wrapper.chmod(0o755)
    monkeypatch.setenv("CC", str(wrapper))
    monkeypatch.setattr(toolchain, "native_flags", lambda: ["-march=native"])
    _as_a_new_process()
    try:
        first = toolchain.compiler_identity(), toolchain.native_target()
        assert "fakecc (znver3) 1.0" in first[0] and "-march=znver3" in first[1]
        assert len(_calls(tmp_path)) == 3
        _as_a_new_process()
        assert (toolchain.compiler_identity(), toolchain.native_target()) == first
        assert _calls(tmp_path)[3:] == ["-### -E -x c /dev/null"]   # the proper only
        _fake_compiler(tmp_path, "znver4")
        _as_a_new_process()
        assert "fakecc (znver4) 1.0" in toolchain.compiler_identity()
        assert toolchain.native_target() == "-march=znver4 -mavx2 -mtune=znver4"
        assert len(_calls(tmp_path)) == 7
    finally:
        _as_a_new_process()


@pytest.mark.skipif(sys.platform == "win32", reason="a /bin/sh compiler stand-in")
def test_an_unresolved_native_target_is_not_kept(tmp_path, monkeypatch):
    monkeypatch.setenv("CC", str(_fake_compiler(tmp_path, "znver3", target=False)))
    monkeypatch.setattr(toolchain, "native_flags", lambda: ["-march=native"])
    try:
        for _ in range(2):
            _as_a_new_process()
            assert toolchain.native_target().startswith("unresolved")
        assert len([c for c in _calls(tmp_path) if "-march=native" in c]) == 2
    finally:
        _as_a_new_process()
