"""Repeated calls of one primitive whose arguments or configuration change
between calls: each call must run the kernel of its own argument types and
configuration, never the one remembered from the call before (the cython
backend keeps a compiled fast call per signature; see
pcompute/backends/cython_fast.py).  Every case runs on every backend."""
import inspect

import numpy as np
import pytest

import pcompute as pc
from pcompute import Elementwise, Reduction, Scan, use_config
from pcompute.backends.registry import get_backend
from pcompute.config import bump_generation, get_config
from pcompute.errors import KernelTypeError, KernelValueError
from pcompute.profile import get_profile_info, reset_profile


def scale(i, x, y, a):
    y[i] = x[i] * a


def shifted(i, y, x):
    y[i] = x[i + 1]


def scan_input(i, x):
    return x[i]


def scan_output(i, item, out):
    out[i] = item


def _other_backend(name):
    """A backend other than ``name`` that runs here."""
    for other in ("python", "cython"):
        if other != name and get_backend(other).why_unavailable() is None:
            return other
    pytest.fail("no second backend runs here")


def test_elementwise_follows_dtype_length_and_scalar_type(backend):
    e = Elementwise(scale)
    x = np.arange(1, 8, dtype=backend.dtype)
    xa, ya = pc.wrap(x.copy(), np.zeros(7, backend.dtype))
    for a in (2.5, -1.0):                       # the second call may take the fast path
        e(xa, ya, a)
        np.testing.assert_allclose(ya.get(), x * a, rtol=backend.rtol)
    # Shorter arrays: n is the new first array's length (y keeps its tail).
    xs, ys = pc.wrap(x[:3].copy(), np.full(7, -9, backend.dtype))
    e(xs, ys, 3.0)
    np.testing.assert_allclose(ys.get(), [3, 6, 9, -9, -9, -9, -9], rtol=backend.rtol)
    # An Array resized between calls.
    xa.resize(4)
    ya[:] = 0
    e(xa, ya, 1.0)
    np.testing.assert_allclose(ya.get(), [1, 2, 3, 4, 0, 0, 0], rtol=backend.rtol)
    # int32 arrays: an int scalar, then a float one (another kernel: double a).
    xi, yi = pc.wrap(np.array([1, 2, 3], np.int32), np.zeros(3, np.int32))
    e(xi, yi, 2)
    e(xi, yi, 2)
    np.testing.assert_array_equal(yi.get(), [2, 4, 6])
    e(xi, yi, 2.5)
    np.testing.assert_array_equal(yi.get(), [2, 5, 7])
    e(xi, yi, True)
    np.testing.assert_array_equal(yi.get(), [1, 2, 3])
    # Back to the first signature.
    e(xa, ya, 0.5)
    np.testing.assert_allclose(ya.get()[:4], x[:4] * 0.5, rtol=backend.rtol)


def test_elementwise_array_where_a_scalar_was_is_an_error(backend):
    e = Elementwise(scale)
    xa, ya = pc.wrap(np.ones(5, backend.dtype), np.zeros(5, backend.dtype))
    e(xa, ya, 2.0)
    e(xa, ya, 2.0)
    with pytest.raises(KernelTypeError):
        e(xa, ya, xa)
    with pytest.raises(KernelTypeError):
        e(xa, 1.0, 2.0)
    with pytest.raises(KernelTypeError, match="takes 3"):
        e(xa, ya, 2.0, 1.0)
    with pytest.raises(KernelTypeError, match="takes 3"):
        e(xa, ya)
    e(xa, ya, 3.0)
    np.testing.assert_allclose(ya.get(), 3.0)


def test_elementwise_checks_arrays_of_another_backend_and_numpy(backend):
    e = Elementwise(scale)
    xa, ya = pc.wrap(np.ones(5, backend.dtype), np.zeros(5, backend.dtype))
    e(xa, ya, 2.0)
    e(xa, ya, 2.0)
    other = _other_backend(backend.name)
    stranger = pc.wrap(np.zeros(5, backend.dtype), backend=other)
    with pytest.raises(KernelValueError, match="backend"):
        e(xa, stranger, 2.0)
    y = np.zeros(5, backend.dtype)
    if get_backend(backend.name).on_host:
        e(xa.dev, y, 4.0)                       # numpy arrays, then a read-only one
        e(xa.dev, y, 4.0)
        np.testing.assert_allclose(y, 4.0)
        y.flags.writeable = False
        with pytest.raises(KernelValueError, match="read-only"):
            e(xa.dev, y, 5.0)
        with pytest.raises(KernelValueError, match="contiguous"):
            e(xa.dev[::2], np.zeros(5, backend.dtype)[::2], 5.0)
    else:
        with pytest.raises(KernelTypeError, match="numpy"):
            e(xa, y, 4.0)


