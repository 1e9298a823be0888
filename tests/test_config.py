"""Tests of pcompute.config: fields, validation, environment, global config."""

import os
import warnings

import numpy as np
import pytest

from pcompute import config as config_mod
from pcompute.config import Config, get_config, set_config, use_config
from pcompute.errors import ConfigWarning, KernelValueError

ENV_VARS = ("PCOMPUTE_BACKEND", "PCOMPUTE_OPENMP", "PCOMPUTE_DOUBLE",
            "PCOMPUTE_PROFILE", "PCOMPUTE_DEBUG", "PCOMPUTE_SAVE_SOURCE",
            "PCOMPUTE_CACHE_DIR", "PCOMPUTE_OMP_SCHEDULE", "PCOMPUTE_MARCH",
            "PCOMPUTE_OPT_LEVEL", "PCOMPUTE_STRICT_GROUPS")

DEFAULTS = {
    "backend": "cython",
    "use_openmp": False,
    "use_opencl": False,
    "use_cuda": False,
    "use_double": False,
    "omp_schedule": ("static", None),
    "profile": False,
    "use_local_memory": False,
    "wgs": None,
    "suppress_warnings": False,
    "save_source": False,
    "debug": False,
    "bounds_check": False,
    "cache_dir": None,
    "march": "native",
    "opt_level": 3,
    "speculate": False,
    "strict_groups": False,
}

BOOL_FIELDS = ("use_openmp", "use_double", "profile", "use_local_memory",
               "suppress_warnings", "save_source", "debug", "bounds_check", "speculate",
               "strict_groups")


def test_debug_turns_bounds_checks_on():
    cfg = Config(read_environment=False)
    assert cfg.bounds_check is False
    key = cfg.codegen_key()
    cfg.debug = True
    assert cfg.bounds_check is True and cfg.codegen_key() != key
    cfg.debug = False
    cfg.bounds_check = True
    assert cfg.bounds_check is True and cfg.codegen_key() != key


@pytest.fixture(autouse=True)
def clean_state(monkeypatch):
    """No PCOMPUTE_* variables, and the global config restored afterwards."""
    for var in ENV_VARS:
        monkeypatch.delenv(var, raising=False)
    saved = config_mod._config
    config_mod._config = None
    yield
    config_mod._config = saved


# ------------------------------------------------------------- defaults

def test_defaults():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cfg = Config()
    assert cfg.as_dict() == DEFAULTS


def test_as_dict_has_every_field():
    assert set(Config().as_dict()) == set(DEFAULTS)


def test_constructor_keywords_set_fields():
    cfg = Config(use_openmp=True, wgs=64, backend="python")
    assert cfg.use_openmp is True
    assert cfg.wgs == 64
    assert cfg.backend == "python"


def test_constructor_unknown_keyword():
    with pytest.raises(KernelValueError, match="use_opnmp"):
        Config(use_opnmp=True)


@pytest.mark.parametrize("field", BOOL_FIELDS)
def test_bool_fields_roundtrip(field):
    cfg = Config()
    setattr(cfg, field, True)
    assert getattr(cfg, field) is True
    setattr(cfg, field, False)
    assert getattr(cfg, field) is False


@pytest.mark.parametrize("value, expected", [
    ("yes", True), ("off", False), ("TRUE", True), ("0", False)])
def test_bool_words_become_bools(value, expected):
    cfg = Config()
    cfg.use_double = value
    assert cfg.use_double is expected


@pytest.mark.parametrize("field", ["use_openmp", "use_double", "profile", "use_opencl"])
@pytest.mark.parametrize("value", [1, 0, 10, np.bool_(True), np.bool_(False)])
def test_bool_values_are_kept_as_given(field, value):
    # Compyle stores what it is given (use_openmp = 10 reads back 10).
    cfg = Config(read_environment=False)
    setattr(cfg, field, value)
    got = getattr(cfg, field)
    assert got == value and type(got) is type(value) or not value and got is False
    assert bool(got) == bool(value)
    assert cfg.codegen_key() == Config(read_environment=False).update(
        **{field: bool(value)}).codegen_key()


