"""NumPy arguments of a parallelised function on a device backend
(pcompute/autopar/residency.py): the arrays a nest may write come back into
the caller's arrays, through a subscript or a helper it passes them to;
arrays only read are not copied back; the device arrays of a call serve the
next call's arguments of the same shape and dtype.  Every backend, against
plain Python."""
import copy

import numpy as np
import pytest

from pcompute import atomic_inc, parallelize
from pcompute.backends.registry import get_backend
from pcompute.config import get_config, use_config
from pcompute.errors import KernelValueError


def store_pair(y, z, j, v):
    y[j] = v
    z[j] = v * 2.0


def through_helper(x, y, z, n):
    for i in range(n):
        store_pair(y, z, i, x[i] + 1.0)


def stencil(u, v, n):
    for i in range(1, n - 1):
        v[i] = 0.5 * (u[i - 1] + u[i + 1])


@pytest.mark.filterwarnings("ignore::pcompute.errors.SequentialLoopWarning")
def test_arrays_written_by_a_helper_come_back(backend):
    rng = np.random.default_rng(2)
    args = [rng.random(6).astype(backend.dtype), np.zeros(6, backend.dtype),
            np.zeros(6, backend.dtype), 6]
    want = copy.deepcopy(args)
    through_helper(*want)
    parallelize(through_helper)(*args)
    for got, ref in zip(args[:3], want[:3]):
        np.testing.assert_allclose(got, ref, rtol=backend.rtol)


def test_read_only_arguments_are_not_copied_back(backend, monkeypatch):
    pulls = []
    cls = type(get_backend(backend.name))
    copy_back, copy_box = cls.copy_to_host, cls.copy_box_to_host
    monkeypatch.setattr(cls, "copy_to_host",
                        lambda self, dev, host: pulls.append(1) or copy_back(self, dev, host))
    # v is written in v[1:-1] only: that box comes back
    monkeypatch.setattr(cls, "copy_box_to_host", lambda self, dev, host, box:
                        pulls.append(box) or copy_box(self, dev, host, box))
    u = np.arange(8, dtype=backend.dtype)
    v = np.zeros(8, backend.dtype)
    parallelize(stencil)(u, v, 8)
    want = np.zeros(8)
    want[1:-1] = 0.5 * (u[:-2] + u[2:])
    np.testing.assert_allclose(v, want, rtol=backend.rtol)
    np.testing.assert_array_equal(u, np.arange(8))
    # host backends pass NumPy arrays as they are; a device backend wraps
    # both and brings back v only
    assert pulls == ([] if get_backend(backend.name).on_host else [((1, 7),)])


def counted(h, keys, n):
    for i in range(n):
        atomic_inc(h[keys[i]])


def bump(h, k):
    atomic_inc(h[k])


def counted_by_a_helper(h, keys, n):
    for i in range(n):
        bump(h, keys[i])


def test_atomics_in_a_nest_are_located_errors():
    """Called from plain Python an atomic returns its argument and changes
    nothing, so a nest with one (its own or a helper's) has no parallel form
    that computes what the function computes as Python: parallelize says so,
    at the call, with the file and line (it compiled and incremented before:
    a silent difference from the plain function)."""
    keys = np.array([0, 1, 1, 3], np.int32)
    h = np.zeros(4, np.int32)
    counted(h, keys, 4)
    assert not h.any()                  # what Python computes
    with pytest.raises(KernelValueError) as err:
        parallelize(counted)
    text = str(err.value)
    assert "line %d" % (counted.__code__.co_firstlineno + 2) in text
    assert "atomic_inc" in text and "changes nothing" in text
    assert "Elementwise" in text        # the hint: where atomics are real
    with pytest.raises(KernelValueError) as err:
        parallelize(counted_by_a_helper)(h, keys, 4)
    assert "atomic of a helper" in str(err.value) and "bump" in str(err.value)
    assert not h.any()


def two_nests(u, v, w, n):
    for i in range(1, n - 1):
        v[i] = 0.5 * (u[i - 1] + u[i + 1])
    for i in range(n):
        w[i] = u[i] * 2.0 + v[i]


