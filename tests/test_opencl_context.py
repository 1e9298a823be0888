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


def test_build_memo_does_not_keep_a_context_alive(cl):
    """Kernels are memoised per context, weakly: once set_context has moved
    on and nothing uses the old context, it and its programs go."""
    import gc
    import weakref
    devices = opencl.get_context().devices
    ctx = cl.Context(devices)
    opencl.set_context(ctx)
    with use_config(backend="opencl"):
        kernel = pc.Elementwise(twice_plus)
        run_twice_plus(kernel)
    gone = weakref.ref(ctx)
    opencl.set_context(cl.Context(devices))
    del ctx, kernel
    gc.collect()
    assert gone() is None


def test_arrays_of_a_replaced_context_are_named(cl):
    """After set_context, an Array made before is refused with its name and
    the call, by the checked path and by a fast call alike (not handed to
    PoCL, which may run it or fail deep inside)."""
    from pcompute.errors import KernelValueError

    def ident(i, x):
        return x[i]

    def out(i, item, y):
        y[i] = item

    with use_config(backend="opencl"):
        kernel = pc.Elementwise(twice_plus)
        old_x, old_y = pc.wrap(np.ones(4, np.float32), np.zeros(4, np.float32))
        old_keys = pc.wrap(np.arange(4, dtype=np.int32))
        opencl.set_context(cl.Context(opencl.get_context().devices))
        x, y = pc.wrap(np.ones(4, np.float32), np.zeros(4, np.float32))
        scan = pc.Scan(ident, out, "a+b", dtype=np.float32)
        calls = [(lambda: kernel(old_x, y), "argument 'x' of twice_plus()"),
                 (lambda: kernel(x, old_y), "argument 'y' of twice_plus()"),
                 (lambda: pc.Reduction("a+b")(old_x), r"argument 'x' of Reduction\("),
                 (lambda: scan(old_x, y), "argument 'x' of Scan"),
                 (lambda: pc.sort_by_keys([old_keys]), "array 0")]
        for call, name in calls:
            kernel(x, y)                # leaves a fast call for the new context
            with pytest.raises(KernelValueError, match=name + ".*another OpenCL context"):
                call()
        kernel(x, y)
        np.testing.assert_array_equal(y.get(), [3, 3, 3, 3])
