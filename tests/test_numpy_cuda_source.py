"""The CUDA source of pcompute.numpy's fused kernels compiles (``nvcc --ptx``,
no GPU needed): the layer's kernels are checked in the dialect whose backend
cannot run here."""
import numpy as np
import pytest

import pcompute.numpy as pnp
from pcompute.build import cuda_builder
from pcompute.config import Config, use_config
from pcompute.generate import generate_source
from pcompute.numpy import kernels


def _type_name(value):
    if isinstance(value, (np.integer, np.floating)):
        return {"float64": "double", "float32": "float", "int64": "long",
                "int32": "int", "uint64": "ulong"}[value.dtype.name]
    if isinstance(value, int):
        return "long"
    dtype = np.dtype(value.dtype)
    return "g%sp" % {"float64": "double", "float32": "float", "int32": "int",
                     "int64": "long", "bool": "bool", "uint8": "uchar"}[dtype.name]


def _captured(monkeypatch, build):
    """(function, {param: type}) of every elementwise kernel ``build()`` runs."""
    seen = []
    real = kernels.run_elementwise

    def spy(source, out, args, nodes, size=None):
        prim = real(source, out, args, nodes, size)
        code = prim.func.__code__
        values = [out] + list(args)
        dims = code.co_argcount - len(values)         # index parameters: i or x0, x1..
        names = code.co_varnames[dims:code.co_argcount]
        seen.append((prim.func, dims, dict(zip(names, [_type_name(v) for v in values]))))
        return prim
    monkeypatch.setattr(kernels, "run_elementwise", spy)
    old = pnp.set_options(eager_below=0)
    try:
        with use_config(backend="python"):
            build()
    finally:
        pnp.set_options(**old)
    return seen


def test_fused_kernels_compile_for_cuda(monkeypatch):
    if cuda_builder.nvcc_path() is None:
        pytest.skip("nvcc not found: the CUDA sources cannot be compile-checked here")

    def build():
        x = pnp.asarray(np.linspace(-1, 1, 12).reshape(3, 4))
        y = pnp.asarray(np.arange(4, dtype=np.int32))
        z = pnp.where(x > 0, pnp.sin(x) * y, x // 0.5 - y % 3)
        np.asarray(z)
        np.asarray(pnp.argmax(x * y, axis=1))
        u = pnp.asarray(np.zeros((4, 4)))
        u[1:-1, 1:-1] = u[:-2, 1:-1] + 1.0
        np.asarray(u)
    seen = _captured(monkeypatch, build)
    assert len(seen) >= 3
    assert any(dims == 2 for _, dims, _ in seen)      # an n-D index space among them
    cuda_builder.check_cuda_sources([        # one nvcc run for all
        generate_source(func, backend="cuda", types=types, index_dims=dims,
                        config=Config(read_environment=False, use_double=True))
        for func, dims, types in seen])
