"""Plans of @dataparallel functions: the first call of a signature is walked
and recorded, later calls replay it.  Each replay is checked against NumPy
and the plain-Python oracle on every backend, with new arrays and scalar
values, and the counters show which calls were replayed."""
import operator

import numpy as np

from pcompute import get_backend, get_config, use_config
from pcompute.dataparallel import (dataparallel, map, reduce, replicate, scatter, shift,
                                   sum)
from examples.dataparallel.axpy import axpy


def host(x):
    return np.asarray(x.get() if hasattr(x, "get") else x)


@dataparallel
def centred_shift(x, k, c):
    mean = sum(x) // len(x)
    return map(lambda a, b: a - mean + b * c, x, shift(x, k, 0)), mean


@dataparallel
def difference(x, y):
    return map(lambda a, b: a - b, x, y)


@dataparallel
def ones_of_count(x):
    total = reduce(operator.add, map(lambda v: v % 3, x), 0)   # only known after a kernel
    return sum(replicate(1, total))


def fresh(f):
    f._plans.clear()
    f.plan_stats.update(planned=0, replayed=0, walked=0)


def test_replays_use_new_arrays_and_scalars(backend):
    rng = np.random.default_rng(20)
    fresh(axpy)
    results, firsts = [], []
    for a in (2.0, -0.5, 3.25):
        x, y = (rng.random(300).astype(backend.dtype) for _ in range(2))
        out = axpy(a, x, y)
        np.testing.assert_allclose(host(out), a * x + y, rtol=backend.rtol)
        results.append(out)
        firsts.append(host(out).copy())
    assert axpy.plan_stats == {"planned": 1, "replayed": 2, "walked": 0}
    assert len({id(r) for r in results}) == 3              # a new result every call
    assert [k for k, _ in axpy.last_phases] == ["elementwise"]
    for out, first in zip(results, firsts):     # no replay wrote into an earlier result
        np.testing.assert_array_equal(host(out), first)


def test_a_changed_shift_is_walked_again(backend):
    x = np.random.default_rng(21).integers(-9, 9, 50).astype(np.int64)
    fresh(centred_shift)
    for k in (2, 2, -3, 2, -3):
        for c in (1, 4):
            got, mean = centred_shift(x, k, c)
            want, want_mean = centred_shift.py(x, k, c)
            assert host(got).tolist() == want.tolist() and mean == want_mean
    # k decides the kernel (a guard); c is only a kernel argument
    assert centred_shift.plan_stats == {"planned": 2, "replayed": 8, "walked": 0}


def test_aliased_arguments_are_another_signature(backend):
    rng = np.random.default_rng(22)
    x, y = (rng.random(40).astype(backend.dtype) for _ in range(2))
    with use_config(use_double=get_config().use_double):
        from pcompute import wrap
        xa, ya = wrap(x.copy()), wrap(y.copy())
    fresh(difference)
    assert host(difference(xa, xa)).tolist() == [0.0] * 40
    np.testing.assert_allclose(host(difference(xa, ya)), x - y, rtol=backend.rtol)
    assert difference.plan_stats["planned"] == 2


def test_a_length_from_a_kernel_result_is_walked_every_call(backend):
    fresh(ones_of_count)
    for n in (30, 30, 31):
        x = np.arange(n, dtype=np.int64) * 7
        assert ones_of_count(x) == ones_of_count.py(x) == int((x % 3).sum())
    assert ones_of_count.plan_stats == {"planned": 0, "replayed": 0, "walked": 3}


@dataparallel
def passthrough(x, out):
    return x, scatter(replicate(0, 0), replicate(0, 0), out)      # a copy of out


def test_sequence_results_are_arrays(backend):
    x = np.arange(5).astype(backend.dtype)
    for _ in range(2):                                  # walked, then replayed
        same, copied = passthrough(x, x[::-1].copy())
        assert hasattr(same, "get") and hasattr(copied, "get")
        assert host(same).tolist() == x.tolist()
        assert host(copied).tolist() == x[::-1].tolist()


def test_replays_take_strided_and_aliased_arguments_apart(backend):
    # A replay finds its plan from the arguments as they come (type, dtype,
    # shape, strides); a strided view or one array passed twice must still be
    # converted / planned apart, never replayed as if contiguous or distinct.
    rng = np.random.default_rng(23)
    x, y = (rng.random(80).astype(backend.dtype) for _ in range(2))
    fresh(difference)
    for _ in range(2):
        np.testing.assert_allclose(host(difference(x[:40], y[:40])), x[:40] - y[:40],
                                   rtol=backend.rtol)
        np.testing.assert_allclose(host(difference(x[::2], y[::2])), x[::2] - y[::2],
                                   rtol=backend.rtol)
        v = x[:40]
        assert host(difference(v, v)).tolist() == [0.0] * 40
    # v, v is another plan where arrays are passed as they are (a device
    # backend copies each NumPy argument: two arrays)
    planned = 2 if get_backend(get_config().backend).on_host else 1
    assert difference.plan_stats == {"planned": planned, "replayed": 6 - planned,
                                     "walked": 0}


def test_quick_keys_stay_bounded():
    # every array length is a quick key of its own: a function called on
    # ever new lengths keeps at most MAX_QUICK of them (and MAX_PLANS plans)
    from pcompute.dataparallel.decorator import MAX_PLANS, MAX_QUICK
    fresh(difference)
    with use_config(backend="python"):
        for n in range(1, MAX_QUICK + 10):
            x = np.arange(n, dtype=np.float64)
            assert host(difference(x, x + 1.0)).tolist() == [-1.0] * n
    assert 0 < len(difference._quick) <= MAX_QUICK
    assert len(difference._plans) <= MAX_PLANS
