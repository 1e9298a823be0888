"""Tests of Scan and the scan helpers (cumsum, where, take_bool).

Every cross-backend test uses the shared ``backend`` fixture (ids like
``cython-openmp-float32``); references are numpy or plain Python loops.  Big
scans use small integer values stored as floats, so every precision is exact.
"""
import numpy as np
import pytest

from pcompute.array import wrap, zeros
from pcompute.backends.registry import get_backend
from pcompute.backends.scan_cython import SCAN_SERIAL_BELOW
from pcompute.build import cuda_builder
from pcompute.config import get_config, use_config
from pcompute.errors import KernelSyntaxError, KernelTypeError, KernelValueError
from pcompute.array import algorithms
from pcompute.primitives.scan import Scan
from pcompute.types import atomic_inc


@pytest.fixture(autouse=True)
def restore_config():
    with use_config():
        yield


def small_ints(n, dtype, seed=0, high=4):
    """Values 0..high-1 of ``dtype``: scans of them are exact in float32."""
    return np.random.default_rng(seed).integers(0, high, n).astype(dtype)


def segmented_reference(x, flags):
    """(inclusive, exclusive) segmented prefix sums, by a plain loop."""
    inc, exc = np.empty(len(x)), np.empty(len(x))
    acc = 0.0
    for i, (v, f) in enumerate(zip(x.tolist(), flags.tolist())):
        if f:
            acc = 0.0
        exc[i] = acc
        acc += v
        inc[i] = acc
    return inc, exc


# -- user functions -------------------------------------------------------------------

def scan_input(i, x):
    return x[i]


def write_all(i, item, prev_item, last_item, N, inc, exc, last, n_out):
    inc[i] = item
    exc[i] = prev_item
    last[i] = last_item
    n_out[i] = N


def write_inclusive(i, item, y):
    y[i] = item


def write_exclusive(prev_item, i, y):
    y[i] = prev_item


def segment_flag(i, flags):
    return flags[i]


def in_place_input(i, ary):
    return ary[i]


def in_place_output(i, item, ary):
    ary[i] = item


def in_place_exclusive(i, prev_item, ary):
    ary[i] = prev_item


def unique_flag(i, x):
    return 1 if i == 0 or x[i] != x[i - 1] else 0


def unique_output(i, item, prev_item, N, x, out, count):
    if item != prev_item:
        out[prev_item] = x[i]
    if i == N - 1:
        count[0] = item


def counted_input(i, x, calls):
    atomic_inc(calls[0])
    return x[i]


# User names that generated code must not confuse with its own.
def mix(item, N):
    return item * N


def combine(a, b):
    return a + b


def named_input(i, a, b):
    return combine(a[i], mix(b[i], 2))


def named_output(i, item, N, c):
    c[i] = item + 0 * N


# -- inclusive, exclusive, last_item ----------------------------------------------

@pytest.mark.parametrize("n", [1, 2, 5, 3000, 5001])
def test_inclusive_exclusive_last_item(backend, n):
    x = small_ints(n, backend.dtype, seed=n)
    inc, exc, last, n_out = (zeros(n, backend.dtype) for _ in range(4))
    Scan(scan_input, write_all, dtype=backend.dtype)(
        x=wrap(x.copy()), inc=inc, exc=exc, last=last, n_out=n_out)
    ref = np.cumsum(x.astype(np.float64))
    np.testing.assert_array_equal(inc.get(), ref)
    np.testing.assert_array_equal(exc.get(), np.concatenate([[0.0], ref[:-1]]))
    np.testing.assert_array_equal(last.get(), np.full(n, ref[-1]))
    np.testing.assert_array_equal(n_out.get(), np.full(n, n))


def test_float_scan_matches_numpy(backend):
    x = np.random.default_rng(1).random(4000).astype(backend.dtype)
    y = zeros(4000, backend.dtype)
    Scan(scan_input, write_inclusive, dtype=backend.dtype)(x=wrap(x.copy()), y=y)
    np.testing.assert_allclose(y.get(), np.cumsum(x.astype(np.float64)),
                               rtol=backend.rtol)