def test_set_omp_schedule_reads_the_omp_schedule_spelling():
    cfg = Config(read_environment=False)
    cfg.set_omp_schedule("dynamic,20")
    assert cfg.omp_schedule == ("dynamic", 20)
    cfg.set_omp_schedule("guided")
    assert cfg.omp_schedule == ("guided", None)
    with pytest.raises(KernelValueError, match="omp_schedule"):
        cfg.set_omp_schedule("random,3")


@pytest.mark.parametrize("value", ["maybe", "", None, 1.5, [1]])
def test_bool_rejects_bad_values(value):
    cfg = Config()
    with pytest.raises(KernelValueError, match="use_double"):
        cfg.use_double = value
    assert cfg.use_double is False


def test_errors_are_value_errors():
    with pytest.raises(ValueError):
        Config().backend = "metal"


# -------------------------------------------------------------- backend

def test_backend_explicit_values():
    cfg = Config()
    for name in ("python", "cython", "opencl", "cuda"):
        cfg.backend = name
        assert cfg.backend == name
    cfg.backend = "  OpenCL "
    assert cfg.backend == "opencl"


def test_backend_unknown_lists_choices():
    cfg = Config()
    with pytest.raises(KernelValueError) as info:
        cfg.backend = "metal"
    text = str(info.value)
    assert "metal" in text
    for name in ("python", "cython", "opencl", "cuda"):
        assert name in text
    assert cfg.backend == "cython"


@pytest.mark.parametrize("value", [3, True, ""])
def test_backend_rejects_non_names(value):
    with pytest.raises(KernelValueError):
        Config().backend = value


def test_backend_resolution_from_flags():
    cfg = Config()
    assert cfg.backend == "cython"
    cfg.use_cuda = True
    assert cfg.backend == "cuda"
    assert cfg.use_cuda and not cfg.use_opencl
    cfg.use_opencl = True          # last enabled wins
    assert cfg.backend == "opencl"
    assert cfg.use_opencl and not cfg.use_cuda
    cfg.use_opencl = False
    assert cfg.backend == "cython"
    assert not cfg.use_opencl and not cfg.use_cuda


def test_explicit_backend_beats_flags():
    cfg = Config()
    cfg.use_opencl = True
    cfg.backend = "python"
    assert cfg.backend == "python"
    assert cfg.use_opencl is False
    cfg.backend = None             # back to the flags
    assert cfg.backend == "opencl"


def test_setting_flag_true_clears_explicit_backend():
    cfg = Config(backend="python")
    cfg.use_opencl = True
    assert cfg.backend == "opencl"
    cfg2 = Config(backend="cython")
    cfg2.use_cuda = True
    assert cfg2.backend == "cuda"


def test_setting_flag_false_clears_matching_explicit_backend():
    cfg = Config(backend="opencl")
    assert cfg.use_opencl is True
    cfg.use_opencl = False
    assert cfg.backend == "cython"
    cfg = Config(backend="python")
    cfg.use_cuda = False           # does not name python: untouched
    assert cfg.backend == "python"


def test_use_openmp_does_not_change_backend():
    cfg = Config(backend="python")
    cfg.use_openmp = True
    assert cfg.backend == "python"


# ------------------------------------------------------------- schedule

@pytest.mark.parametrize("value, expected", [
    ("static", ("static", None)),
    ("dynamic,64", ("dynamic", 64)),
    (" Guided , 8 ", ("guided", 8)),
    ("auto", ("auto", None)),
    ("runtime", ("runtime", None)),
    ("dynamic,none", ("dynamic", None)),
    (("dynamic", 16), ("dynamic", 16)),
    (["guided", None], ("guided", None)),
    (("static",), ("static", None)),
    (("static", np.int64(4)), ("static", 4)),
    (None, ("static", None)),
])
def test_omp_schedule_parsing(value, expected):
    cfg = Config()
    cfg.omp_schedule = value
    assert cfg.omp_schedule == expected
    assert isinstance(cfg.omp_schedule, tuple)


@pytest.mark.parametrize("value", [
    "fast", "dynamic,0", "dynamic,-3", "dynamic,x", "dynamic,1,2",
    ("dynamic", 1.5), ("dynamic", True), ("static", 2, 3), (), 42,
    "auto,4", ("runtime", 8), ("", None), (5, None)])
