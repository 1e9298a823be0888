"""OpenCL launch geometry: Elementwise and Scan launch with a work-group size
of their own choosing, the same for every ``n``, never the driver's choice.

A driver that compiles a kernel per work-group size (PoCL: a native compile
of 50-85 ms per new size, AMD EPYC) would otherwise compile again for every
new ``n``, and give a prime ``n`` work-groups of one item.  The launches are
recorded through pyopencl's ``enqueue_nd_range_kernel`` (the backend looks
it up when it builds a kernel); the values are checked against NumPy.
"""
import numpy as np
import pytest

from pcompute import Elementwise, Scan, annotate, use_config, wrap


@annotate(i="int", x="gdoublep", y="gdoublep", a="double")
def axpy_launch(i, x, y, a):
    y[i] = a * x[i] + y[i]


@annotate(i="int", x="gdoublep", return_="double")
def scan_input(i, x):
    return x[i]


@annotate(i="int", item="double", y="gdoublep")
def scan_output(i, item, y):
    y[i] = item


@pytest.fixture
def launches(request, monkeypatch):
    """The (kernel name, global size, local size) of every OpenCL launch."""
    from conftest import require_backend
    require_backend(request, "opencl")
    import pyopencl as cl
    seen = []
    real = cl.enqueue_nd_range_kernel

    def record(queue, kernel, global_size, local_size, *args, **kwargs):
        seen.append((kernel.function_name, tuple(global_size),
                     None if local_size is None else tuple(local_size)))
        return real(queue, kernel, global_size, local_size, *args, **kwargs)
    monkeypatch.setattr(cl, "enqueue_nd_range_kernel", record)
    with use_config(backend="opencl", use_double=True):
        yield seen


SIZES = (1, 7, 63, 64, 65, 997, 1000, 4099)


def test_elementwise_work_groups_do_not_follow_n(launches):
    """One local size for every n (the kernel skips the padding items);
    the global size is the next multiple of it."""
    from pcompute.backends.opencl import ELEMENTWISE_WG
    e = Elementwise(axpy_launch)
    for n in SIZES:
        x = np.arange(n, dtype=np.float64)
        y = np.full(n, 0.5)
        ya = wrap(y.copy())
        e(wrap(x), ya, 3.0)
        np.testing.assert_array_equal(ya.get(), 3.0 * x + y)
    sizes = [(g, l) for name, g, l in launches if name == "pc_elementwise"]
    assert len(sizes) == len(SIZES)
    local = {l for _, l in sizes}
    assert len(local) == 1
    (wg,), = local
    assert 1 <= wg <= ELEMENTWISE_WG
    for n, ((g,), _) in zip(SIZES, sizes):
        assert g % wg == 0 and n <= g < n + wg


def test_configured_work_group_size_is_used(launches):
    with use_config(wgs=16):
        e = Elementwise(axpy_launch)
        x = np.arange(100, dtype=np.float64)
        ya = wrap(np.zeros(100))
        e(wrap(x), ya, 2.0)
    np.testing.assert_array_equal(ya.get(), 2.0 * x)
    assert [(g, l) for name, g, l in launches if name == "pc_elementwise"] == \
        [((112,), (16,))]


def test_scan_work_groups_do_not_follow_n(launches):
    """The chunk passes of a scan launch with one local size for every n."""
    s = Scan(scan_input, scan_output, "a + b", dtype=np.float64)
    for n in SIZES:
        x = np.arange(n, dtype=np.float64) % 5
        ya = wrap(np.zeros(n))
        s(x=wrap(x), y=ya)
        np.testing.assert_array_equal(ya.get(), np.cumsum(x))
    chunks = [l for name, g, l in launches
              if name in ("pc_scan_pass1", "pc_scan_pass3")]
    assert len(chunks) == 2 * len(SIZES)
    assert None not in chunks and len(set(chunks)) == 1
