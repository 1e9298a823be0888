"""The tiled radix sort (the cuda backend's layout and the opencl backend's on
devices that are not CPUs: a work-group per tile of keys, ranked stably in
local memory, the digit counts scanned by the tiled scan), run here on the
OpenCL CPU device with the layout forced and checked against numpy's stable
argsort through the tests of tests/test_sort.py; its CUDA text is compiled
with nvcc there.  (Sort keys are integers only: floats are not sort keys.)"""
import numpy as np
import pytest

from pcompute.backends import sort_common, sort_opencl
from tests import test_sort as base
from tests.conftest import BackendCase, require_backend

#: A small tiled layout: tiles of 32 x 3 keys, 3-bit digits (that do not
#: divide the keys' bits), at most 4 scan groups of 32: a few thousand keys
#: take many tiles, and the counts' scan walks several tiles per group.
SMALL = sort_common.DeviceLayout(wg=32, radix_bits=3, items=3, scan_wg=32, item_wg=64,
                                 tiled=True, scan_groups=4)
LAYOUTS = {"gpu": sort_opencl.GPU_LAYOUT, "small": SMALL}


@pytest.fixture(params=sorted(LAYOUTS))
def tiled(request, monkeypatch):
    """The opencl float64 case with a tiled layout forced; fails the test if
    no sort used it."""
    require_backend(request, "opencl")
    layout = LAYOUTS[request.param]
    used = []

    def layout_for(device):
        used.append(layout)
        return layout
    monkeypatch.setattr(sort_opencl, "layout_for", layout_for)
    case = BackendCase("opencl", False, "float64")
    with case.config():
        yield case
    assert used


@pytest.mark.parametrize("dtype", base.KEY_TYPES)
@pytest.mark.parametrize("n", [1, 95, 97, 2047, 2049, 100003])
def test_random_keys_of_every_type(tiled, dtype, n):
    """Sizes around both layouts' tiles (96 and 2048 keys), none a multiple."""
    base.test_random_keys_of_every_type(tiled, dtype, n)


@pytest.mark.parametrize("dtype", [np.int32, np.uint64])
@pytest.mark.parametrize("pattern", ["duplicates", "sorted", "reversed", "equal",
                                     "high_bits", "max"])
def test_key_patterns(tiled, dtype, pattern):
    base.test_key_patterns(tiled, dtype, pattern)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_negative_keys(tiled, dtype):
    base.test_negative_keys(tiled, dtype)


def test_stability_with_few_distinct_keys(tiled):
    base.test_stability(tiled)
    base.test_several_value_arrays_of_mixed_dtypes(tiled)


@pytest.mark.parametrize("dtype", [np.uint32, np.int64])
def test_key_bits(tiled, dtype):
    base.test_key_bits_smaller_than_the_type(tiled, dtype)


def test_key_bits_edges_and_violations(tiled):
    base.test_key_bits_zero_and_exact_top(tiled)
    base.test_key_bits_violation_in_a_long_array(tiled, np.int32)


@pytest.mark.parametrize("dtype", [np.int32, np.uint64])
def test_argsort_and_views(tiled, dtype):
    base.test_argsort(tiled, dtype)
    base.test_view_with_offset(tiled)


def test_int64_permutations(tiled, monkeypatch):
    base.test_int64_permutations(tiled, monkeypatch)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_counts_scanned_by_the_tiled_scan(tiled, dtype, monkeypatch):
    """The GPU layout scans the counts of up to 512 tiles in one group: here
    always the tiled scan (the small layout takes it from 11 tiles)."""
    monkeypatch.setattr(sort_common, "ONE_GROUP_SCAN", 0)
    base.test_random_keys_of_every_type(tiled, dtype, 5000)
    base.test_stability(tiled)


def test_devices_that_are_not_cpus_sort_tiled():
    cl = pytest.importorskip("pyopencl")

    class Device:
        type = cl.device_type.GPU
        max_compute_units = 132
    assert sort_opencl.layout_for(Device()) is sort_opencl.GPU_LAYOUT
    Device.type = cl.device_type.CPU
    assert not sort_opencl.layout_for(Device()).tiled


def test_layouts_fit_in_cuda_static_shared_memory():
    for key in base.KEY_TYPES:
        for idx in (np.int32, np.int64):
            assert sort_opencl.GPU_LAYOUT.local_bytes(np.dtype(key).itemsize,
                                                      np.dtype(idx).itemsize) \
                <= sort_common.LOCAL_LIMIT
    big = sort_common.DeviceLayout(wg=256, radix_bits=5, items=8, scan_wg=256,
                                   tiled=True, scan_groups=1024)
    with pytest.raises(ValueError, match="local memory"):
        sort_common.generate_device_sort("cuda", big, np.int64, np.int64, [])
