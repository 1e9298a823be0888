"""Per-kernel build options (``pcompute.build_options``): vectorised math.

Every backend computes the same values as NumPy with ``vector_math=True``;
on the cython backend the option reaches the GeneratedKernel (and so the
cache key) and, where the toolchain offers glibc's libmvec, the built module
calls its vector functions (the loop really is vectorised)."""
from math import atan2, cos, exp, log, sin, tanh

import numpy as np
import pytest

from pcompute import (Elementwise, Reduction, build_options, get_backend, get_config,
                      wrap)
from pcompute.build import toolchain
from pcompute.kernel_options import options_of

# Vectorisation and FMA contraction are the optimiser's: build at -O3.
pytestmark = pytest.mark.optimised_build


def transcend(i, x, y):
    y[i] = sin(x[i]) * exp(-x[i]) + log(1.0 + x[i]) + atan2(x[i], 2.0) + tanh(x[i])


def transcend_map(i, x):
    return exp(-x[i]) * cos(x[i])


def _want(x):
    return np.sin(x) * np.exp(-x) + np.log1p(x) + np.arctan2(x, 2.0) + np.tanh(x)


def _fresh(func):
    """A copy of ``func`` (marks are per function object)."""
    import types
    return types.FunctionType(func.__code__, func.__globals__, func.__name__)


def test_unknown_option_and_wrong_type_are_errors():
    with pytest.raises(TypeError, match="unknown build option 'fast'.*vector_math"):
        build_options(fast=True)
    with pytest.raises(TypeError, match="vector_math takes a bool"):
        build_options(vector_math=1)
    f = build_options(_fresh(transcend), vector_math=True)
    assert options_of(f) == {"vector_math": True}
    assert options_of(transcend) == {}


def test_vector_math_matches_numpy(backend):
    x = np.linspace(0.0, 3.0, 5003).astype(backend.dtype)
    xa, ya = wrap(x.copy(), np.zeros_like(x))
    Elementwise(build_options(_fresh(transcend), vector_math=True))(xa, ya)
    y = np.asarray(ya.get())
    np.testing.assert_allclose(y, _want(x.astype(np.float64)), rtol=backend.rtol,
                               atol=backend.rtol)
    red = Reduction("a + b", map_func=build_options(_fresh(transcend_map), vector_math=True),
                    dtype_out=backend.dtype)
    total = red(xa)
    want = np.sum(np.exp(-x.astype(np.float64)) * np.cos(x.astype(np.float64)))
    np.testing.assert_allclose(total, want, rtol=10 * backend.rtol)




def test_cython_records_the_option_and_uses_libmvec():
    if get_backend("cython").why_unavailable():
        pytest.skip(get_backend("cython").why_unavailable())
    from pcompute import use_config
    x = np.linspace(0.0, 3.0, 4096)
    with use_config(backend="cython", use_openmp=False, use_double=True):
        plain = Elementwise(_fresh(transcend))
        plain(x, np.zeros_like(x))
        vec = Elementwise(build_options(_fresh(transcend), vector_math=True))
        y = np.zeros_like(x)
        vec(x, y)
    np.testing.assert_allclose(y, _want(x), rtol=1e-13)
    gen = vec.built.generated
    assert gen.option("vector_math") is True
    assert plain.built.generated.option("vector_math") is None
    assert gen.source == plain.built.generated.source
    assert gen.cache_key != plain.built.generated.cache_key
    cflags, _ = toolchain.vector_math_flags()
    assert "-fno-math-errno" in cflags or toolchain.is_msvc()
    if "-D__FAST_MATH__" not in cflags:
        pytest.skip("no glibc libmvec on this platform: %s" % (cflags,))
    import pcompute.build.cython_builder as cb
    # The module the primitive runs: built from the kernel's source with the
    # option's flags (so found under that key in the builder's memo).
    key = cb.build_key(gen.source, False, extra_compile_args=cflags,
                       extra_link_args=toolchain.vector_math_flags()[1])[0]
    with open(cb._memo[key].__file__, "rb") as fh:
        data = fh.read()
    assert b"_ZGV" in data and b"v_sin" in data, "sin was not vectorised with libmvec"
    assert get_config().backend  # the configuration is back to normal


def fused_prone(i, x, y, z, out):
    out[i] = x[i] * y[i] + z[i] * x[i] - y[i] * z[i]


def test_host_cpu_matches_numpy(backend):
    """``host_cpu=True`` (code for this CPU) computes what NumPy computes on
    every backend (the OpenCL and CUDA builds ignore the option)."""
    rng = np.random.default_rng(3)
    x, y, z = (rng.random(3001).astype(backend.dtype) for _ in range(3))
    arrays = wrap(x.copy(), y.copy(), z.copy(), np.zeros_like(x))
    Elementwise(build_options(_fresh(fused_prone), host_cpu=True))(*arrays)
    got = np.asarray(arrays[3].get())
    np.testing.assert_allclose(got, x * y + z * x - y * z, rtol=backend.rtol,
                               atol=backend.rtol)


