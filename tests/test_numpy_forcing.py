"""pcompute.numpy: when values are computed, what is counted, and the tools
(explain, options, the depth warning, the input cap)."""
import numpy as np
import pytest

import pcompute.numpy as pnp


@pytest.fixture
def fresh():
    old = pnp.set_options(eager_below=0)
    pnp.reset_stats()
    yield
    pnp.set_options(**old)


def test_operations_are_lazy_until_forced(fresh):
    x = pnp.asarray(np.arange(6.0))
    y = pnp.sqrt(x) * 2 + 1
    assert pnp.stats()["kernels"] == 0          # nothing computed yet
    assert y.shape == (6,) and y.dtype == np.float64 and len(y) == 6
    assert pnp.stats()["kernels"] == 0          # shape and dtype do not force
    text = repr(y)
    assert text == repr(np.sqrt(np.arange(6.0)) * 2 + 1)
    assert pnp.stats()["kernels"] == 1
    str(y), np.asarray(y), y.tolist()           # already evaluated: no new kernel
    assert pnp.stats()["kernels"] == 1


@pytest.mark.parametrize("force", [float, int, bool, lambda v: v.item(),
                                   lambda v: f"{v:.3f}"])
def test_scalar_conversions_force(fresh, force):
    v = pnp.sum(pnp.asarray(np.arange(4.0)) + 0.5)
    assert force(v) == force(np.sum(np.arange(4.0) + 0.5))


def test_iteration_and_indexing(fresh):
    a = np.arange(12.0).reshape(3, 4)
    x = pnp.asarray(a) * 2
    rows = [np.asarray(r) for r in x]
    np.testing.assert_array_equal(np.stack(rows), a * 2)
    assert x[1, 2] == a[1, 2] * 2
    np.testing.assert_array_equal(np.asarray(x[x > 10]), (a * 2)[a * 2 > 10])
    np.testing.assert_array_equal(np.asarray(x[[0, 2]]), (a * 2)[[0, 2]])


def test_unimplemented_numpy_functions_run_on_the_host_counted(fresh):
    x = pnp.asarray(np.array([3.0, 1.0, 2.0])) * 2
    m = np.median(x)                            # __array_function__
    assert float(m) == 4.0
    s = np.sort(x)
    assert isinstance(s, pnp.ndarray)           # the result re-enters the lazy world
    np.testing.assert_array_equal(np.asarray(s + 1), [3.0, 5.0, 7.0])
    assert pnp.stats()["fallbacks"] == {"numpy.median: not implemented lazily": 1,
                                        "numpy.sort: not implemented lazily": 1}


def test_fallback_policy_error_and_warn(fresh):
    x = pnp.asarray(np.arange(3.0))
    pnp.set_options(fallback="error")
    with pytest.raises(pnp.FallbackError, match="numpy.median"):
        np.median(x)
    pnp.set_options(fallback="warn")
    with pytest.warns(UserWarning, match="NumPy on the host"):
        np.median(x)
    with pytest.raises(ValueError, match="fallback"):
        pnp.set_options(fallback="sometimes")
    with pytest.raises(TypeError, match="unknown pcompute.numpy option"):
        pnp.set_options(no_such_option=1)


def test_numpy_ufunc_protocol_stays_lazy(fresh):
    x = pnp.asarray(np.arange(4.0))
    y = np.exp(x) + np.float32(1)               # numpy's ufunc on a lazy array
    assert isinstance(y, pnp.ndarray)
    np.testing.assert_allclose(np.asarray(y), np.exp(np.arange(4.0)) + 1)


def test_numpy_errors_are_numpys(fresh):
    b = pnp.asarray(np.array([True, False]))
    with pytest.raises(TypeError):
        b - b                                   # NumPy refuses bool - bool
    u = pnp.asarray(np.array([1, 2], dtype=np.uint8))
    with pytest.raises(OverflowError):
        u + 300                                 # NEP 50: out of range for uint8
    with pytest.raises(np.exceptions.AxisError):
        pnp.sum(u, axis=2)
    with pytest.raises(ValueError):
        pnp.asarray(np.zeros(3)) + pnp.asarray(np.zeros(4))


