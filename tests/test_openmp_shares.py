"""The OpenMP loop of a Cython Elementwise (and the per-thread blocks of a
Cython Reduction): under the default (static)
schedule every thread runs its contiguous share of the items in a parallel
block (``pc_share`` in templates/elementwise_cython.mako) instead of a
``prange``, whose loop-variable copies cost a barrier per launch.  Every item
must still run exactly once, on every backend, for counts that do not split
evenly among the threads and on both 2-D branches (a long outermost axis,
and the collapsed index space of a short one)."""
import numpy as np
import pytest

from pcompute import Elementwise, Reduction, build_options, use_config, wrap
from pcompute.build import toolchain


def visit(i, hits, order):
    hits[i] += 1
    order[i] = i


def visit_2d(i, j, hits, order, m):
    hits[i, j] += 1
    order[i, j] = i * m + j


@pytest.mark.parametrize("n", [2047, 2049, 4099, 10007])
def test_every_item_runs_once(backend, n):
    hits, order = np.zeros(n, np.int32), np.full(n, -1, np.int64)
    h, o = wrap(hits, order)
    Elementwise(visit)(h, o)
    assert np.array_equal(np.asarray(h.get()), np.ones(n, np.int32))
    assert np.array_equal(np.asarray(o.get()), np.arange(n))


@pytest.mark.parametrize("shape", [(3, 1001), (1001, 3), (67, 61)])
def test_every_item_of_a_2d_space_runs_once(backend, shape):
    hits, order = np.zeros(shape, np.int32), np.full(shape, -1, np.int64)
    h, o = wrap(hits, order)
    Elementwise(visit_2d)(h, o, shape[1], shape=shape)
    assert np.array_equal(np.asarray(h.get()), np.ones(shape, np.int32))
    assert np.array_equal(np.asarray(o.get()).ravel(), np.arange(shape[0] * shape[1]))


def _source(func, *args, **kw):
    return Elementwise(func).generate("cython", *args, **kw)


def test_static_schedule_runs_shares_not_prange():
    """Under the default schedule the loops are parallel blocks over each
    thread's share; a configured schedule or the balance option keeps
    prange with its clause."""
    if toolchain.openmp_flags() is None:
        pytest.skip("no OpenMP here")
    x, y = np.zeros(10, np.int32), np.zeros(10, np.int64)
    x2, y2 = np.zeros((4, 4), np.int32), np.zeros((4, 4), np.int64)
    with use_config(use_openmp=True):
        for src in (_source(visit, x, y), _source(visit_2d, x2, y2, 4)):
            assert "with parallel():" in src and "pc_share(" in src
            assert "prange(" not in src
        src = Elementwise(build_options(_copy(visit), balance=True)).generate("cython", x, y)
        assert "prange(pc_n, schedule='dynamic'" in src and "pc_share" not in src
    with use_config(use_openmp=True, omp_schedule="static,8"):
        src = _source(visit, x, y)
        assert "prange(pc_n, schedule='static', chunksize=8)" in src
        assert "pc_share" not in src
    with use_config(use_openmp=False):
        assert "parallel" not in _source(visit, x, y)


def test_configured_schedule_still_runs_every_item_once():
    """The prange path (a configured chunked schedule) beside the shares."""
    with use_config(backend="cython", use_openmp=True, omp_schedule="static,7"):
        hits, order = np.zeros(4099, np.int32), np.zeros(4099, np.int64)
        Elementwise(_copy(visit))(hits, order)
    assert np.array_equal(hits, np.ones(4099, np.int32))
    assert np.array_equal(order, np.arange(4099))


def _copy(func):
    """A new function object of ``func`` (build options stay on the copy)."""
    import types
    return types.FunctionType(func.__code__, func.__globals__, func.__name__)


@pytest.mark.integer_data
@pytest.mark.parametrize("n", [2049, 4099, 10007])
def test_every_block_of_a_reduction_runs_once_in_order(backend, n):
    """A Reduction's per-thread blocks (a parallel block, not prange, on
    cython with OpenMP): a sum of distinct integers misses no block and
    counts none twice; the last and the first nonzero item (operators that
    do not commute) keep the blocks' order."""
    x = wrap(np.arange(1, n + 1, dtype=np.int64))
    assert Reduction("a+b", dtype_out=np.int64)(x) == n * (n + 1) // 2
    assert Reduction("b if b != 0 else a", dtype_out=np.int64)(x) == n
    assert Reduction("a if a != 0 else b", dtype_out=np.int64)(x) == 1


