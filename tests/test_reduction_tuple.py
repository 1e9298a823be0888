"""Reductions with several outputs (a tuple accumulator), on every backend,
against NumPy: argmin/argmax (value, index) pairs with ties, a mean and
variance in one pass, bounds checks, errors, and the CUDA source compiled
with nvcc --ptx.  Each test builds one kernel per backend case and checks
several lengths with it."""
import numpy as np
import pytest

from pcompute.array import wrap
from pcompute.config import get_config, use_config
from pcompute.errors import KernelTypeError, KernelValueError
from pcompute.primitives.reduction import Reduction


def value(i, r):          # r: a name the generated wrappers must not clash with
    return r[i]


def index(i, r):
    return i


def square(i, r):
    return r[i] * r[i]


def picked(i, x, idx):
    return x[idx[i]]


def picked_index(i, x, idx):
    return i


def _argmin(dtype):
    # The first of equal minima: (a if a <= b else b) on (value, index) pairs.
    return Reduction(("a0 if a0 <= b0 else b0", "a1 if a0 <= b0 else b1"), (value, index),
                     dtype_out=(dtype, np.int64), neutral=None)


def _lengths_with_ties(backend):
    rng = np.random.default_rng(3)
    for n in (1, 2, 7, 100, 5001):      # 5001: several threads, blocks and groups
        x = rng.integers(0, 40, n).astype(backend.dtype)   # many equal values
        yield x


def test_argmin_and_argmax_keep_the_first_index(backend):
    argmin = _argmin(backend.dtype)
    argmax = Reduction(("a0 if a0 >= b0 else b0", "a1 if a0 >= b0 else b1"),
                       (value, index), dtype_out=(backend.dtype, np.int64), neutral=None)
    for x in _lengths_with_ties(backend):
        got = argmin(wrap(x))
        assert got == (x.min(), np.argmin(x)), len(x)
        assert isinstance(got[1], np.int64) and got[0].dtype == backend.dtype
        assert argmax(wrap(x)) == (x.max(), np.argmax(x)), len(x)


def test_record_passes_through_the_array_interface():
    """The accumulator record of (float32, int64) is padded; pycuda's ``get``
    rebuilds arrays through ``__array_interface__`` (numpy's as_strided),
    which failed on the H200 while the fields were called f0, f1 (numpy's
    names of padding)."""
    from pcompute.primitives.tuple_reduction import TupleParts
    from pcompute.types import dtype_to_ctype
    for dtypes in ((np.float32, np.int64), (np.int8, np.float64, np.int32)):
        for neutrals in (None, tuple(np.dtype(d).type(0) for d in dtypes)):
            parts = TupleParts((), (), tuple(dtype_to_ctype(np.dtype(d)) for d in dtypes),
                               neutrals, (), ())
            record = np.zeros(3, parts.record_dtype())
            np.lib.stride_tricks.as_strided(record)


def test_no_items_without_neutral_elements_is_an_error(backend):
    with pytest.raises(KernelValueError, match="no items"):
        _argmin(backend.dtype)(wrap(np.zeros(0, backend.dtype)))


def test_mean_and_variance_in_one_pass(backend):
    moments = Reduction(("a0 + b0", "a1 + b1"), (value, square),
                        dtype_out=(np.float64, np.float64), neutral=("0", "0"))
    rng = np.random.default_rng(5)
    for n in (0, 3, 4099):
        x = rng.random(n).astype(backend.dtype)
        s, s2 = moments(wrap(x))
        ref = x.astype(np.float64)
        assert s == pytest.approx(ref.sum(), rel=backend.rtol, abs=1e-12)
        assert s2 == pytest.approx((ref * ref).sum(), rel=backend.rtol, abs=1e-12)
        if n:
            mean, var = s / n, s2 / n - (s / n) ** 2
            assert mean == pytest.approx(ref.mean(), rel=backend.rtol)
            assert var == pytest.approx(ref.var(), rel=1e-3 if backend.rtol > 1e-6 else 1e-8)


def test_interleaved_lanes_are_one_array_per_component():
    # Componentwise sums interleave SIMD lanes: the Cython accumulator is a
    # struct of arrays (an array of records keeps gcc from vectorising the
    # lanes: 1.7x slower at 10^6); argmin (no neutral elements) keeps the
    # ordered records.  Generates source only.
    moments = Reduction(("a0 + b0", "a1 + b1"), (value, square),
                        dtype_out=(np.float64, np.float64), neutral=("0", "0"))
    x = np.arange(4.0)
    with use_config(use_openmp=False):
        source = moments.generate("cython", x)
        assert "cdef pc_lanes pc_acc" in source and "double c1[16]" in source
        assert "pc_lanes" not in _argmin(np.float64).generate("cython", x)


def test_bounds_check_of_every_component(backend):
    arg = Reduction(("a0 if a0 <= b0 else b0", "a1 if a0 <= b0 else b1"),
                    (picked, picked_index), dtype_out=(backend.dtype, np.int64),
                    neutral=None)
    x = np.array([5, 2, 9, 2], backend.dtype)
    with use_config(bounds_check=True, use_double=get_config().use_double):
        assert arg(wrap(x), wrap(np.array([2, 3, 0, 1], np.int32))) == (2, 1)
        with pytest.raises(IndexError, match="out of range") as info:
            arg(wrap(x), wrap(np.array([0, 4, 1, 1], np.int32)))
        assert "picked" in str(info.value)


def test_construction_and_call_errors():
    with pytest.raises(KernelValueError, match="tuple of 2 map functions"):
        Reduction(("a0 + b0", "a1 + b1"), value, dtype_out=(np.float64, np.float64))
    with pytest.raises(KernelValueError, match="tuple of 2 dtypes"):
        Reduction(("a0 + b0", "a1 + b1"), (value, square), dtype_out=np.float64)
    with pytest.raises(KernelValueError, match="None or a tuple of 2"):
        Reduction(("a0 + b0", "a1 + b1"), (value, square),
                  dtype_out=(np.float64, np.float64), neutral="0")
    with pytest.raises(KernelTypeError, match="same parameters"):
        Reduction(("a0 + b0", "a1 + b1"), (value, picked),
                  dtype_out=(np.float64, np.float64))
    with pytest.raises(KernelTypeError, match="1-D index space"):
        _argmin(np.float64)(np.zeros(3), np.zeros(3))


@pytest.mark.parametrize("precision", ["float32", "float64"])
def test_tuple_reductions_compile_as_cuda(precision, tmp_path):
    import subprocess
    from pcompute.build import cuda_builder
    nvcc = cuda_builder.nvcc_path()
    if nvcc is None:
        pytest.skip("nvcc not found: the CUDA sources cannot be compile-checked here")
    x = np.zeros(4, precision)
    with use_config(use_double=precision == "float64"):
        moments = Reduction(("a0 + b0", "a1 + b1"), (value, square),
                            dtype_out=(np.float64, np.float64), neutral=("0", "0"))
        for k, red in enumerate((_argmin(x.dtype), moments)):
            path = tmp_path / ("r%d.cu" % k)
            path.write_text(red.generate("cuda", x))
            done = subprocess.run([nvcc, "--ptx", str(path), "-o", str(path) + ".ptx"],
                                  capture_output=True, text=True)
            assert done.returncode == 0, done.stderr