def test_small_arrays_run_eagerly_and_are_counted():
    old = pnp.set_options(eager_below=100)
    try:
        pnp.reset_stats()
        x = pnp.asarray(np.arange(5.0))
        y = x * 2 + 1
        assert pnp.stats()["eager"] == 2 and pnp.stats()["kernels"] == 0
        np.testing.assert_array_equal(np.asarray(y), np.arange(5.0) * 2 + 1)
    finally:
        pnp.set_options(**old)


def test_eager_and_fused_paths_agree_at_the_threshold(backend):
    """The default eager_below of the backend: one element less runs NumPy,
    at the threshold one fused kernel; both give NumPy's values (the 5-op
    chain of the benchmark that measured the threshold)."""
    from pcompute.numpy.options import eager_below
    old = pnp.set_options(eager_below=None)
    try:
        n = eager_below()
        rng = np.random.default_rng(3)
        a = rng.random(n).astype(backend.dtype)
        b = (rng.random(n) + 1).astype(backend.dtype)
        results = []
        for size, path in ((n - 1, "eager"), (n, "kernels")):
            x, y = pnp.asarray(a[:size]), pnp.asarray(b[:size])
            pnp.reset_stats()
            got = np.asarray(((x * y + 1.0) / 3.0 - x) * y)
            assert pnp.stats()[path] >= 1 and pnp.stats()[
                "kernels" if path == "eager" else "eager"] == 0, pnp.stats()
            results.append(got)
        want = ((a * b + 1.0) / 3.0 - a) * b
        np.testing.assert_array_equal(results[0], want[:-1])    # NumPy itself
        # `... / 3 - x` cancels: near its zeros an error of the inputs' size
        # (a contracted multiply-add on a GPU) is a large relative one
        atol = backend.rtol * float(np.abs(want).max())
        np.testing.assert_allclose(results[1], want, rtol=backend.rtol, atol=atol)
        np.testing.assert_allclose(results[1][:-1], results[0], rtol=backend.rtol, atol=atol)
    finally:
        pnp.set_options(**old)


def test_explain_names_kernels_and_boundaries(fresh):
    x = pnp.asarray(np.ones((2, 3)))
    y = pnp.exp(x - pnp.max(x)) * 3
    text = pnp.explain(y)
    assert "map+reduce max(axis=None)" in text
    assert "elementwise -> float64 (2, 3)" in text
    assert "ops: multiply, exp, subtract" in text
    assert "boundary at max: a reduction is evaluated first" in text
    assert pnp.stats()["kernels"] == 0          # explain computes nothing
    z = np.median(x) + x
    assert "already evaluated" in pnp.explain(pnp.evaluate(z))


def test_deep_graphs_are_evaluated_with_a_located_warning(fresh):
    pnp.set_options(max_depth=20)
    x = pnp.asarray(np.zeros(3))
    with pytest.warns(pnp.GraphDepthWarning, match="evaluate") as record:
        for _ in range(25):
            x = x + 1.0
    assert record[0].filename == __file__
    np.testing.assert_array_equal(np.asarray(x), np.full(3, 25.0))


def test_input_cap_splits_kernels(fresh):
    arrays = [np.full(4, float(k)) for k in range(6)]
    pnp.set_options(max_inputs=3)
    total = pnp.asarray(arrays[0])
    for a in arrays[1:]:
        total = total + pnp.asarray(a) * 2
    np.testing.assert_array_equal(np.asarray(total), sum(arrays[1:]) * 2 + arrays[0])
    assert pnp.stats()["kernels"] >= 2
    assert any("input cap" in reason for reason in pnp.stats()["boundaries"])