def test_exclusive_with_parameters_in_any_order(backend):
    x = small_ints(3000, backend.dtype, seed=2)
    y = zeros(3000, backend.dtype)
    Scan(scan_input, write_exclusive, dtype=backend.dtype)(x=wrap(x.copy()), y=y)
    ref = np.cumsum(x.astype(np.float64))
    np.testing.assert_array_equal(y.get(), np.concatenate([[0.0], ref[:-1]]))


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_integer_scan_exact(backend, dtype):
    x = np.random.default_rng(3).integers(-1000, 1000, 7001).astype(dtype)
    y = zeros(7001, dtype)
    Scan(scan_input, write_inclusive, dtype=dtype)(x=wrap(x.copy()), y=y)
    np.testing.assert_array_equal(y.get(), np.cumsum(x, dtype=dtype))


def test_max_scan_with_infinite_neutral(backend):
    x = (np.random.default_rng(4).random(5000) * 100 - 50).astype(backend.dtype)
    inc, exc = zeros(5000, backend.dtype), zeros(5000, backend.dtype)
    Scan(scan_input, write_all_two, scan_expr="max(a, b)", neutral="-INFINITY",
         dtype=backend.dtype)(x=wrap(x.copy()), inc=inc, exc=exc)
    ref = np.maximum.accumulate(x)
    np.testing.assert_array_equal(inc.get(), ref)
    np.testing.assert_array_equal(exc.get(), np.concatenate([[-np.inf], ref[:-1]]))


def write_all_two(i, item, prev_item, inc, exc):
    inc[i] = item
    exc[i] = prev_item


def test_empty_input_calls_nothing(backend):
    y = zeros(0, backend.dtype)
    Scan(dtype=backend.dtype)(input=wrap(np.zeros(0, backend.dtype)), output=y)
    assert len(y) == 0


# -- segments -------------------------------------------------------------------------

@pytest.mark.parametrize("n,density", [(1, 0.5), (97, 0.3), (5000, 0.01), (6001, 0.5),
                                       (4099, 0.0)])
def test_segmented_scan(backend, n, density):
    rng = np.random.default_rng(n)
    x = small_ints(n, backend.dtype, seed=n + 1)
    flags = (rng.random(n) < density).astype(np.int32)
    inc, exc, last, n_out = (zeros(n, backend.dtype) for _ in range(4))
    Scan(scan_input, write_all, is_segment=segment_flag, dtype=backend.dtype)(
        x=wrap(x.copy()), flags=wrap(flags), inc=inc, exc=exc, last=last, n_out=n_out)
    ref_inc, ref_exc = segmented_reference(x, flags)
    np.testing.assert_array_equal(inc.get(), ref_inc)
    np.testing.assert_array_equal(exc.get(), ref_exc)
    np.testing.assert_array_equal(last.get(), np.full(n, ref_inc[-1]))


def test_segmented_scan_with_segment_in_every_block(backend):
    # Segment starts exactly at block boundaries and at the first element
    # (blocks of n / 8 items on 2 threads; the OpenMP scan is serial below
    # SCAN_SERIAL_BELOW items).
    n = 8 * 5120
    assert n >= SCAN_SERIAL_BELOW
    x = small_ints(n, backend.dtype, seed=7)
    flags = np.zeros(n, np.int32)
    flags[[0, 1, 1024, 2048, 4095, 4096, 4097, 5120, 10239, 10240, 10241, 20480, n - 1]] = 1
    inc = zeros(n, backend.dtype)
    Scan(scan_input, write_inclusive, is_segment=segment_flag, dtype=backend.dtype)(
        x=wrap(x.copy()), flags=wrap(flags), y=inc)
    np.testing.assert_array_equal(inc.get(), segmented_reference(x, flags)[0])


# -- stream compaction ---------------------------------------------------------------

