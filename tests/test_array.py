"""Tests of pcompute.array: Array, wrap and the array functions, on every backend.

Cross-backend tests use the shared ``backend`` fixture of ``tests/conftest.py``
(a ``BackendCase``: ``name``, ``dtype`` (float32/float64), with its
configuration, ``use_double`` included, applied); unavailable backends (cuda
here) are skipped with their reason.  numpy is the reference.
"""
import operator
import warnings

import numpy as np
import pytest

import pcompute as pc
import pcompute.array as pa
from pcompute.array import (Array, arange, empty, empty_like, get_backend_name, linspace,
                            ones, ones_like, to_device, wrap, zeros, zeros_like)
from pcompute.backends.registry import get_backend
from pcompute.config import get_config, use_config
from pcompute.errors import (BackendUnavailableError, KernelTypeError, KernelValueError,
                             PrecisionWarning)

ALL_BACKENDS = ("python", "cython", "opencl", "cuda")
COMPARISONS = (operator.lt, operator.le, operator.gt, operator.ge, operator.eq,
               operator.ne)


@pytest.fixture(autouse=True)
def restore_config():
    """Each test gets the global config back as it was."""
    with use_config():
        yield


def values(n, dtype, seed=0):
    """Reproducible test data of ``dtype``."""
    rng = np.random.default_rng(seed)
    return (rng.random(n) * 100 - 50).astype(dtype)


def make(case, n=10, seed=0):
    """A numpy array and an Array wrapping a copy of it on ``case``'s backend."""
    x = values(n, case.dtype, seed)
    return x, wrap(x.copy(), backend=case.name)


def check(a, expected):
    """``a`` is an Array with the contents and dtype of ``expected``."""
    assert isinstance(a, Array)
    got = a.get()
    assert got.dtype == np.asarray(expected).dtype
    np.testing.assert_array_equal(got, expected)


def opencl_or_skip():
    reason = get_backend("opencl").why_unavailable()
    if reason is not None:
        pytest.skip("opencl backend unavailable: %s" % reason)


# ----------------------------------------------------------------- construction

def test_array_constructor(backend):
    a = Array(backend.dtype, n=7, backend=backend.name)
    assert (len(a), a.length, a.alloc, a.dtype, a.backend) == \
        (7, 7, 7, backend.dtype, backend.name)
    assert a._backend is get_backend(backend.name)
    assert len(a.dev) == 7
    b = Array(backend.dtype, backend=backend.name)
    assert (len(b), b.alloc) == (0, pa.MIN_CAPACITY)
    c = Array(backend.dtype, allocate=False, backend=backend.name)
    assert (len(c), c.alloc) == (0, 0)


def test_backend_resolved_from_config(backend):
    # the fixture applies backend=case.name to the global config
    assert get_backend_name() == backend.name
    assert Array(np.int32, 3).backend == backend.name
    assert wrap(np.arange(3)).backend == backend.name
    assert get_backend_name("python") == "python"
    assert get_backend_name(get_backend("cython")) == "cython"


def test_unknown_backend_and_bad_arguments():
    with pytest.raises(KernelValueError):
        get_backend_name("fortran")
    with pytest.raises(KernelValueError):
        Array(np.float32, 3, backend=3)
    with pytest.raises(KernelTypeError):
        Array(None, 3, backend="python")
    with pytest.raises(KernelTypeError):
        Array(object, 3, backend="python")
    with pytest.raises(KernelTypeError):
        Array(np.complex128, 3, backend="python")
    with pytest.raises(KernelValueError):
        Array(np.float32, -1, backend="python")
    with pytest.raises(KernelTypeError):
        Array(np.float32, 2.5, backend="python")


