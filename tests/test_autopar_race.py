"""The race check of Elementwise: racy kernels are flagged with a
counterexample, race-free kernels (the whole kernel corpus, the MD example)
never are."""
import importlib
import inspect
import re
import warnings

import numpy as np
import pytest

import pcompute
from pcompute.autopar.race import find_races
from pcompute.errors import RaceError, RaceWarning
from pcompute.frontend.source import read_function
from tests import race_kernels
from tests.kernels.corpus import CORPUS

DIMS = {"grid_up": 2}


@pytest.mark.parametrize("func", list(race_kernels.RACY), ids=lambda f: f.__name__)
def test_racy_kernels_are_flagged_with_a_counterexample(func):
    races, _ = find_races(read_function(func), DIMS.get(func.__name__, 1))
    assert races
    elements = {"%s[%s]" % (a.array, ", ".join(map(str, w["element"])))
                for a, b, w in races}
    assert race_kernels.RACY[func] in elements
    for a, b, w in races:
        assert w["item_a"] != w["item_b"]


@pytest.mark.parametrize("func", race_kernels.RACE_FREE, ids=lambda f: f.__name__)
def test_race_free_kernels_pass(func):
    assert find_races(read_function(func), 1)[0] == []


def _md_kernels():
    found = []
    for mod in ("forces", "integrator", "binning", "energies", "local_cells",
                "neighbours", "scans"):
        module = importlib.import_module("examples.md." + mod)
        for name, f in inspect.getmembers(module, inspect.isfunction):
            params = list(inspect.signature(f).parameters)
            if f.__module__ == module.__name__ and params[:1] == ["i"]:
                found.append(f)
    return found


def test_no_false_positive_on_the_corpus_and_the_md_example():
    kernels = [(k.func, k.dims) for k in CORPUS.values()]
    kernels += [(f, 1) for f in _md_kernels()]
    assert len(kernels) > 100
    flagged = [f.__name__ for f, dims in kernels
               if find_races(read_function(f), dims)[0]]
    assert flagged == []


def test_elementwise_warns_once_with_file_line_and_items():
    y, x = np.ones(8), np.zeros(9)
    e = pcompute.Elementwise(race_kernels.shift_right)
    with pcompute.use_config(backend="python"):
        with pytest.warns(RaceWarning) as record:
            e(y, x)
        with warnings.catch_warnings():
            warnings.simplefilter("error", RaceWarning)
            e(y, x)          # checked once per kernel
    text = str(record[0].message)
    assert 'race_kernels.py", line 7, in shift_right' in text
    assert "x[1]" in text and "i = 0" in text and "i = 1" in text
    assert "x[i + 1]" in text and "hint:" in text


def test_strict_makes_it_an_error_and_serial_atomics_are_exempt():
    f = np.zeros(4)
    with pcompute.use_config(backend="python"):
        with pytest.raises(RaceError, match=re.escape("f[0]")) as info:
            pcompute.Elementwise(race_kernels.neighbour_write, strict=True)(f, 4)
        assert info.value.location.lineno == 12
        assert isinstance(info.value, ValueError)
        with warnings.catch_warnings():
            warnings.simplefilter("error", RaceWarning)
            serial = pcompute.serial(race_kernels.neighbour_write)
            pcompute.Elementwise(serial, strict=True)(np.zeros(3), 3)
            keys = np.array([0, 1, 1, 0], dtype=np.int32)
            counts = np.zeros(2, dtype=np.int32)
            pcompute.Elementwise(race_kernels.counted, strict=True)(keys, counts)
        assert counts.tolist() == [2, 2]


@pytest.mark.parametrize("k, items, racy", [
    (0, 8, False), (1, 8, True), (-3, 8, True), (7, 8, True), (8, 8, False),
    (-8, 8, False), (20, 8, False), (3, 1, False)])
def test_the_call_values_decide_a_shift(k, items, racy):
    """x[i + k] against x[i]: with this call's k and number of items the
    check is exact (ALPyNA's listing 1); without them it does not judge."""
    src = read_function(race_kernels.shift_by)
    races, _ = find_races(src, 1, ints={"k": k}, extents=(items,))
    assert bool(races) == racy
    for a, b, w in races:
        assert w["item_a"] != w["item_b"]
        assert all(0 <= v < items for v in w["item_a"] + w["item_b"])
        assert w["element"][0] in (w["item_a"][0] + k, w["item_b"][0] + k)
    assert find_races(src, 1)[0] == []


def test_elementwise_checks_the_first_calls_values():
    x = np.ones(6)
    with pcompute.use_config(backend="python"):
        with warnings.catch_warnings():
            warnings.simplefilter("error", RaceWarning)
            pcompute.Elementwise(race_kernels.shift_by)(x, np.zeros(6), 0)
            pcompute.Elementwise(race_kernels.shift_by)(x, np.zeros(12), 6)
        with pytest.warns(RaceWarning, match=r"with this call's k = 2") as record:
            pcompute.Elementwise(race_kernels.shift_by)(x, np.zeros(8), 2)
    text = str(record[0].message)
    assert "y[i + k]" in text and "in shift_by" in text


# ---------------------------------------------------------------- dynamic check
def test_debug_mode_catches_a_scatter_with_repeated_indices():
    idx = np.array([0, 2, 2, 1], dtype=np.int32)
    x = np.zeros(4)
    e = pcompute.Elementwise(race_kernels.scatter)
    with pcompute.use_config(backend="python", debug=True):
        with pytest.warns(RaceWarning) as record:
            e(idx, x)
    text = str(record[0].message)
    assert "seen at run time" in text and "x[2]" in text
    assert "item 1 writes" in text and "item 2 writes" in text
    assert "race_kernels.py:" in text
    with pcompute.use_config(backend="python", debug=True):
        with warnings.catch_warnings():
            warnings.simplefilter("error", RaceWarning)
            pcompute.Elementwise(race_kernels.scatter)(
                np.array([3, 0, 2, 1], dtype=np.int32), x)
            keys = np.array([0, 1, 1, 0], dtype=np.int32)
            counts = np.zeros(2, dtype=np.int32)
            pcompute.Elementwise(race_kernels.counted)(keys, counts)
    assert counts.tolist() == [2, 2]


def test_debug_mode_reports_read_after_other_items_write():
    y, x = np.ones(4), np.zeros(5)
    e = pcompute.Elementwise(race_kernels.shift_right)
    with pcompute.use_config(backend="python", debug=True):
        with pytest.warns(RaceWarning, match=r"item 0 writes x\[1\] .* item 1 reads it"):
            e(y, x)


@pytest.mark.parametrize("nnps", ["simple", "sort", "count", "cells"])
def test_md_example_passes_the_dynamic_check(nnps):
    from examples.md.simulation import Simulation
    from tests.test_md import jittered
    with pcompute.use_config(backend="python", debug=True, use_double=True):
        with warnings.catch_warnings():
            warnings.simplefilter("error", RaceWarning)
            sim = Simulation(n=27, dim=3, nnps=nnps, positions=jittered(27, 3, False),
                             skin=0.2)
            sim.step(2)
            sim.energy()