def test_configuration_changed_between_calls(backend):
    e = Elementwise(shifted)
    x = pc.wrap(np.arange(9, dtype=backend.dtype))[0:8]
    y7, y8 = pc.wrap(np.zeros(7, backend.dtype), np.zeros(8, backend.dtype))
    e(y7, x)
    e(y7, x)
    np.testing.assert_allclose(y7.get(), np.arange(1, 8), rtol=backend.rtol)
    with use_config(bounds_check=True):
        with pytest.raises(IndexError):
            e(y8, x)                             # x[8] is past the view's end
        e(y7, x)
    # Profiling turned on after fast calls: the next calls are timed.
    e(y7, x)
    e(y7, x)
    reset_profile()
    get_config().profile = True
    try:
        e(y7, x)
        e(y7, x)
    finally:
        get_config().profile = False
    calls = sum(stats["calls"] for level in get_profile_info().values()
                for name, stats in level.items() if "shifted" in name)
    assert calls == 2
    np.testing.assert_allclose(y7.get(), np.arange(1, 8), rtol=backend.rtol)


def test_backend_switched_between_calls(backend):
    e = Elementwise(scale)
    xa, ya = pc.wrap(np.ones(4, backend.dtype), np.zeros(4, backend.dtype))
    e(xa, ya, 2.0)
    e(xa, ya, 2.0)
    other = _other_backend(backend.name)
    with use_config(backend=other):
        xo, yo = pc.wrap(np.ones(4, backend.dtype), np.zeros(4, backend.dtype))
        e(xo, yo, 3.0)
        assert e.elementwise.backend == other
        np.testing.assert_allclose(yo.get(), 3.0)
    e.set_backend(other)
    e(xo, yo, 5.0)
    assert e.elementwise.backend == other
    e.set_backend(None)
    e(xa, ya, 4.0)
    assert e.elementwise.backend == backend.name
    np.testing.assert_allclose(ya.get(), 4.0)


def test_reduction_follows_dtype_length_and_rank(backend):
    r = Reduction("a+b")
    x = np.arange(10, dtype=backend.dtype)
    xa = pc.wrap(x.copy())
    assert r(xa) == pytest.approx(45)
    assert r(xa) == pytest.approx(45)
    assert r(pc.wrap(x[:4].copy())) == pytest.approx(6)
    xi = pc.wrap(np.arange(5, dtype=np.int32))
    assert r(xi) == 10
    m = pc.wrap(np.arange(6, dtype=backend.dtype).reshape(2, 3))
    assert r(m) == pytest.approx(15)            # rank 2: reduced whole
    assert r(m[:, 1]) == pytest.approx(5)       # a strided view
    assert r(xa) == pytest.approx(45)
    first, again = r(xa), r(xa)                 # the checked call, then the fast one
    assert type(first) is type(again) and isinstance(again, np.generic)


def test_scan_keyword_and_positional_arguments(backend):
    s = Scan(scan_input, scan_output, "a+b", dtype=backend.dtype)
    x = np.arange(1, 6, dtype=backend.dtype)
    xa, out = pc.wrap(x.copy(), np.zeros(5, backend.dtype))
    s(x=xa, out=out)
    s(x=xa, out=out)
    np.testing.assert_allclose(out.get(), np.cumsum(x), rtol=backend.rtol)
    s(xa, out=pc.wrap(np.zeros(5, backend.dtype)))
    s(out=out, x=pc.wrap(2 * x))
    np.testing.assert_allclose(out.get(), 2 * np.cumsum(x), rtol=backend.rtol)
    with pytest.raises(KernelTypeError, match="missing"):
        s(x=xa)
    with pytest.raises(KernelTypeError, match="unexpected"):
        s(x=xa, out=out, y=out)
    with pytest.raises(KernelTypeError, match="twice"):
        s(xa, x=xa, out=out)
    s(pc.wrap(x[:3].copy()), out)
    np.testing.assert_allclose(out.get()[:3], np.cumsum(x[:3]), rtol=backend.rtol)