def test_cython_host_cpu_is_bit_identical_to_numpy_and_keyed_on_the_cpu():
    """No FMA contraction under ``-march=native`` (-ffp-contract=off): the
    float64 results are NumPy's bit for bit, where a fused multiply-add
    would round differently for many of these random inputs."""
    if get_backend("cython").why_unavailable():
        pytest.skip(get_backend("cython").why_unavailable())
    from pcompute import use_config
    rng = np.random.default_rng(4)
    x, y, z = (rng.random(4096) for _ in range(3))
    out = np.zeros_like(x)
    with use_config(backend="cython", use_openmp=False, use_double=True, march=None):
        plain = Elementwise(_fresh(fused_prone))
        plain(x, y, z, np.zeros_like(x))
        host = Elementwise(build_options(_fresh(fused_prone), host_cpu=True))
        host(x, y, z, out)
    np.testing.assert_array_equal(out, x * y + z * x - y * z)
    gen = host.built.generated
    assert gen.option("host_cpu") is True
    assert plain.built.generated.option("host_cpu") is None
    assert gen.source == plain.built.generated.source
    assert gen.cache_key != plain.built.generated.cache_key
    if not toolchain.is_msvc():
        flags = toolchain.host_cpu_flags()
        assert {"-march=native", "-mcpu=native"} & set(flags) and "-ffp-contract=off" in flags
        assert toolchain.depends_on_cpu(flags)         # the CPU joins the cache key


def mul_add(i, x, y, z, out):
    out[i] = x[i] * y[i] + z[i]


# x * y = 1 - 2**-60 exactly: rounded first (twice rounded) it is 1.0 and the
# sum 0.0; fused (rounded once) the result is the exact -2**-60.
_FMA_X, _FMA_Y, _FMA_Z = 1.0 + 2.0 ** -30, 1.0 - 2.0 ** -30, -1.0


def test_fma_matches_numpy(backend):
    """``fma=True`` computes what NumPy computes on every backend (within
    rounding: a fused multiply-add rounds once)."""
    rng = np.random.default_rng(7)
    x, y, z = (rng.random(3001).astype(backend.dtype) for _ in range(3))
    arrays = wrap(x.copy(), y.copy(), z.copy(), np.zeros_like(x))
    Elementwise(build_options(_fresh(fused_prone), fma=True))(*arrays)
    np.testing.assert_allclose(np.asarray(arrays[3].get()), x * y + z * x - y * z,
                               rtol=backend.rtol, atol=backend.rtol)


def _host_has_fma():
    import platform
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return False
    try:
        with open("/proc/cpuinfo") as fh:
            return any(line.startswith("flags") and " fma" in line for line in fh)
    except OSError:
        return False


def test_cython_fma_fuses_where_the_cpu_can_and_is_keyed():
    """The cython backend builds an ``fma`` kernel with ``-ffp-contract=fast``
    after the builder's ``-ffp-contract=off``: on an x86-64 CPU with FMA,
    built for the host CPU, ``x * y + z`` rounds once (-2**-60 for these
    values, where plain Python and the default build give 0.0)."""
    if get_backend("cython").why_unavailable():
        pytest.skip(get_backend("cython").why_unavailable())
    from pcompute import use_config
    from pcompute.backends.cython import module_flags
    x, y, z = np.full(8, _FMA_X), np.full(8, _FMA_Y), np.full(8, _FMA_Z)
    out, plain_out = np.zeros(8), np.zeros(8)
    with use_config(backend="cython", use_openmp=False, use_double=True, march="native"):
        plain = Elementwise(_fresh(mul_add))
        plain(x, y, z, plain_out)
        fused = Elementwise(build_options(_fresh(mul_add), fma=True))
        fused(x, y, z, out)
    assert list(plain_out) == [_FMA_X * _FMA_Y + _FMA_Z] * 8 == [0.0] * 8
    gen = fused.built.generated
    assert gen.option("fma") is True and plain.built.generated.option("fma") is None
    assert gen.source == plain.built.generated.source
    assert gen.cache_key != plain.built.generated.cache_key
    if toolchain.is_msvc():
        return
    assert module_flags(gen)[0][-1] == "-ffp-contract=fast"
    if not _host_has_fma():
        pytest.skip("this CPU has no FMA instruction")
    assert list(out) == [-2.0 ** -60] * 8


def chunk_sums(c, x, out, size, n):
    s = 0.0
    for k in range(c * size, min(c * size + size, n)):
        s += x[k]
    out[c] = s


