"""Speculative parallel execution (parallelize(speculate=True)) on every
backend, against the plain Python function: the three kinds of violation
between iterations 0 and 1 detected and recovered, passes on loops that are
in fact parallel, and the NAS/sparse loops."""
import copy
import functools
import warnings

import numpy as np
import pytest

from pcompute import parallelize, use_config
from pcompute.errors import SequentialLoopWarning, SpeculationError, SpeculationWarning
from tests import autopar_spec_loops as loops


def _run(func, args, backend):
    """Run ``func`` speculatively; compare with the plain function; return
    (speculation stats, violated?)."""
    ref = copy.deepcopy(args)
    func(*ref)
    f = parallelize(func, speculate=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        f(*args)
    for got, want in zip(args, ref):
        if isinstance(want, np.ndarray):
            np.testing.assert_allclose(got, want, rtol=backend.rtol, atol=backend.rtol)
    assert f.last_plans[0].kind == "speculate"
    (stats,) = f.speculation_stats().values()
    warned = [w for w in caught if issubclass(w.category, SpeculationWarning)]
    assert stats.runs == 1 and bool(warned) == (stats.violated == 1)
    return stats, f


def _gs_args(w, r, dtype, size=16):
    n = len(w)
    a = np.arange(size, dtype=dtype) * 0.5
    b = np.arange(1, n + 1, dtype=dtype)
    return [a, b, np.asarray(w, np.int32), np.asarray(r, np.int32), n]


# iterations 0 and 1 (the whole loop: on a CPU each runs in a chunk, on a
# thread, of its own) meet on element 3
SCENARIOS = {
    "flow": ([3, 8], [4, 3]),     # 0 writes a[3], 1 reads it
    "anti": ([5, 3], [3, 4]),     # 0 reads a[3], 1 writes it
    "output": ([3, 3], [4, 5]),   # 0 and 1 write a[3]
}


def test_three_violations_detected_and_recovered(backend):
    for kind, (w, r) in SCENARIOS.items():
        stats, _ = _run(loops.gather_scatter, _gs_args(w, r, backend.dtype), backend)
        if kind == "anti" and backend.name == "cuda" and stats.violated == 0:
            # One thread per iteration: iterations 0 and 1 share a warp and run
            # in lock step, so 0's read of a[3] executes before 1's write and
            # nothing ran out of order (seen on an H200); _run checked that the
            # result is the sequential one.  On a CPU the two iterations run in
            # two chunks whose bitmaps are compared after the loop (python: the
            # logs with the iterations in reverse order): always a violation.
            assert stats.passed == 1 and stats.last == "passed"
            continue
        assert stats.violated == 1, kind
        assert kind in stats.last, (kind, stats.last)
    stats, _ = _run(loops.gather_scatter, _gs_args([3, 8, 9, 10], [4, 5, 12, 13],
                                                   backend.dtype), backend)
    assert stats.passed == 1 and stats.last == "passed"


def test_copy_before_buffer_reused_across_calls_restores_each_calls_values(backend):
    """The copy-before buffer is kept from call to call: a violating call
    restores its own arrays' values (not an earlier call's), and a call on
    arrays of another size gets a new buffer."""
    f = parallelize(loops.gather_scatter, speculate=True)
    # flow and output dependences violate on every backend (an anti one can
    # run in order inside a GPU warp: see the test above)
    calls = [(SCENARIOS["flow"], 16, 0.5), (([3, 8, 9, 10], [4, 5, 12, 13]), 16, 2.0),
             (SCENARIOS["output"], 16, -1.0), (SCENARIOS["flow"], 24, 3.0)]
    for (w, r), size, scale in calls:
        args = _gs_args(w, r, backend.dtype, size)
        args[0] = (args[0] * scale + 1).astype(backend.dtype)
        ref = copy.deepcopy(args)
        loops.gather_scatter(*ref)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SpeculationWarning)
            f(*args)
        np.testing.assert_allclose(args[0], ref[0], rtol=backend.rtol)
    (stats,) = f.speculation_stats().values()
    assert (stats.runs, stats.violated) == (4, 3)


def test_differential_random_index_arrays(backend):
    """Random index arrays: always the sequential result; never a violation
    when no two iterations meet (the loop is in fact parallel)."""
    rng = np.random.default_rng(11)
    n, size = 200, 600
    f = parallelize(loops.gather_scatter, speculate=True)
    for trial in range(8):
        if trial % 2:
            cells = rng.permutation(size)
            w, r = cells[:n], cells[n:2 * n]            # disjoint: parallel
            if trial % 4 == 3:
                r = w.copy()                            # same element, same iteration
        else:
            w, r = rng.integers(0, size, n), rng.integers(0, size, n)
        args = _gs_args(w, r, backend.dtype, size)
        ref = copy.deepcopy(args)
        loops.gather_scatter(*ref)
        parallel = _meet(w, r) == 0
        before = f.speculation_stats()
        violated = sum(s.violated for s in before.values())
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SpeculationWarning)
            f(*args)
        np.testing.assert_allclose(args[0], ref[0], rtol=backend.rtol)
        now = sum(s.violated for s in f.speculation_stats().values())
        if parallel:
            assert now == violated, "false positive on a parallel loop (trial %d)" % trial


