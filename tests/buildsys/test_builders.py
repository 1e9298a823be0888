"""Tests of the Cython, OpenCL and CUDA builders."""

import importlib.util
import types
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from pcompute.build import cache, cuda_builder, cython_builder, toolchain
from pcompute.errors import BackendUnavailableError, BuildError

REPO = Path(__file__).resolve().parents[2]

AXPY = textwrap.dedent("""\
    # cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False, nonecheck=False
    from cython.parallel import prange
    cdef inline void axpy(long long i, double a, double* x, double* y) noexcept nogil:
        y[i] = a * x[i] + y[i]
    def run(long long n, double a, size_t x, size_t y):
        cdef double* px = <double*>x
        cdef double* py = <double*>y
        cdef long long i
        with nogil:
            for i in prange(n, schedule='static'):
                axpy(i, a, px, py)
    """)

C_ERROR = textwrap.dedent('''\
    cdef extern from *:
        """
        static int pc_bad(void) { return undefined_symbol_xyz; }
        """
        int pc_bad()
    def f():
        return pc_bad()
    ''')


def _env(root):
    env = dict(os.environ, PCOMPUTE_CACHE_DIR=str(root))
    env["PYTHONPATH"] = os.pathsep.join(
        [str(REPO)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep)
                       if p])
    return env


@pytest.fixture(scope="module")
def cache_root(tmp_path_factory):
    """One cache directory shared by this module's Cython builds."""
    root = tmp_path_factory.mktemp("cython-cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PCOMPUTE_CACHE_DIR", str(root))
        mp.delenv("PCOMPUTE_SAVE_SOURCE", raising=False)
        yield root


@pytest.fixture(scope="module")
def axpy_module(cache_root):
    return cython_builder.build_cython(AXPY, "axpy", openmp=True)


# ---------------------------------------------------------------- Cython

def test_axpy_runs(axpy_module):
    n = 100_003
    x = np.linspace(0.0, 1.0, n)
    y = np.arange(n, dtype=np.float64)
    expected = 2.5 * x + y
    axpy_module.run(n, 2.5, x.ctypes.data, y.__array_interface__["data"][0])
    np.testing.assert_array_equal(y, expected)


def test_module_name_matches_file(axpy_module):
    name = axpy_module.__name__
    assert name.startswith("pc_axpy_")
    assert Path(axpy_module.__file__).name.startswith(name + ".")
    assert Path(axpy_module.__file__).is_relative_to(cache.cache_dir())


def test_memoised_in_process(axpy_module):
    compiled = cython_builder.stats["compiled"]
    again = cython_builder.build_cython(AXPY, "axpy", openmp=True)
    assert again is axpy_module
    assert cython_builder.stats["compiled"] == compiled


LOADER = textwrap.dedent("""
    import json, sys, time
    start = time.perf_counter()
    from pcompute.build import cython_builder
    mod = cython_builder.build_cython(open(sys.argv[1]).read(), "axpy", True)
    elapsed = time.perf_counter() - start
    import numpy as np
    x = np.ones(10); y = np.ones(10)
    mod.run(10, 3.0, x.ctypes.data, y.ctypes.data)
    print(json.dumps({"elapsed": elapsed, "file": mod.__file__,
                      "stats": cython_builder.stats, "y": y.tolist()}))
""")


def test_fresh_process_loads_from_cache(axpy_module, cache_root, tmp_path):
    src = tmp_path / "axpy.pyx"
    src.write_text(AXPY)
    out = subprocess.run([sys.executable, "-c", LOADER, str(src)],
                         capture_output=True, text=True, timeout=120,
                         env=_env(cache_root))
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["stats"] == {"compiled": 0, "loaded": 1}
    assert result["file"] == axpy_module.__file__
    assert result["y"] == [4.0] * 10
    # No compiler ran (stats above); the bound only catches pathological
    # slowness under a loaded test run: the load time itself (tens of ms) is
    # measured by `make bench`.
    assert result["elapsed"] < 5.0