def test_where_and_take_bool(backend):
    rng = np.random.default_rng(5)
    n = 5003
    mask = (rng.random(n) < 0.3).astype(np.int32)
    x = (rng.random(n) * 10).astype(backend.dtype)
    idx = algorithms.where(wrap(mask.copy()))
    assert idx.dtype == np.int64
    np.testing.assert_array_equal(idx.get(), np.flatnonzero(mask))
    taken = algorithms.take_bool(wrap(x.copy()), wrap(mask.copy()))
    np.testing.assert_array_equal(taken.get(), x[mask != 0])
    none = algorithms.where(wrap(np.zeros(10, np.int32)))
    assert len(none) == 0
    assert len(algorithms.where(wrap(np.zeros(0, np.int32)))) == 0


def test_unique_of_sorted_values(backend):
    x = np.sort(small_ints(4000, backend.dtype, seed=9, high=300))
    out = zeros(4000, backend.dtype)
    count = zeros(1, np.int64)
    Scan(unique_flag, unique_output, dtype=np.int64)(x=wrap(x.copy()), out=out,
                                                     count=count)
    k = int(count.get()[0])
    np.testing.assert_array_equal(out.get()[:k], np.unique(x))


def test_cumsum(backend):
    x = small_ints(5000, backend.dtype, seed=11)
    got = algorithms.cumsum(wrap(x.copy()))
    assert got.dtype == backend.dtype
    np.testing.assert_array_equal(got.get(), np.cumsum(x.astype(np.float64)))
    assert len(algorithms.cumsum(wrap(np.zeros(0, backend.dtype)))) == 0


# -- in-place scans -------------------------------------------------------------------

@pytest.mark.parametrize("output", [in_place_output, in_place_exclusive])
def test_in_place_scan(backend, output):
    n = 6007
    x = small_ints(n, backend.dtype, seed=13)
    ary = wrap(x.copy())
    Scan(in_place_input, output, dtype=backend.dtype)(ary=ary)
    ref = np.cumsum(x.astype(np.float64))
    if output is in_place_exclusive:
        ref = np.concatenate([[0.0], ref[:-1]])
    np.testing.assert_array_equal(ary.get(), ref)


def test_in_place_segmented_scan_with_last_item(backend):
    n = 5000
    x = small_ints(n, backend.dtype, seed=17)
    flags = (np.random.default_rng(17).random(n) < 0.02).astype(np.int32)
    ary, last = wrap(x.copy()), zeros(n, backend.dtype)
    Scan(in_place_input, in_place_with_last, is_segment=segment_flag,
         dtype=backend.dtype)(ary=ary, flags=wrap(flags), last=last)
    ref = segmented_reference(x, flags)[0]
    np.testing.assert_array_equal(ary.get(), ref)
    np.testing.assert_array_equal(last.get(), np.full(n, ref[-1]))


def in_place_with_last(i, item, last_item, ary, last):
    ary[i] = item
    last[i] = last_item


@pytest.mark.parametrize("need_last", [False, True])
def test_complex_map_evaluates_input_once_per_item(backend, need_last):
    n = 5000
    x = small_ints(n, backend.dtype, seed=19)
    calls = zeros(1, np.int32)
    y = zeros(n, backend.dtype)
    output = write_with_last if need_last else write_inclusive
    Scan(counted_input, output, dtype=backend.dtype, complex_map=True)(
        x=wrap(x.copy()), calls=calls, y=y)
    assert int(calls.get()[0]) == n
    np.testing.assert_array_equal(y.get(), np.cumsum(x.astype(np.float64)))


def write_with_last(i, item, last_item, y):
    y[i] = item + 0 * last_item


# -- big scans ------------------------------------------------------------------------

