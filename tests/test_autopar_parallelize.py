"""pcompute.parallelize on every backend: each nest of tests/autopar_nests.py
leaves its arrays as the plain Python function does and runs as planned
(parallel kernel, host loop of kernels, or sequential kernel).

On the Cython cases the kernels of the whole nest suite are built as group
modules (``nest_groups``, :class:`conftest.AheadGroups`: what each call builds
ahead, from ``Parallelized.kernels_ahead``), ahead of the first nest test of a Cython
case in each process; each test then finds its kernels built (a kernel not
known ahead, of a nest after a statement assigning a name it reads, is built
at its launch as without the groups).
"""
import copy
import warnings

import numpy as np
import pytest

from pcompute import parallelize, use_config
from pcompute.errors import SequentialLoopError, SequentialLoopWarning
from tests.autopar_nests import NESTS

from conftest import AheadGroups


def nest_args(spec, dtype):
    return spec.make(dtype, np.random.default_rng(7))


def _nest_kernels(case, name):
    spec = NESTS[name]
    return parallelize(spec.func).kernels_ahead(*nest_args(spec, case.dtype))


NEST_GROUPS = AheadGroups(NESTS, _nest_kernels, chunk=22)


def _compare(got, want, case):
    if isinstance(want, np.ndarray):
        if want.dtype.kind in "iub":
            np.testing.assert_array_equal(got, want)
        else:
            np.testing.assert_allclose(got, want, rtol=case.rtol, atol=case.rtol)
    elif isinstance(want, tuple):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _compare(g, w, case)
    elif isinstance(want, (float, np.floating)):
        assert got == pytest.approx(want, rel=case.rtol, abs=case.rtol)
    else:
        assert got == want


@pytest.fixture
def nest_groups(backend):
    NEST_GROUPS.ensure(backend)


@pytest.mark.parametrize("name", sorted(NESTS))
def test_nest_matches_plain_python(backend, name, nest_groups):
    spec = NESTS[name]
    args = nest_args(spec, backend.dtype)
    ref = copy.deepcopy(args)
    want = spec.func(*ref)
    f = parallelize(spec.func)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = f(*args)
    for g, w in zip(args, ref):
        _compare(g, w, backend)
    _compare(got, want, backend)
    assert tuple(p.kind for p in f.last_plans[:len(spec.plans)]) == spec.plans
    sequential = [w for w in caught if issubclass(w.category, SequentialLoopWarning)]
    assert bool(sequential) == any(p not in ("launch", "reduce") for p in spec.plans)


# ---------------------------------------------------------------- behaviour
from pcompute.errors import KernelSyntaxError  # noqa: E402
from tests import autopar_cases  # noqa: E402


def test_strict_raises_with_file_line_and_dependence():
    f = parallelize(strict=True)(autopar_cases.recurrence)
    a = np.ones(8)
    with use_config(backend="python"):
        with pytest.raises(SequentialLoopError) as info:
            f(a, 8)
    text = str(info.value)
    assert 'autopar_cases.py", line 11, in recurrence' in text
    assert "flow dependence a[i] (line 12, write) -> a[i - 1] (line 12, read)" in text
    assert "distance 1" in text
    assert np.all(a == 1.0)         # nothing ran


def test_warning_names_the_loop_once_per_call_pattern():
    f = parallelize(autopar_cases.recurrence)
    with use_config(backend="python"):
        with pytest.warns(SequentialLoopWarning, match="line 11"):
            f(np.ones(8), 8)
        with warnings.catch_warnings():
            warnings.simplefilter("error", SequentialLoopWarning)
            f(np.ones(8), 8)


def test_explain_reports_every_loop_and_leaves_arguments_alone():
    f = parallelize(autopar_cases.shift_copy)
    a, b = np.arange(9.0), np.zeros(8)
    with use_config(backend="python"):
        text = f.explain(a, b, 8)
        assert np.all(b == 0.0)
        assert "line 6: for i in range(n):" in text and "parallel" in text
        text = f.explain(a, a, 8)
    assert "sequential" in text and "anti dependence" in text


def test_same_array_twice_is_detected_and_results_match():
    ref = np.arange(9.0)
    autopar_cases.shift_copy(ref, ref, 8)
    f = parallelize(autopar_cases.shift_copy)
    a = np.arange(9.0)
    with use_config(backend="python"):
        with pytest.warns(SequentialLoopWarning, match="anti dependence"):
            f(a, a, 8)
        b = np.zeros(8)
        f(np.arange(9.0), b, 8)
    assert np.array_equal(a, ref)
    assert f.last_plans[0].kind == "launch"
    assert np.array_equal(b, np.arange(1.0, 9.0))