def test_repeated_calls_skip_the_checked_path_where_a_fast_call_exists(backend, monkeypatch):
    e, r = Elementwise(scale), Reduction("a+b")
    s = Scan(scan_input, scan_output, "a+b", dtype=backend.dtype)
    xa, ya = pc.wrap(np.ones(6, backend.dtype), np.zeros(6, backend.dtype))
    e(xa, ya, 2.0)
    r(xa)
    s(x=xa, out=ya)
    checked = []
    for primitive in (e, r, s):
        kernel = primitive._kernel
        monkeypatch.setattr(primitive, "_kernel",
                            lambda *a, kernel=kernel, **k: checked.append(1) or kernel(*a, **k))
    for _ in range(3):
        e(xa, ya, 2.0)
        assert r(xa) == pytest.approx(6)
        s(x=xa, out=ya)
    np.testing.assert_allclose(ya.get(), np.arange(1, 7), rtol=backend.rtol)
    fast = [p for p in (e, r, s) if p.built.fastcall is not None]
    assert len(checked) == 3 * (3 - len(fast))


def test_numpy_scalars_of_the_parameter_type_take_the_fast_call(backend, monkeypatch):
    """A numpy scalar of the kernel parameter's own type (what pcompute.numpy
    passes) is a scalar to the fast call too: it follows changed values; a
    scalar of another type is another signature (the checked path)."""
    e = Elementwise(scale)
    xa, ya = pc.wrap(np.arange(1, 6, dtype=backend.dtype), np.zeros(5, backend.dtype))
    typ = np.dtype(backend.dtype).type
    e(xa, ya, typ(2.0))
    checked = []
    kernel = e._kernel
    monkeypatch.setattr(e, "_kernel",
                        lambda *a, **k: checked.append(1) or kernel(*a, **k))
    for a in (3.0, -0.0, 0.5):
        e(xa, ya, typ(a))
        np.testing.assert_allclose(ya.get(), np.arange(1, 6) * a, rtol=backend.rtol)
    assert len(checked) == (0 if e.built.fastcall is not None else 3)
    other = np.float32 if typ is np.float64 else np.float64
    e(xa, ya, other(1.5))                       # another scalar type: checked path
    np.testing.assert_allclose(ya.get(), np.arange(1, 6) * 1.5, rtol=backend.rtol)
    assert len(checked) >= 1


def test_configuration_entered_again_keeps_its_fast_calls(backend, monkeypatch):
    """``use_config`` entered again with the same values (a loop around a
    block of calls, as the benchmarks do per sample) finds the fast calls made
    under those values the last time; other values take the checked path
    once, and a field set to another value and back is the old state again."""
    e, r = Elementwise(scale), Reduction("a+b")
    xa, ya = pc.wrap(np.ones(6, backend.dtype), np.zeros(6, backend.dtype))
    checked = []
    for primitive in (e, r):
        kernel = primitive._kernel
        monkeypatch.setattr(primitive, "_kernel",
                            lambda *a, kernel=kernel, **k: checked.append(1) or kernel(*a, **k))
    def calls(a):
        before = len(checked)
        e(xa, ya, a)
        assert r(ya) == pytest.approx(6 * a)
        np.testing.assert_allclose(ya.get(), a, rtol=backend.rtol)
        return len(checked) - before

    assert calls(1.0) == 2                      # the first calls build
    # a backend without fast calls (python; cuda today) takes the checked path always
    fast = all(p.built.fastcall is not None for p in (e, r))
    for k in range(3):
        with use_config(suppress_warnings=True):
            assert calls(2.0 + k) == (2 if k == 0 or not fast else 0)
    assert calls(3.0) == 2                      # back under the outer values
    assert calls(4.0) == (0 if fast else 2)
    config = get_config()
    old = config.suppress_warnings
    config.suppress_warnings = not old
    assert calls(5.0) == 2                      # a field changed: checked again
    config.suppress_warnings = old
    assert calls(6.0) == 2                      # the fast calls kept are those of the last values
    assert calls(7.0) == (0 if fast else 2)
    _bump_generation()                          # e.g. a backend registered: all stale
    assert calls(8.0) == 2