def test_omp_schedule_rejects(value):
    cfg = Config()
    cfg.omp_schedule = "dynamic,32"
    with pytest.raises(KernelValueError, match="omp_schedule"):
        cfg.omp_schedule = value
    assert cfg.omp_schedule == ("dynamic", 32)


def test_omp_schedule_error_names_kinds():
    with pytest.raises(KernelValueError) as info:
        Config().omp_schedule = "fast"
    for kind in ("static", "dynamic", "guided", "auto", "runtime"):
        assert kind in str(info.value)


# ------------------------------------------------------ wgs, cache_dir

def test_wgs():
    cfg = Config()
    cfg.wgs = 128
    assert cfg.wgs == 128
    cfg.wgs = np.int32(32)
    assert cfg.wgs == 32 and type(cfg.wgs) is int
    cfg.wgs = None
    assert cfg.wgs is None


@pytest.mark.parametrize("value", [0, -1, 1.5, "64", True])
def test_wgs_rejects(value):
    with pytest.raises(KernelValueError, match="wgs"):
        Config().wgs = value


def test_cache_dir(tmp_path):
    cfg = Config()
    cfg.cache_dir = tmp_path
    assert cfg.cache_dir == str(tmp_path)
    cfg.cache_dir = "~/somewhere"
    assert cfg.cache_dir == os.path.expanduser("~/somewhere")
    cfg.cache_dir = None
    assert cfg.cache_dir is None
    with pytest.raises(KernelValueError, match="cache_dir"):
        cfg.cache_dir = 3
    with pytest.raises(KernelValueError, match="cache_dir"):
        cfg.cache_dir = ""


# --------------------------------------------- copy, as_dict, codegen_key

def test_copy_is_independent():
    cfg = Config(use_openmp=True, omp_schedule="dynamic,8", backend="python")
    other = cfg.copy()
    assert other is not cfg
    assert other.as_dict() == cfg.as_dict()
    other.use_openmp = False
    other.backend = None
    assert cfg.use_openmp is True
    assert cfg.backend == "python"
    assert other.backend == "cython"


def test_copy_keeps_flag_state():
    cfg = Config(use_opencl=True)
    cfg.backend = "python"
    other = cfg.copy()
    other.backend = None
    assert other.backend == "opencl"


def test_copy_does_not_reread_environment(monkeypatch):
    cfg = Config()
    monkeypatch.setenv("PCOMPUTE_DOUBLE", "1")
    assert cfg.copy().use_double is False


def test_as_dict_is_a_snapshot():
    cfg = Config()
    d = cfg.as_dict()
    cfg.use_double = True
    assert d["use_double"] is False
    d["debug"] = True
    assert cfg.debug is False


def test_codegen_key():
    cfg = Config()
    key = cfg.codegen_key()
    hash(key)
    assert key == ("cython", False, False, ("static", None), None, "native", False, 3)
    cfg.update(use_opencl=True, use_openmp=True, use_double=True,
               omp_schedule="guided,4", use_local_memory=True, wgs=64,
               march="generic", bounds_check=True, opt_level=1)
    assert cfg.codegen_key() == ("opencl", True, True, ("guided", 4), 64,
                                 "generic", True, 1)


@pytest.mark.parametrize("field, value", [
    ("backend", "python"), ("use_openmp", True), ("use_double", True),
    ("omp_schedule", "dynamic"), ("wgs", 32),
    ("use_opencl", True), ("use_cuda", True), ("march", "generic"), ("opt_level", 1)])
def test_codegen_key_changes_with_codegen_fields(field, value):
    cfg = Config()
    other = cfg.copy()
    setattr(other, field, value)
    assert other.codegen_key() != cfg.codegen_key()


# debug changes the code: it turns bounds checks on (test_debug_turns_bounds_checks_on).
@pytest.mark.parametrize("field, value", [
    ("profile", True), ("save_source", True),
    ("suppress_warnings", True), ("cache_dir", "/tmp/x")])
