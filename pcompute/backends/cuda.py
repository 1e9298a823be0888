"""The cuda backend: pycuda, with kernels generated as CUDA C.

It cannot run where pycuda or a CUDA driver is missing; ``why_unavailable``
then says why, and the generated code is still compile-checked with nvcc.
"""
import atexit

import numpy as np

from ..build import cuda_builder
from ..codegen import device_preamble, print_programs, printer_for
from ..codegen.arrays import expanded_names
from ..codegen.kernel import kernel_source
from ..records import BuiltKernel, GeneratedKernel
from ..templates import render
from ._device import (CUDA_BLOCK, DeviceArrays, check_double, check_no_link,
                      reduction_groups, scalar_dtype)
from . import index_text, scan_cuda, sort_cuda
from .cl_args import binder
from .cuda_args import Packed, PackedArgs, launch_format, launch_values, packable
from .base import Backend, is_serial
from .reduction_parts import device_record, reduction_programs, reduction_text
from .reduce_ops import reduce_operator

BLOCK = CUDA_BLOCK
# Thread blocks of 2-D and 3-D index spaces: x (the last index) fastest.
BLOCK_ND = {2: (32, 8, 1), 3: (32, 4, 2)}


class CUDABackend(DeviceArrays, Backend):
    """Kernels in CUDA C through pycuda."""

    name = "cuda"
    sort_checks_key_bits = True      # device_sort checks the range from the keys' OR
    dialect = "cuda"
    on_host = False

    def why_unavailable(self):
        return cuda_builder.cuda_why_unavailable()

    def _gpuarray(self):
        cuda_builder.ensure_context()
        from pycuda import gpuarray
        return gpuarray

    def timed_call(self, kernel, args, kwargs):
        """A pycuda Function runs with ``time_kernel=True``; its result is
        the time (as in Compyle).  Other callables: see Backend.timed_call."""
        if hasattr(kernel, "prepared_timed_call"):
            seconds = kernel(*args, time_kernel=True, **kwargs)
            return seconds, seconds
        return Backend.timed_call(self, kernel, args, kwargs)

    def calling_convention(self, kind):
        if kind == "elementwise":
            return ("extern \"C\" kernel pc_elementwise(long long n, then the "
                    "arguments); grid-stride loop, any grid")
        return None

    def device_name(self):
        cuda_builder.ensure_context()
        import pycuda.driver as drv
        return drv.Context.get_device().name()

    def supports_double(self):
        return True

    def demote_double(self, config):
        return not config.use_double

    # -- memory ------------------------------------------------------------------
    _pool = None

    def memory_pool(self):
        """The pycuda ``DeviceMemoryPool`` every device array of this backend
        comes from (as CuPy's default pool): the temporaries of reductions,
        scans and sorts reuse freed blocks instead of calling cuMemAlloc and
        cuMemFree (which synchronises the device) on each call.  Freed blocks
        stay held by the pool; ``memory_pool().free_held()`` returns them to
        the driver (the pool also does so itself when an allocation fails)."""
        if CUDABackend._pool is None:
            cuda_builder.ensure_context()
            from pycuda.tools import DeviceMemoryPool
            pool = DeviceMemoryPool()
            # A pool still holding blocks when pycuda pops its context at exit
            # aborts the interpreter ("explicit_context_dependent failed",
            # pycuda issue 74); stop_holding frees them first.  atexit runs
            # this before pycuda's own handler, registered when the context
            # was made above.
            atexit.register(pool.stop_holding)
            CUDABackend._pool = pool
        return CUDABackend._pool

    def empty(self, n, dtype):
        gpuarray = self._gpuarray()
        return gpuarray.empty(n, dtype, allocator=self.memory_pool().allocate)

    def to_device(self, host):
        gpuarray = self._gpuarray()
        return gpuarray.to_gpu(np.ascontiguousarray(host),
                               allocator=self.memory_pool().allocate)

    def is_device_array(self, obj):
        return isinstance(obj, self._gpuarray().GPUArray)

    def memory_address(self, dev):
        """The device address of ``dev`` (one address space per process:
        a view's pointer lies inside its base's allocation)."""
        return None if dev.gpudata is None else (self.name, int(dev.gpudata))

    def synchronize(self):
        import pycuda.driver as drv
        drv.Context.synchronize()

    # -- kernels -------------------------------------------------------------------
    def generate_elementwise(self, program, func, config):
        """The :class:`~pcompute.records.GeneratedKernel` of an Elementwise
        kernel (needs no GPU)."""
        serial = is_serial(func)
        printer = printer_for(program, "cuda")
        runtime, functions = printer.print_program()
        entry = program.entry
        dims = program.index_dims
        check_no_link(printer, self)
        params = [printer.param(entry.cname(n), t) for n, t in entry.args[dims:]]
        index = ["pc_i"] if dims == 1 else ["pc_i%d" % d for d in range(dims)]
        args = ", ".join(index + expanded_names(entry, dims))
        nest, body_pad = index_text.nest(dims)
        axes = "xyz"[:dims][::-1]       # the last index on x
        source = render("elementwise_cuda", entry=entry.name, runtime=runtime,
                        serial=serial, functions=functions, dims=dims,
                        signature=index_text.signature(dims, "long long", params),
                        loops=[(pad, d, axes[d]) for pad, d in nest], body_pad=body_pad,
                        call="%s(%s);" % (entry.c_name, args))
        return GeneratedKernel("elementwise", entry.name, "cuda", source,
                               ("pc_elementwise",), tuple(entry.args[dims:]),
                               (("serial", serial), ("index_dims", dims)))

    def build_elementwise(self, program, func, config):
        check_double(self, program)
        generated = self.generate_elementwise(program, func, config)
        serial = generated.option("serial")
        kernel = cuda_builder.build_cuda(generated.source,
                                         ["pc_elementwise"])["pc_elementwise"]
        dims = program.index_dims
        types = [t for _, t in generated.args]
        fmt = "q" * dims + launch_format(types)
        kernel.prepare(fmt)
        block = config.wgs or BLOCK
        if dims == 1 and packable(fmt):
            return self._packed_elementwise(generated, kernel, fmt, serial, block)

        def run(n, args):
            if n == 0:
                return
            grid = (1, 1) if serial else (min((n + block - 1) // block, 65535 * 8), 1)
            values = launch_values(types, args)
            kernel.prepared_async_call(grid, (block, 1, 1), None, np.int64(n), *values)

        def run_nd(n, args):
            if 0 in n:
                return
            shape = BLOCK_ND[dims]
            axes = n[::-1]  # x: the last index
            grid = (1, 1, 1) if serial else tuple(
                min((axes[d] + shape[d] - 1) // shape[d], 65535) if d < dims else 1
                for d in range(3))
            values = launch_values(types, args)
            kernel.prepared_async_call(grid[:2] if dims == 2 else grid,
                                       (1, 1, 1) if serial else shape, None,
                                       *(np.int64(v) for v in n), *values)
        return BuiltKernel(generated, self.name, run if dims == 1 else run_nd)

    def _packed_elementwise(self, generated, kernel, fmt, serial, block):
        """The BuiltKernel of a 1-D Elementwise launching its packed
        parameters (re-packed only when an argument changed), with a fast
        call (``cl_args.binder``)."""
        packed = Packed(kernel, fmt)
        args = PackedArgs([t for _, t in generated.args], [(packed, 1)])
        sizes = [None, None]            # n and the grid of the last launch
        shape = (block, 1, 1)
        start, buffer = packed.start, packed.buffer

        def enqueue(n):
            if n != sizes[0]:
                if n == 0:
                    return None
                packed.put(0, n)
                sizes[:] = [n, (1, 1) if serial else
                            (min((n + block - 1) // block, 65535 * 8), 1)]
            return start(sizes[1], shape, buffer, 0, None)

        def run(n, values):
            args.set(values)
            enqueue(n)
        return BuiltKernel(generated, self.name, run,
                           binder(args, enqueue, None, _names(generated)))

    def generate_reduction(self, spec, config):
        """The :class:`~pcompute.records.GeneratedKernel` of a two-stage
        Reduction (needs no GPU)."""
        runtime, functions, printer = print_programs(reduction_programs(spec), "cuda")
        check_no_link(printer, self)
        entry = spec.map_program.entry
        params = [printer.param(entry.cname(n), t) for n, t in entry.args[1:]]
        cargs = expanded_names(entry, 1)
        wg = config.wgs or BLOCK
        # An operator that commutes is reduced with strided (coalesced) reads;
        # any other, a tuple of them or ordered=True keeps contiguous chunks
        # combined in order.
        coalesced = (spec.parts is None and not spec.ordered
                     and reduce_operator(reduction_text(spec)) is not None)
        source = render("reduction_device", dialect=self.dialect, name=spec.name,
                        expr=reduction_text(spec), coalesced=coalesced,
                        device=device_preamble(self.dialect), unpack=(), wg=wg,
                        prelude=runtime, functions=functions,
                        **device_record(spec, printer, params, cargs))
        return GeneratedKernel("reduction", spec.name, "cuda", source,
                               ("pc_reduce_stage1", "pc_reduce_stage2"),
                               tuple(entry.args[1:]), (("wg", wg),))

    def build_reduction(self, spec, config):
        generated = self.generate_reduction(spec, config)
        kernels = cuda_builder.build_cuda(generated.source, list(generated.entries))
        stage1, stage2 = kernels["pc_reduce_stage1"], kernels["pc_reduce_stage2"]
        entry = spec.map_program.entry
        types = [t for _, t in entry.args[1:]]
        fmt = "q" + launch_format(types) + "P"
        stage1.prepare(fmt)
        stage2.prepare("qPP")
        wg = generated.option("wg")
        parts = spec.parts
        dtype = spec.out_type.dtype if parts is None else parts.record_dtype()
        max_groups = reduction_groups(wg)
        partial = self.empty(max_groups, dtype)
        out = self.empty(1, dtype)
        if packable(fmt):
            return self._packed_reduction(generated, spec, (stage1, stage2), fmt, types, wg,
                                          max_groups, partial, out)

        def run(n, args):
            if n == 0:
                return spec.neutral if parts is None else parts.empty()
            groups = min(max_groups, (n + wg - 1) // wg)
            values = launch_values(types, args)
            stage1.prepared_call((groups, 1), (wg, 1, 1), np.int64(n), *values,
                                 partial.gpudata)
            stage2.prepared_call((1, 1), (wg, 1, 1), np.int64(groups), partial.gpudata,
                                 out.gpudata)
            result = out.get()[0]
            return result if parts is None else parts.finish(result)
        return BuiltKernel(generated, self.name, run)

    def _packed_reduction(self, generated, spec, stages, fmt, types, wg, max_groups,
                          partial, out):
        """The BuiltKernel of a Reduction launching its packed parameters,
        with a fast call; the result comes back by one copy."""
        import pycuda.driver as drv
        memcpy_dtoh = drv.memcpy_dtoh
        first, second = Packed(stages[0], fmt), Packed(stages[1], "qPP")
        args = PackedArgs(types, [(first, 1)])
        args.hold(partial, out)
        first.put(len(fmt) - 1, int(partial.gpudata))
        second.put(1, int(partial.gpudata))
        second.put(2, int(out.gpudata))
        parts = spec.parts
        host = np.empty(1, out.dtype)
        sizes = [None, None]            # n and the grid of stage 1
        shape = (wg, 1, 1)

        def enqueue(n):
            if n == 0:
                return spec.neutral if parts is None else parts.empty()
            if n != sizes[0]:
                groups = min(max_groups, (n + wg - 1) // wg)
                first.put(0, n)
                second.put(0, groups)
                sizes[:] = [n, (groups, 1)]
            first.start(sizes[1], shape, first.buffer, 0, None)
            second.start((1, 1), shape, second.buffer, 0, None)
            memcpy_dtoh(host, out.gpudata)       # waits for the launches
            return host[0] if parts is None else parts.finish(host[0])

        def run(n, values):
            args.set(values)
            return enqueue(n)
        return BuiltKernel(generated, self.name, run,
                           binder(args, enqueue, None, _names(generated), returns=True))

    # -- low-level kernels (pcompute.low_level.Kernel) --------------------------------
    has_work_groups = True

    def generate_kernel(self, program, name, config):
        """The GeneratedKernel of low-level kernel ``program`` (needs no GPU)."""
        entry = program.entry
        return GeneratedKernel("kernel", name, "cuda", kernel_source(program, "cuda", name),
                               (entry.c_name,), tuple(entry.args))

    def build_kernel(self, program, name, config):
        """The BuiltKernel of a low-level kernel: ``built((global_size,
        local_size), values)``; LocalMem arguments become byte offsets into
        the dynamic shared memory."""
        generated = self.generate_kernel(program, name, config)
        entry = generated.entries[0]
        knl = cuda_builder.build_cuda(generated.source, [entry])[entry]

        def launch(sizes, args):
            global_size, local_size = sizes
            local_size = local_size or (128,)
            block = tuple(local_size) + (1,) * (3 - len(local_size))
            grid = tuple(int(g) // int(b) for g, b in zip(global_size, block))
            values, shared = [], 0
            for (_, t), a in zip(generated.args, args):
                if t.is_pointer and t.space == "local":
                    values.append(np.int64(shared))
                    shared += a.nbytes(t.dtype, np.prod(local_size))
                else:
                    values.append(a.gpudata if t.is_pointer else scalar_dtype(t).type(a))
            knl(*values, block=block, grid=grid + (1,) * (2 - len(grid)), shared=shared)
        return BuiltKernel(generated, self.name, launch)

    # -- scan and sort: this backend's modules ---------------------------------------
    def generate_scan(self, spec, config):
        return scan_cuda.generate_scan(self, spec, config)

    def build_scan(self, spec, config):
        return scan_cuda.build_scan(self, spec, config)

    def sort_by_keys(self, keys, values, key_bits, config, permutation=True):
        return sort_cuda.sort_by_keys(self, keys, values, key_bits, config,
                                      permutation=permutation)


def _names(generated):
    return tuple(name for name, _ in generated.args)
