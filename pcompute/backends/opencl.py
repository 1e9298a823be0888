"""The opencl backend: pyopencl, with kernels generated and launched directly."""
import time

import numpy as np

from ..build import opencl_builder
from ..codegen import device_preamble, print_programs, printer_for
from ..codegen.arrays import hidden_names
from ..codegen.kernel import kernel_source
from ..errors import KernelValueError
from ..kernel_options import options_of
from ..records import BuiltKernel, GeneratedKernel
from ..templates import render
from ._device import (DeviceArrays, check_double, check_no_link, scalar_dtype,
                      uses_double)
from . import index_text, scan_opencl, sort_opencl
from .cl_args import KernelArgs, binder, own_kernel
from .reduction_parts import device_record, reduction_programs, reduction_text
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

    def speculation_chunks(self, config):
        """On a CPU device a speculated loop runs as one chunk per compute
        unit checked with private bitmaps (see the base class); on a GPU
        with the atomic-max logs."""
        device = self.queue.device
        if not device.type & _cl().device_type.CPU:
            return None
        return max(2, device.max_compute_units)

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

    def copy_to_device(self, host, dev, wait=True):
        # on the kernels' queue: a copy that does not wait is ordered before them
        dev.set(np.ascontiguousarray(host), queue=self.queue, async_=not wait)

    def copy_box_to_host(self, dev, host, box):
        """Only the box comes over: one copy of a range (1-D) or a
        rectangular copy (``clEnqueueReadBufferRect``, 2-D and 3-D) of the
        buffer into the same elements of ``host``; other ranks (and a view at
        an offset) the whole array (:class:`~._device.DeviceArrays`)."""
        if any(lo >= hi for lo, hi in box):
            return                          # an empty box: nothing was written
        cl, size = _cl(), host.itemsize
        if len(box) == 1:
            (lo, hi), = box
            cl.enqueue_copy(self.queue, host[lo:hi], dev.base_data,
                            src_offset=dev.offset + lo * size, is_blocking=True)
            return
        if len(box) > 3 or dev.offset:
            return DeviceArrays.copy_box_to_host(self, dev, host, box)
        shape = host.shape[::-1]            # x (the last axis, in bytes), y, z
        starts = [lo for lo, _ in box][::-1]
        counts = [hi - lo for lo, hi in box][::-1]
        origin = (starts[0] * size,) + tuple(starts[1:])
        pitches = (shape[0] * size,) + ((shape[0] * shape[1] * size,) if len(box) == 3 else ())
        cl.enqueue_copy(self.queue, host, dev.base_data, buffer_origin=origin,
                        host_origin=origin,
                        region=(counts[0] * size,) + tuple(counts[1:]),
                        buffer_pitches=pitches, host_pitches=pitches, is_blocking=True)

    def is_device_array(self, obj):
        return isinstance(obj, self._cl_array().Array)

    def synchronize(self):
        self.queue.finish()

    def memory_address(self, dev):
        """The buffer of ``dev`` and its byte offset there (a view of an
        Array: the same buffer at an offset); a sub-buffer is its parent
        buffer at the sub-buffer's origin."""
        buf = dev.base_data
        if buf is None:                 # no elements, no buffer
            return None
        offset = dev.offset
        cl = _cl()
        parent = buf.get_info(cl.mem_info.ASSOCIATED_MEMOBJECT)
        if parent is not None:
            offset += buf.get_info(cl.mem_info.OFFSET)
            buf = parent
        return (self.name, buf.int_ptr), offset

    def foreign_array(self, dev):
        """An array made on another pyopencl context (before ``set_context``
        or ``set_queue``) cannot be used by kernels built for this one."""
        context = getattr(dev, "context", None)
        if context is None or context == opencl_builder.get_context():
            return None
        return ("it was made on another OpenCL context (before set_context or "
                "set_queue changed it), and kernels run on the current one")

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
        loops, body_pad = index_text.nest(dims)
        source = render("elementwise_opencl", entry=entry.name, double=uses_double(program),
                        serial=serial, unpack=unpack, dims=dims,
                        runtime=runtime, functions=functions,
                        signature=index_text.signature(dims, "long", params),
                        loops=loops, body_pad=body_pad,
                        global_ids=[(d, dims - 1 - d) for d in range(dims)],
                        in_bounds=index_text.in_range(dims),
                        call="%s(%s);" % (entry.c_name, args))
        return GeneratedKernel("elementwise", entry.name, "opencl", source,
                               ("pc_elementwise",), tuple(entry.args[dims:]),
                               (("serial", serial), ("index_dims", dims)))

    def build_elementwise(self, program, func, config):
        check_double(self, program)
        generated = self.generate_elementwise(program, func, config)
        dims = program.index_dims
        serial = generated.option("serial")
        kernel = own_kernel(opencl_builder.build_opencl(
            generated.source, ["pc_elementwise"])["pc_elementwise"])
        args = KernelArgs([t for _, t in generated.args], [(kernel, dims)])
        queue = self.queue
        # few long items (kernel_options): a work-group each, over the cores
        wgs = (1 if options_of(func).get("parallel_items")
               else elementwise_wg(kernel, queue.device, config))
        enqueue_nd = _cl().enqueue_nd_range_kernel
        sizes = [None, None, None]      # n, global size, local size of the last launch

        def enqueue(n):
            """Launch over extents ``n`` (an int, or a tuple of ``dims``);
            the user arguments are set."""
            if n != sizes[0]:
                extents = n if dims > 1 else (n,)
                if 0 in extents:
                    return None
                for d, e in enumerate(extents):
                    kernel.set_arg(d, np.int64(e))
                sizes[:] = [n] + list(launch_sizes(extents, serial, wgs))
            return enqueue_nd(queue, kernel, sizes[1], sizes[2])

        def run(n, values):
            args.set(values)
            enqueue(n)
        if dims > 1:
            return BuiltKernel(generated, self.name, run)
        return BuiltKernel(generated, self.name, run,
                           binder(args, enqueue, queue.context, _names(generated)))

    def generate_reduction(self, spec, config):
        """The :class:`~pcompute.records.GeneratedKernel` of a two-stage
        Reduction; needs no device."""
        programs = reduction_programs(spec)
        runtime, functions, printer = print_programs(programs, "opencl")
        check_no_link(printer, self)
        entry = spec.map_program.entry
        params, unpack, cargs = pointer_parts(entry, printer)
        double = any(uses_double(p) for p, _ in programs)
        source = render("reduction_device", dialect=self.dialect, name=spec.name,
                        unpack=unpack, expr=reduction_text(spec),
                        coalesced=False,     # contiguous chunks suit CPU devices
                        device=device_preamble(self.dialect, double),
                        wg=reduction_wg(config), prelude=runtime,
                        functions=functions, **device_record(spec, printer, params, cargs))
        return GeneratedKernel("reduction", spec.name, "opencl", source,
                               ("pc_reduce_stage1", "pc_reduce_stage2"),
                               tuple(entry.args[1:]), (("wg", reduction_wg(config)),))

    def build_reduction(self, spec, config):
        for program, _ in reduction_programs(spec):
            check_double(self, program)
        generated = self.generate_reduction(spec, config)
        kernels = opencl_builder.build_opencl(generated.source, list(generated.entries))
        stage1 = own_kernel(kernels["pc_reduce_stage1"])
        stage2 = own_kernel(kernels["pc_reduce_stage2"])
        entry = spec.map_program.entry
        args = KernelArgs([t for _, t in entry.args[1:]], [(stage1, 1)])
        wg = generated.option("wg")
        cl = _cl()
        enqueue_nd, copy = cl.enqueue_nd_range_kernel, cl.enqueue_copy
        parts = spec.parts
        dtype = spec.out_type.dtype if parts is None else parts.record_dtype()
        queue = self.queue
        partial = self.empty(wg, dtype)
        out = self.empty(1, dtype)
        host = np.empty(1, dtype)
        args.hold(partial, out)
        out_buffer = out.data
        stage1.set_arg(1 + args.width, partial.data)
        stage2.set_arg(1, partial.data)
        stage2.set_arg(2, out_buffer)
        sizes = [None, None]            # n and the global size of stage 1

        def enqueue(n):
            if n == 0:
                return spec.neutral if parts is None else parts.empty()
            if n != sizes[0]:
                groups = min(wg, (n + wg - 1) // wg)
                stage1.set_arg(0, np.int64(n))
                stage2.set_arg(0, np.int64(groups))
                sizes[:] = [n, (groups * wg,)]
            enqueue_nd(queue, stage1, sizes[1], (wg,))
            enqueue_nd(queue, stage2, (wg,), (wg,))
            copy(queue, host, out_buffer)    # blocking
            return host[0] if parts is None else parts.finish(host[0])

        def run(n, values):
            args.set(values)
            return enqueue(n)
        return BuiltKernel(generated, self.name, run,
                           binder(args, enqueue, queue.context, _names(generated),
                                  returns=True))

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


#: Work-items per work-group of an Elementwise launch unless ``Config.wgs``
#: sets one.  Always a fixed size, never the driver's choice: PoCL compiles a
#: kernel's work-group function for each local size it runs with, and left to
#: choose it picks one from the global size, so every new ``n`` cost a new
#: native compile (50-85 ms per new n for an axpy, AMD EPYC, PoCL 3.1), and a
#: prime ``n`` got work-groups of one item.  The global size is rounded up to
#: a multiple; the kernels skip the items past ``n``.
ELEMENTWISE_WG = 64


def elementwise_wg(kernel, device, config):
    """The work-group size of Elementwise ``kernel`` on ``device``:
    ``config.wgs``, else :data:`ELEMENTWISE_WG` or the kernel's largest
    work-group size on the device if that is smaller."""
    if config.wgs:
        return config.wgs
    cl = _cl()
    most = kernel.get_work_group_info(cl.kernel_work_group_info.WORK_GROUP_SIZE, device)
    return max(1, min(ELEMENTWISE_WG, most))


def launch_sizes(extents, serial, wgs):
    """(global size, local size) of an Elementwise over ``extents`` (the
    last index on axis 0, the fastest varying one: coalesced)."""
    dims = len(extents)
    if serial:
        return (1,) * dims, None
    gsize = tuple(extents[::-1])
    if not wgs:
        return gsize, None
    gsize = ((gsize[0] + wgs - 1) // wgs * wgs,) + gsize[1:]
    return gsize, (wgs,) + (1,) * (dims - 1)


def _names(generated):
    return tuple(name for name, _ in generated.args)


def _cl():
    import pyopencl
    return pyopencl


def reduction_wg(config):
    """Work-group size of reductions: the configured one, else 64."""
    wgs = config.wgs or 64
    if wgs & (wgs - 1):
        raise ValueError("the work-group size for reductions must be a power of two, "
                         "got %d" % wgs)
    return wgs