def test_codegen_key_ignores_other_fields(field, value):
    cfg = Config()
    other = cfg.copy()
    setattr(other, field, value)
    assert other.codegen_key() == cfg.codegen_key()


def test_repr_mentions_fields():
    text = repr(Config(use_openmp=True))
    assert text.startswith("Config(") and "use_openmp=True" in text


def test_update_unknown_raises_and_lists_options():
    with pytest.raises(KernelValueError) as info:
        Config().update(colour="red")
    assert "colour" in str(info.value) and "use_openmp" in str(info.value)


# ---------------------------------------------------------- environment

@pytest.mark.parametrize("var, field", [
    ("PCOMPUTE_OPENMP", "use_openmp"), ("PCOMPUTE_DOUBLE", "use_double"),
    ("PCOMPUTE_PROFILE", "profile"), ("PCOMPUTE_DEBUG", "debug"),
    ("PCOMPUTE_SAVE_SOURCE", "save_source"),
    ("PCOMPUTE_STRICT_GROUPS", "strict_groups")])
@pytest.mark.parametrize("text, expected", [
    ("1", True), ("true", True), ("Yes", True), ("ON", True),
    ("0", False), ("false", False), ("no", False), ("off", False)])
def test_env_bools(monkeypatch, var, field, text, expected):
    monkeypatch.setenv(var, text)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cfg = Config()
    assert getattr(cfg, field) is expected


@pytest.mark.parametrize("var, field", [
    ("PCOMPUTE_OPENMP", "use_openmp"), ("PCOMPUTE_DOUBLE", "use_double"),
    ("PCOMPUTE_PROFILE", "profile"), ("PCOMPUTE_DEBUG", "debug"),
    ("PCOMPUTE_SAVE_SOURCE", "save_source"),
    ("PCOMPUTE_STRICT_GROUPS", "strict_groups")])
def test_env_bool_bad_value_warns(monkeypatch, var, field):
    monkeypatch.setenv(var, "perhaps")
    with pytest.warns(ConfigWarning) as record:
        cfg = Config()
    assert getattr(cfg, field) is False
    text = str(record[0].message)
    assert var in text and "perhaps" in text and "true" in text


@pytest.mark.parametrize("name", ["python", "cython", "opencl", "cuda"])
def test_env_backend(monkeypatch, name):
    monkeypatch.setenv("PCOMPUTE_BACKEND", name.upper())
    assert Config().backend == name


def test_env_backend_bad_value_warns(monkeypatch):
    monkeypatch.setenv("PCOMPUTE_BACKEND", "metal")
    with pytest.warns(ConfigWarning) as record:
        cfg = Config()
    assert cfg.backend == "cython"
    text = str(record[0].message)
    assert "PCOMPUTE_BACKEND" in text and "metal" in text
    assert "opencl" in text and "python" in text


def test_env_empty_value_is_unset(monkeypatch):
    monkeypatch.setenv("PCOMPUTE_BACKEND", "")
    monkeypatch.setenv("PCOMPUTE_OPENMP", " ")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cfg = Config()
    assert cfg.backend == "cython" and cfg.use_openmp is False


def test_env_cache_dir(monkeypatch, tmp_path):
    monkeypatch.setenv("PCOMPUTE_CACHE_DIR", str(tmp_path))
    assert Config().cache_dir == str(tmp_path)


def test_env_omp_schedule(monkeypatch):
    monkeypatch.setenv("PCOMPUTE_OMP_SCHEDULE", "dynamic,64")
    assert Config().omp_schedule == ("dynamic", 64)


def test_env_omp_schedule_bad_value_warns(monkeypatch):
    monkeypatch.setenv("PCOMPUTE_OMP_SCHEDULE", "sometimes,3")
    with pytest.warns(ConfigWarning) as record:
        cfg = Config()
    assert cfg.omp_schedule == ("static", None)
    text = str(record[0].message)
    assert "PCOMPUTE_OMP_SCHEDULE" in text and "sometimes,3" in text
    assert "dynamic" in text


