"""The kernels of pcompute.distributed and of the decomposed MD compile as
CUDA C (``nvcc --ptx``; no GPU needed) in float32 and float64.  They run on
python, cython and OpenCL in the MPI tests (tests/test_distributed.py,
tests/test_md_mpi.py); this covers the dialect that cannot run here."""
import os
import sys

import numpy as np
import pytest

import pcompute as pc
from pcompute import Elementwise, use_config
from pcompute.build import cuda_builder
from pcompute.distributed import packing
from pcompute.distributed.scan import _carry_output
from pcompute.generate import generate_source
from pcompute.primitives.scan import Scan
from pcompute.types import dtype_to_ctype

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from examples.md import local_cells  # noqa: E402


def _types(func, values):
    names = func.__code__.co_varnames[1:func.__code__.co_argcount]
    out = {}
    for name, v in zip(names, values):
        ctype = dtype_to_ctype(np.asarray(v).dtype)
        out[name] = ctype.pointer_to("global") if isinstance(v, np.ndarray) else ctype
    return out


def _kernels(real):
    a, i32, i64 = np.zeros(4, real), np.zeros(4, np.int32), np.zeros(4, np.int64)
    r, i, n = real(1), np.int32(1), np.int64(1)
    return [
        (packing.pack_shifted, [i32, a, a, n, r]),
        (packing.pack_values, [i32, a, a, n]),
        (packing.pack_values, [i32, i64, i64, n]),
        (packing.unpack_values, [a, a, n]),
        (local_cells.bin_local_2d, [a, a, i32, i32, i32, r, r, r, r, i, i]),
        (local_cells.bin_local_3d, [a, a, a, i32, i32, i32] + [r] * 6 + [i] * 3),
        (local_cells.forces_local_2d, [a, a, a, a, a, i32, i32, r, r, r, r, i, i, r, r, r,
                                       i]),
        (local_cells.forces_local_3d, [a] * 7 + [i32, i32] + [r] * 6 + [i] * 3
         + [r, r, r, i]),
    ]


@pytest.fixture
def nvcc():
    if cuda_builder.nvcc_path() is None:
        pytest.skip("nvcc not found: the CUDA sources cannot be compile-checked here")


@pytest.mark.parametrize("real", [np.float32, np.float64], ids=["float32", "float64"])
def test_kernels_compile_as_cuda(nvcc, real):
    sources = []
    with use_config(use_double=real == np.float64):
        for func, values in _kernels(real):
            source = generate_source(func, backend="cuda", types=_types(func, values))
            if real == np.float32:
                assert "double" not in source, func.__name__
            sources.append(source)
        a, i32 = np.zeros(4, real), np.zeros(4, np.int32)
        select = Scan(input=packing.in_slab, output=packing.selected_output,
                      dtype=np.int32)
        sources.append(select.generate(
            "cuda", x=a, lo=real(0), hi=real(1), sel_idx=i32, sel_count=i32))
        carry = Scan(output=_carry_output("max(a, b)", exclusive=True), dtype=np.int32,
                     scan_expr="max(a, b)", neutral="-INFINITY")
        sources.append(carry.generate(
            "cuda", input=i32, dscan_out=i32, dscan_carry=np.int32(3)))
    cuda_builder.check_cuda_sources(sources)            # one nvcc run for all


def test_local_binning_of_outside_and_nan_positions(backend):
    """The decomposed run's binning (local_cells.bin_local_2d) on every
    backend: a position below the local region or NaN goes to the first cell,
    one past it to the last, as the single-process cell_of bins them (a NaN
    reaching floor() raised on the python backend and is undefined in C)."""
    real = backend.dtype.type
    lo, cs, nc = 1.0, 0.5, 4
    x = np.array([1.1, -3.0, np.nan, 2.9, 100.0, 2.2, 1.0], real)
    y = np.array([1.6, 1.2, 2.4, np.nan, 1.99, -1.0, 3.0], real)

    def cell(p):
        q = (p - lo) / cs
        return 0 if not q >= 0 else (nc - 1 if q >= nc else int(q))

    expected = np.array([cell(a) * nc + cell(b) for a, b in zip(x, y)], np.int32)
    keys, ranks = pc.wrap(np.zeros(len(x), np.int32), np.zeros(len(x), np.int32))
    counts = pc.wrap(np.zeros(nc * nc, np.int32))
    Elementwise(local_cells.bin_local_2d)(
        pc.wrap(x), pc.wrap(y), keys, ranks, counts, real(lo), real(lo), real(cs),
        real(cs), np.int32(nc), np.int32(nc))
    keys.pull()
    counts.pull()
    np.testing.assert_array_equal(keys.data, expected)
    np.testing.assert_array_equal(counts.data, np.bincount(expected, minlength=nc * nc))