def test_c_error_raises_build_error(cache_root):
    with pytest.raises(BuildError) as info:
        cython_builder.build_cython(C_ERROR, "bad_c", openmp=False)
    err = info.value
    assert "undefined_symbol_xyz" in err.log and "error" in err.log
    assert err.source == C_ERROR and err.backend == "cython"
    text = str(err)
    assert "--- compiler log ---" in text
    assert "3 |     static int pc_bad(void)" in text  # numbered source


def test_modules_compile_without_warning_options(cache_root, monkeypatch):
    """Python's own -Wall, -Wsign-compare, ... are dropped from the compile
    command of a module (nobody reads a generated module's warnings, and
    -Wall's analyses cost gcc ~10 % of a build); pass-throughs stay, and so
    do the warning options of the user's CFLAGS, even those Python has too."""
    own = ["-Wsign-compare", "-DNDEBUG", "-Wall", "-Werror=format-security",
           "-Wp,-D_FORTIFY_SOURCE=2", "-Wa,--noexecstack", "-O3"]
    assert cython_builder.quiet_compile_args(
        ["gcc"] + own + ["-Wall", "-Wshadow", "-fPIC"], own=own) == \
        ["gcc", "-DNDEBUG", "-Wp,-D_FORTIFY_SOURCE=2", "-Wa,--noexecstack", "-O3",
         "-Wall", "-Wshadow", "-fPIC"]
    assert cython_builder.quiet_compile_args(["cc", "-Wall"], own=["-O2", "-Wall"]) == \
        ["cc", "-Wall"]             # not Python's run of flags: nothing dropped
    if toolchain.is_msvc():
        return
    monkeypatch.setenv("CFLAGS", "-Wshadow -Wno-unused-function")
    with pytest.raises(BuildError) as info:
        cython_builder.build_cython(C_ERROR, "bad_c_quiet", openmp=False)
    compile_line = next(line for line in info.value.log.splitlines()
                        if line.startswith("$ ") and " -c " in line)
    assert " -fPIC" in compile_line and " -Wshadow -Wno-unused-function" in compile_line
    python_warnings = [a for a in cython_builder.python_cflags() if a.startswith("-W")
                       and a[2:4] not in ("p,", "a,", "l,")]
    assert all(" %s " % a not in compile_line for a in python_warnings)


def test_cython_error_raises_build_error(cache_root):
    source = "def f(:\n    pass\n"
    with pytest.raises(BuildError) as info:
        cython_builder.build_cython(source, "bad_syntax", openmp=False)
    assert "Expected" in info.value.log
    assert "1 | def f(:" in str(info.value)
    assert cache.Cache().list_entries("cython") == [] or all(
        "bad_syntax" not in str(e["path"])
        for e in cache.Cache().list_entries("cython"))


def test_shared_cython_context_gives_the_c_of_a_fresh_one(tmp_path, monkeypatch):
    """Modules compiled one after another share Cython's context (the
    cimported .pxd files are parsed once); each one's C text is the text a
    fresh context gives, also for a module compiled a second time in the
    process and for one compiled after a failing module."""
    from Cython.Compiler import Main
    fast = AXPY + "\nfrom cpython.ref cimport PyObject\nfrom libc.math cimport sqrt\n"
    sources = {"m_a": fast, "m_b": fast.replace("a * x[i]", "sqrt(a) * x[i]"),
               "m_bad": "def f(:\n    pass\n"}

    def c_text(name, fresh):
        work = tmp_path / ("%s-%s-%d" % (name, fresh, len(list(tmp_path.iterdir()))))
        work.mkdir()
        pyx = work / (name + ".pyx")
        pyx.write_text(sources[name])
        if fresh:
            monkeypatch.setattr(cython_builder, "_context", None)
        return cython_builder._cythonize(pyx, name, sources[name]).read_text()

    want = {name: c_text(name, True) for name in ("m_a", "m_b")}
    monkeypatch.setattr(cython_builder, "_context", None)
    assert c_text("m_a", False) == want["m_a"]
    context = cython_builder._context
    assert context is not None and "m_a" not in context.modules
    assert c_text("m_b", False) == want["m_b"]
    assert c_text("m_a", False) == want["m_a"]           # the same name again
    assert cython_builder._context is context           # shared all along
    with pytest.raises(BuildError):
        c_text("m_bad", False)
    assert cython_builder._context is None              # dropped after a failure
    assert c_text("m_b", False) == want["m_b"]