def test_parallel_items_runs_few_long_items(backend):
    """``parallel_items``: a launch of a few long items (a loop's chunks) gives
    the values of plain Python on every backend; on the cython backend with
    OpenMP the items start threads however few they are (without the option,
    below a few hundred items run serially)."""
    from pcompute import use_config
    x = np.arange(1000).astype(backend.dtype)
    out = np.zeros(3, backend.dtype)
    xa, oa = wrap(x, out)
    Elementwise(build_options(_fresh(chunk_sums), parallel_items=True))(xa, oa, 334, 1000,
                                                                       shape=3)
    np.testing.assert_allclose(np.asarray(oa.get()), [x[:334].sum(), x[334:668].sum(),
                                                      x[668:].sum()], rtol=backend.rtol)
    if backend.name != "cython":
        return
    with use_config(use_openmp=True):
        few = Elementwise(build_options(_fresh(chunk_sums), parallel_items=True))
        few(x, out, 334, 1000, shape=3)
        plain = Elementwise(_fresh(chunk_sums))
        plain(x, out, 334, 1000, shape=3)
    if few.built.generated.option("openmp"):
        assert "if pc_n < 2:" in few.built.generated.source
        assert "if pc_n < 2:" not in plain.built.generated.source


def lane_math(i, x, y):
    # The `if` keeps the item an item (straight-line items with math calls
    # run in blocks instead: tests/test_blockmath.py).
    if x[i] >= 0.0:
        y[i] = exp(-x[i]) * log(1.0 + x[i]) + sin(x[i]) / (1.0 + x[i] * x[i]) + \
            pow(x[i], 1.5) + atan2(x[i], 3.0)


def test_cython_host_cpu_math_is_bit_identical_to_python():
    """A kernel built for the host CPU calls its math functions through lane
    wrappers (pcompute.codegen.lanemath: the loop vectorises around calls of
    the C library's scalar functions, one per lane): its results are those of
    Python's math functions bit for bit; with GCC on x86-64 the module holds
    the wrappers' vector versions (``_ZGV...pc_lane_exp``)."""
    if get_backend("cython").why_unavailable():
        pytest.skip(get_backend("cython").why_unavailable())
    from math import pow as mpow
    from pcompute import use_config
    rng = np.random.default_rng(5)
    x = np.concatenate([rng.uniform(0.0, 30.0, 4093), [0.0, 1e-300, 700.0]])
    want = np.array([exp(-v) * log(1.0 + v) + sin(v) / (1.0 + v * v) + mpow(v, 1.5)
                     + atan2(v, 3.0) for v in x])
    y = np.zeros_like(x)
    with use_config(backend="cython", use_openmp=False, use_double=True):
        lanes = Elementwise(build_options(_fresh(lane_math), host_cpu=True))
        lanes(x, y)
        plain = Elementwise(_fresh(lane_math))
        plain(x, np.zeros_like(x))
    np.testing.assert_array_equal(y, want)
    gen = lanes.built.generated
    assert "pc_lane_exp(" in gen.source and "pc_lane_pow(" in gen.source
    assert "pc_lane_" not in plain.built.generated.source
    import platform
    import pcompute.build.cython_builder as cb
    from pcompute.backends.cython import module_flags
    cflags, ldflags = module_flags(gen)
    key = cb.build_key(gen.source, False, extra_compile_args=cflags,
                       extra_link_args=ldflags)[0]
    with open(cb._memo[key].__file__, "rb") as fh:
        data = fh.read()
    if "gcc" not in toolchain.compiler_identity().lower() or \
            platform.machine() not in ("x86_64", "AMD64"):
        pytest.skip("lane wrappers are vectorised by GCC on x86-64 only")
    assert b"_ZGV" in data and b"pc_lane_exp" in data, "no vector version of the wrappers"



def test_cython_host_cpu_float32_math_matches_the_plain_build():
    """float32 lanes (8 per AVX vector, 16 per AVX-512 one): each lane of a
    wrapper's vector form is the C library's float function of that lane, in
    lane order, so the lane build equals the plain build (scalar calls) bit
    for bit, at a count that leaves a scalar tail."""
    if get_backend("cython").why_unavailable():
        pytest.skip(get_backend("cython").why_unavailable())
    from pcompute import use_config
    x = np.random.default_rng(7).uniform(0.0, 30.0, 4099).astype(np.float32)
    y, want = np.zeros_like(x), np.zeros_like(x)
    with use_config(backend="cython", use_openmp=False, use_double=False):
        lanes = Elementwise(build_options(_fresh(lane_math), host_cpu=True))
        lanes(x, y)
        Elementwise(_fresh(lane_math))(x, want)
    assert "pc_lane_expf(" in lanes.built.generated.source
    np.testing.assert_array_equal(y, want)
    assert np.count_nonzero(np.diff(y)) > 4000       # the lanes differ