_SMALL_TEAM = """
import numpy as np
from pcompute import Reduction, use_config
x = np.arange(1, 10008, dtype=np.int64)
with use_config(backend="cython", use_openmp=True):
    red = Reduction("a+b", dtype_out=np.int64)
    last = Reduction("b if b != 0 else a", dtype_out=np.int64)
    assert "with parallel(num_threads=pc_nt):" in red.source if red(x) else False
    print("ok" if (red(x), last(x)) == (10007 * 10008 // 2, 10007) else (red(x), last(x)))
"""


def test_a_reduction_team_smaller_than_asked_runs_every_block():
    """OMP_THREAD_LIMIT=1 under OMP_NUM_THREADS=3: the parallel block asks
    for 3 threads and gets 1, which then runs the three blocks in turn."""
    import os
    import subprocess
    import sys
    if toolchain.openmp_flags() is None:
        pytest.skip("no OpenMP here")
    here = os.path.dirname(os.path.abspath(__file__))
    env = dict(os.environ, OMP_NUM_THREADS="3", OMP_THREAD_LIMIT="1",
               PYTHONPATH=os.pathsep.join([os.path.dirname(here),
                                           os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, "-c", _SMALL_TEAM], env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0 and done.stdout.strip() == "ok", \
        (done.stdout + done.stderr)[-3000:]


def visit_rows(i, j, hits, order, m):
    hits[1 + i, 2 + j] += 1
    order[1 + i, 2 + j] = i * m + j


@pytest.mark.integer_data
@pytest.mark.parametrize("offset", [0, 1, 3])
@pytest.mark.parametrize("shape", [(2000, 3), (700, 9), (67, 61)])
def test_rows_split_at_the_aligned_store_run_every_item_once(backend, shape, offset):
    """The align_rows option (each row's loop split where its store is
    64-byte aligned, on cython): every item once, with its own indices, for
    arrays starting at several offsets from an aligned address and rows
    shorter than the split (``order`` holds each item's i * m + j, not when
    it ran)."""
    n, m = shape
    rows, cols = n + 1, m + 2
    hits = np.zeros(rows * cols + offset, np.int32)[offset:].reshape(rows, cols)
    order = np.full(rows * cols + offset, -1, np.int64)[offset:].reshape(rows, cols)
    k = Elementwise(build_options(_copy(visit_rows), align_rows=("hits", 1, 2)))
    h, o = wrap(hits, order)
    k(h, o, m, shape=shape)
    want = np.zeros((rows, cols), np.int32)
    want[1:, 2:] = 1
    assert np.array_equal(np.asarray(h.get()), want)
    assert np.array_equal(np.asarray(o.get())[1:, 2:].ravel(), np.arange(n * m))


def test_align_rows_splits_the_row_loop_of_a_c_ordered_array_only():
    if toolchain.openmp_flags() is None:
        pytest.skip("no OpenMP here")
    x, y = np.zeros((4, 5), np.int32), np.zeros((4, 5), np.int64)
    with use_config(use_openmp=True):
        src = Elementwise(build_options(_copy(visit_rows), align_rows=("hits", 1, 2))
                          ).generate("cython", x, y, 5)
        assert "pc_p = min(pc_n1, <long long>(((64 - (<size_t>(hits + (1 + pc_i0) * " \
            "pc_s0_hits + 2) & 63)) & 63) // sizeof(hits[0])))" in src
        assert "for pc_i1 in range(pc_p, pc_n1):" in src
        assert "range(pc_p, pc_n1)" not in _source(visit_rows, x, y, 5)
    with pytest.raises(TypeError, match="array name, row start, column start"):
        build_options(_copy(visit_rows), align_rows=("hits", 1))


def test_rows_split_under_a_configured_schedule_run_every_item_once():
    """align_rows on the prange path (a configured schedule)."""
    if toolchain.openmp_flags() is None:
        pytest.skip("no OpenMP here")
    n, m = 700, 9
    hits, order = np.zeros((n + 1, m + 2), np.int32), np.full((n + 1, m + 2), -1, np.int64)
    with use_config(backend="cython", use_openmp=True, omp_schedule="static,7"):
        k = Elementwise(build_options(_copy(visit_rows), align_rows=("hits", 1, 2)))
        k(hits, order, m, shape=(n, m))
        assert "prange(" in k.source and "range(pc_p, pc_n1)" in k.source
    assert hits.sum() == n * m and hits[1:, 2:].min() == 1
    assert np.array_equal(order[1:, 2:].ravel(), np.arange(n * m))