def test_key_depends_on_flags(cache_root):
    base = cython_builder.build_key(AXPY, True)[0]
    assert cython_builder.build_key(AXPY, False)[0] != base
    assert cython_builder.build_key(AXPY, True, extra_key="x")[0] != base
    assert cython_builder.build_key(AXPY + "\n", True)[0] != base
    assert cython_builder.build_key(AXPY, True)[0] == base
    native = cython_builder.build_key(
        AXPY, True, extra_compile_args=["-march=native"])[0]
    assert native != base


def test_build_many_and_save_source(cache_root):
    from pcompute.config import use_config
    sources = ["def f():\n    return %d\n" % i for i in range(3)]
    with use_config(save_source=True):
        modules = cython_builder.build_many(
            [(src, "many%d" % i, False) for i, src in enumerate(sources)])
    assert [m.f() for m in modules] == [0, 1, 2]
    saved = sorted(p.read_text() for p in cache.cache_dir().rglob("*.pyx"))
    assert saved == sorted(sources)


def test_build_many_raises_first_error(cache_root):
    with pytest.raises(BuildError):
        cython_builder.build_many([("def g():\n    return 1\n", "ok", False),
                                   ("def g(:\n", "broken", False)])


# ---------------------------------------------------------------- OpenCL

@pytest.fixture(scope="module")
def opencl():
    pytest.importorskip("pyopencl")
    from pcompute.build import opencl_builder
    reason = opencl_builder.why_unavailable()
    if reason:
        pytest.skip("OpenCL unavailable: " + reason)
    return opencl_builder


AXPY_CL = """
__kernel void axpy(double a, __global const double *x, __global double *y)
{
    size_t i = get_global_id(0);
    y[i] = a * x[i] + y[i];
}
"""


def test_opencl_kernel_runs(opencl):
    import pyopencl as cl
    ctx, queue = opencl.get_context(), opencl.get_queue()
    assert opencl.device_supports_double(ctx.devices[0])
    kernel = opencl.build_opencl(AXPY_CL, ["axpy"])["axpy"]
    n = 1000
    x = np.arange(n, dtype=np.float64)
    y = np.ones(n)
    mf = cl.mem_flags
    dx = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=x)
    dy = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=y)
    kernel(queue, (n,), None, np.float64(2.0), dx, dy)
    cl.enqueue_copy(queue, y, dy)
    np.testing.assert_array_equal(y, 2.0 * x + 1.0)
    again = opencl.build_opencl(AXPY_CL, ["axpy"])["axpy"]
    assert again is kernel  # memoised


def test_opencl_bad_source(opencl):
    source = "__kernel void f(__global float *a) { a[0] = not_declared; }"
    with pytest.raises(BuildError) as info:
        opencl.build_opencl(source, ["f"])
    assert "not_declared" in info.value.log
    assert "1 | __kernel void f" in str(info.value)


def test_opencl_missing_kernel(opencl):
    source = "__kernel void f(__global float *a) { a[0] = 1.0f; }"
    with pytest.raises(BuildError, match="no kernel 'g'"):
        opencl.build_opencl(source, ["g"])


def _forget_context(monkeypatch, module):
    monkeypatch.setattr(module, "_context", None)
    monkeypatch.setattr(module, "_context_error", None)
    monkeypatch.setattr(module, "_queues", {})


