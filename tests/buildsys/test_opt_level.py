"""The C optimisation level of Cython modules: ``Config.opt_level`` /
``PCOMPUTE_OPT_LEVEL``.

The level is parsed like every other field, becomes ``-O<level>`` on the
compiler's command line (so it is in the cache key) and in the primitives'
memo key.  The test suite builds at -O0 (tests/conftest.py); tests marked
``optimised_build`` build at the default -O3, also in processes they start.
"""
import os
import shutil
import sys
import textwrap
import warnings

import pytest

from pcompute.build import cython_builder, toolchain
from pcompute.config import DEFAULT_OPT_LEVEL, Config, get_config, use_config
from pcompute.errors import ConfigWarning, KernelValueError

needs_gcc = pytest.mark.skipif(
    sys.platform == "win32" or toolchain.is_msvc()
    or shutil.which(toolchain.compiler_command()[0]) is None,
    reason="needs a C compiler with -O<level> (gcc or clang)")

# __OPTIMIZE__ is defined by gcc and clang at -O1 and above, not at -O0.
SOURCE = textwrap.dedent('''\
    # cython: language_level=3
    cdef extern from *:
        """
        #ifdef __OPTIMIZE__
        #define PC_OPTIMIZED 1
        #else
        #define PC_OPTIMIZED 0
        #endif
        """
        int PC_OPTIMIZED
    def optimized():
        return PC_OPTIMIZED
    ''')


def test_default_is_three():
    assert DEFAULT_OPT_LEVEL == 3
    assert Config(read_environment=False).opt_level == 3


@pytest.mark.parametrize("value, want", [(0, 0), (1, 1), ("2", 2), (" 3 ", 3), (None, 3)])
def test_values(value, want):
    cfg = Config(read_environment=False)
    cfg.opt_level = value
    assert cfg.opt_level == want


@pytest.mark.parametrize("value", [4, -1, True, 1.0, "-O2", "fast", "O3"])
def test_bad_values_raise(value):
    with pytest.raises(KernelValueError, match="opt_level: .* use 0, 1, 2 or 3"):
        Config(read_environment=False).opt_level = value


def test_environment(monkeypatch):
    monkeypatch.setenv("PCOMPUTE_OPT_LEVEL", "0")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert Config().opt_level == 0
    monkeypatch.setenv("PCOMPUTE_OPT_LEVEL", "-O2")
    with pytest.warns(ConfigWarning, match="PCOMPUTE_OPT_LEVEL='-O2'"):
        assert Config().opt_level == 3


def test_flags_and_keys_follow_the_level():
    keys = {}
    for level in (0, 1, 3):
        with use_config(opt_level=level):
            assert toolchain.opt_flags() == (["/Od", "/O1", "/O2", "/O2"][level:level + 1]
                                             if toolchain.is_msvc() else ["-O%d" % level])
            key, cflags, _ = cython_builder.build_key(SOURCE, False)
            assert cflags[:1] == toolchain.opt_flags()
            keys[level] = key
            codegen = get_config().codegen_key()
        assert codegen[-1] == level
    assert len(set(keys.values())) == 3


@needs_gcc
def test_level_reaches_the_compiler(tmp_path, monkeypatch):
    monkeypatch.setenv("PCOMPUTE_CACHE_DIR", str(tmp_path / "cache"))
    got = {}
    for level in (0, 1):
        with use_config(opt_level=level):
            module = cython_builder.build_cython(SOURCE, "opt_level_probe", False)
        got[level] = module.optimized()
    assert got == {0: 0, 1: 1}


# What the module was compiled with, and C int <-> Python int conversions.
CONVERT = textwrap.dedent('''\
    # cython: language_level=3
    cdef extern from *:
        """
        #define PC_PYLONG_INTERNALS CYTHON_USE_PYLONG_INTERNALS
        """
        int PC_PYLONG_INTERNALS
    def internals():
        return PC_PYLONG_INTERNALS
    def through(long long a, size_t b, int c, unsigned char d):
        return a, b, c, d
    ''')


@needs_gcc
def test_fast_build_defines_follow_the_level(tmp_path, monkeypatch):
    """At -O0 Cython's int fast paths are compiled out (FAST_BUILD_DEFINES),
    at -O1 they are in; the conversions give the same values and errors."""
    monkeypatch.setenv("PCOMPUTE_CACHE_DIR", str(tmp_path / "cache"))
    values = [(0, 0, 0, 0), (-1, 1, -1, 255), (2**63 - 1, 2**64 - 1, 2**31 - 1, 7),
              (-2**63, 2**40 + 3, -2**31, 128), (-(2**33) - 5, 2**33 + 5, 12345, 1)]
    bad = [(2**63, 0, 0, 0), (0, -1, 0, 0), (0, 0, 2**31, 0), (0, 0, 0, 256)]
    got = {}
    for level in (0, 1):
        with use_config(opt_level=level):
            key, cflags, _ = cython_builder.build_key(CONVERT, False)
            module = cython_builder.build_cython(CONVERT, "convert_probe", False)
        assert (cython_builder.FAST_BUILD_DEFINES[0] in cflags) == (level == 0)
        assert module.internals() == (0 if level == 0 else 1)
        got[level] = [module.through(*v) for v in values]
        for args in bad:
            with pytest.raises(OverflowError):
                module.through(*args)
    assert got[0] == got[1] == values


def test_the_suite_builds_at_its_level():
    """Unmarked tests build at the suite's level (-O0 unless
    PCOMPUTE_OPT_LEVEL says otherwise)."""
    assert get_config().opt_level == int(os.environ["PCOMPUTE_OPT_LEVEL"])


@pytest.mark.optimised_build
def test_marked_tests_build_at_the_default_level():
    assert get_config().opt_level == DEFAULT_OPT_LEVEL
    assert os.environ["PCOMPUTE_OPT_LEVEL"] == str(DEFAULT_OPT_LEVEL)
    assert toolchain.opt_flags()[0] in ("-O3", "/O2")


@pytest.mark.optimised_build
def test_marked_tests_keep_the_level_under_the_backend_fixture(backend):
    assert get_config().opt_level == DEFAULT_OPT_LEVEL
    assert get_config().backend == backend.name