def test_env_one_bad_value_keeps_the_good_ones(monkeypatch):
    monkeypatch.setenv("PCOMPUTE_BACKEND", "metal")
    monkeypatch.setenv("PCOMPUTE_DOUBLE", "1")
    with pytest.warns(ConfigWarning):
        cfg = Config()
    assert cfg.use_double is True and cfg.backend == "cython"


def test_read_environment_false(monkeypatch):
    monkeypatch.setenv("PCOMPUTE_DOUBLE", "1")
    monkeypatch.setenv("PCOMPUTE_BACKEND", "opencl")
    cfg = Config(read_environment=False)
    assert cfg.as_dict() == DEFAULTS


def test_keywords_beat_environment(monkeypatch):
    monkeypatch.setenv("PCOMPUTE_BACKEND", "python")
    monkeypatch.setenv("PCOMPUTE_DOUBLE", "1")
    cfg = Config(backend="cuda", use_double=False)
    assert cfg.backend == "cuda" and cfg.use_double is False


def test_flag_beats_env_backend(monkeypatch):
    """Compyle code `get_config().use_opencl = True` wins over the env."""
    monkeypatch.setenv("PCOMPUTE_BACKEND", "python")
    cfg = get_config()
    assert cfg.backend == "python"
    cfg.use_opencl = True
    assert cfg.backend == "opencl"


# ------------------------------------------------------- global config

def test_get_config_is_lazy_and_stable(monkeypatch):
    assert config_mod._config is None
    monkeypatch.setenv("PCOMPUTE_OPENMP", "1")
    cfg = get_config()
    assert cfg is get_config()
    assert cfg.use_openmp is True
    monkeypatch.setenv("PCOMPUTE_OPENMP", "0")
    assert get_config().use_openmp is True   # read once, at creation


def test_set_config_replaces_global():
    mine = Config(read_environment=False, use_double=True)
    set_config(mine)
    assert get_config() is mine


def test_set_config_none_recreates_from_env(monkeypatch):
    first = get_config()
    set_config(None)
    monkeypatch.setenv("PCOMPUTE_DEBUG", "yes")
    second = get_config()
    assert second is not first and second.debug is True


def test_set_config_rejects_other_types():
    with pytest.raises(KernelValueError):
        set_config({"use_openmp": True})


def test_global_mutation_is_seen():
    get_config().use_openmp = True
    assert get_config().use_openmp is True


# ----------------------------------------------------------- use_config

def test_use_config_overlays_only_given_fields():
    base = get_config()
    base.update(use_openmp=True, omp_schedule="guided,2", wgs=64,
                backend="python")
    with use_config(use_double=True) as cfg:
        assert get_config() is cfg
        assert cfg is not base
        assert cfg.use_double is True
        assert cfg.use_openmp is True
        assert cfg.omp_schedule == ("guided", 2)
        assert cfg.wgs == 64
        assert cfg.backend == "python"
    assert get_config() is base
    assert base.use_double is False


def test_use_config_does_not_mutate_previous():
    base = get_config()
    with use_config(use_openmp=True, backend="python", profile=True):
        pass
    assert base.use_openmp is False
    assert base.backend == "cython"
    assert base.profile is False


def test_use_config_changes_inside_block_are_dropped():
    base = get_config()
    with use_config() as cfg:
        get_config().debug = True
        assert cfg.debug is True
    assert get_config() is base and base.debug is False


def test_use_config_restores_on_exception():
    base = get_config()
    with pytest.raises(RuntimeError, match="boom"):
        with use_config(use_double=True):
            raise RuntimeError("boom")
    assert get_config() is base
    assert get_config().use_double is False


def test_use_config_nested():
    base = get_config()
    with use_config(use_openmp=True) as outer:
        with use_config(use_double=True) as inner:
            assert inner.use_openmp is True and inner.use_double is True
            assert get_config() is inner
        assert get_config() is outer
        assert outer.use_double is False
    assert get_config() is base


def test_use_config_unknown_keyword_changes_nothing():
    base = get_config()
    with pytest.raises(KernelValueError, match="nonsense"):
        with use_config(use_double=True, nonsense=1):
            pytest.fail("the block must not run")
    assert get_config() is base and base.use_double is False