def test_kernel_sources_are_kernel_language(fresh):
    np.asarray(pnp.asarray(np.arange(3.0)) * 7.0 + 1.0)
    assert any(src.startswith("def pc_fused_") and "cast(" in src
               for src in pnp.kernel_sources())


def test_namespace_reexports_numpy_names():
    assert pnp.float32 is np.float32 and pnp.pi == np.pi
    with pytest.raises(AttributeError):
        pnp.no_such_name


def _pooled_items(dtype):
    """The fewest items of ``dtype`` whose buffer the host pool keeps."""
    from pcompute.backends import host_pool
    return -(-host_pool.MIN_BYTES // np.dtype(dtype).itemsize)


def test_dropped_result_gives_its_buffer_back_at_once(backend):
    """On host backends kernel outputs come from the host pool, and a value
    nobody uses any more returns its buffer without waiting for the garbage
    collector (no reference cycles in the graph)."""
    import gc

    from pcompute.backends import host_pool
    from pcompute import get_backend
    if not get_backend(backend.name).on_host:
        pytest.skip("%s keeps its arrays on a device: no host pool" % backend.name)
    old = pnp.set_options(eager_below=0)
    # the smallest array the pool keeps (the python backend runs each item
    # in the interpreter: 1 << 18 items took 14 s a case there)
    x = np.linspace(0.0, 1.0, _pooled_items(backend.dtype)).astype(backend.dtype)
    px = pnp.asarray(x)
    pnp.evaluate(px * 4 + 1)     # the first call builds the kernel (its frames
    gc.collect()                 # may keep the arguments until a collection)
    enabled = gc.isenabled()
    gc.disable()
    try:
        host_pool.release()      # no idle buffer but the one y gives back
        y = pnp.evaluate(px * 2 + 1)
        np.testing.assert_allclose(np.asarray(y), x * 2 + 1, rtol=backend.rtol)
        del y
        before = host_pool.stats["reused"]
        z = pnp.evaluate(px * 3 + 1)
        assert host_pool.stats["reused"] == before + 1
        np.testing.assert_allclose(np.asarray(z), x * 3 + 1, rtol=backend.rtol)
    finally:
        if enabled:
            gc.enable()
        pnp.set_options(**old)


def test_dropped_input_of_a_cached_plan_gives_its_buffer_back_at_once(backend):
    """An evaluation through a cached plan keeps no reference cycle to its
    inputs: a pooled value read by a later kernel and then dropped goes back
    to the pool at once (a time loop such as evolve otherwise held every old
    grid until a garbage collection, twice numexpr's peak memory)."""
    import gc

    from pcompute.backends import host_pool
    from pcompute import get_backend
    if not get_backend(backend.name).on_host:
        pytest.skip("%s keeps its arrays on a device: no host pool" % backend.name)
    old = pnp.set_options(eager_below=0)
    # the smallest array the pool keeps (the python backend runs each item
    # in the interpreter: 1 << 18 items took 14 s a case there)
    x = np.linspace(0.0, 1.0, _pooled_items(backend.dtype)).astype(backend.dtype)
    px = pnp.asarray(x)
    for _ in range(2):           # the plans of both structures are cached
        pnp.evaluate(pnp.evaluate(px * 2 + 1) * 3 + 1)
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        host_pool.release()
        a = pnp.evaluate(px * 2 + 1)
        b = pnp.evaluate(a * 3 + 1)
        del a                    # read by b's kernel only: back to the pool now
        before = host_pool.stats["reused"]
        c = pnp.evaluate(px * 5 + 1)
        assert host_pool.stats["reused"] == before + 1
        np.testing.assert_allclose(np.asarray(b), (x * 2 + 1) * 3 + 1, rtol=backend.rtol)
        np.testing.assert_allclose(np.asarray(c), x * 5 + 1, rtol=backend.rtol)
    finally:
        if enabled:
            gc.enable()
        pnp.set_options(**old)
