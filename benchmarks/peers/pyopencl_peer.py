"""pyopencl's own generic kernels, on the queue pcompute's opencl backend uses."""
import numpy as np

_CTYPES = {np.dtype(np.float64): "double", np.dtype(np.float32): "float",
           np.dtype(np.int32): "int"}


def why_missing():
    try:
        from pcompute.backends.registry import get_backend
        return get_backend("opencl").why_unavailable()
    except Exception as exc:
        return "%s: %s" % (type(exc).__name__, exc)


def queue():
    from pcompute.build.opencl_builder import get_queue
    return get_queue()


def to_device(host):
    import pyopencl.array as cl_array
    return cl_array.to_device(queue(), np.ascontiguousarray(host))


def axpy():
    """``run(a, x, y)`` with pyopencl.elementwise.ElementwiseKernel."""
    from pyopencl.elementwise import ElementwiseKernel
    knl = ElementwiseKernel(queue().context, "double a, double *x, double *y",
                            "y[i] = a*x[i] + y[i]", "pyopencl_axpy")
    return lambda a, x, y: knl(a, x, y, queue=queue())


def summer(dtype):
    """``run(x)`` -> device scalar, with pyopencl.reduction.ReductionKernel.

    Accumulates in the data's type (as pcompute's Reduction(dtype_out=...))."""
    from pyopencl.reduction import ReductionKernel
    dt = np.dtype(dtype)
    knl = ReductionKernel(queue().context, dt, neutral="0", reduce_expr="a+b",
                          map_expr="x[i]", arguments="__global const %s *x" % _CTYPES[dt])
    return lambda x: knl(x, queue=queue())


def inclusive_scan():
    """``run(x, y)`` with pyopencl.scan.InclusiveScanKernel (float64)."""
    from pyopencl.scan import InclusiveScanKernel
    knl = InclusiveScanKernel(queue().context, np.float64, "a+b", neutral="0")
    return lambda x, y: knl(x, y, queue=queue())