def test_unavailable_backend_raises_with_reason():
    missing = [n for n in ALL_BACKENDS if get_backend(n).why_unavailable()]
    if not missing:
        pytest.skip("every backend is available here")
    for name in missing:
        reason = get_backend(name).why_unavailable()
        with pytest.raises(BackendUnavailableError, match="not available"):
            Array(np.float32, 3, backend=name)
        with pytest.raises(BackendUnavailableError):
            wrap(np.zeros(3, np.float32), backend=name)
        assert reason


# ------------------------------------------------------------------------- wrap

def test_wrap_one_and_many(backend):
    x, y = values(5, backend.dtype), values(8, backend.dtype, 1)
    a = wrap(x)
    check(a, x)
    many = wrap(x, y, backend=backend.name)
    assert isinstance(many, list) and len(many) == 2
    check(many[0], x)
    check(many[1], y)
    with pytest.raises(KernelValueError):
        wrap()


def test_wrap_shares_with_numpy(backend):
    x = values(6, backend.dtype)
    a = wrap(x)
    assert a.data is x
    if get_backend(backend.name).on_host:
        assert a.dev is x                 # no copy at all
        a[2] = 99
        assert x[2] == 99
    else:
        a.fill(3)                         # on the device only ...
        assert x[0] != 3
        assert a.pull() is a              # ... until pulled into x
        np.testing.assert_array_equal(x, np.full(6, 3, backend.dtype))


def test_wrap_rejects_rank_zero(backend):
    with pytest.raises(KernelValueError, match="0-D"):
        wrap(np.zeros((), backend.dtype))
    with pytest.raises(KernelValueError):
        wrap(np.zeros(4, backend.dtype), np.zeros((), backend.dtype))


@pytest.mark.parametrize("shape", [(2, 3), (1, 1, 1), (3, 1, 2, 2)])
def test_wrap_keeps_the_shape(backend, shape):
    x = np.arange(int(np.prod(shape))).reshape(shape).astype(backend.dtype)
    a = wrap(x)
    assert a.shape == shape and a.ndim == len(shape) and a.size == x.size
    assert len(a) == shape[0]
    np.testing.assert_array_equal(a.get(), x)
    assert a.get().shape == shape and a.pull().data.shape == shape


def test_wrap_non_contiguous_is_copied(backend):
    x = values(10, backend.dtype)
    a = wrap(x[::2])
    check(a, x[::2])
    assert a.dev.flags.c_contiguous


def test_wrap_converts_sequences_and_keeps_arrays(backend):
    a = wrap([1, 2, 3])
    assert a.dtype.kind == "i"
    check(a, np.array([1, 2, 3]))
    assert wrap(a) is a


def test_wrap_moves_between_backends(backend):
    x = values(4, backend.dtype)
    a = wrap(x, backend="python")
    b = wrap(a, backend=backend.name)
    assert b.backend == backend.name
    check(b, x)


def test_wrap_device_array_without_copy():
    opencl_or_skip()
    import pyopencl.array as cl_array
    dev = cl_array.to_device(get_backend("opencl").queue, np.arange(4, dtype=np.float32))
    a = wrap(dev, backend="opencl")
    assert a.dev is dev and len(a) == 4
    check(a, np.arange(4, dtype=np.float32))


def test_to_device_copies(backend):
    x = values(5, backend.dtype)
    a = to_device(x)
    check(a, x)
    a.fill(0)
    a.pull()
    np.testing.assert_array_equal(x, values(5, backend.dtype))   # not shared
    b = to_device(a)
    assert b is not a and b.dev is not a.dev
    check(b, np.zeros(5, backend.dtype))


# ------------------------------------------------------------ pull, push, get, set

def test_data_and_dev(backend):
    x, a = make(backend)
    if get_backend(backend.name).on_host:
        assert a.data is a.dev
    else:
        assert isinstance(a.data, np.ndarray) and a.data is not a.dev
        assert get_backend(backend.name).is_device_array(a.dev)