def test_use_config_bad_value_changes_nothing():
    base = get_config()
    with pytest.raises(KernelValueError):
        with use_config(omp_schedule="whenever"):
            pytest.fail("the block must not run")
    assert get_config() is base


def test_use_config_flag_overrides_explicit_backend():
    get_config().backend = "python"
    with use_config(use_opencl=True) as cfg:
        assert cfg.backend == "opencl"
    assert get_config().backend == "python"


def test_use_config_backend_over_env(monkeypatch):
    monkeypatch.setenv("PCOMPUTE_BACKEND", "cuda")
    assert get_config().backend == "cuda"
    with use_config(backend="python"):
        assert get_config().backend == "python"
    assert get_config().backend == "cuda"


# ----------------------------------------------------------- ConfigOverlay

def _values(config):
    return dict(config.__dict__)


def test_config_overlay_is_use_config_entered_again_cheaply():
    """Each entry overlays the fields on the configuration of the moment and
    restores it (object and stamp) on exit, like use_config; entering it
    again over the same configuration reuses the overlay and its stamp."""
    from pcompute.config import GENERATION, ConfigOverlay
    overlay = ConfigOverlay(use_double=True)
    base = get_config()
    base.use_openmp = True
    stamp = GENERATION[0]
    seen = []
    for _ in range(3):
        with overlay as cfg:
            assert get_config() is cfg and cfg is not base
            assert cfg.use_double is True and cfg.use_openmp is True
            seen.append((cfg, GENERATION[0]))
        assert get_config() is base and GENERATION[0] == stamp and base.use_double is False
    assert seen[0][1] != stamp and len(set(seen)) == 1
    with use_config(use_double=True):           # use_config's stamp for the same values
        assert GENERATION[0] == seen[0][1]


def test_config_overlay_follows_changes_of_either_configuration():
    from pcompute.config import GENERATION, ConfigOverlay
    overlay = ConfigOverlay(use_double=True)
    base = get_config()
    with overlay:
        get_config().debug = True               # the overlay changed inside: dropped
        assert get_config().debug is True
    assert get_config() is base and base.debug is False
    with overlay as cfg:
        assert cfg.debug is False               # not the changed overlay again
    base.wgs = 32                               # the previous one changed between blocks
    with overlay as cfg:
        assert cfg.wgs == 32 and cfg.use_double is True
        base.profile = True                     # changed while another is global
    assert get_config() is base
    with use_config():                          # the stamp of base's values now
        want = GENERATION[0]
    assert GENERATION[0] == want
    other = Config(read_environment=False)
    set_config(other)                           # another global object
    with overlay as cfg:
        assert cfg.wgs is None and cfg.use_double is True
    assert get_config() is other


def test_config_overlay_changes_nothing_when_the_values_are_there():
    from pcompute.config import GENERATION, ConfigOverlay
    get_config().use_double = True
    base, stamp = get_config(), GENERATION[0]
    with ConfigOverlay(use_double=True) as cfg:
        assert cfg is base and GENERATION[0] == stamp
    assert get_config() is base and GENERATION[0] == stamp


def test_config_overlay_nested_and_on_exception():
    from pcompute.config import ConfigOverlay
    overlay = ConfigOverlay(use_openmp=True)
    base = get_config()
    with pytest.raises(RuntimeError, match="boom"):
        with overlay as outer:
            with overlay as inner:
                assert inner is outer           # the values are there already
            with use_config(use_double=True):
                with overlay as inner:
                    assert inner.use_double is True and inner.use_openmp is True
                    raise RuntimeError("boom")
    assert get_config() is base and base.use_openmp is False


def test_config_overlay_rejects_bad_fields_when_made():
    from pcompute.config import ConfigOverlay
    with pytest.raises(KernelValueError, match="nonsense"):
        ConfigOverlay(nonsense=1)
    with pytest.raises(KernelValueError):
        ConfigOverlay(omp_schedule="whenever")


def test_use_config_after_set_config():
    mine = Config(read_environment=False, wgs=16)
    set_config(mine)
    with use_config(use_local_memory=True) as cfg:
        assert cfg.wgs == 16 and cfg.use_local_memory is True
    assert get_config() is mine and mine.use_local_memory is False