def test_opencl_pyopencl_ctx_honoured(opencl, monkeypatch):
    chosen = opencl.get_context().devices[0]
    _forget_context(monkeypatch, opencl)
    monkeypatch.setenv("PYOPENCL_CTX", "0")
    ctx = opencl.get_context()
    assert ctx.devices[0].platform.name == \
        __import__("pyopencl").get_platforms()[0].name
    assert opencl.why_unavailable() is None
    first = __import__("pyopencl").get_platforms()[0].get_devices()
    assert ctx.devices[0].int_ptr in [d.int_ptr for d in first]
    assert chosen is not None


def test_opencl_no_device_builds(opencl, monkeypatch):
    _forget_context(monkeypatch, opencl)
    monkeypatch.delenv("PYOPENCL_CTX", raising=False)
    monkeypatch.setattr(opencl, "_try_device",
                        lambda cl, dev: "error: unknown target CPU 'generic'")
    reason = opencl.why_unavailable()
    assert reason and "tried" in reason and "generic" in reason
    assert "pocl-opencl-icd" in reason and "PYOPENCL_CTX" in reason
    with pytest.raises(BackendUnavailableError):
        opencl.get_context()


# ---------------------------------------------------------------- CUDA

needs_nvcc = pytest.mark.skipif(cuda_builder.nvcc_path() is None,
                                reason="nvcc not found")

AXPY_CU = """
extern "C" __global__ void axpy(int n, double a, const double *x, double *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
"""


@needs_nvcc
def test_cuda_check_accepts_valid_source():
    assert cuda_builder.default_arch().startswith("sm_")
    cuda_builder.check_cuda_source(AXPY_CU)


REMARKED_CU = """
extern "C" __global__ void remarked(unsigned long long *u, double *x)
{
    int unused;
    double unread;
    unread = 2.0 * x[0];
    x[0] = u[0] >= 0 ? 1.0 : 0.0;
}
"""


