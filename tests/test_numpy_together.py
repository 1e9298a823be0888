"""The kernels of one forcing of pcompute.numpy built together
(pcompute/numpy/together.py: a dry evaluation records the kernels, then one
group module on the cython backend), and the dry evaluation leaves no trace."""
import numpy as np

import pcompute.numpy as pnp
from pcompute import use_config
from pcompute.build import cython_builder, cython_group
from pcompute.numpy import dry, kernels, plans, together


def _as_a_new_process(monkeypatch):
    """No module built in this process: the builder's memo, the layer's
    kernels and plans forgotten."""
    monkeypatch.setattr(cython_builder, "_memo", {})
    kernels.clear_cache()
    plans.clear()


def _values(rng):
    # a NaN and an infinity: argmax's index of the first NaN and max's
    # second pass (NaN or a real infinity) are kernels met only then
    x = rng.standard_normal(300)
    x[7], x[11] = np.inf, np.nan
    y = rng.standard_normal(300)
    return x, y


def _lazy(xp, x, y):
    centred = (x - x.mean()) / xp.sqrt(((y - y.mean()) ** 2).sum())
    return centred, xp.argmax(x * 2), xp.max(y * 3 - x), xp.tanh(y) + 1


def test_a_forcing_compiles_its_kernels_as_one_module(tmp_path, monkeypatch):
    monkeypatch.setenv("PCOMPUTE_CACHE_DIR", str(tmp_path))
    _as_a_new_process(monkeypatch)
    old = pnp.set_options(eager_below=0, fallback="error")
    x, y = _values(np.random.default_rng(2))
    with np.errstate(all="ignore"):
        want = _lazy(np, x, y)
    try:
        with use_config(backend="cython", use_double=True):
            members, compiled = cython_group.stats["members"], cython_builder.stats["compiled"]
            runs = together.stats["dry_runs"]
            pnp.reset_stats()
            got = pnp.evaluate(*_lazy(pnp, pnp.asarray(x), pnp.asarray(y)))
            counted = pnp.stats()
            for g, w in zip(got, want):
                np.testing.assert_allclose(np.asarray(g), w, rtol=1e-12)
            # the means, the norm, the centring, argmax (its maximum, then the
            # first NaN's index), max (and its second pass: inf or NaN?), tanh:
            # all one module; the dry run's index kernel for "no NaN" and its
            # nothing-else counters are not seen
            assert cython_builder.stats["compiled"] == compiled + 1
            assert cython_group.stats["members"] - members >= counted["compiles"] >= 8
            assert together.stats["dry_runs"] == runs + 1
            assert len(pnp.kernel_sources()) == counted["compiles"]
            # a later process finds every kernel built: no dry run, no compile
            _as_a_new_process(monkeypatch)
            pnp.reset_stats()
            again = pnp.evaluate(*_lazy(pnp, pnp.asarray(x), pnp.asarray(y)))
            assert pnp.stats() == counted       # the same work, counted the same
            for g, w in zip(again, want):
                np.testing.assert_allclose(np.asarray(g), w, rtol=1e-12)
            assert cython_builder.stats["compiled"] == compiled + 1
            assert together.stats["dry_runs"] == runs + 1
    finally:
        pnp.set_options(**old)


def test_a_dry_evaluation_leaves_no_trace(monkeypatch):
    """The graph, the counters, the layer's kernel and plan caches are as
    before the dry evaluation (it runs on the python backend here: nothing
    is built)."""
    _as_a_new_process(monkeypatch)
    old = pnp.set_options(eager_below=0)
    try:
        with use_config(backend="python"):
            x = pnp.asarray(np.arange(40.0))
            y = (x - x.mean()) * 2
            pnp.reset_stats()
            made, kept = len(pnp.kernel_sources()), dict(plans._PLANS)
            with dry.dry_evaluation() as records:
                records.evaluate(y._node)
            assert len(records) == 2            # the mean, then the fused kernel
            assert y._node.result is None and pnp.stats()["kernels"] == 0
            assert pnp.stats()["compiles"] == 0 and pnp.stats()["lowerings"] == 0
            assert len(pnp.kernel_sources()) == made and plans._PLANS == kept
            np.testing.assert_allclose(np.asarray(y), (np.arange(40.0) - 19.5) * 2)
            assert pnp.stats()["compiles"] == 2 and pnp.stats()["kernels"] == 2
    finally:
        pnp.set_options(**old)