def test_cython_kernels_offer_fast_calls():
    """The cython backend's Elementwise, Reduction and Scan modules carry a
    compiled fast call (1-D arrays and scalars); an Elementwise called with
    ``shape=`` one for n-D arrays too (no Python function runs in it)."""
    with use_config(backend="cython", use_double=True):
        e, r = Elementwise(scale), Reduction("a+b")
        s = Scan(scan_input, scan_output, "a+b", dtype=np.float64)
        xa, ya = pc.wrap(np.ones(6), np.zeros(6))
        e(xa, ya, 2.0)
        r(xa)
        s(x=xa, out=ya)
        for p in (e, r, s):
            assert p.built.fastcall is not None and p._fast is not None
        r(pc.wrap(np.ones((2, 3)))[:, 1])       # a strided view: no fast call
        assert r._fast is None
        ya[:] = 0
        e(xa, ya, 1.0, shape=3)                 # an explicit index space: checked path
        np.testing.assert_array_equal(ya.get(), [1, 1, 1, 0, 0, 0])
        g = Elementwise(grid_scale)
        u, v = np.ones((3, 4)), np.zeros((3, 4))
        g(u, v, 2.0, shape=(3, 4))
        assert not inspect.isfunction(g._fast_shaped)       # the module's pc_fast_shaped
        assert g._fast_shaped((u, v, 3.0), (2, 4))
        np.testing.assert_array_equal(v, [[3] * 4] * 2 + [[2] * 4])


def _bump_generation():
    """Make every fast call stale (the next call takes the checked path)."""
    bump_generation()


def test_fast_calls_follow_changed_arrays_and_scalars(backend):
    """The arrays and scalars change between calls, some of which take the
    checked path, and two primitives of one function share its program: a
    backend keeping the kernel arguments of the last launch (opencl) must
    set again exactly those that changed, per primitive."""
    x = np.arange(1, 6, dtype=backend.dtype)
    xa = pc.wrap(x.copy())
    ys = pc.wrap(np.zeros(5, backend.dtype), np.zeros(5, backend.dtype))
    e1, e2 = Elementwise(scale), Elementwise(scale)
    expected = [np.zeros(5), np.zeros(5)]
    steps = [(e1, 0, 2.0), (e1, 1, 3.0), (e2, 0, 4.0), (e1, 0, 3.0), (e1, 1, 3.0),
             (e2, 1, 5.0), (e1, 0, 2.0), (e2, 1, 5.0), (e1, 1, 2.0)]
    for k, (e, which, a) in enumerate(steps):
        if k in (4, 7):
            _bump_generation()
        e(xa, ys[which], a)
        expected[which] = x * a
        for y, want in zip(ys, expected):
            np.testing.assert_allclose(y.get(), want, rtol=backend.rtol)
    r = Reduction("a+b")
    inputs = [xa, pc.wrap(x[:3].copy()), xa]
    for k, a in enumerate(inputs + inputs[::-1]):
        if k == 4:
            _bump_generation()
        assert r(a) == pytest.approx(a.get().sum(), rel=backend.rtol)
    s = Scan(scan_input, scan_output, "a+b", dtype=backend.dtype)
    for k, (a, which) in enumerate([(xa, 0), (xa, 1), (inputs[1], 0), (xa, 0), (xa, 1)]):
        ys[which][:] = 0
        s(a, ys[which])
        n = len(a)
        np.testing.assert_allclose(ys[which].get()[:n], np.cumsum(a.get()),
                                   rtol=backend.rtol)


def test_repeated_calls_run_few_python_functions(backend):
    """A call taking the fast call runs at most three Python functions (the
    primitive's __call__, the fast call, the launch; a Reduction also reads
    its result through pyopencl's enqueue_copy, two more): the checked path
    runs about 25."""
    import sys
    e, r = Elementwise(scale), Reduction("a+b")
    s = Scan(scan_input, scan_output, "a+b", dtype=backend.dtype)
    xa, ya = pc.wrap(np.ones(6, backend.dtype), np.zeros(6, backend.dtype))
    cases = [(e, lambda: e(xa, ya, 2.0), 3), (r, lambda: r(xa), 5),
             (s, lambda: s(x=xa, out=ya), 3), (s, lambda: s(xa, ya), 3)]
    for primitive, call, most in cases:
        call()
        if primitive.built.fastcall is None:
            continue
        call()
        calls = []
        sys.setprofile(lambda frame, event, arg: event == "call" and calls.append(
            frame.f_code.co_name))
        try:
            for _ in range(4):
                call()
        finally:
            sys.setprofile(None)
        calls = [c for c in calls if c != "<lambda>"]
        assert len(calls) <= 4 * most, (primitive, calls)