def test_scan_of_three_million(backend):
    if backend.name == "python":
        pytest.skip("too slow in pure Python")
    n = 3_000_000
    x = small_ints(n, backend.dtype, seed=23)
    y = zeros(n, backend.dtype)
    Scan(dtype=backend.dtype)(input=wrap(x.copy()), output=y)
    np.testing.assert_array_equal(y.get(), np.cumsum(x.astype(np.float64)))
    flags = (np.random.default_rng(23).random(n) < 1e-4).astype(np.int32)
    Scan(scan_input, write_inclusive, is_segment=segment_flag, dtype=backend.dtype)(
        x=wrap(x.copy()), flags=wrap(flags), y=y)
    # Segment-local sums are exact too; compare with a vectorised reference.
    csum = np.cumsum(x.astype(np.float64))
    starts = np.maximum.accumulate(np.where(flags != 0, np.arange(n), 0))
    before = np.where(starts > 0, csum[starts - 1], 0.0)
    np.testing.assert_array_equal(y.get(), csum - before)


_MANY_THREADS = """
import numpy as np
from pcompute.array import wrap, zeros
from pcompute.config import use_config
from test_scan import scan_input, segment_flag, segmented_reference, write_all
n = 100003
rng = np.random.default_rng(5)
x = rng.integers(0, 4, n).astype(np.float64)
for density in (0.0, 1e-4, 0.05):
    flags = (rng.random(n) < density).astype(np.int32)
    inc, exc, last, n_out = (zeros(n, np.float64, backend="cython") for _ in range(4))
    with use_config(backend="cython", use_openmp=True, use_double=True):
        Scan(scan_input, write_all, is_segment=segment_flag)(
            x=wrap(x.copy()), flags=wrap(flags), inc=inc, exc=exc, last=last, n_out=n_out)
        ref_inc, ref_exc = segmented_reference(x, flags)
        assert (inc.get() == ref_inc).all() and (exc.get() == ref_exc).all()
        assert (last.get() == ref_inc[-1]).all()
        out = zeros(n, np.float64, backend="cython")
        Scan()(input=wrap(x.copy()), output=out)
        assert (out.get() == np.cumsum(x)).all()
print("ok")
"""


def test_openmp_with_odd_thread_counts():
    """Many blocks (threads x blocks per thread) keep carries and segments right."""
    import os
    import subprocess
    import sys
    from pcompute.build import toolchain
    if toolchain.openmp_flags() is None:
        pytest.skip("OpenMP is not available here")
    here = os.path.dirname(os.path.abspath(__file__))
    env = dict(os.environ, OMP_NUM_THREADS="7",
               PYTHONPATH=os.pathsep.join([here, os.path.dirname(here),
                                           os.environ.get("PYTHONPATH", "")]))
    script = "from pcompute.primitives.scan import Scan\n" + _MANY_THREADS
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-3000:]


# -- configuration changes -----------------------------------------------------------

def test_repeated_scans_while_toggling_config(backend):
    scan = Scan(scan_input, write_inclusive, dtype=np.float64)
    x64 = small_ints(4096, np.float64, seed=29)
    ref = np.cumsum(x64)
    for use_double in (True, False, True):
        for openmp in (False, True, False):
            with use_config(use_double=use_double, use_openmp=openmp):
                dtype = np.float64 if use_double else np.float32
                y = zeros(4096, dtype)
                scan(x=wrap(x64.astype(dtype)), y=y)
                np.testing.assert_array_equal(y.get(), ref)
                source = scan.source
                if backend.name == "cython":
                    assert ("cython.parallel" in source) == \
                        get_backend("cython").use_openmp(get_config())
                elif backend.name in ("opencl", "cuda"):
                    assert ("double" in source) == use_double


# -- names and calls ------------------------------------------------------------------

def test_user_names_like_internal_ones(backend):
    a = small_ints(3000, backend.dtype, seed=31)
    b = small_ints(3000, backend.dtype, seed=37)
    c = zeros(3000, backend.dtype)
    Scan(named_input, named_output, dtype=backend.dtype)(a=wrap(a.copy()),
                                                         b=wrap(b.copy()), c=c)
    ref = np.cumsum(a.astype(np.float64) + 2 * b.astype(np.float64))
    np.testing.assert_array_equal(c.get(), ref)


