"""The pool of large host buffers (pcompute.backends.host_pool) that the
Cython sort returns its outputs in: a buffer is reused only once no array
uses it, never while a view of it lives."""
import gc

import numpy as np
import pytest

from pcompute.backends import host_pool


@pytest.fixture(autouse=True)
def empty_pool():
    host_pool.release()
    yield
    host_pool.release()


N = host_pool.MIN_BYTES // 4          # int32 items: just large enough to be pooled


def address(a):
    return a.__array_interface__["data"][0]


def test_small_arrays_are_plain():
    a = host_pool.empty(10, np.int32)
    assert a.flags.owndata and a.shape == (10,)


def test_buffer_reused_after_the_last_array_dies():
    a = host_pool.empty(N, np.int32)
    a[:] = 7
    where = address(a)
    del a
    gc.collect()
    b = host_pool.empty(N, np.float32)        # same byte count, another dtype
    assert address(b) == where and b.dtype == np.float32 and b.shape == (N,)


def test_never_reused_while_a_view_lives():
    a = host_pool.empty(N, np.int32)
    view = a[::2]
    a[:] = 3
    where = address(a)
    del a
    gc.collect()
    b = host_pool.empty(N, np.int32)
    assert address(b) != where
    b[:] = -1
    assert (view == 3).all()                  # the view's data is untouched
    del view
    gc.collect()
    c = host_pool.empty(N, np.int32)
    assert address(c) == where


def test_idle_buffers_are_bounded(monkeypatch):
    monkeypatch.setattr(host_pool, "KEEP_BYTES", host_pool.MIN_BYTES)
    arrays = [host_pool.empty(N, np.int32) for _ in range(3)]
    del arrays
    gc.collect()
    before = host_pool.stats["reused"]
    again = [host_pool.empty(N, np.int32) for _ in range(3)]
    assert host_pool.stats["reused"] - before == 1 and len(again) == 3   # one was kept


def test_sort_outputs_reuse_the_pool(backend):
    """Sorting the same length again takes the freed outputs' buffers (the
    Cython backend's sort; the others allocate on their device)."""
    from pcompute.array import wrap
    from pcompute.array.sorting import sort_by_keys
    if backend.name != "cython":
        pytest.skip("the pool serves the Cython backend's sort outputs")
    keys = np.random.default_rng(1).integers(0, 1000, N, dtype=np.int32)
    vals = np.arange(N, dtype=np.int32)
    k, v = sort_by_keys([wrap(keys.copy()), wrap(vals.copy())])
    order = np.argsort(keys, kind="stable")
    assert (k.get() == keys[order]).all() and (v.get() == vals[order]).all()
    del k, v
    gc.collect()
    before = host_pool.stats["reused"]
    k, v = sort_by_keys([wrap(keys.copy()), wrap(vals.copy())])
    assert host_pool.stats["reused"] == before + 2
    assert (k.get() == keys[order]).all() and (v.get() == vals[order]).all()


def test_an_array_freed_while_the_pool_is_locked_does_not_deadlock():
    """A garbage collection that an allocation starts inside the pool's lock
    may free a pooled array in the same thread: giving its buffer back must
    not wait for the lock this thread holds."""
    import threading

    def free_under_lock():
        a = host_pool.empty(N, np.int32)
        with host_pool._lock:
            del a                       # the owner's __del__ runs here
    worker = threading.Thread(target=free_under_lock, daemon=True)
    worker.start()
    worker.join(timeout=30)
    assert not worker.is_alive(), "giving a buffer back deadlocked on the pool's lock"
    assert host_pool.empty(N, np.int32) is not None and host_pool.stats["reused"] >= 1


def test_a_new_size_displaces_the_oldest_idle_buffers(monkeypatch):
    """A full pool makes room for the buffer given back last (the size the
    program uses now) by freeing the idle ones given back longest ago;
    otherwise a pool full of old sizes would never serve the new ones."""
    monkeypatch.setattr(host_pool, "KEEP_BYTES", 3 * host_pool.MIN_BYTES)
    old = [host_pool.empty(N, np.int32) for _ in range(2)]      # fill the pool
    del old
    gc.collect()
    new = host_pool.empty(N + 1, np.int32)                      # another size
    where = address(new)
    evicted = host_pool.stats["evicted"]
    del new
    gc.collect()
    assert host_pool.stats["evicted"] - evicted == 1            # one old one freed
    again = host_pool.empty(N + 1, np.int32)
    assert address(again) == where                              # the new size is kept
    same = host_pool.empty(N, np.int32)                         # one old one is left
    assert host_pool.stats["evicted"] - evicted == 1 and same.shape == (N,)
