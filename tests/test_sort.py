"""sort_by_keys and argsort on every backend, against numpy's stable argsort."""
import importlib
import os
import subprocess
import sys

import numpy as np
import pytest

import pcompute as pc
from pcompute.backends import sort_common, sort_cuda, sort_cython, sort_opencl
from pcompute.backends.registry import get_backend
from pcompute.errors import BackendUnavailableError, KernelTypeError, KernelValueError
from pcompute.array.sorting import argsort, sort_by_keys

KEY_TYPES = [np.int32, np.uint32, np.int64, np.uint64]


def random_keys(n, dtype, seed=0, low=None, high=None):
    info = np.iinfo(dtype)
    low = info.min if low is None else low
    high = info.max if high is None else high
    return np.random.default_rng(seed).integers(low, high, n, dtype=dtype, endpoint=True)


def check_sorted(keys, values, result, perm=None):
    """``result`` (Arrays) is keys and values permuted by the stable order."""
    order = np.argsort(keys, kind="stable")
    assert len(result) == 1 + len(values)
    np.testing.assert_array_equal(result[0].get(), keys[order])
    assert result[0].dtype == keys.dtype
    for a, v in zip(result[1:], values):
        assert a.dtype == v.dtype
        np.testing.assert_array_equal(a.get(), v[order])
    if perm is not None:
        np.testing.assert_array_equal(perm.get(), order)


def sort_and_check(keys, *values, key_bits=None):
    result = sort_by_keys(pc.wrap(keys, *values) if values else [pc.wrap(keys)],
                          key_bits=key_bits)
    check_sorted(keys, values, result)
    return result


@pytest.mark.parametrize("dtype", KEY_TYPES)
@pytest.mark.parametrize("n", [0, 1, 2, 10, 5000, 100003])
def test_random_keys_of_every_type(backend, dtype, n):
    keys = random_keys(n, dtype, seed=n)
    values = np.random.default_rng(1).random(n).astype(backend.dtype)
    sort_and_check(keys, values)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_negative_keys(backend, dtype):
    keys = random_keys(20000, dtype, seed=2, low=-1000, high=1000)
    keys[:3] = [np.iinfo(dtype).min, np.iinfo(dtype).max, -1]
    sort_and_check(keys, np.arange(len(keys), dtype=np.int32))
    sort_and_check(keys, key_bits=np.iinfo(dtype).bits)      # all bits: signs too


@pytest.mark.parametrize("dtype", KEY_TYPES)
@pytest.mark.parametrize("pattern", ["duplicates", "sorted", "reversed", "equal",
                                     "high_bits", "max"])
def test_key_patterns(backend, dtype, pattern):
    n = 50001
    rng = np.random.default_rng(3)
    info = np.iinfo(dtype)
    if pattern == "duplicates":
        keys = rng.integers(0, 7, n).astype(dtype)
    elif pattern == "sorted":
        keys = np.sort(random_keys(n, dtype, seed=4))
    elif pattern == "reversed":
        keys = np.sort(random_keys(n, dtype, seed=5))[::-1].copy()
    elif pattern == "equal":
        keys = np.full(n, 12345, dtype)
    elif pattern == "high_bits":        # only the top byte differs
        top = rng.integers(0, 255, n).astype(np.uint64) << np.uint64(info.bits - 8)
        keys = top.view(dtype) if info.bits == 64 else top.astype(np.uint32).view(dtype)
    else:
        keys = np.full(n, info.max, dtype)
        keys[::3] = info.min
    sort_and_check(keys, np.arange(n, dtype=np.int64))


def test_stability(backend):
    n = 30000
    keys = np.random.default_rng(6).integers(0, 5, n).astype(np.int32)
    tags = np.arange(n, dtype=np.int32)
    sorted_keys, sorted_tags = sort_by_keys(pc.wrap(keys, tags))
    k, t = sorted_keys.get(), sorted_tags.get()
    assert (np.diff(k) >= 0).all()
    same = k[1:] == k[:-1]
    assert (t[1:][same] > t[:-1][same]).all(), "equal keys must keep their order"


def test_several_value_arrays_of_mixed_dtypes(backend):
    n = 12345
    rng = np.random.default_rng(7)
    keys = rng.integers(-50, 50, n).astype(np.int64)
    values = [rng.random(n).astype(backend.dtype), rng.integers(-9, 9, n).astype(np.int8),
              rng.integers(0, 60000, n).astype(np.uint16), rng.random(n) < 0.5,
              rng.integers(0, 2**40, n).astype(np.int64), rng.random(n).astype(np.float32),
              rng.integers(0, 99, n).astype(np.uint32)]
    sort_and_check(keys, *values)