def test_missing_output_writes_into_output(backend):
    x = small_ints(3000, backend.dtype, seed=41)
    out = zeros(3000, backend.dtype)
    scan = Scan(scan_input, dtype=backend.dtype)
    assert scan.arg_names == ("x", "output")
    scan(x=wrap(x.copy()), output=out)
    np.testing.assert_array_equal(out.get(), np.cumsum(x.astype(np.float64)))


def test_keyword_and_positional_calls(backend):
    n = 3000
    x = small_ints(n, backend.dtype, seed=43)
    flags = (np.random.default_rng(43).random(n) < 0.05).astype(np.int32)
    scan = Scan(scan_input, write_inclusive, is_segment=segment_flag, dtype=backend.dtype)
    assert scan.arg_names == ("x", "flags", "y")
    xa, fa = wrap(x.copy()), wrap(flags)
    y1, y2, y3 = (zeros(n, backend.dtype) for _ in range(3))
    scan(xa, fa, y1)
    scan(y=y2, flags=fa, x=xa)
    scan(xa, fa, y=y3)
    for y in (y2, y3):
        np.testing.assert_array_equal(y.get(), y1.get())
    np.testing.assert_array_equal(y1.get(), segmented_reference(x, flags)[0])
    with pytest.raises(KernelTypeError, match="unexpected argument 'z'"):
        scan(x=xa, flags=fa, y=y1, z=y1)
    with pytest.raises(KernelTypeError, match="missing"):
        scan(x=xa, y=y1)
    with pytest.raises(KernelTypeError, match="twice"):
        scan(xa, fa, y1, x=xa)
    with pytest.raises(KernelTypeError, match="takes 3"):
        scan(xa, fa, y1, y1)
    with pytest.raises(KernelValueError, match="at least one array"):
        Scan(scalar_input, scalar_output)(s=1.0)


def scalar_input(i, s):
    return s


def scalar_output(i, item):
    pass


def returns_value(i, item, y):
    y[i] = item
    return item


def input_with_item(i, item, x):
    return x[i]


def test_definition_errors(backend):
    x = wrap(small_ints(10, backend.dtype))
    with pytest.raises(KernelTypeError, match="only the output"):
        Scan(input_with_item)
    if backend.name != "python":        # the python backend runs it as it is
        with pytest.raises(KernelTypeError, match="must not return"):
            Scan(scan_input, returns_value, dtype=backend.dtype)(x=x, y=x)
    with pytest.raises(KernelSyntaxError):
        Scan(scan_expr="a +* b")
    with pytest.raises(KernelValueError):
        Scan(neutral="no_such_name")
    with pytest.raises(KernelTypeError):
        Scan(dtype=np.complex64)
    scan = Scan(scan_input, write_inclusive, dtype=backend.dtype)
    with pytest.raises(KernelValueError, match="not been called"):
        scan.source


# -- generated CUDA compiles -------------------------------------------------------

@pytest.mark.parametrize("use_double", [False, True])
def test_generated_cuda_compiles_with_nvcc(use_double):
    if cuda_builder.nvcc_path() is None:
        pytest.skip("nvcc not found")
    f64, i32 = np.zeros(4), np.zeros(4, np.int32)
    scans = [
        (Scan(), dict(input=f64, output=f64)),
        (Scan(scan_input, write_all, is_segment=segment_flag, complex_map=True),
         dict(x=f64, flags=i32, inc=f64, exc=f64, last=f64, n_out=f64)),
        (Scan(unique_flag, unique_output, dtype=np.int64),
         dict(x=f64, out=f64, count=np.zeros(1, np.int64))),
        (Scan(named_input, named_output, scan_expr="max(a, b)", neutral="-INFINITY",
              dtype=np.int32), dict(a=i32, b=i32, c=i32)),
    ]
    sources = []
    with use_config(use_double=use_double):
        for scan, args in scans:
            source = scan.generate("cuda", **args)
            if not use_double:
                assert "double" not in source
            sources.append(source)
    cuda_builder.check_cuda_sources(sources)            # one nvcc run for all


def test_generate_needs_a_compiled_backend():
    with pytest.raises(KernelValueError):
        Scan().generate("python", input=np.zeros(3), output=np.zeros(3))