def grid_scale(i, j, u, v, a):
    v[i, j] = u[i, j] * a


def test_shaped_calls_skip_the_checked_path_and_follow_changes(backend, monkeypatch):
    """Calls given ``shape=`` (n-D index spaces, parallelize's launches) keep
    a fast path for the signature of the last one: the same signature with
    other extents and values skips the checked path; a changed configuration
    or scalar type takes it again."""
    e = Elementwise(grid_scale)
    u = np.arange(12, dtype=backend.dtype).reshape(3, 4)
    ua, va = pc.wrap(u.copy(), np.zeros((3, 4), backend.dtype))
    e(ua, va, 2.0, shape=(3, 4))
    checked = []
    kernel = e._kernel
    monkeypatch.setattr(e, "_kernel",
                        lambda *a, **k: checked.append(1) or kernel(*a, **k))
    e(ua, va, 3.0, shape=(2, 4))
    want = u * 2.0
    want[:2] = u[:2] * 3.0
    np.testing.assert_allclose(va.get(), want, rtol=backend.rtol)
    assert checked == []
    _bump_generation()
    e(ua, va, 1.0, shape=(3, 4))
    np.testing.assert_allclose(va.get(), u, rtol=backend.rtol)
    assert checked == [1]
    e(ua, va, 4, shape=(3, 4))              # an int scalar: another kernel
    np.testing.assert_allclose(va.get(), u * 4, rtol=backend.rtol)
    assert checked == [1, 1]
    with pytest.raises(KernelValueError, match="shape"):
        e(ua, va, 4, shape=(3, -1))          # a bad extent: the checked path's error


def test_shaped_calls_follow_shapes_views_and_layouts(backend):
    """Between calls given ``shape=``, the arrays change shape, become views
    with an offset, strided or read-only: each call indexes the arrays it is
    given (a compiled fast call passes their shapes and strides and declines
    what is not C-contiguous or not writable)."""
    e = Elementwise(grid_scale)
    for rows, cols in [(3, 4), (2, 6), (4, 3)]:
        u = np.arange(rows * cols, dtype=backend.dtype).reshape(rows, cols)
        ua, va = pc.wrap(u.copy(), np.zeros((rows, cols), backend.dtype))
        e(ua, va, 2.0, shape=(rows, cols))
        np.testing.assert_allclose(va.get(), u * 2, rtol=backend.rtol)
    big = np.arange(30, dtype=backend.dtype).reshape(5, 6)
    ua, va = pc.wrap(big.copy(), np.zeros((5, 6), backend.dtype))
    want = np.zeros((5, 6))
    for rows, a in [(slice(1, 4), 3.0), (slice(0, 2), 4.0), (slice(2, 5), 5.0)]:
        e(ua[rows], va[rows], a, shape=(3 if rows.start else 2, 6))
        want[rows] = big[rows] * a
        np.testing.assert_allclose(va.get(), want, rtol=backend.rtol)
    u = np.arange(12, dtype=backend.dtype).reshape(3, 4)
    ua, va = pc.wrap(u.copy(), np.zeros((3, 4), backend.dtype))
    e(ua, va, 1.0, shape=(3, 4))
    e(ua[:, ::2], va[:, 1::2], 2.0, shape=(3, 2))          # strided: another kernel
    want = u.copy()
    want[:, 1::2] = u[:, ::2] * 2
    np.testing.assert_allclose(va.get(), want, rtol=backend.rtol)
    if get_backend(backend.name).on_host:                   # numpy arrays as they are
        un, vn = u.copy(), np.zeros((3, 4), backend.dtype)
        e(un, vn, 1.0, shape=(3, 4))
        un.flags.writeable = False                          # read-only: checked path
        e(un, vn, 3.0, shape=(3, 4))
        np.testing.assert_allclose(vn, u * 3, rtol=backend.rtol)