def test_analysis_is_cached_per_invariant_values():
    from tests.autopar_nests import listing1
    f = parallelize(listing1)
    with use_config(backend="python"):
        f(np.zeros(40), 1.0, 0, 20)
        f(np.zeros(40), 2.0, 0, 20)          # a float changed: same analysis
        assert len(f._analyses) == 1
        with pytest.warns(SequentialLoopWarning):
            f(np.zeros(40), 1.0, 2, 20)
        assert len(f._analyses) == 2


def test_construct_outside_the_subset_points_at_the_users_line():
    f = parallelize(autopar_cases.outside_subset)
    with use_config(backend="python"):
        with pytest.raises(KernelSyntaxError) as info:
            f(np.zeros(4), 4)
    assert info.value.location.lineno == 17
    assert info.value.location.filename.endswith("autopar_cases.py")


def test_index_out_of_range_names_the_users_function_and_line(backend):
    """Under bounds_check, an index out of range in a parallelised nest is
    reported at the user's file, line and function, not the kernel's."""
    from pcompute.errors import KernelIndexError
    a, b = np.zeros(6, backend.dtype), np.zeros(6, backend.dtype)
    with use_config(bounds_check=True):
        with pytest.raises(KernelIndexError, match="index 6 is out of range") as info:
            parallelize(autopar_cases.shift_copy)(a, b, 6)
    loc = info.value.location
    assert (loc.filename, loc.funcname) == (autopar_cases.__file__, "shift_copy")
    assert loc.line.strip() == "b[i] = a[i + 1]"
    assert "in shift_copy() (the loop nest at line %d)" % (loc.lineno - 1) in str(info.value)
    assert "autopar_nest" not in str(info.value)


def test_loop_outside_a_top_level_nest_is_reported_not_silent():
    f = parallelize(autopar_cases.loop_under_if)
    a = np.zeros(4)
    with use_config(backend="python"):
        with pytest.warns(SequentialLoopWarning, match="runs as plain Python"):
            assert f(a, 4, True) == 4.0
        assert "line 21: plain Python (not compiled)" in f.explain(a, 4, True)
        with pytest.raises(SequentialLoopError, match="line 21"):
            parallelize(strict=True)(autopar_cases.loop_under_if)(a, 4, True)


# ---------------------------------------------------------------- CUDA dialect
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_generated_kernels_compile_as_cuda(monkeypatch, dtype):
    """Every kernel parallelize makes for the nest suite is generated for CUDA
    and compiled with nvcc --ptx (no GPU needed; never run here)."""
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
    with use_config(backend="python", use_double=dtype == np.float64):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for spec in NESTS.values():
                parallelize(spec.func)(*spec.make(dtype, np.random.default_rng(0)))
    monkeypatch.setattr(Elementwise, "__call__", original)
    assert len(calls) >= 30
    cuda = get_backend("cuda")
    sources = []
    with use_config(backend="cuda", use_double=dtype == np.float64):
        config = get_config()
        for ew, args in calls.values():
            dims = ew._index_dims(args)
            args = [a.get() if hasattr(a, "backend") else a for a in args]
            # on a float32 device, wrap() stores the float64 boxes as float32
            args = [a.astype(dtype) if isinstance(a, np.ndarray) and a.dtype.kind == "f"
                    else a for a in args]
            program = ew._program(ew._types(args, cuda, config, dims), cuda, config, dims)
            sources.append(cuda.generate_elementwise(program, ew.func, config).source)
    cuda_builder.check_cuda_sources(sources)        # one nvcc run for all


def test_column_order_nest_is_interchanged_for_locality():
    from tests.autopar_nests import column_order
    f = parallelize(column_order)
    a = np.random.default_rng(1).random((5, 9))
    b, ref = np.zeros((5, 9)), np.zeros((5, 9))
    column_order(a, ref, 5, 9)
    with use_config(backend="python"):
        f(a, b, 5, 9)
    np.testing.assert_array_equal(b, ref)
    text = f.last_plans[0].kernel[1]
    assert text.order == (1, 0)
    assert "    j = autopar_t1\n" in text.source      # range(m): literal start and step
    assert "    i = autopar_t0\n" in text.source


