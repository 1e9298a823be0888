"""NumPy arguments of a parallelised function on a device backend
(pcompute/autopar/residency.py): the arrays a nest may write come back into
the caller's arrays, through a subscript or a helper it passes them to;
arrays only read are not copied back.  Every backend, against plain Python."""
import copy

import numpy as np
import pytest

from pcompute import atomic_inc, parallelize
from pcompute.array.storage import ArrayStorage
from pcompute.backends.registry import get_backend


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
    pull = ArrayStorage.pull
    monkeypatch.setattr(ArrayStorage, "pull", lambda self: pulls.append(1) or pull(self))
    u = np.arange(8, dtype=backend.dtype)
    v = np.zeros(8, backend.dtype)
    parallelize(stencil)(u, v, 8)
    want = np.zeros(8)
    want[1:-1] = 0.5 * (u[:-2] + u[2:])
    np.testing.assert_allclose(v, want, rtol=backend.rtol)
    np.testing.assert_array_equal(u, np.arange(8))
    # host backends pass NumPy arrays as they are; a device backend wraps
    # both and brings back v only
    assert len(pulls) == (0 if get_backend(backend.name).on_host else 1)


def counted(h, keys, n):
    for i in range(n):
        atomic_inc(h[keys[i]])


def test_arrays_written_by_an_atomic_come_back(backend):
    # atomic_inc(h[k]) writes h, though no subscript of h is stored
    keys = np.array([0, 1, 1, 3, 3, 3], np.int32)
    h = np.zeros(4, np.int32)
    parallelize(counted)(h, keys, 6)
    assert h.tolist() == np.bincount(keys, minlength=4).tolist()