def test_pull_push(backend):
    x, a = make(backend)
    a.data[:] = 7
    assert a.push() is a
    check(a, np.full(10, 7, backend.dtype))
    a.fill(1)
    assert a.pull() is a
    np.testing.assert_array_equal(a.data, np.ones(10, backend.dtype))
    a.data = x
    a.push()
    check(a, x)
    with pytest.raises(KernelValueError):
        a.data = x[:3]


def test_push_without_host_data_is_a_noop(backend):
    a = zeros(4, backend.dtype)
    a.push()
    check(a, np.zeros(4, backend.dtype))


def test_get_returns_a_copy(backend):
    x, a = make(backend)
    got = a.get()
    assert isinstance(got, np.ndarray) and got is not a.data and got is not a.dev
    got[:] = 0
    check(a, x)


def test_set_replaces_contents_and_length(backend):
    x, a = make(backend)
    y = values(25, backend.dtype, 3)
    a.set(y)
    assert len(a) == 25
    check(a, y)
    a.set(y[:4])
    assert len(a) == 4
    check(a, y[:4])
    y[0] = 1234                      # no aliasing of the argument
    assert a[0] != 1234
    b = wrap(x.copy())
    a.set(b)
    check(a, x)
    a.set(np.arange(3))              # converted to the Array's dtype
    check(a, np.arange(3).astype(backend.dtype))
    with pytest.raises(KernelValueError):
        a.set(np.zeros((2, 2)))


def test_set_data_dev_setter_and_buffers(backend):
    x, a = make(backend)
    b = zeros(3, np.int32)
    a.set_data(b)
    assert (len(a), a.dtype) == (3, np.dtype(np.int32))
    assert a.dev is b.dev
    dev = zeros(2, backend.dtype).dev
    a.dev = dev
    assert a.dev is dev and len(a) == 2
    assert a.get_data() is dev
    c = Array(backend.dtype, 2)
    c.fill(5)
    view = c.get_array()
    check(view, np.full(2, 5, backend.dtype))
    if not get_backend(backend.name).on_host:
        with pytest.raises(KernelTypeError):
            a.set_data(np.zeros(3, backend.dtype))


def test_copy_is_independent(backend):
    x, a = make(backend)
    b = a.copy()
    assert b.backend == a.backend and b.dtype == a.dtype
    a.fill(0)
    check(b, x)
    check(Array(backend.dtype).copy(), np.zeros(0, backend.dtype))


def test_fill(backend):
    a = Array(backend.dtype, 9)
    a.fill(2.5)
    check(a, np.full(9, 2.5, backend.dtype))
    i = Array(np.int32, 4)
    i.fill(-3)
    check(i, np.full(4, -3, np.int32))
    Array(backend.dtype).fill(1)     # empty: fine


# --------------------------------------------------------------- growing, shrinking

def test_resize_keeps_contents(backend):
    x, a = make(backend)
    a.resize(4)
    check(a, x[:4])
    assert a.alloc == 10                    # shrinking keeps the capacity
    a.resize(10)                            # elements beyond 4 are uninitialised
    np.testing.assert_array_equal(a.get()[:4], x[:4])
    a.resize(11)
    assert len(a) == 11 and a.alloc >= 20   # geometric growth
    np.testing.assert_array_equal(a.get()[:4], x[:4])
    a.resize(0)
    assert len(a) == 0 and a.get().shape == (0,)
    with pytest.raises(KernelValueError):
        a.resize(-2)


def test_resize_growth_is_amortised(backend):
    a = Array(backend.dtype, backend=backend.name)
    capacities = set()
    for n in range(1, 2000):
        a.resize(n)
        capacities.add(a.alloc)
    assert len(capacities) <= 10             # ~log2(2000 / 16) reallocations


def test_reserve_and_squeeze(backend):
    x, a = make(backend)
    a.reserve(100)
    assert (len(a), a.alloc) == (10, 100)
    check(a, x)
    a.reserve(5)
    assert a.alloc == 100
    a.squeeze()
    assert a.alloc == 10
    check(a, x)