@pytest.mark.parametrize("dtype", KEY_TYPES)
def test_key_bits_smaller_than_the_type(backend, dtype):
    keys = random_keys(40000, dtype, seed=8, low=0, high=2**20 - 1)
    sort_and_check(keys, np.arange(len(keys), dtype=np.int32), key_bits=20)
    sort_and_check(keys, key_bits=np.iinfo(dtype).bits)


def test_key_bits_zero_and_exact_top(backend):
    sort_and_check(np.zeros(100, np.int32), key_bits=0)
    keys = np.array([255, 0, 255, 7, 128], np.uint32)
    sort_and_check(keys, np.arange(5, dtype=np.float32), key_bits=8)


def test_key_bits_may_be_an_integral_float(backend):
    # Compyle's neighbour search passes np.ceil(np.log2(...)).
    keys = np.array([255, 0, 255, 7, 128], np.uint32)
    sort_and_check(keys, np.arange(5, dtype=np.int32), key_bits=np.ceil(np.log2(200.0)))
    sort_and_check(keys, key_bits=8.0)
    with pytest.raises(KernelValueError, match="key_bits must be"):
        sort_by_keys([pc.wrap(keys)], key_bits=8.5)


@pytest.mark.parametrize("keys", [[1, 256, 3], [5, -1, 2]], ids=["too_big", "negative"])
def test_key_bits_violations_raise(backend, keys):
    a = pc.wrap(np.array(keys, np.int32))
    with pytest.raises(KernelValueError, match="key_bits=8"):
        sort_by_keys([a], key_bits=8)


@pytest.mark.parametrize("dtype", [np.int32, np.uint64])
def test_key_bits_violation_in_a_long_array(backend, dtype):
    """One key past 2**20 at the end of 40000 (several threads' blocks: the
    Cython sort checks the range from the keys' OR, not a separate pass)."""
    keys = np.arange(40000).astype(dtype)
    keys[-1] = 2 ** 20
    with pytest.raises(KernelValueError, match="key_bits=20"):
        sort_by_keys([pc.wrap(keys)], key_bits=20)
    with pytest.raises(KernelValueError, match="key_bits=20"):
        argsort(pc.wrap(keys), key_bits=20)
    keys[-1] = 2 ** 20 - 1
    sort_and_check(keys, key_bits=20)


def test_bad_arguments_raise(backend):
    with pytest.raises(KernelTypeError, match="int32, uint32, int64 or uint64"):
        sort_by_keys([pc.wrap(np.zeros(3, backend.dtype))])
    with pytest.raises(KernelValueError, match="has 2 elements"):
        sort_by_keys(pc.wrap(np.zeros(3, np.int32), np.zeros(2, np.int32)))
    with pytest.raises(KernelValueError, match="key_bits must be"):
        sort_by_keys([pc.wrap(np.zeros(3, np.int32))], key_bits=65)
    with pytest.raises(KernelTypeError, match="list of arrays"):
        sort_by_keys(pc.wrap(np.zeros(3, np.int32)))


def test_out_list(backend):
    n = 3000
    keys = random_keys(n, np.int32, seed=9)
    vals = np.random.default_rng(10).random(n).astype(backend.dtype)
    ka, va = pc.wrap(keys.copy(), vals.copy())
    outs = [pc.zeros(5, np.int32), pc.zeros(5, backend.dtype)]
    result = sort_by_keys([ka, va], out_list=outs)
    assert result[0] is outs[0] and result[1] is outs[1]
    check_sorted(keys, [vals], result)
    np.testing.assert_array_equal(ka.get(), keys)        # the input is unchanged
    # in place: the inputs as outputs
    sort_by_keys([ka, va], out_list=[ka, va])
    check_sorted(keys, [vals], [ka, va])


@pytest.mark.parametrize("dtype", KEY_TYPES)
def test_argsort(backend, dtype):
    keys = random_keys(7777, dtype, seed=11, low=0, high=1000)
    a = pc.wrap(keys.copy())
    perm = argsort(a)
    assert perm.dtype == np.int32 and perm.backend == backend.name
    np.testing.assert_array_equal(perm.get(), np.argsort(keys, kind="stable"))
    np.testing.assert_array_equal(a.get(), keys)
    assert len(argsort(pc.wrap(np.zeros(0, dtype)))) == 0


