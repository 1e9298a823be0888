"""Bounds checks of scan phases: with ``bounds_check`` on, an out-of-range
read in a Scan's input function (here a gather feeding a @dataparallel scan)
is the located KernelIndexError of the other kernels, on every backend; a
good call still matches the prelude."""
import operator

import numpy as np
import pytest

from pcompute.config import get_config, use_config
from pcompute.dataparallel import dataparallel, gather, scan
from pcompute.errors import KernelIndexError


@dataparallel
def gather_scan(x, idx):
    return scan(operator.add, gather(x, idx))


def test_an_out_of_range_gather_in_a_scan_input_is_located(backend):
    x = np.arange(5).astype(backend.dtype)
    with use_config(bounds_check=True, use_double=get_config().use_double):
        good = np.array([4, 0, 2, 2], np.int32)
        got = gather_scan(x, good)
        np.testing.assert_array_equal(np.asarray(got.get()), gather_scan.py(x, good))
        assert [k for k, _ in gather_scan.last_phases] == ["scan"]
        for _ in range(2):        # the second call too (no fast call skips the check)
            with pytest.raises(KernelIndexError, match="index 9 is out of range") as info:
                gather_scan(x, np.array([0, 9, 1, 1], np.int32))
            assert "<pcompute.dataparallel phase kernel>" in str(info.value)