def test_append(backend):
    a = Array(backend.dtype)
    expected = []
    for k in range(40):
        a.append(k * 0.5)
        expected.append(k * 0.5)
    check(a, np.array(expected, backend.dtype))
    assert a.alloc >= 40
    a.append(np.array([1, 2], backend.dtype))      # an array extends
    check(a, np.array(expected + [1, 2], backend.dtype))


def test_extend(backend):
    x, a = make(backend, 5)
    y = values(7, backend.dtype, 2)
    a.extend(wrap(y.copy()))                       # device to device
    a.extend(y)                                    # numpy, pushed
    a.extend([1, 2, 3])                            # a sequence
    a.extend(np.zeros(0, backend.dtype))
    expected = np.concatenate([x, y, y, np.array([1, 2, 3], backend.dtype)])
    check(a, expected)
    a.extend(a)                                    # itself
    check(a, np.concatenate([expected, expected]))
    with pytest.raises(KernelValueError):
        a.extend(wrap(y, backend="python" if backend.name != "python" else "cython"))


def test_remove(backend):
    x, a = make(backend, 50)
    rng = np.random.default_rng(5)
    idx = rng.choice(50, 12, replace=False)       # unsorted
    a.remove(idx)
    expected = np.delete(x, idx)
    check(a, expected)
    a.remove(wrap(np.array([0, len(expected) - 1])), input_sorted=True)
    expected = np.delete(expected, [0, len(expected) - 1])
    check(a, expected)
    a.remove([3, 3])                               # repeated: removed once
    expected = np.delete(expected, [3])
    check(a, expected)
    a.remove(np.array([], dtype=np.int64))
    check(a, expected)
    with pytest.raises(KernelValueError):
        a.remove([len(expected)])
    with pytest.raises(KernelValueError):
        a.remove([-1])
    with pytest.raises(KernelValueError):
        a.remove([0.5])


def test_align(backend):
    x, a = make(backend, 30)
    order = np.random.default_rng(1).permutation(30)
    r = a.align(order)
    check(r, x[order])
    check(a, x)                                    # unchanged
    check(a.align(wrap(order[:5].astype(np.int32))), x[order[:5]])
    check(a[order[:7]], x[order[:7]])              # indexing with an index array
    out = Array(backend.dtype)
    assert a.align(order, out=out) is out
    check(out, x[order])
    with pytest.raises(KernelValueError):
        a.align([30])


# --------------------------------------------------------------- views and indexing

def test_get_view_shares_memory(backend):
    x, a = make(backend, 12)
    v = a.get_view(3, 4)                           # Compyle: (offset, length)
    assert len(v) == 4 and v.backend == a.backend
    check(v, x[3:7])
    v.fill(-1)
    expected = x.copy()
    expected[3:7] = -1
    check(a, expected)
    a[4] = 42
    expected[4] = 42
    check(v, expected[3:7])
    check(a.get_view(5), expected[5:])
    check(a.get_view(2, end=6), expected[2:6])
    check(a.get_view(), expected)
    assert len(a.get_view(12)) == 0
    with pytest.raises(KernelValueError):
        a.get_view(10, 5)
    with pytest.raises(KernelValueError):
        a.get_view(2, 3, end=4)


def test_view_detaches_when_reallocated(backend):
    x, a = make(backend, 6)
    v = a.get_view(0, 3)
    v.append(1)                                    # capacity 3: reallocates
    v.fill(0)
    check(a, x)


def test_getitem(backend):
    x, a = make(backend)
    for i in (0, 3, 9, -1, -10, np.int64(2)):
        item = a[i]
        assert np.isscalar(item) and item.dtype == backend.dtype
        assert item == x[i]
    with pytest.raises(IndexError):
        a[10]
    with pytest.raises(IndexError):
        a[-11]
    s = a[2:5]
    check(s, x[2:5])
    s[0] = 100                                     # a slice is a view
    assert a[2] == 100
    check(a[-3:], x[-3:])
    check(a[5:2], x[5:2])
    check(a[::3], x[::3])                          # a strided view (test_ndarray.py)
    with pytest.raises(KernelTypeError):
        a[1.5]