def _reference(u, n):
    v, w = np.zeros(n), np.zeros(n)
    two_nests(u, v, w, n)
    return v, w


def test_repeated_calls_reuse_device_arrays(backend, monkeypatch):
    """Calls with new NumPy arrays of the same shapes and dtype: each call
    computes with its own arrays' values (a changed input, an input changed
    by the caller between calls, one array passed twice), and from the
    second call on no device array is made (the first call's are filled
    again); another length makes new ones.  On host backends the NumPy
    arrays are the device arrays: none is ever made."""
    from pcompute.autopar import residency
    made = []
    wrap, empty = residency.wrap, residency.empty
    monkeypatch.setattr(residency, "wrap", lambda a: made.append(1) or wrap(a))
    monkeypatch.setattr(residency, "empty",
                        lambda *a, **k: made.append(1) or empty(*a, **k))
    f = parallelize(two_nests)
    rng = np.random.default_rng(4)
    for call in range(4):
        u = rng.random(9).astype(backend.dtype)
        v, w = np.zeros(9, backend.dtype), np.full(9, -1.0, backend.dtype)
        f(u, v, w, 9)
        want_v, want_w = _reference(u.astype(np.float64), 9)
        np.testing.assert_allclose(v, want_v, rtol=backend.rtol)
        np.testing.assert_allclose(w, want_w, rtol=backend.rtol)
        if call == 0:
            first = len(made)
            assert first == (0 if get_backend(backend.name).on_host else 3)
    assert len(made) == first                       # calls 2-4 made none
    u[:] = 1.0                                      # the caller changes an input
    f(u, v, w, 9)
    np.testing.assert_allclose(w, _reference(u.astype(np.float64), 9)[1], rtol=backend.rtol)
    x = np.arange(9, dtype=backend.dtype)
    f(x, v, x, 9)                                   # one array under two names
    want_x = np.arange(9, dtype=np.float64)
    want_v = np.zeros(9)
    two_nests(want_x, want_v, want_x, 9)
    np.testing.assert_allclose(x, want_x, rtol=backend.rtol)
    np.testing.assert_allclose(v, want_v, rtol=backend.rtol)
    u5 = rng.random(5).astype(backend.dtype)
    v5, w5 = np.zeros(5, backend.dtype), np.zeros(5, backend.dtype)
    f(u5, v5, w5, 5)                                # another length: new arrays
    np.testing.assert_allclose(w5, _reference(u5.astype(np.float64), 5)[1],
                               rtol=backend.rtol)


def whole_and_partial(a, out, edge, flagged, n, m):
    for i in range(n):
        for j in range(m):
            t = a[i, j] * 2.0
            out[i, j] = t + 1.0             # every element: never copied to the device
    for i in range(1, n - 1):
        for j in range(m):
            edge[i, j] = a[i, j]            # rows 1 .. n-2 only: edge keeps rows 0, n-1
    for i in range(n):
        for j in range(m):
            if a[i, j] > 0.5:
                flagged[i, j] = 1.0         # under an if: flagged keeps the others


def write_then_read(a, out, total, n):
    for i in range(n):
        out[i] = a[i] + 1.0
    total[0] = out.sum()                    # plain Python reads out between the nests
    for i in range(n):
        out[i] = out[i] * total[0]          # read and written: copied to the device


def _uploads(backend, monkeypatch):
    """The ids of the host arrays copied to the device from now on."""
    ids = []
    cls = type(get_backend(backend.name))
    copy = cls.copy_to_device
    monkeypatch.setattr(cls, "copy_to_device", lambda self, host, dev, wait=True:
                        ids.append(id(host)) or copy(self, host, dev, wait))
    return ids


