"""Code for the host CPU by default: ``Config.march`` / ``PCOMPUTE_MARCH``.

The setting is parsed like every other field ('native' by default,
'generic' for code that runs on every CPU), becomes ``-march=...`` on the
compiler's command line, and puts the CPU's identity (cpuinfo and what the
compiler resolves ``-march=native`` to) into the cache key: a cache shared
between machines never loads code made for another CPU.  Every build has
``-ffp-contract=off``: native and generic modules compute the same bits.
"""
import platform
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
    ("skylake-avx512", "skylake-avx512"), ("default", "native"), ("generic", "generic"),
    ("", "native"), ("none", "generic"), (" Generic ", "generic")])
def test_environment(monkeypatch, text, want):
    monkeypatch.setenv("PCOMPUTE_MARCH", text)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert Config().march == want


def test_default_is_the_host_cpu(monkeypatch):
    monkeypatch.delenv("PCOMPUTE_MARCH", raising=False)
    assert Config().march == "native"
    assert Config(read_environment=False).march == "native"
    with use_config(march="generic"):
        assert toolchain.arch_flags() == []
    with use_config(march=None):             # None: generic, as before
        assert toolchain.arch_flags() == []
    assert toolchain.arch_flags("native") == toolchain.native_flags()
    if platform.machine().lower() in ("x86_64", "amd64") and not toolchain.is_msvc():
        assert toolchain.native_flags() == ["-march=native"]


@needs_gcc
def test_every_build_keeps_plain_rounding():
    """No FMA contraction and no errno, native or generic: the flags differ
    only in the instruction set."""
    for march in ("native", "generic"):
        with use_config(march=march):
            cflags = cython_builder.build_flags(False)[0]
        assert "-ffp-contract=off" in cflags and "-fno-math-errno" in cflags
        assert "-ffast-math" not in cflags


@pytest.mark.parametrize("text", ["native; rm -rf /", "-O0", "a b", "$(x)"])
def test_bad_environment_value_warns(monkeypatch, text):
    monkeypatch.setenv("PCOMPUTE_MARCH", text)
    with pytest.warns(ConfigWarning, match="PCOMPUTE_MARCH"):
        assert Config().march == "native"


@pytest.mark.parametrize("value", ["native -O0", 3, True, "-march=native"])
def test_bad_field_value_raises(value):
    with pytest.raises(KernelValueError, match="march"):
        Config(read_environment=False, march=value)


def test_field_and_use_config(monkeypatch):
    monkeypatch.delenv("PCOMPUTE_MARCH", raising=False)
    cfg = Config(march="native")
    assert cfg.march == "native" and cfg.as_dict()["march"] == "native"
    cfg.march = "generic"
    assert cfg.march == "generic" and cfg.as_dict()["march"] == "generic"
    cfg.march = None
    assert cfg.march == "generic"
    with use_config(march="native") as cfg:
        assert cfg.march == "native"
        assert toolchain.arch_flags() == ["-march=native"]
    with use_config(march="generic"):
        assert toolchain.arch_flags() == []


def test_depends_on_cpu():
    assert toolchain.depends_on_cpu(["-O3", "-march=native"])
    assert toolchain.depends_on_cpu(["-O3", "-march=x86-64-v3"])
    assert toolchain.depends_on_cpu(["-mavx2"])
    assert toolchain.depends_on_cpu(["-mcpu=native"])
    assert not toolchain.depends_on_cpu(["-O3", "-g0", "-fopenmp"])


# ---------------------------------------------------------------- cache key

@needs_gcc
def test_key_separates_march_and_cpu(cache_root, monkeypatch):
    with use_config(march="generic"):
        generic = cython_builder.build_key(SOURCE, False)
    native = cython_builder.build_key(SOURCE, False)       # the default build
    if not toolchain.native_flags():
        pytest.skip("no native target on this machine")
    assert set(toolchain.native_flags()) <= set(native[1])
    assert not toolchain.depends_on_cpu(generic[1])
    assert native[0] != generic[0]
    # Another CPU gives another key for native code, the same for generic code:
    # a cache shared by an AVX2 and an AVX-512 machine keeps one module each.
    monkeypatch.setattr(toolchain, "cpu_identity", lambda: "Other CPU | sse2")
    assert cython_builder.build_key(SOURCE, False)[0] != native[0]
    with use_config(march="generic"):
        assert cython_builder.build_key(SOURCE, False)[0] == generic[0]


@needs_gcc
def test_cpu_identity_has_what_the_compiler_makes_of_native():
    """The key names the target the compiler really resolves -march=native
    to (gcc: -march=<cpu> and the -m<isa> list), computed once per process."""
    if not toolchain.native_flags():
        pytest.skip("no native target on this machine")
    target = toolchain.native_target()
    assert target in toolchain.cpu_identity()
    assert "-march=" in target or "-mcpu=" in target or "-target-cpu" in target, target
    assert "native" not in target.split("=")[1:2], target      # resolved, not echoed
    assert toolchain.native_target() is target                   # cached


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
        toolchain._cpuinfo_identity.cache_clear()
        try:
            return toolchain.cpu_identity()
        finally:
            monkeypatch.undo()
            toolchain._cpuinfo_identity.cache_clear()
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


def dot_map(i, x, y):
    return x[i] * y[i] + 0.5 * x[i]


def product_in(i, x, y):
    return x[i] * y[i] - y[i] * 0.25


def scan_out(i, item, z):
    z[i] = item


@needs_gcc
@pytest.mark.optimised_build      # gcc contracts a * b + c into an FMA from -O2 on
def test_native_and_generic_builds_compute_the_same_bits():
    """The default build (code for this CPU) and the generic build give the
    same float64 bits for a Reduction and a Scan whose loops multiply and add
    (a fused multiply-add, allowed by gcc's default -ffp-contract=fast under
    -march=native on an FMA CPU, rounds once and changes the sums) on the
    parallel paths (more items than the serial thresholds): no summation
    order or rounding depends on the instruction set."""
    from pcompute.primitives.reduction import Reduction
    from pcompute.primitives.scan import Scan
    rng = np.random.default_rng(22)
    x, y = rng.random(100_003) - 0.5, rng.random(100_003)
    got = {}
    for march in ("native", "generic"):
        with use_config(backend="cython", use_openmp=True, use_double=True, march=march):
            total = Reduction("a+b", map_func=dot_map, dtype_out=np.float64)(x, y)
            z = np.zeros_like(x)
            Scan(product_in, scan_out, dtype=np.float64)(x=x, y=y, z=z)
        got[march] = (total, z)
    assert np.float64(got["native"][0]).tobytes() == np.float64(got["generic"][0]).tobytes()
    np.testing.assert_array_equal(got["native"][1], got["generic"][1])
    np.testing.assert_allclose(got["generic"][0], (x * y + 0.5 * x).sum(), rtol=1e-12)
    np.testing.assert_allclose(got["generic"][1][-1], (x * y - y * 0.25).sum(), rtol=1e-9)