def test_setitem(backend):
    x, a = make(backend)
    expected = x.copy()
    a[1] = 3
    a[-1] = 4
    expected[1], expected[-1] = 3, 4
    a[2:5] = 9
    expected[2:5] = 9
    y = values(3, backend.dtype, 7)
    a[5:8] = y
    expected[5:8] = y
    a[0:2] = wrap(y[:2].copy())
    expected[0:2] = y[:2]
    a[3:3] = []
    check(a, expected)
    with pytest.raises(KernelValueError):
        a[0:3] = np.zeros(2)
    with pytest.raises(IndexError):
        a[10] = 1
    with pytest.raises(KernelTypeError):
        a["x"] = 1


def test_len_iter_bool(backend):
    x, a = make(backend, 4)
    assert len(a) == 4
    assert list(a) == list(x)
    assert bool(wrap(np.ones(1, backend.dtype)))
    assert not bool(wrap(np.zeros(1, backend.dtype)))
    with pytest.raises(ValueError):
        bool(a)


# ------------------------------------------------------------- arithmetic, compare

def test_arithmetic_with_arrays(backend):
    x, a = make(backend, 20)
    y, b = make(backend, 20, seed=1)
    for got, expected in ((a + b, x + y), (a - b, x - y), (b - a, y - x)):
        assert got.backend == backend.name
        np.testing.assert_allclose(got.get(), expected, rtol=1e-6)
        assert got.dtype == expected.dtype
    check(a, x)                                    # operands unchanged


@pytest.mark.parametrize("scalar", [2, 2.5, np.float32(2)])
def test_arithmetic_with_scalars(backend, scalar):
    x, a = make(backend, 20)
    for got, expected in ((a + scalar, x + scalar), (scalar + a, scalar + x),
                          (a - scalar, x - scalar), (scalar - a, scalar - x)):
        np.testing.assert_allclose(got.get(), expected, rtol=1e-6)
        assert got.dtype == expected.dtype


def test_arithmetic_errors(backend):
    x, a = make(backend, 5)
    with pytest.raises(KernelValueError):
        a + wrap(np.zeros(4, backend.dtype))
    other = "python" if backend.name != "python" else "cython"
    with pytest.raises(KernelValueError):
        a + wrap(x, backend=other)
    with pytest.raises(TypeError):
        a + "text"
    if get_backend(backend.name).on_host:
        check(x + a, x + x)                        # numpy defers to Array
        check(a - x, np.zeros(5, backend.dtype))
    else:
        with pytest.raises(KernelTypeError, match="wrap"):
            a + x


@pytest.mark.parametrize("op", COMPARISONS, ids=lambda op: op.__name__)
def test_comparisons(backend, op):
    x, a = make(backend, 30)
    x[3] = a[3] = 0.0
    y, b = make(backend, 30, seed=4)
    for got, expected in ((op(a, 0.0), op(x, 0.0)), (op(a, 0), op(x, 0)),
                          (op(0.0, a), op(0.0, x)), (op(a, b), op(x, y))):
        assert isinstance(got, Array) and got.dtype.kind in "biu"
        np.testing.assert_array_equal(got.get().astype(bool), expected)


def test_eq_with_unrelated_objects(backend):
    x, a = make(backend, 3)
    assert (a == None) is False                    # noqa: E711
    assert a != "text"
    with pytest.raises(TypeError):
        hash(a)


# ------------------------------------------------------------- numpy, repr

def test_numpy_protocol(backend):
    x, a = make(backend)
    np.testing.assert_array_equal(np.asarray(a), x)
    assert np.asarray(a, dtype=np.float64).dtype == np.float64
    assert np.array(a, copy=True) is not a.data
    np.testing.assert_allclose(np.sum(a), x.sum(), rtol=1e-5)