def _cython_source(func, types, kind="elementwise", index_dims=1):
    from pcompute.config import Config
    from pcompute.generate import generate_source
    return generate_source(func, backend="cython", types=types, kind=kind,
                           config=Config(read_environment=False, use_double=True),
                           index_dims=index_dims)


def test_shaped_entry_only_where_needed():
    """A 1-D Elementwise module carries one fast entry (pc_fast, which also
    takes an index space given with shape=), not a second, shaped copy of
    it; an n-D kernel's module carries pc_fast_shaped only; a Reduction's
    module neither a shaped entry nor the index-space checks (the second
    entry cost ~6 % of gcc's time per module)."""
    one = _cython_source(scale, {"x": "gdoublep", "y": "gdoublep", "a": "double"})
    assert one.count("\ndef pc_fast(") == 1 and "pc_fast_shaped" not in one
    assert "pc_plan[10]" in one                     # the shape= plans of pc_fast
    grid = _cython_source(grid_scale, {"u": "gdoublep2", "v": "gdoublep2", "a": "double"},
                          index_dims=2)
    grid_nd = grid.replace("pc_fast_shaped", "")
    assert "\ndef pc_fast_shaped(" in grid and "def pc_fast(" not in grid_nd
    with use_config(use_double=True):
        red = Reduction("a+b", map_func=scan_input).generate("cython", np.ones(4))
    assert "def pc_fast(" in red and "pc_fast_shaped" not in red
    assert "pc_fast_extents" not in red and "pc_plan[10]" not in red


def test_one_d_kernel_built_plain_then_called_with_shape(backend):
    """A 1-D Elementwise first called without shape= (its module built for
    plain calls), then with shape= (an int, a tuple, 0, a bad extent), then
    plainly again: each call runs over its own index space, with no second
    build."""
    e = Elementwise(scale)
    x = np.arange(1, 9, dtype=backend.dtype)
    xa, ya = pc.wrap(x.copy(), np.zeros(8, backend.dtype))
    e(xa, ya, 2.0)
    np.testing.assert_allclose(ya.get(), x * 2, rtol=backend.rtol)
    want = x * 2
    for shape, a in [(3, 3.0), ((5,), 4.0), (5, 5.0), (0, 9.0), (8, 6.0), (2, 7.0)]:
        e(xa, ya, a, shape=shape)
        n = shape[0] if isinstance(shape, tuple) else shape
        want[:n] = x[:n] * a
        np.testing.assert_allclose(ya.get(), want, rtol=backend.rtol)
    with pytest.raises(KernelValueError, match="shape"):
        e(xa, ya, 1.0, shape=-1)
    e(xa, ya, 0.5)                                  # plain again: the whole length
    np.testing.assert_allclose(ya.get(), x * 0.5, rtol=backend.rtol)
    e(xa, ya, 8.0, shape=4)
    want = x * 0.5
    want[:4] = x[:4] * 8.0
    np.testing.assert_allclose(ya.get(), want, rtol=backend.rtol)
    assert len(e._built) == 1


def test_cython_shape_calls_of_a_plain_built_kernel_are_compiled(monkeypatch):
    """On the cython backend, a 1-D kernel built by a plain call then called
    with shape= takes the compiled fast call of the same module (no Python
    function runs in it, no second module is built) and the checked path
    is not taken again."""
    builds = []
    from pcompute.backends import cython as cython_backend
    build = cython_backend.build_cython
    monkeypatch.setattr(cython_backend, "build_cython",
                        lambda *a, **k: builds.append(a[1]) or build(*a, **k))
    with use_config(backend="cython", use_double=True):
        e = Elementwise(scale)
        xa, ya = pc.wrap(np.ones(6), np.zeros(6))
        e(xa, ya, 2.0)
        e(xa, ya, 3.0, shape=4)                 # the first shape= call: checked path
        assert not inspect.isfunction(e._fast_shaped)
        assert e._fast_shaped.func is e._fast.func        # pc_fast of the one module
        checked = []
        kernel = e._kernel
        monkeypatch.setattr(e, "_kernel", lambda *a, **k: checked.append(1) or kernel(*a, **k))
        e(xa, ya, 4.0, shape=(2,))
        e(xa, ya, 5.0, shape=1)
        assert checked == [] and len(builds) == 1
        np.testing.assert_array_equal(ya.get(), [5, 4, 3, 3, 2, 2])
