"""Low-level Kernel/LocalMem (OpenCL, CUDA compile-checked), Cython(func), Extern."""
import numpy as np
import pytest

import pcompute as pc
from pcompute.build.cuda_builder import check_cuda_source, nvcc_path
from pcompute.errors import BuildError, KernelSyntaxError, KernelTypeError, KernelValueError
from pcompute.low_level import Cython, Kernel, LocalMem

import ll_kernels as K


def test_local_memory_reduction_on_opencl(request):
    from conftest import require_backend
    require_backend(request, "opencl")
    with pc.use_config(backend="opencl", use_double=True):
        n = 4096
        x = np.random.default_rng(0).random(n)
        out = pc.zeros(n // 64, np.float64)
        k = Kernel(K.block_sum)
        k(pc.wrap(x), out, LocalMem(1), n, global_size=(n,), local_size=(64,))
        np.testing.assert_allclose(out.get(), x.reshape(-1, 64).sum(axis=1), rtol=1e-12)
        assert "__kernel void block_sum" in k.source
        assert "__local double* tmp" in k.source


def test_local_memory_kernel_compiles_for_cuda():
    if nvcc_path() is None:
        pytest.skip("nvcc is not installed")
    with pc.use_config(use_double=True):
        src, _ = Kernel(K.block_sum, backend="cuda").generate(
            (np.zeros(4), np.zeros(4), LocalMem(1), 4), backend="cuda")
    assert "extern __shared__ char pc_shared[];" in src
    check_cuda_source(src)


def test_kernel_rejects_cpu_backends():
    with pytest.raises(KernelValueError, match="opencl or cuda"):
        Kernel(K.block_sum, backend="cython").generate(
            (np.zeros(4), np.zeros(4), LocalMem(1), 4))


def test_local_mem_needs_annotation():
    def k(x, tmp):
        tmp[0] = x[0]
    with pytest.raises(KernelTypeError, match="local pointer"):
        Kernel(k, backend="opencl").generate((np.zeros(4, np.float32), LocalMem(1)))


def test_elementwise_rejects_work_item_names():
    with pytest.raises(KernelSyntaxError, match="low-level"):
        pc.Elementwise(K.uses_lid, backend="cython")(np.zeros(4))


@pytest.mark.parametrize("openmp", [False, True])
def test_cython_function_with_prange(openmp):
    x = np.random.default_rng(1).random(100000)
    a = np.arange(1000, dtype=np.int32)
    with pc.use_config(use_openmp=openmp, use_double=True):
        assert Cython(K.parallel_total)(x, len(x)) == pytest.approx(x.sum(), rel=1e-12)
        expected = int(((np.arange(1000) % 3) * a).sum())
        assert Cython(K.serial_weighted)(a, len(a)) == expected


def test_cython_prange_source_uses_prange():
    c = Cython(K.parallel_total)
    with pc.use_config(use_openmp=True, use_double=True):
        c(np.ones(10), 10)
    assert "in prange(0, n):" in c.source


def test_extern_on_every_backend(backend):
    x = np.arange(7, dtype=np.float64)
    if not backend.use_double and backend.name != "python" and backend.name != "cython":
        pytest.skip("the extern is written for double arguments")
    xa, ya = pc.wrap(x.copy()), pc.zeros(7, np.float64)
    pc.Elementwise(K.apply_twice)(xa, ya)
    np.testing.assert_allclose(ya.get(), 2 * x)


def test_extern_cuda_source_compiles():
    if nvcc_path() is None:
        pytest.skip("nvcc is not installed")
    from pcompute.generate import generate_source
    src = generate_source(K.apply_twice, "cuda", types="x=gdoublep,y=gdoublep",
                          config={"use_double": True})
    assert "double twice(double x)" in src
    check_cuda_source(src)


def test_cython_function_with_nogil_parallel_blocks():
    x = np.random.default_rng(2).random(50000)
    with pc.use_config(use_openmp=True, use_double=True):
        assert Cython(K.compyle_style_total)(x, len(x)) == pytest.approx(x.sum(), rel=1e-12)
    # In Python the blocks do nothing and the function still runs.
    assert K.compyle_style_total(x, len(x)) == pytest.approx(x.sum(), rel=1e-12)


def test_extern_link_arguments_reach_the_linker(monkeypatch):
    require = pc.get_backend("cython")
    if not require.available():
        pytest.skip("cython backend unavailable: %s" % require.why_unavailable())
    x = np.array([1.0, 8.0, 27.0])
    with pc.use_config(backend="cython", use_double=True):
        y = pc.zeros(3, np.float64)
        e = pc.Elementwise(K.apply_cube_root)
        e(pc.wrap(x), y)
        np.testing.assert_allclose(y.get(), [1.0, 2.0, 3.0])
        assert e.elementwise.generated.option("link") == ("-lm",)
        monkeypatch.setattr(K._CubeRoot, "libs", ["-lpcompute_no_such_library"])
        with pytest.raises(BuildError, match="pcompute_no_such_library"):
            pc.Elementwise(K.apply_cube_root)(pc.wrap(x), y)


def test_extern_link_is_an_error_on_device_backends(monkeypatch):
    from pcompute.generate import generate_source
    monkeypatch.setattr(K._CubeRoot, "link", lambda self, backend: ["-lm"])
    for backend in ("opencl", "cuda"):
        with pytest.raises(KernelValueError, match="not linked"):
            generate_source(K.apply_cube_root, backend, types="x=gdoublep,y=gdoublep",
                            config={"use_double": True})


def test_local_mem_get_asks_the_backend(request):
    from conftest import require_backend
    require_backend(request, "opencl")
    import pyopencl as cl
    mem = LocalMem(2, backend="opencl").get("double", 64)
    assert isinstance(mem, cl.LocalMemory) and mem.size == 2 * 64 * 8


def test_cython_function_is_a_primitive_with_a_record_and_timings():
    x = np.arange(10.0)
    c = Cython(K.parallel_total)
    with pc.use_config(use_double=True, profile=True):
        pc.profile.reset_profile()
        assert c(x, len(x)) == 45.0
        assert "parallel_total" in pc.profile.get_profile_info()[0]
    assert c.built.kind == "function" and c.built.backend == "cython"
    assert c.built.generated.entries == ("run",)