def _meet(w, r):
    """Number of element pairs where two different iterations meet with a write."""
    count = 0
    for i in range(len(w)):
        count += int(np.sum((w == w[i]) | (r == w[i]))) - int(r[i] == w[i]) - 1
    return count


def test_scatter_permutation_passes_and_duplicates_recover(backend):
    rng = np.random.default_rng(3)
    n = 300
    y = rng.random(n).astype(backend.dtype)
    stats, _ = _run(loops.scatter, [np.zeros(n, backend.dtype), y,
                                    rng.permutation(n).astype(np.int32), n], backend)
    assert stats.passed == 1
    p = rng.integers(0, n // 3, n).astype(np.int32)
    # no copy-before (x is only overwritten): the elements no iteration
    # writes keep their values, the others get the last writer's value
    x = np.arange(n).astype(backend.dtype)
    stats, f = _run(loops.scatter, [x, y, p, n], backend)
    assert stats.violated == 1 and "output" in stats.last
    assert f.last_plans[0].overwrite_only
    assert "no copy needed (but under bounds_check): the loop only overwrites x" in f.explain(
        x, y, p, n)
    strict = parallelize(loops.scatter, speculate=True, strict=True)
    strict(np.zeros(n, backend.dtype), y, rng.permutation(n).astype(np.int32), n)
    assert not strict.last_plans[0].overwrite_only      # strict hands back the old arrays


@pytest.mark.parametrize("func, expected", [
    (loops.scatter, True), (loops.cg_like, True), (loops.gather_scatter, False),
    (loops.histogram, False), (loops.is_like, False), (loops.spmv_transpose, False),
    (loops.owner_gather, False)])
def test_only_overwritten_arrays_skip_the_copy_before(func, expected):
    """A speculated loop that only assigns its written arrays (never reads or
    updates them) reruns over everything it wrote: no copy is needed."""
    import ast
    import inspect
    import textwrap
    from pcompute.autopar.specplan import overwrite_only
    tree = ast.parse(textwrap.dedent(inspect.getsource(func)))
    loop = next(n for n in ast.walk(tree) if isinstance(n, ast.For))
    written = {t.value.id for n in ast.walk(loop) if isinstance(n, (ast.Assign, ast.AugAssign))
               for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
               if isinstance(t, ast.Subscript)}
    assert overwrite_only(loop, written, lambda name: name) is expected


@pytest.mark.integer_data
def test_histogram(backend):
    rng = np.random.default_rng(5)
    stats, _ = _run(loops.histogram, [np.zeros(16, np.int32),
                                      rng.integers(0, 16, 400).astype(np.int32), 400],
                    backend)
    assert stats.violated == 1
    stats, _ = _run(loops.histogram, [np.zeros(16, np.int32),
                                      rng.permutation(16).astype(np.int32), 16], backend)
    assert stats.passed == 1


def _csr(rng, n, per_row, ncols):
    rowptr = np.arange(0, n * per_row + 1, per_row).astype(np.int32)
    col = rng.integers(0, ncols, n * per_row).astype(np.int32)
    return rowptr, col


def test_spmv_transpose(backend):
    rng = np.random.default_rng(8)
    n = 60
    rowptr, col = _csr(rng, n, 3, n)
    val, x = rng.random(3 * n).astype(backend.dtype), rng.random(n).astype(backend.dtype)
    stats, _ = _run(loops.spmv_transpose, [np.zeros(n, backend.dtype), rowptr, col, val,
                                           x, n], backend)
    assert stats.violated == 1                     # rows share columns
    col = rng.permutation(3 * n).astype(np.int32)  # every column in one row
    stats, _ = _run(loops.spmv_transpose, [np.zeros(3 * n, backend.dtype), rowptr, col,
                                           val, x, n], backend)
    assert stats.passed == 1


def test_nas_cg_like_passes(backend):
    rng = np.random.default_rng(9)
    n = 80
    rowstr, colidx = _csr(rng, n, 4, n)
    a, p = rng.random(4 * n).astype(backend.dtype), rng.random(n).astype(backend.dtype)
    stats, _ = _run(loops.cg_like, [np.zeros(n, backend.dtype),
                                    rng.permutation(n).astype(np.int32), rowstr, colidx,
                                    a, p, n], backend)
    assert stats.passed == 1


@pytest.mark.integer_data
def test_nas_is_like_recovers(backend):
    rng = np.random.default_rng(10)
    n, buckets = 200, 8
    keys = rng.integers(0, buckets, n).astype(np.int32)
    ptr = np.cumsum(np.bincount(keys, minlength=buckets)).astype(np.int32)
    stats, _ = _run(loops.is_like, [np.zeros(n, np.int32), ptr, keys, n], backend)
    assert stats.violated == 1


# ---------------------------------------------------------------- behaviour
def test_explain_reports_speculation_and_strict_raises():
    f = parallelize(loops.scatter, speculate=True, strict=True)
    x, y = np.zeros(4), np.arange(4.0)
    with use_config(backend="python"):
        f(x, y, np.array([2, 0, 3, 1], np.int32), 4)
        text = f.explain(x, y, np.array([2, 0, 3, 1], np.int32), 4)
        assert "speculative parallel kernel with dependence checks on x" in text
        assert "2 speculative run(s), 2 passed" in text and "last run: passed" in text
        assert "checking overhead" in text and "unchecked run (explain)" in text
        x[:] = 7.0
        with pytest.raises(SpeculationError, match="line 13, in scatter"):
            f(x, y, np.array([1, 1, 3, 1], np.int32), 4)
    assert np.all(x == 7.0)          # restored before raising


def test_marks_skip_the_checks():
    f = parallelize(loops.scatter, speculate=True)
    x, y = np.zeros(4), np.arange(4.0)
    with use_config(backend="python"):
        f.mark(13, "unsafe")
        f(x, y, np.array([1, 1, 3, 1], np.int32), 4)
        assert list(x) == [0.0, 3.0, 0.0, 2.0]
        f.mark(13, "safe")
        f(x, y, np.array([3, 2, 1, 0], np.int32), 4)
        assert list(x) == [3.0, 2.0, 1.0, 0.0]
        stats = f.speculation_stats()[13]
        assert (stats.runs, stats.sequential, stats.unchecked) == (0, 1, 1)
        with pytest.raises(ValueError, match="'safe', 'unsafe' or None"):
            f.mark(13, "maybe")


def test_speculation_is_off_by_default_and_the_config_turns_it_on():
    x, y, p = np.zeros(4), np.arange(4.0), np.array([2, 0, 3, 1], np.int32)
    with use_config(backend="python"):
        f = parallelize(loops.scatter)
        with pytest.warns(Warning, match="runs sequentially"):
            f(x, y, p, 4)
        assert f.last_plans[0].kind == "serial"
        with use_config(speculate=True):
            f(x, y, p, 4)
        assert f.last_plans[0].kind == "speculate"


def test_affine_dependences_are_not_speculated():
    from tests.autopar_cases import recurrence
    f = parallelize(recurrence, speculate=True)
    with use_config(backend="python"):
        with pytest.warns(Warning):
            f(np.ones(8), 8)
        assert f.last_plans[0].kind == "serial"
        assert "not speculated: the dependence" in f.explain(np.ones(8), 8)


# ---------------------------------------------------------------- CUDA dialect
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_speculative_kernels_compile_as_cuda(monkeypatch, dtype):
    """The speculative and sequential kernels of every loop above are
    generated for CUDA and compiled with nvcc --ptx (never run here)."""
    from pcompute import get_config
    from pcompute.backends.registry import get_backend
    from pcompute.build import cuda_builder
    from pcompute.primitives.elementwise import Elementwise
    if cuda_builder.nvcc_path() is None:
        pytest.skip("nvcc not found")
    calls = {}
    original = Elementwise.__call__

    def spy(self, *args, shape=None):
        calls.setdefault(id(self), (self, args))
        return original(self, *args, shape=shape)

    monkeypatch.setattr(Elementwise, "__call__", spy)
    rng = np.random.default_rng(0)
    n = 12
    rowptr, col = _csr(rng, n, 2, n)
    dup = rng.integers(0, 4, n).astype(np.int32)
    cases = [(loops.gather_scatter, _gs_args(dup, dup, dtype)),
             (loops.scatter, [np.zeros(n, dtype), np.ones(n, dtype), dup, n]),
             (loops.histogram, [np.zeros(4, np.int32), dup, n]),
             (loops.spmv_transpose, [np.zeros(n, dtype), rowptr, col,
                                     np.ones(2 * n, dtype), np.ones(n, dtype), n]),
             (loops.cg_like, [np.zeros(n, dtype), dup, rowptr, col,
                              np.ones(2 * n, dtype), np.ones(n, dtype), n]),
             (loops.is_like, [np.zeros(n, np.int32), np.full(4, n, np.int32), dup, n]),
             (loops.owner_gather, [np.zeros(n, dtype), dup, n])]
    with use_config(backend="python", use_double=dtype == np.float64):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for func, args in cases:
                parallelize(func, speculate=True)(*args)
    monkeypatch.setattr(Elementwise, "__call__", original)
    names = [ew.name for ew, _ in calls.values()]
    assert sum(name.startswith("autopar_spec_") for name in names) == len(cases)
    cuda = get_backend("cuda")
    sources = []
    with use_config(backend="cuda", use_double=dtype == np.float64):
        config = get_config()
        for ew, args in calls.values():
            dims = ew._index_dims(args)
            args = [a.get() if hasattr(a, "backend") else a for a in args]
            args = [a.astype(dtype) if isinstance(a, np.ndarray) and a.dtype.kind == "f"
                    else a for a in args]
            program = ew._program(ew._types(args, cuda, config, dims), cuda, config, dims)
            source = cuda.generate_elementwise(program, ew.func, config).source
            if ew.name.startswith("autopar_spec_"):
                assert "atomicMax" in source and "__threadfence" in source
            sources.append(source)
    cuda_builder.check_cuda_sources(sources)        # one nvcc run for all


def test_profile_mode_records_violations_and_marks_loops():
    """The reference implementation (python, dict logs, reverse order) finds
    every dependence between iterations; mark_from_profile() turns that into
    marks."""
    f = parallelize(loops.scatter)                   # speculate not even asked
    y = np.arange(1.0, 7.0)
    x = np.zeros(6)
    f.profile(x, y, np.array([5, 4, 3, 2, 1, 0], np.int32), 6)
    assert list(x) == [6.0, 5.0, 4.0, 3.0, 2.0, 1.0]
    entry = f.speculation_profile()[13]
    assert (entry.runs, entry.violated) == (1, 0)
    assert f.mark_from_profile() == {13: "safe"}
    g = parallelize(loops.gather_scatter)
    for kind, (w, r) in SCENARIOS.items():
        args = _gs_args(w, r, np.float64)
        ref = copy.deepcopy(args)
        loops.gather_scatter(*ref)
        g.profile(*args)
        np.testing.assert_array_equal(args[0], ref[0])
    entry = g.speculation_profile()[8]
    assert (entry.runs, entry.violated, entry.kinds) == (3, 3, {"flow", "anti", "output"})
    assert g.mark_from_profile() == {8: "unsafe"}
    with use_config(backend="python"):
        args = _gs_args(*SCENARIOS["flow"], np.float64)
        g(*args)                                     # marked unsafe: sequential
    assert g.last_plans[0].kind == "speculate"
    assert g.speculation_stats()[8].sequential == 1


def test_profile_mode_records_each_loop_of_a_function():
    """Two speculated loops in one function: the profile keeps one entry per
    loop line (runs, violations, kinds), the arrays end as the plain function
    leaves them, and mark_from_profile() marks only the loop that violated in
    every run (unsafe); the one that violated once of twice stays speculated."""
    n = 6
    perm, dup = np.array([5, 3, 1, 0, 2, 4], np.int32), np.array([1, 1, 2, 3, 4, 5], np.int32)
    f = parallelize(loops.two_scatters)
    for p in (perm, dup):
        args = [np.zeros(n), np.arange(1.0, n + 1), p, dup, n]
        ref = copy.deepcopy(args)
        loops.two_scatters(*ref)
        f.profile(*args)
        for got, want in zip(args[:2], ref[:2]):
            np.testing.assert_array_equal(got, want)
    first, second = f.speculation_profile()[74], f.speculation_profile()[76]
    assert (first.runs, first.violated, first.kinds) == (2, 1, {"output"})
    assert (second.runs, second.violated, second.kinds) == (2, 2, {"output"})
    assert f.mark_from_profile() == {76: "unsafe"}
    before = f.speculation_stats()[74].passed
    with use_config(backend="python", speculate=True):
        args = [np.zeros(n), np.arange(1.0, n + 1), perm, dup, n]
        ref = copy.deepcopy(args)
        loops.two_scatters(*ref)
        f(*args)
    np.testing.assert_array_equal(args[1], ref[1])
    stats = f.speculation_stats()               # the profile's runs count too
    assert (stats[74].passed - before, stats[76].sequential) == (1, 1)


def test_profile_mode_computes_with_the_kernel_types():
    """The reference run follows the kernel's C types, as the python backend
    does: ``p[i] + p[i]`` of uint8 elements 200 and 72 are the ints 400 and 144
    (NumPy's uint8 scalars would give 144 twice: an output dependence that the
    compiled kernel does not have)."""
    f = parallelize(loops.doubled_scatter)
    p = np.array([200, 72], np.uint8)
    x, y = np.zeros(450), np.array([1.0, 2.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)     # no uint8 overflow
        f.profile(x, y, p, 2)
    (entry,) = f.speculation_profile().values()
    assert (entry.runs, entry.violated) == (1, 0)
    want = np.zeros(450)
    want[400], want[144] = 1.0 + 40000, 2.0 + 5184
    np.testing.assert_array_equal(x, want)


def test_accesses_at_the_loop_index_are_not_logged(backend):
    """x[i] (written by iteration i only) takes no log: x[idx[i]] is checked
    against its owner iteration i' = idx[i]; idx[i] == i passes, another
    iteration's element is a dependence (flow when i' < i, else anti)."""
    n = 40
    stats, f = _run(loops.owner_gather, [np.arange(n, dtype=backend.dtype),
                                         np.arange(n).astype(np.int32), n], backend)
    assert stats.passed == 1
    text = f.last_plans[0].kernel[1]
    assert text.logged == (("x", False, False),)         # no log at all
    assert "autopar_rd_x" not in text.source and "autopar_wr_x" not in text.source
    for idx, kind in ((np.r_[n - 1, 1:n].astype(np.int32), "anti"),    # 0 reads x[n-1]
                      (np.r_[0:n - 1, 0].astype(np.int32), "flow")):  # n-1 reads x[0]
        stats, _ = _run(loops.owner_gather, [np.arange(n, dtype=backend.dtype), idx, n],
                        backend)
        assert stats.violated == 1 and kind in stats.last


def test_loop_inside_a_host_loop_is_speculated(backend):
    """for t: for i: x[p[i]] = ...: the host loop launches the speculated
    inner loop at each step (passes with a permutation, falls back at every
    step with duplicates)."""
    rng = np.random.default_rng(12)
    n = 50
    y = rng.random(n).astype(backend.dtype)
    for p, passed in ((rng.permutation(n), True), (rng.integers(0, 9, n), False)):
        args = [np.zeros(n, backend.dtype), y, p.astype(np.int32), 3, n]
        ref = copy.deepcopy(args)
        loops.repeated_scatter(*ref)
        f = parallelize(loops.repeated_scatter, speculate=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            f(*args)
        np.testing.assert_allclose(args[0], ref[0], rtol=backend.rtol)
        # the time loop is a host loop, said once; speculation warns only on duplicates
        said = [w for w in caught if issubclass(w.category, SequentialLoopWarning)]
        assert len(said) == 1 and "line 54" in str(said[0].message)
        spec = [w for w in caught if issubclass(w.category, SpeculationWarning)]
        assert bool(spec) == (not passed)
        assert f.last_plans[0].kind == "host"
        assert f.last_plans[0].children[0].kind == "speculate"
        stats = f.speculation_stats()[55]
        assert (stats.runs, stats.passed) == (3, 3 if passed else 0)


def test_construct_outside_the_subset_in_a_speculated_loop_points_at_the_users_line():
    from pcompute.errors import KernelSyntaxError
    f = parallelize(loops.outside_subset, speculate=True)
    with use_config(backend="python"):
        with pytest.raises(KernelSyntaxError) as info:
            f(np.zeros(4), np.ones(4), np.arange(4, dtype=np.int32), 4)
    assert info.value.location.filename.endswith("autopar_spec_loops.py")
    assert info.value.location.lineno == 61


def test_ids_grow_across_calls_and_the_logs_are_cleared_before_they_overflow(backend,
                                                                           monkeypatch):
    from pcompute.autopar.specrun import ID_LIMIT
    _use_logs(monkeypatch, backend)
    rng = np.random.default_rng(13)
    n = 300
    y = rng.random(n).astype(backend.dtype)
    perm = rng.permutation(n).astype(np.int32)
    f = parallelize(loops.scatter, speculate=True)
    f(np.zeros(n, backend.dtype), y, perm, n)
    state = f._speculations[13]
    assert state.base == 1 + n                  # the next run's ids follow this run's
    f(np.zeros(n, backend.dtype), y, perm, n)   # old entries (ids < base) are no conflict
    assert state.base == 1 + 2 * n and state.stats.passed == 2
    state.base = ID_LIMIT - n // 2              # the next ids would overflow
    x = np.zeros(n, backend.dtype)
    f(x, y, perm, n)
    assert state.stats.clears == 1 and state.base == 1 + n and state.stats.passed == 3
    dup = perm.copy()
    dup[1] = dup[0]
    with pytest.warns(SpeculationWarning):
        f(x, y, dup, n)
    assert state.stats.violated == 1
    ref = np.zeros(n, backend.dtype)
    loops.scatter(ref, y, perm, n)
    loops.scatter(ref, y, dup, n)
    np.testing.assert_allclose(x, ref, rtol=backend.rtol)


def test_an_index_out_of_range_leaves_what_the_sequential_loop_leaves(backend):
    """Under bounds_check, a speculative run that meets an index out of range
    puts its arrays back before the sequential kernel reports the error, so
    they hold what the loop run without speculation leaves (not both runs'
    updates)."""
    from pcompute.errors import KernelIndexError
    n = 8
    keys = np.arange(n, dtype=np.int32)[::-1].copy()
    keys[3] = 50
    got = {}
    for speculate in (False, True):
        h = np.zeros(n, np.int32)
        with use_config(bounds_check=True), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            f = parallelize(loops.histogram, speculate=speculate)
            with pytest.raises(KernelIndexError, match="index 50 is out of range") as info:
                f(h, keys, n)
        # named as the user's function and line, not the generated kernel
        loc = info.value.location
        assert "autopar_nest" not in str(info.value)
        assert "in histogram() (the loop nest at line %d)" % (loc.lineno - 1) in str(
            info.value)
        assert loc.funcname == "histogram" and loc.filename == loops.__file__
        assert "keys[i]" in loc.line
        if speculate:
            assert f.last_plans[0].kind == "speculate"
        got[speculate] = h
    assert got[True][7] == 1              # an iteration before the bad one ran once
    np.testing.assert_array_equal(got[True], got[False])


# ------------------------------------------------- few threads: chunks and bitmaps
def _set_chunks(monkeypatch, backend, chunks):
    """Make ``backend`` check speculated loops with ``chunks`` contiguous
    chunks and private bitmaps (None: the atomic-max logs)."""
    from pcompute.backends.registry import get_backend
    monkeypatch.setattr(type(get_backend(backend.name)), "speculation_chunks",
                        lambda self, config: chunks)


def _use_logs(monkeypatch, backend):
    _set_chunks(monkeypatch, backend, None)


def _chunks_of(backend):
    """The chunks a speculated loop runs in on ``backend`` now (None: logs)."""
    from pcompute import get_config
    from pcompute.autopar.specchunk import MAX_CHUNKS
    from pcompute.backends.registry import get_backend
    chunks = get_backend(backend.name).speculation_chunks(get_config())
    return None if chunks is None or chunks > MAX_CHUNKS else chunks


def _meeting(n, i, j, kind):
    """gather_scatter's index arrays for ``n`` iterations where only
    iterations i < j meet, on element 3, with a ``kind`` dependence."""
    w, r = np.arange(20, 20 + n), np.arange(20 + n, 20 + 2 * n)
    if kind == "flow":
        w[i], r[j] = 3, 3
    elif kind == "anti":
        r[i], w[j] = 3, 3
    else:
        w[i], w[j] = 3, 3
    return w, r


@pytest.mark.parametrize("forced", [None, 3], ids=["backend-chunks", "3-chunks"])
def test_dependences_between_threads_chunks_are_found(backend, monkeypatch, forced):
    """Flow, anti and output dependences between two iterations in different
    chunks (the first and last iteration, and the two sides of a chunk
    boundary) are found and recovered, as the backend checks (bitmaps on a
    CPU, logs elsewhere) and with 3 chunks forced (python included: the
    chunked kernel run as Python); one inside a chunk runs in order there and
    passes with the sequential result; explain() says which check ran."""
    if forced is not None:
        _set_chunks(monkeypatch, backend, forced)
    chunks = _chunks_of(backend)
    n = 12
    size = -(-n // (chunks or n))
    pairs = [(0, n - 1), (size - 1, size)]
    for i, j in pairs:
        for kind in ("flow", "anti", "output"):
            w, r = _meeting(n, i, j, kind)
            stats, f = _run(loops.gather_scatter, _gs_args(w, r, backend.dtype, 60),
                            backend)
            if kind == "anti" and chunks is None and backend.name == "cuda" \
                    and stats.violated == 0:
                continue            # one warp in lock step (see the test above)
            assert stats.violated == 1 and kind in stats.last, (i, j, kind, stats.last)
    if chunks is not None:
        for kind in ("flow", "anti", "output"):
            w, r = _meeting(n, 0, 1, kind)           # one chunk: in order
            stats, f = _run(loops.gather_scatter, _gs_args(w, r, backend.dtype, 60),
                            backend)
            assert stats.passed == 1, kind
        # x[idx[0]] = x[1], owned by iteration 1 of the same chunk
        stats, _ = _run(loops.owner_gather, [np.arange(n, dtype=backend.dtype),
                                             np.r_[1, 1:n].astype(np.int32), n], backend)
        assert stats.passed == 1
        w, r = SCENARIOS["flow"]                     # fewer iterations than chunks
        stats, _ = _run(loops.gather_scatter, _gs_args(w, r, backend.dtype), backend)
        assert stats.violated == 1
    args = _gs_args(*_meeting(n, 0, n - 1, "flow"), backend.dtype, 60)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SpeculationWarning)
        text = f.explain(*args)
    check = ("checked with private bitmaps of %d contiguous chunks" % chunks if chunks
             else "checked with atomic-max logs of the iteration ids")
    assert check in text


@pytest.mark.parametrize("forced", [None, 3], ids=["backend-chunks", "3-chunks"])
def test_no_false_positive_on_parallel_loops_with_chunks(backend, monkeypatch, forced):
    """Loops that are in fact parallel pass whatever the chunks: a permutation
    scatter, disjoint gather/scatter, an iteration reading and writing its
    own element, a histogram of distinct keys; run twice (the check leaves
    the bitmaps clear for the next run)."""
    if forced is not None:
        _set_chunks(monkeypatch, backend, forced)
    rng = np.random.default_rng(21)
    n = 500
    perm = rng.permutation(n).astype(np.int32)
    y = rng.random(n).astype(backend.dtype)
    f = parallelize(loops.scatter, speculate=True)
    for perm in (perm, rng.permutation(n).astype(np.int32)):   # new keys: bitmaps
        x = np.zeros(n, backend.dtype)
        f(x, y, perm, n)
        np.testing.assert_allclose(x[perm], y, rtol=backend.rtol)
    assert f.speculation_stats()[13].passed == 2
    cells = rng.permutation(3 * n)
    for w, r in ((cells[:n], cells[n:2 * n]), (cells[:n], cells[:n])):
        stats, _ = _run(loops.gather_scatter, _gs_args(w, r, backend.dtype, 3 * n), backend)
        assert stats.passed == 1
    stats, _ = _run(loops.histogram, [np.zeros(n, np.int32), perm, n], backend)
    assert stats.passed == 1


@pytest.mark.parametrize("forced", [None, 3], ids=["backend-chunks", "3-chunks"])
def test_unchanged_keys_reuse_the_verdict_of_a_checked_run(backend, monkeypatch, forced):
    """x[p[i]] = y[i]: which elements the chunks write depends on the keys
    p[i] only, so a checked run that passed stores them and the next runs
    compare their keys in the loop instead of checking bitmaps.  Keys changed
    in place (the same array) go back to the bitmaps: a permutation passes,
    a duplicate across chunks (one inside a chunk) is found (passes) and
    recovered; every result is the plain loop's (specmemo)."""
    if forced is not None:
        _set_chunks(monkeypatch, backend, forced)
    chunks = _chunks_of(backend)
    n = 48
    rng = np.random.default_rng(5)
    p = rng.permutation(n).astype(np.int32)
    y = rng.random(n).astype(backend.dtype)
    f = parallelize(loops.scatter, speculate=True)
    bitmaps, reused = "checked with private bitmaps", "checked with the verdict of an earlier"
    call = functools.partial(_scatter_call, f, y, p, backend)     # p changes in place
    if chunks is None:                       # a GPU: the logs, every run
        assert [call()[0] for _ in range(2)] == ["passed"] * 2
        return
    size = -(-n // chunks)
    changed = ANY(bitmaps, "the keys of the earlier run had changed")
    # checked, checked with the same keys, checked and recorded, then reused
    assert [call() for _ in range(4)] == [("passed", ANY(bitmaps))] * 3 + [
        ("passed", ANY(reused))]
    p[size - 1], p[size] = p[size], p[size - 1]          # a permutation still
    # the keys must repeat again: found changed, checked twice (the second
    # records: the wait after one failed validation is over), reused
    assert [call() for _ in range(4)] == [("passed", changed)] + [
        ("passed", ANY(bitmaps))] * 2 + [("passed", ANY(reused))]
    p[1] = p[0]                                          # inside the first chunk
    assert [call() for _ in range(4)] == [("passed", changed)] + [
        ("passed", ANY(bitmaps))] * 2 + [("passed", ANY(reused))]
    p[n - 1] = p[0]                                      # across chunks
    assert call() == ("violated: output dependence", changed)
    assert call() == ("violated: output dependence", ANY(bitmaps))
    stats = f.speculation_stats()[13]
    assert (stats.violated, stats.reused, stats.stale) == (2, 3, 3)
    assert "3 run(s) reused the verdict" in stats.summary()
    # strict: a changed key that violates raises with the arrays as before
    g = parallelize(loops.scatter, speculate=True, strict=True)
    x = np.full(n, 7.0, backend.dtype)
    for keys in (q := rng.permutation(n).astype(np.int32), q, q, q):
        g(x, y, keys, n)
    assert "verdict of an earlier" in g.speculation_stats()[13].summary()
    q[n - 1] = q[0]
    x[:] = 7.0
    with pytest.raises(SpeculationError, match="line 13, in scatter"):
        g(x, y, q, n)
    assert np.all(x == 7.0)


@pytest.mark.parametrize("forced", [None, 3], ids=["backend-chunks", "3-chunks"])
def test_keys_that_change_at_every_call_are_never_recorded(backend, monkeypatch, forced):
    """Keys that alternate between two arrays (a permutation and the same with
    two neighbouring even keys swapped: a plain sum of key ^ i would not
    tell them apart) are checked with the bitmaps at every call: no copy of
    the keys is stored and no validation is tried (each would fail).  Keys
    that repeat but violate are never recorded either (their verdict cannot
    be reused).  Long loops fingerprint every 64th key: new keys there are
    never recorded; a change elsewhere is recorded and found by the
    comparison.  Every result is the plain loop's."""
    if forced is not None:
        _set_chunks(monkeypatch, backend, forced)
    if _chunks_of(backend) is None:
        pytest.skip("%s checks with the atomic-max logs: no verdict is reused" % backend.name)
    n = 48
    p = np.arange(n, dtype=np.int32)[::-1].copy()
    for t, key in ((10, 24), (11, 26)):  # even keys at iterations 10, 11
        where = int(np.flatnonzero(p == key)[0])
        p[t], p[where] = p[where], p[t]
    swapped = p.copy()
    swapped[[10, 11]] = p[[11, 10]]
    plain_sum = lambda keys: sum(int(k) ^ t for t, k in enumerate(keys))
    assert plain_sum(p) == plain_sum(swapped)
    y = np.random.default_rng(8).random(n).astype(backend.dtype)
    f = parallelize(loops.scatter, speculate=True)
    for keys in (p, swapped) * 4:
        assert _scatter_call(f, y, keys, backend) == ("passed", ANY(
            "checked with private bitmaps"))
    stats, memo = f.speculation_stats()[13], f._speculations[13].memo
    assert (stats.reused, stats.stale, memo.recordings) == (0, 0, 0)
    dup = p.copy()
    dup[n - 1] = dup[0]                  # across chunks, the same at every call
    g = parallelize(loops.scatter, speculate=True)
    for _ in range(4):
        assert _scatter_call(g, y, dup, backend)[0] == "violated: output dependence"
    assert g._speculations[13].memo.recordings == 0
    # long loops fingerprint every 64th key (here: the first of each chunk)
    monkeypatch.setattr("pcompute.autopar.specmemo.FP_SAMPLED", 0)
    h = parallelize(loops.scatter, speculate=True)
    for keys in (p, np.roll(p, 1)) * 3:          # the sampled keys change: never
        assert _scatter_call(h, y, keys, backend)[0] == "passed"
    assert h._speculations[13].memo.recordings == 0
    # a change the samples miss is recorded, and the comparison finds it
    h = parallelize(loops.scatter, speculate=True)
    calls = [_scatter_call(h, y, keys, backend) for keys in (p, p, p, swapped)]
    assert calls[-1] == ("passed", ANY("the keys of the earlier run had changed"))
    assert h._speculations[13].memo.recordings == 1


def test_a_violating_run_checks_once_then_runs_the_sequential_kernel(backend, monkeypatch):
    """The failure path does nothing twice: a scatter whose keys repeat a key
    across chunks, called again and again, runs per call the checked loop
    once (no key comparison, no second checked run), the bitmaps' check and
    the sequential kernel (uninstrumented); it copies nothing (the loop only
    overwrites) and never stores its keys.  Every result is the plain
    loop's."""
    from pcompute.primitives.elementwise import Elementwise
    _set_chunks(monkeypatch, backend, 2)
    n = 24
    p = np.arange(n, dtype=np.int32)
    p[n - 1] = p[0]
    y = np.arange(1.0, n + 1).astype(backend.dtype)
    f = parallelize(loops.scatter, speculate=True)
    calls = []
    original = Elementwise.__call__

    def spy(self, *args, shape=None):
        calls.append(self.name.rsplit("_", 1)[0])
        return original(self, *args, shape=shape)

    monkeypatch.setattr(Elementwise, "__call__", spy)
    for _ in range(5):
        del calls[:]
        assert _scatter_call(f, y, p, backend)[0] == "violated: output dependence"
        assert calls == ["autopar_chunk", "autopar_check", "autopar_nest"]
    spec = f._speculations[13]
    assert spec.stats.violated == 5 and not spec._copies and spec.memo.recordings == 0


def _scatter_call(f, y, p, backend):
    """``f`` (loops.scatter parallelised) on new zeros, compared with the
    plain loop; (the last run's verdict, the loop's summary)."""
    n = len(p)
    x, ref = np.zeros(n, backend.dtype), np.zeros(n, backend.dtype)
    loops.scatter(ref, y, p, n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SpeculationWarning)
        f(x, y, p, n)
    np.testing.assert_allclose(x, ref, rtol=backend.rtol)
    stats = f.speculation_stats()[13]
    return stats.last, stats.summary()


class ANY:
    """Equal to a string holding every one of ``parts``."""

    def __init__(self, *parts):
        self.parts = parts

    def __eq__(self, other):
        return all(part in other for part in self.parts)

    def __repr__(self):
        return "ANY%r" % (self.parts,)


@pytest.mark.parametrize("func, keys", [
    (loops.scatter, ("p",)), (loops.cg_like, ("perm",)), (loops.masked_scatter, None),
    (loops.gather_scatter, None), (loops.histogram, None), (loops.owner_gather, None),
    (loops.is_like, None)], ids=lambda v: getattr(v, "__name__", str(v)))
def test_only_loops_whose_keys_decide_the_checks_reuse_verdicts(func, keys):
    """A verdict is reused only for an overwrite-only loop whose instrumented
    accesses are unconditional writes x[q[i]]: a write under an if (its
    elements depend on y too), reads or updates of the written array do not."""
    n = 6
    args = {"scatter": lambda: [np.zeros(n), np.ones(n), np.arange(n, dtype=np.int32), n],
            "cg_like": lambda: [np.zeros(3), np.arange(3, dtype=np.int32),
                                np.array([0, 1, 2, 3], np.int32),
                                np.zeros(3, np.int32), np.ones(3), np.ones(3), 3],
            "masked_scatter": lambda: [np.zeros(n), np.ones(n),
                                       np.arange(n, dtype=np.int32), n],
            "gather_scatter": lambda: _gs_args([3, 8], [4, 5], np.float64),
            "histogram": lambda: [np.zeros(n, np.int32), np.arange(n, dtype=np.int32), n],
            "owner_gather": lambda: [np.ones(n), np.arange(n, dtype=np.int32), n],
            "is_like": lambda: [np.zeros(n, np.int32), np.arange(1, n + 1, dtype=np.int32),
                                np.arange(n, dtype=np.int32), n]}[func.__name__]()
    f = parallelize(func, speculate=True)
    with use_config(backend="python"):
        f(*args)
    (plan,) = [p for p in f.last_plans if p.kind == "speculate"]
    assert (plan.memo[1] if plan.memo else None) == keys


def test_a_verdict_is_not_reused_when_the_arguments_alias_otherwise(backend, monkeypatch):
    """x[p[i]] = ...; z[r[i]] = ... with two permutations passes for separate
    x and z and its verdict is reused on the same keys; called with x as z
    too, the same keys make an output dependence between chunks (iteration e
    writes element e through p, n-1-e through r): the run must be checked
    again (another plan, its own verdicts), not pass on the first plan's."""
    _set_chunks(monkeypatch, backend, 2)
    n = 8
    p, r = np.arange(n, dtype=np.int32), np.arange(n, dtype=np.int32)[::-1].copy()
    y = np.arange(1.0, n + 1).astype(backend.dtype)
    f = parallelize(loops.two_targets, speculate=True)

    def call(separate):
        x = np.zeros(n, backend.dtype)
        z = np.zeros(n, backend.dtype) if separate else x
        rx = np.zeros(n, backend.dtype)
        rz = np.zeros(n, backend.dtype) if separate else rx
        loops.two_targets(rx, rz, y, p, r, n)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SpeculationWarning)
            f(x, z, y, p, r, n)
        np.testing.assert_allclose(x, rx, rtol=backend.rtol)
        np.testing.assert_allclose(z, rz, rtol=backend.rtol)
        (stats,) = f.speculation_stats().values()
        return stats.last, stats.summary()

    assert [call(True) for _ in range(3)] == [("passed", ANY("checked with private bitmaps"))] * 3
    assert call(True) == ("passed", ANY("checked with the verdict of an earlier"))
    assert call(False) == ("violated: output dependence", ANY("checked with private bitmaps"))
    assert call(True) == ("passed", ANY("checked with"))


def test_a_verdict_is_not_reused_in_other_chunks(backend, monkeypatch):
    """Keys with a duplicate inside one chunk of 2 (iterations 3 and 4) pass
    and their verdict is reused with 2 chunks; with 3 chunks the same keys put
    the duplicate across chunks: the run is checked again and violates."""
    _set_chunks(monkeypatch, backend, 2)
    n = 12
    p = np.arange(n, dtype=np.int32)
    p[4] = p[3]
    y = np.arange(1.0, n + 1).astype(backend.dtype)
    call = functools.partial(_scatter_call, parallelize(loops.scatter, speculate=True),
                             y, p, backend)
    assert [call() for _ in range(3)] == [("passed", ANY("checked with private bitmaps of 2"))] * 3
    assert call() == ("passed", ANY("verdict of an earlier checked run of 2 chunks"))
    _set_chunks(monkeypatch, backend, 3)
    assert call() == ("violated: output dependence", ANY("private bitmaps of 3"))
