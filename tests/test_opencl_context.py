"""``pcompute.opencl.set_context`` / ``set_queue`` (Compyle's ``compyle.opencl``):
a program that brings its own PyOpenCL context or queue gets pcompute's arrays
and kernels on it."""
import numpy as np
import pytest

import pcompute as pc
from pcompute import opencl
from pcompute.config import use_config

from conftest import require_backend


def twice_plus(i, x, y):
    y[i] = 2.0 * x[i] + 1.0


@pytest.fixture
def cl(request):
    """pyopencl, with pcompute's queue put back after the test."""
    require_backend(request, "opencl")
    import pyopencl
    saved = opencl.get_queue()
    yield pyopencl
    opencl.set_queue(saved)


def run_twice_plus(kernel):
    x = np.arange(5, dtype=np.float32)
    xd, yd = pc.wrap(x, np.zeros(5, np.float32))
    kernel(xd, yd)
    yd.pull()
    np.testing.assert_array_equal(yd.data, 2 * x + 1)
    return xd


def test_set_queue_moves_arrays_and_kernels(cl):
    with use_config(backend="opencl"):
        kernel = pc.Elementwise(twice_plus)
        old = run_twice_plus(kernel)
        built = kernel.elementwise
        ctx = cl.Context(opencl.get_context().devices)
        queue = cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
        opencl.set_queue(queue)
        assert opencl.get_queue() is queue and opencl.get_context() == ctx
        new = run_twice_plus(kernel)
        assert kernel.elementwise is not built     # built again for the new queue
    assert new.dev.context == ctx and old.dev.context != ctx


def test_set_context_makes_a_queue_on_it(cl):
    ctx = cl.Context(opencl.get_context().devices)
    opencl.set_context(ctx)
    assert opencl.get_context() == ctx and opencl.get_queue().context == ctx
    with use_config(backend="opencl"):
        assert run_twice_plus(pc.Elementwise(twice_plus)).dev.context == ctx


@pytest.mark.parametrize("setter", ["set_context", "set_queue"])
def test_set_needs_a_pyopencl_object(cl, setter):
    with pytest.raises(TypeError, match=r"pcompute.opencl.%s\(\) needs a pyopencl" % setter):
        getattr(opencl, setter)("gpu")