@pytest.mark.parametrize("loop, want", [
    ("for j in range(m): pass", "j = autopar_t1"),
    ("for j in range(1, n - 1): pass", "j = 1 + autopar_t1"),
    ("for j in range(n - 1, -1, -1): pass", "j = autopar_lo1 + -1 * autopar_t1"),
    ("for j in range(k, n): pass", "j = autopar_lo1 + autopar_t1"),
    ("for j in range(0, n, 2): pass", "j = 2 * autopar_t1"),
    ("for j in range(k, n, s): pass", "j = autopar_lo1 + autopar_st1 * autopar_t1"),
])
def test_loop_counter_writes_the_users_literal_start_and_step(loop, want):
    """A literal start or step of the user's range is written into the kernel
    (unit stride visible to the C compiler); the others stay arguments."""
    import ast
    from pcompute.autopar.lower import counter
    assert counter(ast.parse(loop).body[0], 1) == want


@pytest.mark.optimised_build
def test_kernels_are_built_for_the_host_cpu_and_vector_math_is_opt_in():
    """parallelize builds its Cython kernels with the host_cpu option (same
    results as plain Python: no FMA contraction); vector_math=True adds the
    vector math functions."""
    from pcompute import get_backend
    if get_backend("cython").why_unavailable():
        pytest.skip(get_backend("cython").why_unavailable())
    from tests.autopar_nests import column_order
    a = np.random.default_rng(1).random((5, 9))
    ref = np.zeros((5, 9))
    column_order(a, ref, 5, 9)
    for vector_math in (False, True):
        f = parallelize(column_order, vector_math=vector_math)
        b = np.zeros((5, 9))
        with use_config(backend="cython", use_openmp=False):
            f(a, b, 5, 9)
        np.testing.assert_array_equal(b, ref)
        generated = f.last_plans[0].kernel[0].built.generated
        assert generated.option("host_cpu") is True
        assert generated.option("vector_math") is (True if vector_math else None)


@pytest.mark.parametrize("body, uneven", [
    ("for j in range(i + 1):\n    c[i, j] = 0.0", True),          # triangular
    ("for k in range(n):\n    if x[k] > 4.0:\n        break", True),   # early exit
    ("while x[i] > 1.0:\n    x[i] = x[i] / 2.0", True),
    ("for j in range(n):\n    c[i, j] = 0.0", False),
    ("for k in range(3):\n    acc += x[i + k]", False),
])
def test_uneven_items_are_recognised(body, uneven):
    """Kernels whose items may do unequal work are built with the balance
    option (dynamic OpenMP schedule); the others keep the static one."""
    import ast
    from pcompute.autopar.lower import uneven_items
    assert uneven_items(ast.parse(body).body, {"i"}) is uneven


def test_triangular_nest_is_balanced_and_rectangular_is_not():
    """syr2k's items (rows of a triangle) get the dynamic schedule, gemm's the
    static one; both start their threads from 16 items."""
    from pcompute.kernel_options import options_of
    from tests.autopar_nests import gemm, syr2k
    rng = np.random.default_rng(2)
    for func, args, balanced in (
            (syr2k, [rng.random((6, 6)), rng.random((6, 4)), rng.random((6, 4)), 1.5, 0.5,
                     6, 4], True),
            (gemm, [rng.random((5, 3)), rng.random((3, 4)), np.zeros((5, 4)), 5, 4, 3],
             False)):
        ref = copy.deepcopy(args)
        func(*ref)
        f = parallelize(func)
        with use_config(backend="python"):
            f(*args)
        np.testing.assert_allclose(args[0] if func is syr2k else args[2],
                                   ref[0] if func is syr2k else ref[2], rtol=1e-12)
        kernel = f.last_plans[0].kernel[0].func
        assert options_of(kernel).get("balance", False) is balanced
        # items running an inner loop over the call's bounds are heavy: the
        # OpenMP loop starts at 16 items (syr2k at n = 192 ran serially before)
        assert options_of(kernel).get("serial_below") == 16


def shift_add_one(x, y, n):
    for i in range(n):
        y[i + 1] = x[i] + 1.0