def test_a_million_keys(backend):
    if backend.name == "python":
        pytest.skip("the python backend is numpy's argsort itself (the reference)")
    n = 10**6
    keys = random_keys(n, np.int64, seed=12)
    values = np.random.default_rng(13).random(n).astype(backend.dtype)
    sort_and_check(keys, values)
    keys32 = random_keys(n, np.int32, seed=14, low=0, high=2**20 - 1)
    sort_and_check(keys32, values, key_bits=20)


@pytest.mark.parametrize("dtype", [np.int32, np.uint64])
@pytest.mark.parametrize("value_dtype", [np.int8, np.uint16, np.float32, np.float64])
def test_without_permutation_values_may_be_carried(backend, dtype, value_dtype):
    """permutation=False (what sort_by_keys asks for): a backend may move one
    value array with the keys instead of gathering it afterwards."""
    be = get_backend(backend.name)
    module = importlib.import_module("pcompute.backends.sort_%s" % backend.name)
    for n, low, high in [(0, 0, 1), (1, 0, 9), (40000, 0, 1000), (40000, 5, 5),
                         (70001, None, None)]:
        keys = random_keys(n, dtype, seed=n, low=low, high=high)
        vals = (np.random.default_rng(n).random(n) * 100).astype(value_dtype)
        out_k, (out_v,), perm = module.sort_by_keys(
            be, be.to_device(keys), [be.to_device(vals)], None, pc.get_config(),
            permutation=False)
        order = np.argsort(keys, kind="stable")
        np.testing.assert_array_equal(be.to_host(out_k), keys[order])
        np.testing.assert_array_equal(be.to_host(out_v), vals[order])
        assert out_v.dtype == vals.dtype
        if perm is not None:
            np.testing.assert_array_equal(be.to_host(perm), order)


def test_sort_by_keys_asks_for_no_permutation(backend, monkeypatch):
    """sort_by_keys() asks the backend for no permutation (argsort() does)."""
    cls = type(get_backend(backend.name))
    module = importlib.import_module("pcompute.backends.sort_%s" % backend.name)
    calls = []

    def method(self, keys, values, key_bits, config, permutation=True):
        calls.append(permutation)
        return module.sort_by_keys(self, keys, values, key_bits, config,
                                   permutation=permutation)
    monkeypatch.setattr(cls, "sort_by_keys", method)
    keys = random_keys(5000, np.int64, seed=18, low=-9, high=9)
    sort_and_check(keys, np.arange(5000, dtype=np.float32))
    perm = argsort(pc.wrap(keys))
    np.testing.assert_array_equal(perm.get(), np.argsort(keys, kind="stable"))
    assert calls == [False, True]


def test_counts_scanned_in_many_groups(backend, monkeypatch):
    """The tiled layout (cuda) scans the digit counts of more than 512 tiles
    with the tiled scan, fewer in one group: here always the tiled scan."""
    if backend.name == "python":
        pytest.skip("the python backend is numpy's argsort itself (the reference)")
    monkeypatch.setattr(sort_common, "ONE_GROUP_SCAN", 0)
    keys = random_keys(70001, np.int64, seed=19, low=-5, high=2**40)
    sort_and_check(keys, np.arange(70001, dtype=np.int32))
    sort_and_check(keys.astype(np.int32), key_bits=None)


def test_view_with_offset(backend):
    keys = random_keys(1000, np.int32, seed=15)
    a = pc.wrap(keys)
    result = sort_by_keys([a[100:900]])
    check_sorted(keys[100:900], [], result)


# ------------------------------------------------------- internals, no fixture

def test_plan_passes():
    plan = sort_common.plan_passes
    assert plan(0, None, 8) == ([], [])
    assert plan(0xFFFFFFFF, None, 8) == ([0, 8, 16, 24], [8, 8, 8, 8])
    assert plan(0xFFFFFFFF, None, 11) == ([0, 11, 22], [11, 11, 10])
    assert plan(0xFFFFF, None, 11) == ([0, 10], [10, 10])
    assert plan(0xFFFFF, None, 8) == ([0, 7, 14], [7, 7, 6])
    assert plan(0xFF0000FF, None, 8) == ([0, 24], [8, 8])       # middle bytes equal
    assert plan(0xFFFFFFFF, 12, 8) == ([0, 6], [6, 6])
    assert plan(1 << 63, None, 8) == ([63], [1])


