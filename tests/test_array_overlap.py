"""Which arrays share memory (pcompute.array.overlap): views of an Array on
every backend (slices, get_view, n-D basic indexing, transpose, reshape,
an Array around a device array), as NumPy says of the same views of a NumPy
array; on a device an Array's host mirror is not its memory."""
import numpy as np
import pytest

from pcompute import wrap
from pcompute.array.overlap import DISTINCT, OVERLAP, SAME, memory_overlap
from pcompute.backends.registry import get_backend


def _views(m):
    """Pairs of views of the 2-D array ``m`` (an Array or NumPy array)."""
    return [(m, m), (m, m[:]), (m[1], m[1, :]), (m[0], m[1]), (m[:, ::2], m[:, 1::2]),
            (m[:, ::2], m[:, 2::2]), (m, m.T), (m.T, m.T), (m[1:3], m[2:]), (m[:2], m[2:]),
            (m[1:, 1:], m[:-1, :-1]), (m, m.reshape(6, 4)), (m.reshape(24), m.reshape(24)),
            (m[0, ::2], m[1:, ::3])]


def _numpy_answer(x, y):
    if x is y:
        return SAME
    if not np.shares_memory(x, y):
        return DISTINCT
    same = (x.__array_interface__["data"][0] == y.__array_interface__["data"][0]
            and x.shape == y.shape and x.strides == y.strides)
    return SAME if same else OVERLAP


def test_views_of_an_array_overlap_as_numpy_views_do(backend):
    host = np.arange(24, dtype=backend.dtype).reshape(4, 6)
    m = wrap(host.copy())
    got = [memory_overlap(x, y) for x, y in _views(m)]
    want = [_numpy_answer(x, y) for x, y in _views(host)]
    assert got == want
    assert OVERLAP in want and DISTINCT in want and SAME in want
    a = wrap(np.zeros(10, backend.dtype))
    assert memory_overlap(a, a[:]) == SAME and memory_overlap(a, a.get_view()) == SAME
    assert memory_overlap(a[:-1], a[1:]) == OVERLAP
    assert memory_overlap(a.get_view(0, 5), a.get_view(5)) == DISTINCT
    assert memory_overlap(a[3:3], a) == DISTINCT             # no element
    assert memory_overlap(a, wrap(np.zeros(10, backend.dtype))) == DISTINCT
    # around the same device array, an Array is that array
    assert memory_overlap(a, wrap(a.dev)) == SAME
    assert memory_overlap(a[2:], wrap(a.dev[2:])) == SAME


def test_a_device_array_is_not_its_host_array(backend):
    """On host backends ``wrap(x)`` is ``x``'s memory; on a device it is a
    copy of it, whatever its ``data`` mirror is."""
    x = np.zeros(8, backend.dtype)
    a = wrap(x)
    on_host = get_backend().on_host
    assert memory_overlap(a, x) == (SAME if on_host else DISTINCT)
    assert memory_overlap(x, a[2:]) == (OVERLAP if on_host else DISTINCT)
    assert memory_overlap(a.data, a) == (SAME if on_host else DISTINCT)


def test_an_opencl_sub_buffer_is_its_parents_memory(request):
    """An Array around a user's pyopencl array on a sub-buffer shares the
    parent buffer's memory at the sub-buffer's origin."""
    from conftest import require_backend
    require_backend(request, "opencl")
    import pyopencl as cl
    import pyopencl.array as cla
    from pcompute import use_config
    with use_config(backend="opencl"):
        a = wrap(np.zeros(1024, np.float32))
        align = a.dev.queue.device.mem_base_addr_align // 8        # bits -> bytes
        sub = a.dev.base_data.get_sub_region(align, 64 * 4)
        s = wrap(cla.Array(a.dev.queue, (64,), np.float32, data=sub))
        start = align // 4
        assert memory_overlap(s, a[start:start + 64]) == SAME
        assert memory_overlap(s, a[start + 1:]) == OVERLAP
        assert memory_overlap(s, a[start + 64:]) == DISTINCT
        assert memory_overlap(s, a[:start]) == DISTINCT
        cl_pair = get_backend().memory_address(s.dev)
        assert cl_pair == get_backend().memory_address(a[start:].dev)