def test_repr_and_str(backend):
    a = wrap(np.arange(4).astype(backend.dtype))
    text = repr(a)
    assert "backend=%r" % backend.name in text and str(backend.dtype) in text
    assert "length=4" in text and "3." in text
    long = arange(0, 100, 1, dtype=np.int32)
    assert "..." in repr(long) and "99" in str(long) and "length=100" in repr(long)


# ------------------------------------------------------------- creation functions

def test_zeros_ones_empty(backend):
    dt = backend.dtype
    check(zeros(6, dt), np.zeros(6, dt))
    check(ones(6, dt), np.ones(6, dt))
    check(ones(3, np.int32), np.ones(3, np.int32))
    e = empty(6, dt)
    assert (len(e), e.dtype, e.backend) == (6, dt, backend.name)
    check(zeros(0, dt), np.zeros(0, dt))
    assert zeros(2, dt, backend="python").backend == "python"


def test_like_functions(backend):
    x, a = make(backend, 7)
    for fn, fill in ((zeros_like, 0), (ones_like, 1)):
        check(fn(a), np.full(7, fill, backend.dtype))
        check(fn(x), np.full(7, fill, backend.dtype))
        assert fn(a, backend="python").backend == "python"
    e = empty_like(a)
    assert (len(e), e.dtype, e.backend) == (7, a.dtype, a.backend)
    p = wrap(x, backend="python")
    assert zeros_like(p).backend == "python"       # an Array's backend is kept


def test_arange(backend):
    check(arange(0, 10, 1, dtype=np.int32), np.arange(0, 10, 1, dtype=np.int32))
    check(arange(3, 20, 4), np.arange(3, 20, 4))   # numpy's default dtype
    check(arange(0, 5, 1, dtype=backend.dtype), np.arange(0, 5, 1, dtype=backend.dtype))
    check(arange(2, 7), np.arange(2, 7))


def test_linspace(backend):
    check(linspace(0, 1, 11, dtype=backend.dtype),
          np.linspace(0, 1, 11, dtype=backend.dtype))
    check(linspace(-2, 2, 8, dtype=backend.dtype, endpoint=False),
          np.linspace(-2, 2, 8, dtype=backend.dtype, endpoint=False))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrecisionWarning)
        a = linspace(0, 1, 5)                      # float64, or float32 on a GPU
    demoted = get_backend(backend.name).demote_double(get_config())
    assert a.dtype == (np.float32 if demoted else np.float64)
    np.testing.assert_allclose(a.get(), np.linspace(0, 1, 5), rtol=1e-6)


def test_empty_arrays(backend):
    a = wrap(np.zeros(0, backend.dtype))
    assert len(a) == 0
    a.pull().push()
    a.fill(1)
    check(a + 1, np.zeros(0, backend.dtype))
    check(1 + a, np.zeros(0, backend.dtype))
    check(a - a, np.zeros(0, backend.dtype))
    mask = a < 1
    assert len(mask) == 0 and mask.dtype.kind in "biu"
    check(a.get_view(0, 0), np.zeros(0, backend.dtype))
    check(a.copy(), np.zeros(0, backend.dtype))
    a.append(3)
    check(a, np.array([3], backend.dtype))


# ------------------------------------------------------------- precision policy

@pytest.fixture
def fresh_precision_warning(monkeypatch):
    """Let the once-per-process PrecisionWarning be emitted again."""
    monkeypatch.setattr(pa.checks, "_precision_warned", False)