def test_arrays_written_whole_are_not_copied_to_the_device(backend, monkeypatch):
    """An array a nest writes at every element (or at every element of a box,
    nowhere else), and that nothing else between two plain Python statements
    uses, is not copied to the device (its values before the call are never
    seen; only the box comes back); an array written under an if, or also
    read, is, and keeps its other values.  Every backend against
    plain Python; a device backend copies none of the arrays written whole."""
    ids = _uploads(backend, monkeypatch)
    rng = np.random.default_rng(8)
    f = parallelize(whole_and_partial)
    for _ in range(2):
        a = rng.random((4, 5)).astype(backend.dtype)
        args = [a, np.full((4, 5), np.nan, backend.dtype), np.full((4, 5), -1.0, backend.dtype),
                np.full((4, 5), -2.0, backend.dtype), 4, 5]
        want = copy.deepcopy(args)
        whole_and_partial(*want)
        f(*args)
        for got, ref in zip(args[1:4], want[1:4]):
            np.testing.assert_allclose(got, ref, rtol=backend.rtol)
        device = not get_backend(backend.name).on_host
        # out is written whole, edge whole in rows 1 .. n-2 (only they come
        # back: its rows 0 and n-1 keep -1.0); flagged under an if is copied
        assert id(args[1]) not in ids and id(args[2]) not in ids
        assert (id(args[3]) in ids) == device
    g = parallelize(write_then_read)
    a = np.arange(6, dtype=backend.dtype)
    out, total = np.full(6, np.nan, backend.dtype), np.zeros(1, backend.dtype)
    want = [a.copy(), out.copy(), total.copy(), 6]
    write_then_read(*want)
    del ids[:]
    g(a, out, total, 6)
    np.testing.assert_allclose(out, want[1], rtol=backend.rtol)
    # the first nest's out is written whole; the second reads it: one copy
    assert ids.count(id(out)) == (1 if get_backend(backend.name).on_host is False else 0)


def _allocations(backend, monkeypatch):
    """A list that grows by one per device array the backend makes from now
    on (``empty`` or ``to_device``)."""
    made = []
    cls = type(get_backend(backend.name))
    empty, to_device = cls.empty, cls.to_device
    monkeypatch.setattr(cls, "empty", lambda self, n, dtype:
                        made.append(1) or empty(self, n, dtype))
    monkeypatch.setattr(cls, "to_device", lambda self, host:
                        made.append(1) or to_device(self, host))
    return made


def four_arrays(a, b, c, d, n):
    for i in range(n):
        b[i] = a[i] + 1.0
        c[i] = a[i] * 2.0
        d[i] = b[i] - c[i]


def test_the_pool_stays_within_its_bound(backend, monkeypatch):
    """Calls with ever new lengths: after every call the pool of a device
    backend holds at most DevicePool.MAX_ARRAYS arrays (the newest: a call
    with the last call's lengths makes no device array), also when one call
    passes more arrays than that; host backends keep none.  Every call's
    results against plain Python."""
    from pcompute.autopar.residency import DevicePool
    monkeypatch.setattr(DevicePool, "MAX_ARRAYS", 3)
    device = not get_backend(backend.name).on_host
    f = parallelize(stencil)
    rng = np.random.default_rng(5)
    for call, n in enumerate(range(4, 9)):
        u, v = rng.random(n).astype(backend.dtype), np.zeros(n, backend.dtype)
        f(u, v, n)
        want = np.zeros(n)
        want[1:-1] = 0.5 * (u[:-2].astype(np.float64) + u[2:])
        np.testing.assert_allclose(v, want, rtol=backend.rtol)
        assert f._pool.size == (min(2 * (call + 1), 3) if device else 0)
        assert f._pool.size == sum(len(v) for v in f._pool._free.values())
    made = _allocations(backend, monkeypatch)
    u, v = rng.random(8).astype(backend.dtype), np.zeros(8, backend.dtype)
    f(u, v, 8)                                      # the last call's lengths
    assert made == []
    assert f._pool.size == (3 if device else 0)
    g = parallelize(four_arrays)
    for _ in range(2):
        args = [rng.random(7).astype(backend.dtype)] + \
            [np.zeros(7, backend.dtype) for _ in range(3)] + [7]
        want = copy.deepcopy(args)
        four_arrays(*want)
        g(*args)
        for got, ref in zip(args[1:4], want[1:4]):
            np.testing.assert_allclose(got, ref, rtol=backend.rtol, atol=1e-6)
        assert g._pool.size == (3 if device else 0)


