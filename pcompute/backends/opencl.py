"""The opencl backend: pyopencl, with kernels generated and launched directly."""
import time

import numpy as np

from ..build import opencl_builder
from ..codegen import print_programs, printer_for
from ..codegen.arrays import hidden_names, meta_values
from ..codegen.kernel import kernel_source
from ..errors import KernelValueError
from ..records import BuiltKernel, GeneratedKernel
from ..templates import render
from ._device import (DeviceArrays, check_double, check_no_link, scalar_dtype,
                      uses_double)
from . import scan_opencl, sort_opencl
from .fastpath import python_binder
from .base import Backend, is_serial


def pointer_parts(entry, printer, first=1):
    """Kernel parameters for the entry's arguments (from position ``first``):
    pointers travel as a buffer and an element offset (so views of arrays
    work), unpacked at kernel start; an n-D array's shape and strides follow.

    Returns (params, unpack lines, argument names for the call).
    """
    params, unpack, names = [], [], []
    for name, t in entry.args[first:]:
        cname = entry.cname(name)
        if t.is_pointer:
            tname = printer.type_name(t)
            params += ["%s pc_b_%s" % (tname, name), "long pc_o_%s" % name]
            unpack.append("%s %s = pc_b_%s + pc_o_%s;" % (tname, cname, name, name))
            hidden = hidden_names(cname, t)
            params += ["long %s" % h for h in hidden]
        else:
            hidden = []
            params.append("%s %s" % (printer.type_name(t), cname))
        names.append(cname)
        names.extend(hidden)
    return params, unpack, names