def triangle(i, x, out, n):
    s = 0.0
    for j in range(i + 1):
        s += x[j]
    out[i] = s


def test_balance_matches_numpy(backend):
    """``balance=True`` (items of unequal work) computes what NumPy computes
    on every backend.  n = 1001: 16-item chunks of the dynamic schedule (n //
    64 + 1), 64 of them; the python backend runs the n^2 / 2 inner steps one
    by one (n = 3001: 21-36 s per case in the CI)."""
    n = 1001
    x = np.random.default_rng(6).random(n).astype(backend.dtype)
    xa, out = wrap(x.copy(), np.zeros_like(x))
    Elementwise(build_options(_fresh(triangle), balance=True))(xa, out, n)
    np.testing.assert_allclose(np.asarray(out.get()), np.cumsum(x.astype(np.float64)),
                               rtol=10 * backend.rtol)


def test_cython_balance_hands_out_chunks_dynamically_unless_configured():
    """The cython backend's OpenMP loop of a balanced kernel takes a dynamic
    schedule in 64 chunks (others run static shares); a schedule set in the
    configuration wins."""
    from pcompute import use_config
    if toolchain.openmp_flags() is None:
        pytest.skip("no OpenMP here")
    x, out = np.zeros(100), np.zeros(100)
    with use_config(use_openmp=True):
        balanced = Elementwise(build_options(_fresh(triangle), balance=True))
        src = balanced.generate("cython", x, out, 100)
        assert "prange(pc_n, schedule='dynamic', chunksize=pc_n // 64 + 1)" in src
        plain = Elementwise(_fresh(triangle)).generate("cython", x, out, 100)
        assert "pc_share(pc_n, pc_thread)" in plain and "prange(" not in plain
    with use_config(use_openmp=True, omp_schedule="guided,4"):
        src = balanced.generate("cython", x, out, 100)
        assert "schedule='guided', chunksize=4" in src and "dynamic" not in src


def test_serial_below_sets_where_the_openmp_loop_starts():
    from pcompute import use_config
    if toolchain.openmp_flags() is None:
        pytest.skip("no OpenMP here")
    for bad in (0, -3, True, 2.0):
        with pytest.raises(TypeError, match="serial_below takes a positive int"):
            build_options(serial_below=bad)
    x, out = np.zeros(100), np.zeros(100)
    with use_config(use_openmp=True):
        early = Elementwise(build_options(_fresh(triangle), serial_below=16))
        assert "if pc_n < 16:" in early.generate("cython", x, out, 100)
        # the default for items running an inner loop
        assert "if pc_n < 256:" in Elementwise(_fresh(triangle)).generate(
            "cython", x, out, 100)



def exp_log(i, x, y):
    y[i] = exp(x[i]) + log(x[i])


def test_cython_modules_bind_the_current_libm_versions():
    """Every Cython module is linked with libm: its exp and log references
    carry glibc's current symbol versions (GLIBC_2.29), not none, which the
    dynamic linker binds to the oldest (GLIBC_2.2.5, a compatibility
    wrapper around the same function).  The results do not change: the
    module equals Python's math.exp and math.log bit for bit."""
    import platform
    import shutil
    import subprocess
    import pcompute.build.cython_builder as cb
    from pcompute import use_config
    from pcompute.backends.cython import module_flags
    if get_backend("cython").why_unavailable():
        pytest.skip(get_backend("cython").why_unavailable())
    libc, version = platform.libc_ver()
    if libc != "glibc" or tuple(int(v) for v in version.split(".")[:2]) < (2, 29) \
            or shutil.which("readelf") is None:
        pytest.skip("versioned exp/log: glibc >= 2.29 and readelf only")
    x = np.random.default_rng(3).uniform(0.5, 30.0, 64)
    y = np.zeros_like(x)
    with use_config(backend="cython", use_openmp=False):
        k = Elementwise(_fresh(exp_log))
        k(x, y)
    np.testing.assert_array_equal(y, [exp(v) + log(v) for v in x])
    gen = k.built.generated
    cflags, ldflags = module_flags(gen)
    key = cb.build_key(gen.source, False, extra_compile_args=cflags,
                       extra_link_args=ldflags)[0]
    text = subprocess.run(["readelf", "--dyn-syms", "-W", cb._memo[key].__file__],
                          capture_output=True, text=True, check=True).stdout
    # "UND exp@GLIBC_2.29 (3)" with the version, "UND exp" without
    refs = [word for line in text.splitlines() if " UND " in line
            for word in line.split() if word.split("@")[0] in ("exp", "log")]
    assert len(refs) == 2 and all("@GLIBC_2.29" in r for r in refs), refs
