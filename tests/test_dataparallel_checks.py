"""@dataparallel with the configuration's ``bounds_check`` on: inputs that the
prelude (the oracle) rejects are located errors on every backend too (a
``permute`` whose indices repeat; ``split`` offsets that decrease or leave
``[0, len(x)]``, whatever uses the segments: a map/reduce over them or a
segmented scan, which also needs them to run from 0 to ``len(x)``), and
valid input still gives the prelude's result."""
import inspect
import operator

import numpy as np
import pytest

from pcompute import get_config, use_config
from pcompute.dataparallel import (dataparallel, exclusive_scan, map, max, permute,
                                   reduce, rscan, scan, split, sum)
from pcompute.errors import KernelIndexError, KernelValueError

from conftest import AheadGroups


def host(x):
    return np.asarray(x.get() if hasattr(x, "get") else x)


def kinds(f):
    return [kind for kind, _ in f.last_phases]


def line_of(f, text):
    lines, first = inspect.getsourcelines(f.py if hasattr(f, "py") else f)
    return first + next(k for k, s in enumerate(lines) if text in s)


@dataparallel
def shuffled(x, idx):
    return permute(map(lambda v: v + 1, x), idx)


@dataparallel
def row_sums(x, offsets):
    return scan(operator.add, split(x, offsets))


@dataparallel
def row_maxima(x, offsets):
    return rscan(max, split(x, offsets))


@dataparallel
def row_starts(x, offsets):
    return exclusive_scan(operator.add, split(x, offsets), 10)


@dataparallel
def row_dots(x, y, offsets):
    return map(lambda a, b: sum(map(lambda u, v: u * v, a, b)) + reduce(max, a, -100),
               split(x, offsets), split(y, offsets))


def checked():
    return use_config(bounds_check=True, use_double=get_config().use_double)


def permute_inputs(dtype):
    rng = np.random.default_rng(20)
    x = rng.integers(-50, 50, 300).astype(dtype)
    perm = rng.permutation(300).astype(np.int32)
    bad = perm.copy()
    bad[[7, 150, 299]] = bad[40]                        # 3 items land on item 40's place
    return x, perm, bad


def segment_inputs(dtype):
    x = np.arange(1, 13).astype(dtype)
    y = (np.arange(12) % 5 - 2).astype(dtype)
    return x, y, np.array([0, 5, 5, 12], np.int32)      # an empty segment


def _kernels(case, name):
    """The kernels the tests of ``name`` build on ``case`` (checked and not)."""
    if name == "shuffled":
        x, perm, bad = permute_inputs(case.dtype)
        with checked():
            out = shuffled.kernels_ahead(x, perm)
        return out + shuffled.kernels_ahead(x, bad)
    x, y, good = segment_inputs(case.dtype)
    if name == "row_dots":
        with checked():
            out = row_dots.kernels_ahead(x, y, good)
        return out + row_dots.kernels_ahead(x, y, good)
    with checked():
        return globals()[name].kernels_ahead(x, good)


# The kernels of this file's tests, built as group modules on the Cython
# cases ahead of the first test of one in each process (conftest.AheadGroups).
GROUPS = AheadGroups(["shuffled", "row_sums", "row_maxima", "row_starts", "row_dots"],
                     _kernels, chunk=5)


@pytest.fixture(autouse=True)
def _groups(request):
    if "backend" in request.fixturenames:
        GROUPS.ensure(request.getfixturevalue("backend"))


def test_bounds_check_rejects_a_permute_with_repeats(backend):
    x, perm, bad = permute_inputs(backend.dtype)
    with pytest.raises(ValueError, match="not a permutation"):
        shuffled.py(x, bad)
    with checked():
        got = host(shuffled(x, perm))
        assert got.tolist() == shuffled.py(x, perm).tolist()
        # owners filled and claimed, the repeats counted, then the writes
        assert kinds(shuffled) == ["elementwise", "elementwise", "reduction", "elementwise"]
        with pytest.raises(KernelValueError, match="not a permutation .*3 item") as info:
            shuffled(x, bad)
        assert info.value.location.lineno == line_of(shuffled, "permute(")
        assert "test_dataparallel_checks.py" in str(info.value)
        assert "use scatter" in str(info.value)
        with pytest.raises(IndexError):                 # outside: the phases' own check
            shuffled(x[:2], np.array([0, 2], np.int32))
    assert host(shuffled(x, bad)).shape == (300,)       # unchecked: one phase, as documented
    assert kinds(shuffled) == ["elementwise"]


