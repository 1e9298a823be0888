"""Every corpus kernel's generated source compiles, in every dialect.

Cython+C with ``build_cython``, OpenCL C on the OpenCL device here (PoCL) with
``build_opencl`` and CUDA C with ``nvcc --ptx`` (``check_cuda_source``; no
GPU needed), so a dialect that does not compile fails here even where its
backend cannot run.  Builds, nvcc's PTX included, are cached in
``PCOMPUTE_CACHE_DIR``.
"""
import numpy as np
import pytest

from pcompute.backends.registry import get_backend
from pcompute.build import cuda_builder
from pcompute.config import Config
from pcompute.generate import generate_record, generate_source

from kernels.corpus import CORPUS

NAMES = sorted(CORPUS)
PRECISIONS = {"float64": True, "float32": False}


def config_for(dialect, use_double=True):
    if dialect == "cython":
        return Config(read_environment=False, use_double=use_double, use_openmp=True)
    return Config(read_environment=False, use_double=use_double)


def source_of(kernel, dialect, use_double=True):
    dtype = np.float64 if use_double else np.float32
    return generate_source(kernel.func, backend=dialect, types=kernel.types(dtype),
                           config=config_for(dialect, use_double), index_dims=kernel.dims)


# Built at -O3 and with the flags the backend builds it with (module_flags:
# -lm for a kernel calling a math function), like test_semantics'
# cython-openmp-float64 case, whose module has the same source and flags: one
# build serves both (at the suite's -O0, or without the kernel's link flags,
# the corpus modules would be built twice).
@pytest.mark.optimised_build
@pytest.mark.parametrize("name", NAMES)
def test_cython_source_compiles(name):
    from pcompute.backends.cython import module_flags
    from pcompute.build.cython_builder import build_cython
    kernel = CORPUS[name]
    config = config_for("cython")
    record = generate_record(kernel.func, "cython", types=kernel.types(np.float64),
                             config=config, index_dims=kernel.dims)
    cflags, ldflags = module_flags(record)
    module = build_cython(record.source, name, get_backend("cython").use_openmp(config),
                          extra_compile_args=cflags, extra_link_args=ldflags)
    assert callable(module.run)


@pytest.fixture(scope="module")
def opencl_available(request):
    from conftest import require_backend
    require_backend(request, "opencl")


@pytest.mark.parametrize("name", NAMES)
def test_opencl_source_compiles(name, opencl_available):
    from pcompute.build.opencl_builder import build_opencl
    kernel = CORPUS[name]
    if kernel.no_opencl:
        cls, pattern = kernel.opencl_error
        with pytest.raises(cls, match=pattern):
            source_of(kernel, "opencl")
        return
    kernels = build_opencl(source_of(kernel, "opencl"), ["pc_elementwise"])
    assert "pc_elementwise" in kernels


# -- CUDA ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def nvcc():
    path = cuda_builder.nvcc_path()
    if path is None:
        pytest.skip("nvcc not found: the CUDA sources cannot be compile-checked here")
    from conftest import precheck_cuda
    precheck_cuda([source_of(CORPUS[name], "cuda", use_double) for name in NAMES
                   for use_double in PRECISIONS.values()])
    return path


@pytest.mark.parametrize("precision", sorted(PRECISIONS))
@pytest.mark.parametrize("name", NAMES)
def test_cuda_source_compiles(name, precision, nvcc):
    cuda_builder.check_cuda_source(source_of(CORPUS[name], "cuda", PRECISIONS[precision]))
