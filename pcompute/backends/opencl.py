"""The opencl backend: pyopencl, with kernels generated and launched directly."""
import numpy as np

from ..build import opencl_builder
from ..codegen import printer_for
from ..templates import render
from ._device import check_double, scalar_dtype, uses_double
from .base import Backend


class OpenCLBackend(Backend):
    """Kernels in OpenCL C on the device pyopencl selects (PYOPENCL_CTX honoured)."""

    name = "opencl"
    dialect = "opencl"
    on_host = False

    def why_unavailable(self):
        return opencl_builder.why_unavailable()

    @property
    def queue(self):
        return opencl_builder.get_queue()

    def device_name(self):
        return opencl_builder.device_name(self.queue.device)

    def supports_double(self):
        return opencl_builder.device_supports_double(self.queue.device)

    def demote_double(self, config):
        return not config.use_double

    # -- memory ------------------------------------------------------------------
    def _cl_array(self):
        import pyopencl.array as cl_array
        return cl_array

    def empty(self, n, dtype):
        return self._cl_array().empty(self.queue, n, dtype)

    def to_device(self, host):
        return self._cl_array().to_device(self.queue, np.ascontiguousarray(host))

    def to_host(self, dev):
        return dev.get()

    def copy_to_host(self, dev, host):
        dev.get(ary=host)

    def copy_to_device(self, host, dev):
        dev.set(np.ascontiguousarray(host))

    def copy(self, dev):
        return dev.copy()

    def fill(self, dev, value):
        dev.fill(value)

    def is_device_array(self, obj):
        return isinstance(obj, self._cl_array().Array)

    def synchronize(self):
        self.queue.finish()

    # -- kernels -------------------------------------------------------------------
    def build_elementwise(self, program, func, config):
        check_double(self, program)
        printer = printer_for(program, "opencl")
        runtime, functions = printer.print_program()
        entry = program.entry
        params = ["%s %s" % (printer.type_name(t), entry.cname(n)) for n, t in entry.args[1:]]
        args = ", ".join(["pc_i"] + [entry.cname(n) for n, _ in entry.args[1:]])
        source = render("elementwise_opencl", entry=entry.name, double=uses_double(program),
                        runtime=runtime, functions=functions, params=params,
                        call="%s(%s);" % (entry.c_name, args))
        kernel = opencl_builder.build_opencl(source, ["pc_elementwise"])["pc_elementwise"]
        pointers = [t.is_pointer for _, t in entry.args[1:]]
        kernel.set_scalar_arg_dtypes(
            [np.int64] + [None if p else scalar_dtype(t)
                          for p, (_, t) in zip(pointers, entry.args[1:])])
        queue = self.queue
        wgs = config.wgs

        def run(n, args):
            if n == 0:
                return
            values = [a.data if p else a for p, a in zip(pointers, args)]
            if wgs:
                gsize = (n + wgs - 1) // wgs * wgs
                kernel(queue, (gsize,), (wgs,), n, *values)
            else:
                kernel(queue, (n,), None, n, *values)
        run.source = source
        return run
