"""The ``numpy`` benchmark suite's own logic (no timing): its numexpr versions
of the NumPy programs compute what the programs compute, the geometric-mean
rows carry 'at least this speed-up' targets, and the peak-memory probe sees
NumPy allocations."""
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.peers import numexpr_peer  # noqa: E402
from benchmarks.results import Recorder  # noqa: E402
from benchmarks.suites import numpy_programs  # noqa: E402
from benchmarks.suites.numpy_numexpr import MAKERS  # noqa: E402
from examples.numpy_programs import load  # noqa: E402


@pytest.mark.parametrize("name", sorted(MAKERS))
def test_numexpr_version_matches_the_program(name):
    if numexpr_peer.why_missing():
        pytest.skip(numexpr_peer.why_missing())
    plain = load(name, lazy=False)
    want = np.array(plain.MAIN(*plain.inputs(2000)))
    got = np.asarray(MAKERS[name](plain.inputs(2000))())
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)


def test_speedup_target_is_a_lower_bound():
    rec = Recorder()
    for impl, value in (("fast", 4.5), ("slow", 3.9)):
        rec.add("numpy", "geometric mean over NumPy", 10**7, impl, "pcompute",
                target=("speedup", 4.0), extra={"target_value": value})
    rec.finish()
    assert [r.target_met for r in rec.rows] == [True, False]
    summary = rec.targets_summary()
    assert "MET" in summary[0] and "4.50x" in summary[0] and ">= 4x faster" in summary[0]
    assert summary[1].startswith("MISSED")


def test_peak_bytes_sees_numpy_allocations():
    n = 1 << 20
    peak = numpy_programs.peak_bytes(lambda: [np.ones(n) for _ in range(3)])
    assert 3 * 8 * n <= peak < 4 * 8 * n


def test_peak_bytes_counts_pooled_outputs_when_the_pool_is_emptied_first():
    """A pooled output is not a new allocation once the pool is warm; the
    suite empties the pool first, so the call's buffers are all counted."""
    import pcompute
    import pcompute.numpy as pnp
    from pcompute.backends import host_pool
    n = 1 << 18                         # 2 MiB of float64: pooled
    x = pnp.asarray(np.ones(n))
    with pcompute.use_config(backend="cython", use_openmp=False):  # the pool's backend
        call = lambda: pnp.evaluate(x * 2.0 + 1.0)   # noqa: E731
        call()
        warm = numpy_programs.peak_bytes(call)
        cold = numpy_programs.peak_bytes(call, before=host_pool.release)
    assert warm < 8 * n <= cold < 2 * 8 * n + numpy_programs.PEAK_SLACK


def test_peak_verdict_allows_python_objects_only():
    ne = "numexpr 2 threads"
    slack = numpy_programs.PEAK_SLACK
    assert "within" in numpy_programs.peak_verdict({"pcompute.numpy x": 10**7 + slack}, 10**7)
    assert "ABOVE" in numpy_programs.peak_verdict({"pcompute.numpy x": 10**7 + 2**20,
                                                   ne: 10**7}, 10**7)
    assert numpy_programs.peak_verdict({"pcompute.numpy x": 1}, None) == ""