def test_views_of_one_array_are_one_array(backend):
    """``f(a, a[:])``: two NumPy views of the same memory are the same array
    to the analysis (a flow dependence: sequential) and to a device backend
    (one device copy), also after a replayed call with distinct arrays;
    views that overlap otherwise are refused.  Every backend, against plain
    Python."""
    from pcompute.autopar.residency import same_memory
    from pcompute.errors import KernelValueError
    n = 40
    want = np.zeros(n + 1, backend.dtype)
    shift_add_one(want, want[:], n)
    f = parallelize(shift_add_one)
    x, y = np.zeros(n + 1, backend.dtype), np.zeros(n + 1, backend.dtype)
    f(x, y, n)                                  # distinct arrays: parallel
    f(x, y, n)
    assert f.last_plans[0].kind == "launch"
    np.testing.assert_allclose(y[1:], np.ones(n))
    a = np.zeros(n + 1, backend.dtype)
    with pytest.warns(SequentialLoopWarning, match="flow dependence"):
        f(a, a[:], n)
    assert f.last_plans[0].kind != "launch"
    np.testing.assert_allclose(a, want, rtol=backend.rtol)
    with pytest.raises(KernelValueError, match="overlap"):
        f(a[:-1], a[1:], n - 1)
    assert same_memory(a, a[:]) == 1 and same_memory(a[:], a[::1]) == 1
    assert same_memory(a[:-1], a[1:]) == 2 and same_memory(a, a[::2]) == 2
    assert same_memory(a, a.view(np.uint8)) == 2 and same_memory(a, want) == 0


def test_views_of_one_device_array_are_one_array(backend):
    """``f(a, a[:])`` with a pcompute Array: views of one Array (slices,
    ``get_view``) are the same array to the analysis on every backend (a
    flow dependence: sequential, the result of plain Python on NumPy), also
    after replayed calls with distinct Arrays; views that overlap otherwise
    are refused.  On OpenCL they were called distinct (their host mirrors
    were compared): a parallel launch, a race."""
    from pcompute import wrap
    from pcompute.errors import KernelValueError
    n = 40
    want = np.zeros(n + 1, backend.dtype)
    shift_add_one(want, want[:], n)
    f = parallelize(shift_add_one)
    x, y = wrap(np.zeros(n + 1, backend.dtype), np.zeros(n + 1, backend.dtype))
    f(x, y, n)                                  # distinct Arrays: parallel
    f(x, y, n)
    assert f.last_plans[0].kind == "launch"
    np.testing.assert_allclose(y.get()[1:], np.ones(n))
    for k, view in enumerate((lambda a: a[:], lambda a: a.get_view(),
                              lambda a: a.get_view(0, n + 1))):
        a = wrap(np.zeros(n + 1, backend.dtype))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            f(a, view(a), n)
        if k == 0:          # said once per loop
            assert any(issubclass(w.category, SequentialLoopWarning)
                       and "flow dependence" in str(w.message) for w in caught)
        assert f.last_plans[0].kind != "launch"
        np.testing.assert_allclose(a.get(), want, rtol=backend.rtol)
    a = wrap(np.zeros(n + 1, backend.dtype))
    for first, second in ((a[:-1], a[1:]), (a.get_view(0, n), a.get_view(1, n))):
        with pytest.raises(KernelValueError, match="overlap"):
            f(first, second, n - 1)
    assert np.all(a.get() == 0.0)
    b = wrap(np.zeros(2 * n + 2, backend.dtype))
    f(b[:n + 1], b[n + 1:], n)                  # two halves of one Array: parallel
    assert f.last_plans[0].kind == "launch"
    np.testing.assert_allclose(b.get()[n + 2:], np.ones(n))


def test_explain_leaves_device_arrays_alone(backend):
    """explain() with pcompute Arrays on every backend: the Arrays keep their
    values (it ran the function on them and left them written), views of one
    Array are one array there too, overlapping views are refused."""
    from pcompute import wrap
    from pcompute.errors import KernelValueError
    f = parallelize(shift_add_one)
    start = np.arange(9, dtype=backend.dtype)
    a, b = wrap(start.copy(), start.copy())
    assert "parallel" in f.explain(a, b, 8)
    text = f.explain(a, a[:], 8)
    assert "sequential" in text and "flow dependence" in text
    with pytest.raises(KernelValueError, match="overlap"):
        f.explain(a[:-1], a[1:], 7)
    m = wrap(np.arange(12, dtype=backend.dtype).reshape(3, 4))
    f.explain(m[0], m[1, ::1], 3)
    np.testing.assert_array_equal(a.get(), start)
    np.testing.assert_array_equal(b.get(), start)
    np.testing.assert_array_equal(m.get(), np.arange(12).reshape(3, 4))


def add_length(a, b, n):
    for i in range(n):
        b[i] = a[i] + len(a)