def test_float64_is_float32_on_gpu_without_use_double(fresh_precision_warning):
    opencl_or_skip()
    x = np.linspace(0, 1, 5)
    with use_config(use_double=False):
        with pytest.warns(PrecisionWarning, match="use_double = True") as record:
            a = wrap(x, backend="opencl")
        assert record[0].filename == __file__      # points at the caller
        assert a.dtype == np.float32 and a.data.dtype == np.float32
        np.testing.assert_allclose(a.get(), x, rtol=1e-6)
        with warnings.catch_warnings():
            warnings.simplefilter("error", PrecisionWarning)   # only once
            assert Array(np.float64, 3, backend="opencl").dtype == np.float32
            assert zeros(3, np.float64, backend="opencl").dtype == np.float32
            assert linspace(0, 1, 3, backend="opencl").dtype == np.float32
            assert arange(0, 1, 0.5, backend="opencl").dtype == np.float32
            assert to_device(x, backend="opencl").dtype == np.float32
        a.data[:] = 2                              # the mirror is float32 too
        a.push()
        check(a, np.full(5, 2, np.float32))
        assert x[0] == 0                           # the float64 input untouched


def test_float64_kept_with_use_double(fresh_precision_warning):
    opencl_or_skip()
    x = np.linspace(0, 1, 5)
    with use_config(use_double=True), warnings.catch_warnings():
        warnings.simplefilter("error", PrecisionWarning)
        a = wrap(x, backend="opencl")
        assert a.dtype == np.float64 and a.data is x
        check(a, x)


@pytest.mark.parametrize("name", ["python", "cython"])
def test_host_backends_keep_float64(fresh_precision_warning, name):
    with use_config(use_double=False), warnings.catch_warnings():
        warnings.simplefilter("error", PrecisionWarning)
        assert wrap(np.zeros(3), backend=name).dtype == np.float64
        assert Array(np.float64, 2, backend=name).dtype == np.float64


def test_precision_warning_respects_suppress_warnings(fresh_precision_warning):
    opencl_or_skip()
    with use_config(use_double=False, suppress_warnings=True), \
            warnings.catch_warnings():
        warnings.simplefilter("error", PrecisionWarning)
        assert wrap(np.zeros(3), backend="opencl").dtype == np.float32


def test_float32_never_warns(fresh_precision_warning):
    opencl_or_skip()
    with use_config(use_double=False), warnings.catch_warnings():
        warnings.simplefilter("error", PrecisionWarning)
        wrap(np.zeros(3, np.float32), backend="opencl")
        wrap(np.zeros(3, np.int64), backend="opencl")


def test_remove_and_align_run_on_the_device(backend):
    x = np.arange(20).astype(backend.dtype)
    a = pc.wrap(x.copy())
    a.remove(np.array([0, 3, 3, 19]))
    np.testing.assert_array_equal(a.get(), np.delete(x, [0, 3, 19]))
    order = np.random.default_rng(3).permutation(len(a)).astype(np.int32)
    b = a.align(order)
    np.testing.assert_array_equal(b.get(), np.delete(x, [0, 3, 19])[order])
    a.update_min_max()
    assert a.minimum == 1 and a.maximum == 18
    with pytest.raises(KernelValueError):
        a.remove(np.array([100]))


def test_compyle_radix_sort(backend):
    from pcompute.sort import radix_sort
    keys = np.array([5, 1, 4, 1, 3], dtype=np.int32)
    vals = np.arange(5).astype(backend.dtype)
    (k, v), order = radix_sort([pc.wrap(keys.copy()), pc.wrap(vals.copy())])
    np.testing.assert_array_equal(k.get(), [1, 1, 3, 4, 5])
    np.testing.assert_array_equal(v.get(), vals[[1, 3, 4, 2, 0]])
    np.testing.assert_array_equal(order.get(), [1, 3, 4, 2, 0])
    (k, _), order = radix_sort([pc.wrap(keys.copy()), pc.wrap(vals.copy())],
                               max_key_bits=3)
    np.testing.assert_array_equal(order.get(), [1, 3, 4, 2, 0])
    with pytest.raises(KernelValueError, match="key_bits=2"):
        radix_sort([pc.wrap(keys.copy())], max_key_bits=2)   # 5 needs 3 bits
