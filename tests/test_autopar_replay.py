"""Repeated calls of a parallelised function (pcompute/autopar/replay.py):
a call like the last one launches its kernels directly; whatever the
analysis depends on (an integer, an array's rank, two arguments sharing
memory, a global, the configuration) sends the call down the full path
again.  Every call must leave the arrays as the plain Python function does,
on every backend."""
import numpy as np
import pytest

import pcompute as pc
from pcompute import parallelize
from pcompute.backends.registry import get_backend
from pcompute.config import bump_generation

SCALE = 2.0


def shift_add(a, b, n, k):
    for i in range(n):
        for j in range(n):
            b[i, j] = a[i, j] * SCALE + k


def _full_path_calls(f, monkeypatch):
    """A list that grows by one at each call taking the full path."""
    calls = []
    run = f._run
    monkeypatch.setattr(f, "_run", lambda *a, **k: calls.append(1) or run(*a, **k))
    return calls


def test_repeated_calls_replay_and_follow_what_the_analysis_reads(backend, monkeypatch):
    f = parallelize(shift_add)
    on_host = get_backend(backend.name).on_host
    rng = np.random.default_rng(3)

    def arrays(*shape):
        a, b = rng.random(shape).astype(backend.dtype), np.zeros(shape, backend.dtype)
        return (a, b) if on_host else tuple(pc.wrap(a, b))

    def check(a, b, n, k, scale=SCALE):
        host_a, host_b = (a, b) if on_host else (a.get(), b.get())
        want = np.zeros_like(host_b)
        want[:n, :n] = host_a[:n, :n] * scale + k
        np.testing.assert_allclose(host_b, want, rtol=backend.rtol)

    full = _full_path_calls(f, monkeypatch)
    a, b = arrays(5, 5)
    f(a, b, 5, 1.0)
    check(a, b, 5, 1.0)
    a2, b2 = arrays(5, 5)
    f(a2, b2, 5, 3.0)                       # other arrays and a float: replayed
    check(a2, b2, 5, 3.0)
    assert len(full) == 1
    b2[:] = 0
    f(a2, b2, 4, 3.0)                       # another bound: analysed again
    check(a2, b2, 4, 3.0)
    assert len(full) == 2
    f(a2, a2, 4, 0.5)                       # one array twice: analysed again
    assert len(full) == 3
    bump_generation()                       # the configuration changed
    f(a, b, 4, 1.0)
    assert len(full) == 4
    old = SCALE
    globals()["SCALE"] = 3.0                # a global the nest reads
    try:
        b[:] = 0
        f(a, b, 4, 1.0)
        check(a, b, 4, 1.0, scale=3.0)
        assert len(full) == 5
    finally:
        globals()["SCALE"] = old
    f(a, b, 4, 1.0)
    assert len(full) == 6
    f(a, b, 4, 2.0)
    check(a, b, 4, 2.0)
    assert len(full) == 6
    if on_host:                             # a strided view: the full path copies
        big = rng.random((5, 10)).astype(backend.dtype)
        f(big[:, ::2], b, 4, 1.0)
        check(big[:, ::2], b, 4, 1.0)
        assert len(full) == 7


def test_a_replayed_index_error_is_reported_as_on_the_full_path(backend):
    """Arrays smaller than the bound, in a call that replays: the bounds
    check's error names the user's function and line as a first call's does."""
    from pcompute import use_config
    from pcompute.errors import KernelIndexError
    on_host = get_backend(backend.name).on_host

    def arrays(n):
        a, b = np.ones((n, n), backend.dtype), np.zeros((n, n), backend.dtype)
        return (a, b) if on_host else tuple(pc.wrap(a, b))

    errors = []
    with use_config(bounds_check=True):
        f = parallelize(shift_add)
        f(*arrays(4), 4, 1.0)
        assert f._replay is not None
        for g in (f, parallelize(shift_add)):          # replayed, then a first call
            with pytest.raises(KernelIndexError) as info:
                g(*arrays(3), 4, 1.0)
            errors.append(str(info.value))
    assert errors[0] == errors[1]
    assert "line %d" % (shift_add.__code__.co_firstlineno + 3) in errors[0]


def two_nests(a, b, c, n):
    for i in range(n):
        b[i] = a[i] * 2.0
    for i in range(n):
        c[i] = b[i] + 1.0


def test_an_array_only_a_later_kernel_takes_is_checked_before_any_launch(backend,
                                                                          monkeypatch):
    """The first kernel's fast call checks the arrays it takes; an array
    only the second kernel takes (here a strided view, which the full path
    copies) is checked before the first launch, so the call takes the full
    path and leaves the view with plain Python's values."""
    f = parallelize(two_nests)
    full = _full_path_calls(f, monkeypatch)
    a = np.arange(6, dtype=backend.dtype)
    b, c = np.zeros(6, backend.dtype), np.zeros(6, backend.dtype)
    f(a, b, c, 6)
    f(a, b, c, 6)
    on_host = get_backend(backend.name).on_host
    assert len(full) == (1 if on_host else 2)           # NumPy arguments replay on the host
    wide = np.zeros(12, backend.dtype)
    f(a, b, wide[::2], 6)
    assert len(full) == (2 if on_host else 3)
    want = np.zeros(12)
    want[::2] = np.arange(6) * 2.0 + 1.0
    np.testing.assert_allclose(wide, want, rtol=backend.rtol)
    np.testing.assert_allclose(b, np.arange(6) * 2.0, rtol=backend.rtol)


def fill_then_locals(a, n):
    for i in range(n):
        a[i] = i * 2.0
    for i in range(n):
        t = i * 3          # a nest whose kernel takes no argument: bounds only
        t = t + 1


def test_a_kernel_without_arguments_is_replayed(backend, monkeypatch):
    """A nest whose kernel takes none of the call's values (only its loop
    bounds): the call is kept for replay and replayed (e37e58d picked its
    values with operator.itemgetter(), which takes at least one position:
    the first call raised TypeError after its kernels had run).  Against
    plain Python."""
    f = parallelize(fill_then_locals)
    full = _full_path_calls(f, monkeypatch)
    for call in range(3):
        a = np.full(6, -1.0, backend.dtype)
        a = a if get_backend(backend.name).on_host else pc.wrap(a)
        f(a, 6)
        got = a if isinstance(a, np.ndarray) else a.get()
        np.testing.assert_array_equal(got, np.arange(6) * 2.0)
    assert len(full) == 1                   # the second and third calls replayed