BAD_OFFSETS = [
    ([0, 5, 3, 12], KernelValueError, "split: offsets must not decrease"),
    ([0, 5, 13], KernelIndexError, r"split: offsets must lie in \[0, 12\], got 0 .. 13"),
    ([-1, 5, 12], KernelIndexError, r"split: offsets must lie in \[0, 12\], got -1 .. 12"),
    ([2, 5, 12], KernelValueError, "needs offsets from 0 to 12, got 2 .. 12"),
    ([0, 5, 11], KernelValueError, "needs offsets from 0 to 12, got 0 .. 11"),
]


@pytest.mark.parametrize("f, text", [(row_sums, "scan("), (row_maxima, "rscan("),
                                     (row_starts, "exclusive_scan(")])
def test_bounds_check_rejects_bad_segment_offsets(backend, f, text):
    x, _, good = segment_inputs(backend.dtype)
    with checked():
        want = np.concatenate(f.py(x, good))
        np.testing.assert_allclose(host(f(x, good)), want, rtol=backend.rtol * 10)
        assert kinds(f) == ["reduction", "scan"]
        for offsets, error, message in BAD_OFFSETS:
            offsets = np.array(offsets, np.int32)
            if error is KernelIndexError or "decrease" in message:
                with pytest.raises(IndexError if error is KernelIndexError else ValueError,
                                   match=message):
                    f.py(x, offsets)                    # the prelude's split agrees
            with pytest.raises(error, match=message) as info:
                f(x, offsets)
            assert info.value.location.lineno == line_of(f, text)
            assert "test_dataparallel_checks.py" in str(info.value)


def test_bounds_check_rejects_bad_offsets_of_a_map_over_segments(backend):
    x, y, _ = segment_inputs(backend.dtype)
    with checked():
        # an empty segment, and segments that leave items out (the prelude's split
        # accepts both for a map)
        for good in ([0], [2, 5, 11], [0, 5, 5, 12]):
            good = np.array(good, np.int32)
            np.testing.assert_allclose(host(row_dots(x, y, good)),
                                       np.asarray(row_dots.py(x, y, good), float),
                                       rtol=backend.rtol * 10)
        assert kinds(row_dots) == ["reduction", "elementwise"]   # one check, two splits
        for offsets, error, message in BAD_OFFSETS[:3]:
            offsets = np.array(offsets, np.int32)
            with pytest.raises(IndexError if error is KernelIndexError else ValueError,
                               match=message):
                row_dots.py(x, y, offsets)                   # the prelude's split
            with pytest.raises(error, match=message) as info:
                row_dots(x, y, offsets)
            assert info.value.location.lineno == line_of(row_dots, "split(")
            assert "test_dataparallel_checks.py" in str(info.value)
    assert host(row_dots(x, y, np.array([0, 5, 3, 12], np.int32))).shape == (3,)
    assert kinds(row_dots) == ["elementwise"]                # unchecked: one phase


@pytest.mark.parametrize("precision", ["float32", "float64"])
def test_checked_phases_compile_as_cuda(precision):
    from pcompute.build import cuda_builder
    from pcompute.generate import generate_source
    from pcompute.types import LONG
    from tests.test_dataparallel import _types
    if cuda_builder.nvcc_path() is None:
        pytest.skip("nvcc not found: the CUDA sources cannot be compile-checked here")
    x = np.arange(1, 13).astype(precision)
    sources = set()
    with use_config(backend="python", bounds_check=True, use_double=precision == "float64"):
        for f, args in [(shuffled, (x, np.arange(12)[::-1].astype(np.int32))),
                        (row_sums, (x, np.array([0, 5, 5, 12], np.int32)))]:
            f(*args)
            for kind, prim, launch_args in f.last_launches:
                values = [np.asarray(a.get()) if hasattr(a, "get") else a
                          for a in launch_args]
                if kind == "elementwise":
                    sources.add(generate_source(prim.func, "cuda",
                                                types=_types(prim.func, values)))
                elif kind == "scan":
                    sources.add(prim.generate("cuda", *values))
                else:
                    funcs = prim.map_func if isinstance(prim.map_func, tuple) \
                        else (prim.map_func,)
                    for func in funcs:
                        types = dict(_types(func, values), i=LONG)
                        sources.add(generate_source(func, "cuda", kind="function",
                                                    types=types))
    assert len(sources) >= 7
    cuda_builder.check_cuda_sources(sorted(sources))