def test_plan_cpu_passes():
    plan = sort_common.plan_cpu_passes
    assert plan(0xFFFFFFFF, None) == ([0, 8, 16, 24], [8, 8, 8, 8])   # 4 x 8 < 3 x 11
    assert plan(0xFFFFF, None) == ([0, 7, 14], [7, 7, 6])              # 3 x 7 < 2 x 10
    assert plan(0xFFFFF, None, wide_cost=1.4) == ([0, 10], [10, 10])
    assert plan(2**64 - 1, None) == (list(range(0, 64, 8)), [8] * 8)
    assert plan(0xFFFF, None) == ([0, 8], [8, 8])
    assert plan(0x3FF, None) == ([0], [10])                            # 1 pass, not 2
    assert plan(0xFFFFFFFF, None, wide_cost=1.2) == ([0, 11, 22], [11, 11, 10])
    assert plan(0, None) == ([], [])


def test_cython_sort_asks_for_openmp_once_per_configuration(monkeypatch):
    """The cython sort asks the backend whether to use OpenMP once per
    configuration generation (it read three environment variables at every
    sort), and a changed ``use_openmp`` is asked again and obeyed."""
    backend = get_backend("cython")
    if not backend.available():
        pytest.skip(backend.why_unavailable())
    asked, modules = [], []
    use_openmp, sort_module = type(backend).use_openmp, sort_cython._sort_module
    monkeypatch.setattr(type(backend), "use_openmp",
                        lambda self, config: asked.append(config.use_openmp) or
                        use_openmp(self, config))
    monkeypatch.setattr(sort_cython, "_sort_module",
                        lambda *args: modules.append(args[2]) or sort_module(*args))
    sort_cython._openmp.clear()
    keys = random_keys(101, np.int32, seed=3)
    for flag in (True, True, False, True):
        with pc.use_config(use_openmp=flag):
            check_sorted(keys, [], sort_by_keys([pc.wrap(keys, backend="cython")],
                                                backend="cython"))
    assert asked == [True, False]
    works = use_openmp(backend, pc.get_config().copy().update(use_openmp=True))
    assert modules == [works, works, False, works]


def test_cython_source_is_generated_without_compiling():
    source = sort_cython.generate_sort(np.int64, np.int32, openmp=True)
    assert "prange" in source and "ctypedef int64_t pc_key_t" in source
    assert "0x8000000000000000ULL" in source
    gather = sort_cython.generate_gather(np.int32, [np.float64, np.int8], openmp=False)
    assert "uint64_t" in gather and "uint8_t" in gather and "prange" not in gather


_TEAM_SCRIPT = """
import numpy as np
import pcompute as pc
from pcompute.array.sorting import sort_by_keys
keys = np.random.default_rng(5).integers(-2**31, 2**31, 100003, dtype=np.int32)
vals = np.arange(len(keys), dtype=np.int32)
with pc.use_config(backend="cython", use_openmp=True):
    k, v = sort_by_keys([pc.wrap(keys), pc.wrap(vals)])
order = np.argsort(keys, kind="stable")
assert (k.get() == keys[order]).all() and (v.get() == order).all()
print("sorted")
"""