def test_len_of_an_array_is_no_access_of_its_elements(backend):
    """``len(a)`` in a nest reads a's length: no dependence (it was taken as
    a read and a write of every element of ``a``: a sequential kernel)."""
    a = np.arange(6, dtype=backend.dtype)
    want = np.zeros(6, backend.dtype)
    add_length(a, want, 6)
    b = np.zeros(6, backend.dtype)
    f = parallelize(add_length)
    with warnings.catch_warnings():
        warnings.simplefilter("error", SequentialLoopWarning)
        f(a, b, 6)
    assert f.last_plans[0].kind == "launch"
    np.testing.assert_array_equal(b, want)


def test_explain_sees_views_as_the_call_does():
    """explain() runs on copies that share memory as the arguments do: views
    of one array are one array there too (a flow dependence: sequential),
    overlapping views are refused, and the arguments are left alone."""
    from pcompute.errors import KernelValueError
    f = parallelize(shift_add_one)
    a = np.zeros(9)
    with use_config(backend="python"):
        assert "parallel" in f.explain(a, np.zeros(9), 8)
        text = f.explain(a, a[:], 8)
        assert "sequential" in text and "flow dependence" in text
        with pytest.raises(KernelValueError, match="overlap"):
            f.explain(a[:-1], a[1:], 7)
        b = np.arange(12.0).reshape(3, 4)
        f.explain(b[0], b[0, ::1], 3)
    assert np.all(a == 0.0) and np.array_equal(b, np.arange(12.0).reshape(3, 4))


def stencil_2d(u, v, n, m):
    for i in range(1, n - 1):
        for j in range(2, m - 1):
            v[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 2] + u[i, j + 1])


@pytest.mark.parametrize("offset", [0, 1, 5])
@pytest.mark.parametrize("shape", [(3000, 5), (300, 21)])
def test_row_stores_are_aligned_and_results_match(backend, shape, offset):
    """A nest storing v[i, j] of its two launched loops is built with each
    row's stores aligned (the align_rows option: v, the loops' starts);
    arrays at several offsets from an aligned address and rows shorter than
    the split give plain Python's values on every backend."""
    from pcompute.kernel_options import options_of
    n, m = shape
    rng = np.random.default_rng(4)
    u = rng.random(n * m + offset).astype(backend.dtype)[offset:].reshape(n, m)
    v = np.zeros(n * m + offset, backend.dtype)[offset:].reshape(n, m)
    want = v.copy()
    stencil_2d(u, want, n, m)
    f = parallelize(stencil_2d)
    f(u, v, n, m)
    f(u, v, n, m)                              # the replayed call too
    np.testing.assert_allclose(v, want, rtol=backend.rtol)
    assert options_of(f.last_plans[0].kernel[0].func)["align_rows"] == ("v", 1, 2)


def test_nests_whose_items_run_loops_are_not_row_aligned():
    """A nest whose items run an inner loop (conv-2d, gemm) stores rarely:
    no align_rows option (it gained nothing there)."""
    from pcompute.kernel_options import options_of
    def conv(img, out, n):
        for i in range(n):
            for j in range(n):
                acc = 0.0
                for d in range(3):
                    acc += img[i + d, j]
                out[i, j] = acc
    f = parallelize(conv)
    img, out = np.arange(64.0).reshape(8, 8), np.zeros((6, 6))
    with use_config(backend="python"):
        f(img, out, 6)
    want = np.zeros((6, 6))
    conv(img, want, 6)
    np.testing.assert_array_equal(out, want)
    assert "align_rows" not in options_of(f.last_plans[0].kernel[0].func)


_OFFSET = 0


def _at_offset(v, k):
    return v[k + _OFFSET] * 0.5


def halve_from_offset(a, n):
    for i in range(n):
        a[i] = _at_offset(a, i)


def test_a_module_number_a_helper_reads_is_read_at_each_call(backend, monkeypatch):
    """The kernels compile a helper's module-level numbers in, as the nest's
    own globals: a changed one gives a new analysis and kernel, and the call
    is not replayed (it kept the old value: 0.5 of a[i] where plain Python
    takes a[i + 1], and a parallel kernel for the anti dependence)."""
    import sys
    f = parallelize(halve_from_offset)
    for offset, plan in ((0, "launch"), (0, "launch"), (1, "serial"), (0, "launch")):
        monkeypatch.setattr(sys.modules[__name__], "_OFFSET", offset)
        a = np.arange(1.0, 10.0).astype(backend.dtype)
        want = a.copy()
        halve_from_offset(want, 8)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SequentialLoopWarning)
            f(a, 8)
        assert f.last_plans[0].kind == plan
        np.testing.assert_array_equal(a, want)