@needs_nvcc
def test_nvcc_remarks_on_generated_text_are_silenced(tmp_path):
    """nvcc remarks on a variable declared and never referenced (#177), set
    and never read (#550) and an unsigned value compared with zero (#186);
    pycuda shows any such output of a successful build as a UserWarning.
    The builder's options silence exactly those, for builds and checks."""
    src = tmp_path / "remarked.cu"
    src.write_text(REMARKED_CU)
    nvcc, arch = cuda_builder.nvcc_path(), cuda_builder.default_arch()

    def remarks(options):
        out = subprocess.run([nvcc, "--ptx", "-arch=%s" % arch, *options, "-o",
                              str(tmp_path / "k.ptx"), str(src)],
                             capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        return out.stdout + out.stderr

    plain = remarks([])
    for number in ("#177", "#186", "#550"):
        assert number in plain
    assert remarks(cuda_builder.nvcc_options()) == ""
    assert cuda_builder.nvcc_options(["-O3"])[-1] == "-O3"
    cuda_builder.check_cuda_source(REMARKED_CU)


@needs_nvcc
def test_cuda_check_rejects_invalid_source():
    source = 'extern "C" __global__ void f(int *a) { a[0] = nope_cuda; }'
    with pytest.raises(BuildError) as info:
        cuda_builder.check_cuda_source(source)
    assert "nope_cuda" in info.value.log
    assert "1 | extern" in str(info.value)


def _kernel_cu(value, helper="pc_helper"):
    """A source shaped like a generated one: a macro, a static helper and an
    ``extern "C"`` kernel named as every generated kernel is."""
    return ("#define PC_VALUE %s\nstatic __device__ inline double %s(double a)"
            " { return a + PC_VALUE; }\n"
            'extern "C" __global__ void pc_elementwise(long long n, double* x)\n'
            "{ long long i = blockIdx.x; if (i < n) x[i] = %s(x[i]); }\n"
            % (value, helper, helper))


@needs_nvcc
def test_cuda_sources_checked_in_one_nvcc_run(monkeypatch, cache_root):
    """Sources that would clash in one file (same kernel and helper names,
    different macro values) pass in one nvcc run; then each counts as
    checked (no further nvcc run), and a new run of the same batch is a
    cache hit."""
    sources = [_kernel_cu(v) for v in ("1.0", "2.0", "3.0")] + [
        "#include <cuda_fp16.h>\n" + _kernel_cu("4.0"),
        "#include <cuda_fp16.h>\n" + _kernel_cu("5.0")]
    runs = []
    original = cuda_builder._nvcc_ptx

    def counting(nvcc, arch, options, text, work, source):
        runs.append(text)
        return original(nvcc, arch, options, text, work, source)
    monkeypatch.setattr(cuda_builder, "_nvcc_ptx", counting)
    monkeypatch.setattr(cuda_builder, "_checked", set())
    cuda_builder.check_cuda_sources(sources)
    assert len(runs) == 2                       # one per set of #include lines
    assert [text.count("namespace pc_check_") for text in runs] == [3, 2]
    assert all(text.count("#include <cuda_fp16.h>") == ("fp16" in text) for text in runs)
    for source in sources:
        cuda_builder.check_cuda_source(source)
    assert len(runs) == 2
    monkeypatch.setattr(cuda_builder, "_checked", set())
    cuda_builder.check_cuda_sources(sources)
    assert len(runs) == 2


@needs_nvcc
def test_cuda_sources_name_the_failing_source(monkeypatch, cache_root):
    """A failing batch is checked source by source: the error is the one
    of the source at fault, with its own text numbered; sources that
    share a macro value, or need a macro another source defines, are not
    excused by the batch."""
    monkeypatch.setattr(cuda_builder, "_checked", set())
    bad = _kernel_cu("nope_cuda_batch")
    with pytest.raises(BuildError) as info:
        cuda_builder.check_cuda_sources([_kernel_cu("1.0"), bad, _kernel_cu("2.0")])
    assert "nope_cuda_batch" in info.value.log
    assert info.value.source == bad
    # the second source uses the first's macro and helper: alone it fails
    uses_other = ('extern "C" __global__ void k(double* x) '
                  "{ x[0] = pc_helper(PC_VALUE); }\n")
    with pytest.raises(BuildError) as info:
        cuda_builder.check_cuda_sources([_kernel_cu("7.0"), uses_other])
    assert info.value.source == uses_other


def _fake_pycuda(monkeypatch, driver):
    """Make ``import pycuda.driver`` give ``driver`` (None: an ImportError)."""
    package = types.ModuleType("pycuda")
    if driver is not None:
        package.driver = driver
    monkeypatch.setitem(sys.modules, "pycuda", package)
    monkeypatch.setitem(sys.modules, "pycuda.driver", driver)


def _driver(init_error=None, count=1):
    driver = types.ModuleType("pycuda.driver")

    def init():
        if init_error:
            raise RuntimeError(init_error)
    driver.init = init
    driver.Device = types.SimpleNamespace(count=lambda: count)
    return driver


def test_cuda_why_unavailable_says_why(monkeypatch):
    _fake_pycuda(monkeypatch, None)
    reason = cuda_builder.cuda_why_unavailable()
    assert reason and "pycuda is not installed" in reason
    with pytest.raises(BackendUnavailableError, match="pycuda"):
        cuda_builder.build_cuda(AXPY_CU, ["axpy"])
    _fake_pycuda(monkeypatch, _driver(init_error="cuInit failed: no driver"))
    assert "no CUDA driver" in cuda_builder.cuda_why_unavailable()
    assert "cuInit failed" in cuda_builder.cuda_why_unavailable()
    _fake_pycuda(monkeypatch, _driver(count=0))
    assert cuda_builder.cuda_why_unavailable() == "no CUDA device found by the driver"
    _fake_pycuda(monkeypatch, _driver(count=1))
    assert cuda_builder.cuda_why_unavailable() is None


def test_cuda_why_unavailable_here():
    reason = cuda_builder.cuda_why_unavailable()
    if importlib.util.find_spec("pycuda") is None:
        assert reason and "pycuda is not installed" in reason
