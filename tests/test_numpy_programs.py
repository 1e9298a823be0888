"""The NumPy programs of examples/numpy_programs, run as written and with only
their import changed to pcompute.numpy, on every backend: same results."""
import numpy as np
import pytest

import pcompute.numpy as pnp
from examples.numpy_programs import PROGRAMS, load


@pytest.fixture
def lazy_programs(backend):
    if backend.precision == "float32":
        pytest.skip("pcompute.numpy computes in the arrays' own dtypes (float64 here), "
                    "so the float32 case would run the same kernels again")
    old = pnp.set_options(eager_below=0)
    pnp.reset_stats()
    yield backend
    pnp.set_options(**old)


@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_numpy(lazy_programs, name):
    plain, lazy = load(name, lazy=False), load(name, lazy=True)
    want = plain.MAIN(*plain.inputs(120))
    got = lazy.MAIN(*lazy.inputs(120))
    assert isinstance(got, (pnp.ndarray, np.generic, float)), type(got)
    got = np.asarray(got)
    assert got.dtype == np.asarray(want).dtype
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    assert pnp.stats()["kernels"] > 0


def test_load_changes_only_the_import():
    lazy = load("pythagorean_id", lazy=True)
    assert lazy.np is pnp
    assert load("pythagorean_id", lazy=False).np is np
    with pytest.raises(ValueError, match="unknown program"):
        load("no_such_program", lazy=True)