@pytest.mark.parametrize("threads, limit", [("2", "1"), ("3", "")])
def test_cython_sort_blocks_whatever_the_team(request, threads, limit):
    """The OpenMP sort splits the keys into omp_get_max_threads() blocks and
    runs every pass in one parallel region whose threads share the blocks:
    a team smaller than the blocks (OMP_THREAD_LIMIT=1 under 2 threads) or
    3 uneven blocks still sort like numpy.  In a fresh process, as OpenMP
    reads these variables once."""
    from conftest import require_backend
    require_backend(request, "cython")
    env = dict(os.environ, OMP_NUM_THREADS=threads)
    env.pop("OMP_THREAD_LIMIT", None)
    if limit:
        env["OMP_THREAD_LIMIT"] = limit
    out = subprocess.run([sys.executable, "-c", _TEAM_SCRIPT], env=env, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0 and "sorted" in out.stdout, out.stderr[-3000:]


def _opencl_or_skip():
    be = get_backend("opencl")
    if not be.available():
        pytest.skip("opencl backend unavailable: %s" % be.why_unavailable())
    return be


@pytest.mark.parametrize("dtype", KEY_TYPES)
def test_opencl_gpu_layout_on_this_device(dtype):
    """The layout the cuda backend uses (tiles of 256 x 8 keys, 4-bit
    digits), run on whatever OpenCL device is here, so the cuda algorithm is
    tested (tests/test_sort_tiled.py runs the other sort tests with it)."""
    be = _opencl_or_skip()
    for n in [1, 255, 4097, 200003, -5000]:
        keys = random_keys(abs(n), dtype, seed=abs(n))
        if n < 0:
            keys = np.full(-n, 3, dtype)
        vals = np.random.default_rng(abs(n)).random(abs(n))
        tags = np.arange(abs(n)).astype(np.int8)
        out_k, (out_v, out_t), perm = sort_opencl.sort_by_keys(
            be, be.to_device(keys), [be.to_device(vals), be.to_device(tags)], None,
            pc.get_config(), layout=sort_opencl.GPU_LAYOUT)
        order = np.argsort(keys, kind="stable")
        np.testing.assert_array_equal(perm.get(), order)
        np.testing.assert_array_equal(out_k.get(), keys[order])
        np.testing.assert_array_equal(out_v.get(), vals[order])
        np.testing.assert_array_equal(out_t.get(), tags[order])


def test_int64_permutations(backend, monkeypatch):
    """The code for more than 2**31 keys (int64 indices), on a small input."""
    def index_dtype(n):
        return np.dtype(np.int64)
    for module in (sort_common, sort_cython, sort_opencl, sort_cuda):
        if hasattr(module, "index_dtype"):
            monkeypatch.setattr(module, "index_dtype", index_dtype)
    monkeypatch.setattr("pcompute.backends.sort_python.index_dtype", index_dtype)
    keys = random_keys(70001, np.int64, seed=16)
    vals = np.random.default_rng(17).random(70001).astype(backend.dtype)
    result = sort_by_keys(pc.wrap(keys, vals))
    check_sorted(keys, [vals], result)
    perm = argsort(pc.wrap(keys))
    assert perm.dtype == np.int64
    np.testing.assert_array_equal(perm.get(), np.argsort(keys, kind="stable"))


CUDA_SORT_VALUES = ([np.float64, np.int8, np.uint16, np.float32], [])


@pytest.fixture(scope="module")
def cuda_sorts_prechecked():
    """Every sort source below and the scans of the digit counts, through one
    nvcc run."""
    from pcompute.build.cuda_builder import nvcc_path
    from conftest import precheck_cuda
    if nvcc_path() is not None:
        precheck_cuda([sort_cuda.generate_sort(dtype, idx, values) for dtype in KEY_TYPES
                       for idx in (np.int32, np.int64) for values in CUDA_SORT_VALUES] +
                      [sort_cuda.generate_scan(idx) for idx in (np.int32, np.int64)])


@pytest.mark.parametrize("dtype", KEY_TYPES)
@pytest.mark.parametrize("idx", [np.int32, np.int64])
def test_cuda_sort_kernels_compile_with_nvcc(dtype, idx, cuda_sorts_prechecked):
    from pcompute.build.cuda_builder import check_cuda_source
    assert sort_cuda.LAYOUT.tiled
    for values in CUDA_SORT_VALUES:
        try:
            check_cuda_source(sort_cuda.generate_sort(dtype, idx, values))
        except BackendUnavailableError as exc:
            pytest.skip(str(exc))


@pytest.mark.parametrize("idx", [np.int32, np.int64])
def test_cuda_counts_scan_compiles_with_nvcc(idx, cuda_sorts_prechecked):
    from pcompute.build.cuda_builder import check_cuda_source
    source = sort_cuda.generate_scan(idx)
    assert "pc_offsets[pc_i] = pc_prev" in source
    try:
        check_cuda_source(source)
    except BackendUnavailableError as exc:
        pytest.skip(str(exc))


@pytest.mark.parametrize("name", ["cython", "opencl"])
def test_repeated_sorts_render_no_template(name, monkeypatch):
    """The sort's modules are memoised per configuration: a repeated sort
    renders no template and builds nothing (it did ~1100 Python calls per
    sort of 1000 keys doing so); a configuration change renders again."""
    from pcompute.config import get_config
    why = get_backend(name).why_unavailable()
    if why:
        pytest.skip("%s: %s" % (name, why))
    rendered = []
    for module in (sort_cython, sort_common):
        real = module.render
        monkeypatch.setattr(module, "render",
                            lambda *a, real=real, **k: rendered.append(a[0]) or real(*a, **k))
    keys = random_keys(1000, np.int32, seed=3)
    vals = np.random.default_rng(3).random(1000).astype(np.float32)
    order = np.argsort(keys, kind="stable")
    with pc.use_config(backend=name):
        k, v = pc.wrap(keys, vals)
        for repeat in range(4):
            if repeat == 1:
                rendered.clear()
            if repeat == 3:
                assert rendered == []
                config = get_config()                   # any change: modules again
                config.suppress_warnings = not config.suppress_warnings
            out_k, out_v = sort_by_keys([k, v])
            np.testing.assert_array_equal(out_k.get(), keys[order])
            np.testing.assert_array_equal(out_v.get(), vals[order])
        assert rendered
