"""Result buffers of @dataparallel functions on host backends come from the
host pool (touched pages, given back when no array uses them): a loop that
drops its previous results reuses them, and a result still held is never
handed out again.  Checked on every backend against the prelude."""
import numpy as np

from pcompute.backends import host_pool
from pcompute.backends.registry import get_backend
from pcompute.dataparallel import dataparallel, map


@dataparallel
def scaled(x, a):
    return map(lambda v: a * v + 1, x)


def test_dropped_results_are_reused_and_held_ones_kept(backend):
    # 128 KiB (float32) or 256 KiB: pooled sizes (host_pool.MIN_BYTES = 64 KiB)
    x = np.arange(host_pool.MIN_BYTES // 2).astype(backend.dtype)
    first = scaled(x, 2)
    kept = np.array(first.get())
    before = dict(host_pool.stats)
    for a in (3, 4, 5, 6):
        got = scaled(x, a)          # the previous one is dropped after this call
        np.testing.assert_array_equal(np.asarray(got.get()), scaled.py(x, a))
    del got
    np.testing.assert_array_equal(np.asarray(first.get()), kept)   # not reused while held
    reused = host_pool.stats["reused"] - before["reused"]
    if get_backend(backend.name).on_host:
        assert reused >= 2
    else:
        assert reused == 0 and host_pool.stats["allocated"] == before["allocated"]
