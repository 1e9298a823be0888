"""``pcompute.numpy.sources.fused_sources`` and ``pcompute source MODULE:ARRAY``:
the generated source of the kernels a lazy array's evaluation builds, without
evaluating it; on every backend it is exactly what the evaluation then builds."""
import textwrap

import numpy as np
import pytest

import pcompute.numpy as pnp
from pcompute.cli import main
from pcompute.errors import KernelValueError
from pcompute.numpy import kernels
from pcompute.numpy.sources import fused_sources


def _graph(xp, x):
    """A reduction feeding an elementwise chain (two kernels)."""
    return xp.sin(x) ** 2 + xp.cos(x) * 2 - x.sum()


def test_sources_are_what_evaluation_builds(backend):
    n = 40000                       # above every backend's default eager_below
    x = np.linspace(0.0, 1.0, n).astype(backend.dtype)
    y = _graph(pnp, pnp.asarray(x))
    if backend.name == "python":
        with pytest.raises(KernelValueError, match="generates no source"):
            fused_sources(y)
        return
    before = pnp.stats()
    planned = fused_sources(y)
    assert pnp.stats() == before and y._node.result is None   # nothing evaluated
    assert [name.split("_")[1] for name, _ in planned] == ["map", "fused"]
    kernels.clear_cache()
    got = np.asarray(y)
    built = [prim.all_source for prim in kernels._CACHE.values()]
    assert [text for _, text in planned] == built
    np.testing.assert_allclose(got, _graph(np, x), rtol=backend.rtol,
                               atol=backend.rtol * n)


def test_cli_prints_fused_kernels_for_cuda_without_a_gpu(tmp_path, capsys):
    module = tmp_path / "fusedmod.py"
    module.write_text(textwrap.dedent("""
        import numpy
        import pcompute.numpy as np
        x = np.asarray(numpy.linspace(0.0, 1.0, 40000))   # above eager_below
        y = np.sin(x) ** 2 + np.cos(x) * 2 - x.sum()
        small = np.asarray(numpy.ones(3)) * 2
    """))
    assert main(["source", "%s:y" % module, "-b", "cuda"]) == 0
    out = capsys.readouterr().out
    assert out.count("fused kernel") == 2 and "fused kernel 2 of 2 (pc_fused_" in out
    assert "__global__" in out and "Reduction('a + b')" in out
    assert main(["source", "%s:small" % module, "-b", "opencl"]) == 0
    assert "no kernel" in capsys.readouterr().out
    assert main(["source", "%s:y" % module, "--types", "a=int"]) == 2
    assert "does not apply" in capsys.readouterr().err