def launch_values(types, args):
    """The kernel argument values: (buffer, element offset) for arrays, then
    an n-D array's shape and strides."""
    values = []
    for t, a in zip(types, args):
        if t.is_pointer:
            values += [a.base_data, np.int64(a.offset // a.dtype.itemsize)]
            values += meta_values(t, a)
        else:
            values.append(a)
    return values


def arg_dtypes(entry, first=1):
    """set_scalar_arg_dtypes entries for the entry's arguments."""
    out = []
    for _, t in entry.args[first:]:
        if t.is_pointer:
            out += [None, np.int64] + [np.int64] * len(hidden_names("", t))
        else:
            out.append(scalar_dtype(t))
    return out


class OpenCLBackend(DeviceArrays, Backend):
    """Kernels in OpenCL C on the device pyopencl selects (PYOPENCL_CTX honoured)."""

    name = "opencl"
    sort_checks_key_bits = True      # device_sort checks the range from the keys' OR
    dialect = "opencl"
    on_host = False

    def why_unavailable(self):
        return opencl_builder.why_unavailable()

    @property
    def queue(self):
        return opencl_builder.get_queue()

    def device_key(self):
        return self.queue           # set_queue / set_context change it

    def device_name(self):
        return opencl_builder.device_name(self.queue.device)

    def timed_call(self, kernel, args, kwargs):
        """The kernel's event is waited for; its device time is used when the
        queue has profiling enabled, else the wall time to its completion."""
        start = time.perf_counter()
        event = kernel(*args, **kwargs)
        if hasattr(event, "wait"):
            event.wait()
        end = time.perf_counter()
        try:
            return event, (event.profile.end - event.profile.start) * 1e-9
        except Exception:       # queue without PROFILING_ENABLE, or no event
            return event, end - start

    def describe(self):
        out = Backend.describe(self)
        if out["works"]:
            try:
                out["device"] = ", ".join(opencl_builder.device_name(d)
                                          for d in opencl_builder.get_context().devices)
            except Exception as exc:   # info reports, it does not crash
                out["device"] = {"error": "%s: %s" % (type(exc).__name__,
                                                      str(exc).strip()[:300])}
        return out

    def calling_convention(self, kind):
        if kind == "elementwise":
            return ("kernel pc_elementwise(long n, then each array as (__global T "
                    "*buffer, long element offset), then each scalar); any global "
                    "size >= n")
        return None

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

    def is_device_array(self, obj):
        return isinstance(obj, self._cl_array().Array)

    def synchronize(self):
        self.queue.finish()

    # -- kernels -------------------------------------------------------------------
    def generate_elementwise(self, program, func, config):
        """The :class:`~pcompute.records.GeneratedKernel` of an Elementwise
        kernel; needs no device."""
        printer = printer_for(program, "opencl")
        runtime, functions = printer.print_program()
        entry = program.entry
        dims = program.index_dims
        check_no_link(printer, self)
        params, unpack, names = pointer_parts(entry, printer, dims)
        index = ["pc_i"] if dims == 1 else ["pc_i%d" % d for d in range(dims)]
        args = ", ".join(index + names)
        serial = is_serial(func)
        source = render("elementwise_opencl", entry=entry.name, double=uses_double(program),
                        serial=serial, unpack=unpack, dims=dims,
                        runtime=runtime, functions=functions, params=params,
                        call="%s(%s);" % (entry.c_name, args))
        return GeneratedKernel("elementwise", entry.name, "opencl", source,
                               ("pc_elementwise",), tuple(entry.args[dims:]),
                               (("serial", serial), ("index_dims", dims)))

    def build_elementwise(self, program, func, config):
        check_double(self, program)
        generated = self.generate_elementwise(program, func, config)
        entry = program.entry
        dims = program.index_dims
        serial = generated.option("serial")
        kernel = opencl_builder.build_opencl(generated.source,
                                             ["pc_elementwise"])["pc_elementwise"]
        types = [t for _, t in generated.args]
        kernel.set_scalar_arg_dtypes([np.int64] * dims + arg_dtypes(entry, dims))
        queue = self.queue
        wgs = config.wgs

        def run(n, args):
            if n == 0:
                return
            values = launch_values(types, args)
            if serial:
                kernel(queue, (1,), None, n, *values)
            elif wgs:
                gsize = (n + wgs - 1) // wgs * wgs
                kernel(queue, (gsize,), (wgs,), n, *values)
            else:
                kernel(queue, (n,), None, n, *values)

        def run_nd(n, args):
            # The last index on axis 0, the fastest varying one (coalesced).
            if 0 in n:
                return
            values = launch_values(types, args)
            if serial:
                kernel(queue, (1,) * dims, None, *n, *values)
                return
            gsize = n[::-1]
            local = None
            if wgs:
                gsize = ((n[-1] + wgs - 1) // wgs * wgs,) + tuple(gsize[1:])
                local = (wgs,) + (1,) * (dims - 1)
            kernel(queue, gsize, local, *n, *values)
        if dims > 1:
            return BuiltKernel(generated, self.name, run_nd)
        return BuiltKernel(generated, self.name, run, python_binder(run, generated))

    def generate_reduction(self, spec, config):
        """The :class:`~pcompute.records.GeneratedKernel` of a two-stage
        Reduction; needs no device."""
        runtime, functions, printer = print_programs(
            [(spec.map_program, "pc_map"), (spec.reduce_program, "pc_reduce")], "opencl")
        check_no_link(printer, self)
        entry = spec.map_program.entry
        params, unpack, cargs = pointer_parts(entry, printer)
        double = uses_double(spec.map_program) or uses_double(spec.reduce_program)
        source = render("reduction_device", dialect=self.dialect, name=spec.name,
                        unpack=unpack,
                        expr=spec.reduce_func.source.split("return ")[1].strip(),
                        double=double, wg=reduction_wg(config), prelude=runtime,
                        functions=functions, T=printer.type_name(spec.out_type),
                        neutral=printer.literal(spec.neutral.item(), spec.out_type),
                        params=params, cargs=cargs)
        return GeneratedKernel("reduction", spec.name, "opencl", source,
                               ("pc_reduce_stage1", "pc_reduce_stage2"),
                               tuple(entry.args[1:]), (("wg", reduction_wg(config)),))

    def build_reduction(self, spec, config):
        check_double(self, spec.map_program)
        check_double(self, spec.reduce_program)
        generated = self.generate_reduction(spec, config)
        kernels = opencl_builder.build_opencl(generated.source, list(generated.entries))
        stage1, stage2 = kernels["pc_reduce_stage1"], kernels["pc_reduce_stage2"]
        entry = spec.map_program.entry
        types = [t for _, t in entry.args[1:]]
        stage1.set_scalar_arg_dtypes([np.int64] + arg_dtypes(entry) + [None])
        stage2.set_scalar_arg_dtypes([np.int64, None, None])
        wg = generated.option("wg")
        import pyopencl as cl
        dtype = spec.out_type.dtype
        queue = self.queue
        partial = self.empty(wg, dtype)
        out = self.empty(1, dtype)
        host = np.empty(1, dtype)

        def run(n, args):
            if n == 0:
                return spec.neutral
            groups = min(wg, (n + wg - 1) // wg)
            values = launch_values(types, args)
            stage1(queue, (groups * wg,), (wg,), n, *values, partial.data)
            stage2(queue, (wg,), (wg,), groups, partial.data, out.data)
            cl.enqueue_copy(queue, host, out.data)      # blocking
            return host[0]
        return BuiltKernel(generated, self.name, run,
                           python_binder(run, generated, finish=lambda result: result))

    # -- low-level kernels (pcompute.low_level.Kernel) --------------------------------
    has_work_groups = True

    def generate_kernel(self, program, name, config):
        """The GeneratedKernel of low-level kernel ``program``; needs no device."""
        entry = program.entry
        return GeneratedKernel("kernel", name, "opencl",
                               kernel_source(program, "opencl", name), (entry.c_name,),
                               tuple(entry.args))

    def local_memory(self, nbytes):
        import pyopencl as cl
        return cl.LocalMemory(nbytes)

    def build_kernel(self, program, name, config):
        """The BuiltKernel of a low-level kernel: ``built((global_size,
        local_size), values)`` with device arrays, LocalMem objects (for local
        pointer arguments) and numbers."""
        check_double(self, program)
        generated = self.generate_kernel(program, name, config)
        entry = generated.entries[0]
        knl = opencl_builder.build_opencl(generated.source, [entry])[entry]
        queue = self.queue

        def launch(sizes, args):
            global_size, local_size = sizes
            values = []
            for (arg, t), a in zip(generated.args, args):
                if t.is_pointer and t.space == "local":
                    values.append(self.local_memory(a.nbytes(t.dtype, np.prod(local_size))))
                elif t.is_pointer:
                    if a.offset:
                        raise KernelValueError(
                            "argument %r of Kernel(%s) is a view that does not start at "
                            "element 0" % (arg, name), hint="pass a copy: a.copy()")
                    values.append(a.data)
                else:
                    values.append(scalar_dtype(t).type(a))
            knl(queue, global_size, local_size, *values)
        return BuiltKernel(generated, self.name, launch)

    # -- scan and sort: this backend's modules ---------------------------------------
    def generate_scan(self, spec, config):
        return scan_opencl.generate_scan(self, spec, config)

    def build_scan(self, spec, config):
        return scan_opencl.build_scan(self, spec, config)

    def sort_by_keys(self, keys, values, key_bits, config, permutation=True):
        return sort_opencl.sort_by_keys(self, keys, values, key_bits, config,
                                        permutation=permutation)


def reduction_wg(config):
    """Work-group size of reductions: the configured one, else 64."""
    wgs = config.wgs or 64
    if wgs & (wgs - 1):
        raise ValueError("the work-group size for reductions must be a power of two, "
                         "got %d" % wgs)
    return wgs
