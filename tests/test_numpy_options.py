"""The lazy layer's environment settings: valid values are taken, invalid
ones give a ConfigWarning naming the variable and keep the default."""
import pytest

from pcompute.errors import ConfigWarning
from pcompute.numpy import options


@pytest.mark.parametrize("name, raw, key, expected", [
    ("PCOMPUTE_LAZY_EAGER_BELOW", "17", "eager_below", 17),
    ("PCOMPUTE_LAZY_FALLBACK", "error", "fallback", "error"),
    ("PCOMPUTE_LAZY_VECTOR_MATH", "0", "vector_math", False),
])
def test_valid_environment_values_are_taken(monkeypatch, name, raw, key, expected):
    monkeypatch.setenv(name, raw)
    assert options._from_env()[key] == expected


@pytest.mark.parametrize("name, raw, key", [
    ("PCOMPUTE_LAZY_EAGER_BELOW", "many", "eager_below"),
    ("PCOMPUTE_LAZY_FALLBACK", "ignore", "fallback"),
    ("PCOMPUTE_LAZY_VECTOR_MATH", "maybe", "vector_math"),
])
def test_invalid_environment_values_warn_and_keep_the_default(monkeypatch, name, raw, key):
    monkeypatch.setenv(name, raw)
    with pytest.warns(ConfigWarning, match=name):
        opts = options._from_env()
    assert opts[key] == options.DEFAULTS[key]


def test_eager_below_defaults_per_backend_and_follows_the_option(backend):
    """None (the default) is the configured backend's threshold: the measured
    host crossover on backends computing on the host, the smaller device one
    elsewhere (a small region in NumPy brings its inputs to the host)."""
    from pcompute.backends.registry import get_backend
    old = options.set_options(eager_below=None)
    try:
        want = options.HOST_EAGER_BELOW if get_backend(None).on_host \
            else options.DEVICE_EAGER_BELOW
        assert options.eager_below() == want
        options.set_options(eager_below=123)
        assert options.eager_below() == 123
        with pytest.raises(ValueError):
            options.set_options(eager_below=True)
    finally:
        options.set_options(**old)
