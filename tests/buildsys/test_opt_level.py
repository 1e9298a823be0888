"""The C optimisation level of Cython modules: ``Config.opt_level`` /
``PCOMPUTE_OPT_LEVEL``.

The level is parsed like every other field, becomes ``-O<level>`` on the
compiler's command line (so it is in the cache key) and in the primitives'
memo key.  The test suite builds at -O1 (tests/conftest.py); tests marked
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


def test_the_suite_builds_at_its_level():
    """Unmarked tests build at the suite's level (-O1 unless
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
