"""The tiled scan layout (a work-group per chunk, walked in tiles of one item
per work-item: coalesced on GPUs, the CUDA backend's only layout and the
OpenCL backend's on GPU devices), run here on the OpenCL CPU device and
checked against the same references as tests/test_scan.py."""
import pytest

from pcompute.backends import scan_opencl
from tests import test_scan as base
from tests.conftest import BackendCase, require_backend


@pytest.fixture(params=["float32", "float64"])
def tiled(request, monkeypatch):
    """The opencl case of ``precision`` with the tiled layout forced; fails
    the test if no scan was built tiled."""
    require_backend(request, "opencl")
    monkeypatch.setattr(scan_opencl, "TILES", True)
    built = []
    generate = scan_opencl.generate_scan

    def recording(backend, spec, config):
        generated = generate(backend, spec, config)
        built.append(generated.option("tiled"))
        return generated
    monkeypatch.setattr(scan_opencl, "generate_scan", recording)
    case = BackendCase("opencl", False, request.param)
    with case.config():
        yield case
    assert built and all(built), built


@pytest.mark.parametrize("n", [1, 5, 3000, 70001])
def test_inclusive_exclusive_last_item(tiled, n):
    base.test_inclusive_exclusive_last_item(tiled, n)


@pytest.mark.parametrize("n,density", [(97, 0.3), (6001, 0.5), (9000, 0.001), (4099, 0.0)])
def test_segmented_scan(tiled, n, density):
    base.test_segmented_scan(tiled, n, density)


def test_segment_starts_at_tile_and_group_boundaries(tiled):
    base.test_segmented_scan_with_segment_in_every_block(tiled)


def test_float_scan_and_max_scan(tiled):
    base.test_float_scan_matches_numpy(tiled)
    base.test_max_scan_with_infinite_neutral(tiled)


@pytest.mark.parametrize("need_last", [False, True])
def test_complex_map_evaluates_input_once_per_item(tiled, need_last):
    base.test_complex_map_evaluates_input_once_per_item(tiled, need_last)


def test_in_place_segmented_scan_with_last_item(tiled):
    base.test_in_place_segmented_scan_with_last_item(tiled)
