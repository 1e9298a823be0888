"""What the OpenCL and CUDA backends share: precision checks and launches."""
import numpy as np

from ..errors import KernelTypeError, KernelValueError

#: Threads per block of CUDA kernels unless the configuration sets ``wgs``.
CUDA_BLOCK = 256


def uses_double(program):
    """True if any type in ``program`` is double precision."""
    for fn in program.functions:
        for _, t in fn.args + fn.locals:
            if t.base == "double":
                return True
        if fn.ret.base == "double":
            return True
        if any(t.base == "double" for t in fn.types.values()):
            return True
    return False


def check_double(backend, program):
    """Raise a clear error if ``program`` needs fp64 that the device lacks."""
    if uses_double(program) and not backend.supports_double():
        raise KernelTypeError(
            "%s() computes in double precision, which the %s device %s does not "
            "support" % (program.entry.name, backend.name, backend.device_name()),
            hint="set get_config().use_double = False (and use float32 data)")


def scalar_dtype(t):
    """The numpy dtype a scalar kernel argument of type ``t`` is passed as."""
    return np.dtype(np.int32) if t.base == "bool" else t.dtype


class DeviceArrays:
    """Memory methods of backends whose arrays are pyopencl or pycuda arrays
    (the two share this API); mixed in before :class:`~.base.Backend`."""

    on_host = False

    def to_host(self, dev):
        return dev.get()

    def copy_to_host(self, dev, host):
        dev.get(ary=host)

    def copy_box_to_host(self, dev, host, box):
        # the whole array comes over, the box is kept (opencl copies the box)
        index = tuple(slice(lo, hi) for lo, hi in box)
        host[index] = dev.get()[index]

    def copy_to_device(self, host, dev, wait=True):
        # always waits (allowed by Backend.copy_to_device): the opencl backend
        # queues copies asked not to wait; pycuda's would need page-locked memory
        dev.set(np.ascontiguousarray(host))

    def copy(self, dev):
        return dev.copy()

    def fill(self, dev, value):
        dev.fill(value)


def check_no_link(printer, backend):
    """Raise if an Extern used by the printed program asks to link libraries
    (``Extern.link(name)`` non-empty): device programs are not linked."""
    for ext in printer.externs.values():
        libs = list(ext.link(backend.name) or ())
        if libs:
            raise KernelValueError(
                "%s.link(%r) asks to link %s, but %s programs are not linked against "
                "libraries" % (type(ext).__name__, backend.name, libs, backend.name),
                hint="return [] from link() for this backend and put the code in "
                     "code()")


def reduction_groups(wg):
    """Thread blocks of a reduction's first stage: enough to fill the device
    (two full waves of blocks of ``wg`` threads: 2 x multiprocessors x
    resident blocks per multiprocessor); the second stage, one block, reduces
    their partial results."""
    import pycuda.driver as drv
    device = drv.Context.get_device()
    sms = device.get_attribute(drv.device_attribute.MULTIPROCESSOR_COUNT)
    per_sm = device.get_attribute(drv.device_attribute.MAX_THREADS_PER_MULTIPROCESSOR) // wg
    return max(1, 2 * sms * max(1, per_sm))