@pytest.mark.filterwarnings("ignore::pcompute.errors.PrecisionWarning")
def test_a_dtype_stored_otherwise_is_allocated_once(backend, monkeypatch):
    """float64 NumPy arguments on every case: where the backend stores them
    as float32 (a device backend without use_double) each array is made
    once per call (converted by wrap), never also as a pooled array that is
    thrown away; where it stores them as they are, once in the first call
    and never again; on host backends never.  Results against plain Python."""
    be = get_backend(backend.name)
    demoted = be.demote_double(get_config())
    made = _allocations(backend, monkeypatch)
    f = parallelize(stencil)
    rng = np.random.default_rng(6)
    for call in range(3):
        u, v = rng.random(9), np.zeros(9)
        del made[:]
        f(u, v, 9)
        want = np.zeros(9)
        want[1:-1] = 0.5 * (u[:-2] + u[2:])
        np.testing.assert_allclose(v, want, rtol=backend.rtol)
        if be.on_host:
            assert made == []
        elif demoted:
            assert len(made) == 2                   # u and v, converted
        else:
            assert len(made) == (2 if call == 0 else 0)
    assert f._pool.size == (2 if not be.on_host and not demoted else 0)
    if be.on_host or demoted:
        return
    with use_config(use_double=False):              # the pooled float64 arrays do not serve
        u, v = rng.random(9), np.zeros(9)
        del made[:]
        f(u, v, 9)
        assert len(made) == 2
        np.testing.assert_allclose(v[1:-1], 0.5 * (u[:-2] + u[2:]), rtol=1e-6)


def interiors(a, line, grid, cube, n):
    for i in range(1, n - 1):
        line[i] = a[i] * 2.0
    for i in range(1, n - 1):
        for j in range(2, n):
            grid[i, j] = a[i] + a[j]
    for i in range(n - 2):
        for j in range(1, 3):
            for k in range(n - 1):
                cube[i, j, k] = a[i] - a[j] * a[k]


def test_arrays_written_in_a_box_come_back_in_that_box_only(backend, monkeypatch):
    """1-D, 2-D and 3-D interiors (jacobi's ``range(1, n - 1)``): not copied
    to the device, their other elements keep the caller's values (the device
    arrays hold anything there: the first call's are new, the second's the
    pool's); every backend against plain Python."""
    ids = _uploads(backend, monkeypatch)
    rng = np.random.default_rng(9)
    f = parallelize(interiors)
    for _ in range(2):
        n = 6
        args = [rng.random(n).astype(backend.dtype), np.full(n, -1.0, backend.dtype),
                np.full((n, n + 1), -2.0, backend.dtype),
                np.full((n, 4, n), -3.0, backend.dtype), n]
        want = copy.deepcopy(args)
        interiors(*want)
        del ids[:]
        f(*args)
        for got, ref in zip(args[1:4], want[1:4]):
            np.testing.assert_allclose(got, ref, rtol=backend.rtol)
        assert not {id(a) for a in args[1:4]} & set(ids)


@pytest.mark.parametrize("shape,box", [((7,), ((2, 5),)), ((5, 6), ((1, 4), (2, 6))),
                                       ((4, 5, 6), ((1, 3), (0, 5), (2, 4))),
                                       ((3, 2, 2, 2), ((1, 2), (0, 1), (0, 2), (1, 2))),
                                       ((4, 5), ((2, 2), (0, 5)))])
def test_copy_box_to_host_copies_the_box_only(backend, shape, box):
    be = get_backend(backend.name)
    src = np.arange(np.prod(shape)).reshape(shape).astype(backend.dtype)
    dev = be.to_device(src)
    host = np.full(shape, -1.0, backend.dtype)
    be.copy_box_to_host(dev, host, box)
    want = np.full(shape, -1.0, backend.dtype)
    index = tuple(slice(lo, hi) for lo, hi in box)
    want[index] = src[index]
    np.testing.assert_array_equal(host, want)
