"""Native code as an option: ``Config.march`` / ``PCOMPUTE_MARCH``.

The setting is parsed like every other field, becomes ``-march=...`` on the
compiler's command line, and puts the CPU model and flags into the cache key
(a cache shared between machines never loads code made for another CPU).
"""
import shutil
import sys
import textwrap
import warnings

import numpy as np
import pytest

from pcompute import Elementwise
from pcompute.build import cython_builder, toolchain
from pcompute.config import Config, use_config
from pcompute.errors import BuildError, ConfigWarning, KernelValueError

needs_gcc = pytest.mark.skipif(
    sys.platform == "win32" or toolchain.is_msvc()
    or shutil.which(toolchain.compiler_command()[0]) is None,
    reason="needs a C compiler with -march (gcc or clang)")

SOURCE = textwrap.dedent("""\
    # cython: language_level=3
    def twice(double x):
        return 2.0 * x
    """)


@pytest.fixture
def cache_root(tmp_path, monkeypatch):
    monkeypatch.setenv("PCOMPUTE_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


# ------------------------------------------------------------ configuration

@pytest.mark.parametrize("text, want", [
    ("native", "native"), (" native ", "native"), ("x86-64-v3", "x86-64-v3"),
    ("skylake-avx512", "skylake-avx512"), ("default", None), ("generic", None),
    ("", None), ("none", None)])
def test_environment(monkeypatch, text, want):
    monkeypatch.setenv("PCOMPUTE_MARCH", text)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert Config().march == want


def test_default_is_generic(monkeypatch):
    monkeypatch.delenv("PCOMPUTE_MARCH", raising=False)
    assert Config().march is None
    with use_config(march=None):
        assert toolchain.arch_flags() == []
    assert toolchain.arch_flags("native") == ["-march=native"]


@pytest.mark.parametrize("text", ["native; rm -rf /", "-O0", "a b", "$(x)"])
def test_bad_environment_value_warns(monkeypatch, text):
    monkeypatch.setenv("PCOMPUTE_MARCH", text)
    with pytest.warns(ConfigWarning, match="PCOMPUTE_MARCH"):
        assert Config().march is None


@pytest.mark.parametrize("value", ["native -O0", 3, True, "-march=native"])
def test_bad_field_value_raises(value):
    with pytest.raises(KernelValueError, match="march"):
        Config(read_environment=False, march=value)


def test_field_and_use_config(monkeypatch):
    monkeypatch.delenv("PCOMPUTE_MARCH", raising=False)
    cfg = Config(march="native")
    assert cfg.march == "native" and cfg.as_dict()["march"] == "native"
    cfg.march = None
    assert cfg.march is None
    with use_config(march="native") as cfg:
        assert cfg.march == "native"
        assert toolchain.arch_flags() == ["-march=native"]
    with use_config(march=None):
        assert toolchain.arch_flags() == []


def test_depends_on_cpu():
    assert toolchain.depends_on_cpu(["-O3", "-march=native"])
    assert toolchain.depends_on_cpu(["-O3", "-march=x86-64-v3"])
    assert toolchain.depends_on_cpu(["-mavx2"])
    assert not toolchain.depends_on_cpu(["-O3", "-g0", "-fopenmp"])


# ---------------------------------------------------------------- cache key

@needs_gcc
def test_key_separates_march_and_cpu(cache_root, monkeypatch):
    with use_config(march=None):
        generic = cython_builder.build_key(SOURCE, False)
    with use_config(march="native"):
        native = cython_builder.build_key(SOURCE, False)
    assert "-march=native" in native[1] and "-march=native" not in generic[1]
    assert native[0] != generic[0]
    # Another CPU gives another key for native code, the same for generic code.
    monkeypatch.setattr(toolchain, "cpu_identity", lambda: "Other CPU | sse2")
    with use_config(march="native"):
        assert cython_builder.build_key(SOURCE, False)[0] != native[0]
    with use_config(march=None):
        assert cython_builder.build_key(SOURCE, False)[0] == generic[0]


def test_cpu_identity_names_model_and_flags():
    ident = toolchain.cpu_identity()
    assert " | " in ident and len(ident) > 10


def test_cpu_identity_has_family_and_model(tmp_path, monkeypatch):
    """Two CPUs with the same model name and flags but another family or
    model (gcc's -march=native differs) have different identities."""
    def identity(family, model):
        path = tmp_path / ("cpuinfo-%s-%s" % (family, model))
        path.write_text("processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: %s\n"
                        "model\t\t: %s\nmodel name\t: AMD EPYC\nstepping\t: 1\n"
                        "flags\t\t: fpu sse2 avx2\n" % (family, model))
        real_open = open
        monkeypatch.setattr("builtins.open", lambda name, *a, **k: real_open(
            path if name == "/proc/cpuinfo" else name, *a, **k))
        toolchain.cpu_identity.cache_clear()
        try:
            return toolchain.cpu_identity()
        finally:
            monkeypatch.undo()
            toolchain.cpu_identity.cache_clear()
    zen3, zen5 = identity(25, 1), identity(26, 2)
    assert zen3 != zen5
    assert "AMD EPYC" in zen3 and "cpu_family=25" in zen3 and "model=1" in zen3
    assert "avx2" in zen3


# ---------------------------------------------------- the flag reaches gcc

@needs_gcc
def test_flag_reaches_the_compiler(cache_root):
    with use_config(march="pcompute-no-such-cpu"):
        with pytest.raises(BuildError) as info:
            cython_builder.build_cython(SOURCE, "march_probe", openmp=False)
    assert "-march=pcompute-no-such-cpu" in info.value.log


def axpy(i, a, x, y):
    y[i] = a * x[i] + y[i]


@needs_gcc
def test_native_kernel_runs(cache_root):
    x = np.linspace(0.0, 1.0, 1001)
    y = np.ones_like(x)
    with use_config(backend="cython", use_openmp=True, march="native"):
        before = dict(cython_builder.stats)
        Elementwise(axpy)(2.0, x, y)
        assert cython_builder.stats["compiled"] > before["compiled"]
    np.testing.assert_allclose(y, 2.0 * x + 1.0, rtol=1e-15)
