"""Scan on the opencl backend: three generated kernels, launched directly.

P work-items each own one contiguous chunk of the n items.  Pass 1 reduces
every chunk (segment-aware), pass 2 (one work-group) turns the P results into
each chunk's carry with a segmented scan in local memory and stores the
total (``last_item``) on the device, pass 3 rescans every chunk from its carry
and calls the output.  Nothing is copied to the host.  P is small on CPU
devices (a few chunks per compute unit: long contiguous runs) and large on
GPUs (enough work-items to fill the device).
"""
import numpy as np

from ..build import opencl_builder
from ..codegen import device_preamble, print_programs
from ..records import BuiltKernel, GeneratedKernel
from ._device import check_double, check_no_link, uses_double
from .cl_args import KernelArgs, binder, own_kernel, whole_buffer
from .scan_device import scan_device_source

KERNELS = ("pc_scan_pass1", "pc_scan_pass2", "pc_scan_pass3")
#: work-items of passes 1 and 3 per compute unit on CPU devices, and on GPUs.
CPU_ITEMS_PER_UNIT = 8
GPU_ITEMS = 65536


#: The tiled layout of passes 1 and 3 (a work-group per chunk, one item per
#: work-item per tile: coalesced on GPUs): None chooses it for devices that
#: are not CPUs; True or False forces it (the tests run it on CPU devices).
TILES = None


def use_tiles(backend):
    """True when scans on ``backend``'s device use the tiled layout."""
    if TILES is not None:
        return TILES
    try:
        import pyopencl as cl
        return not backend.queue.device.type & cl.device_type.CPU
    except Exception:           # no device: the source of a CPU device
        return False


def scan_wg(config):
    """Work-group size of the carry pass: the configured one, else 64."""
    return config.wgs or 64


def kernel_params(spec, printer):
    """The kernel parameters of the user arguments, in call order."""
    cnames = spec.arg_cnames()
    return ["%s %s" % (printer.type_name(t), cnames[n])
            for n, t in zip(spec.arg_names, spec.arg_types)]


def generate_scan(backend, spec, config):
    """The GeneratedKernel (OpenCL C) of the scan described by ``spec``; needs no device."""
    runtime, functions, printer = print_programs(spec.programs(), "opencl")
    check_no_link(printer, backend)
    segment_call = None
    if spec.segment is not None:
        segment_call = spec.call_text("segment", i="pc_i", N="pc_n")
    double = any(uses_double(f.program) for f in spec.functions) or \
        uses_double(spec.scan_program)
    source = scan_device_source(
        dialect=backend.dialect, name=spec.name, expr=spec.expr,
        device=device_preamble(backend.dialect, double), wg=scan_wg(config),
        prelude=runtime, functions=functions, T=printer.type_name(spec.out_type),
        neutral=printer.literal(spec.neutral.item(), spec.out_type),
        params=kernel_params(spec, printer), complex_map=spec.complex_map,
        need_last=spec.needs("last_item"), segment_call=segment_call,
        input_call=spec.call_text("input", i="pc_i", N="pc_n"), tiled=use_tiles(backend),
        output_call=spec.call_text("output", i="pc_i", item="pc_acc", prev_item="pc_prev",
                                   last_item="pc_last", N="pc_n"),
        output_call_tiled=spec.call_text("output", i="pc_i", item="pc_item",
                                         prev_item="pc_prev", last_item="pc_last", N="pc_n"))
    return GeneratedKernel("scan", spec.name, "opencl", source, tuple(KERNELS),
                           tuple(zip(spec.arg_names, spec.arg_types)),
                           (("tiled", use_tiles(backend)),))


def work_items(device):
    """The number of chunks (work-items of passes 1 and 3) for ``device``."""
    import pyopencl as cl
    if device.type & cl.device_type.CPU:
        return CPU_ITEMS_PER_UNIT * max(1, device.max_compute_units)
    return GPU_ITEMS


def build_scan(backend, spec, config):
    """The BuiltKernel performing the scan described by ``spec``."""
    for f in spec.functions:
        check_double(backend, f.program)
    check_double(backend, spec.scan_program)
    generated = generate_scan(backend, spec, config)
    kernels = opencl_builder.build_opencl(generated.source, KERNELS)
    pass1, pass2, pass3 = (own_kernel(kernels[k]) for k in KERNELS)
    args = KernelArgs(spec.arg_types, [(pass1, 2), (pass3, 2)],
                      pointer=(whole_buffer, lambda t: 1))
    queue = backend.queue
    wg = scan_wg(config)
    tiled = generated.option("tiled")
    # A fixed work-group size, never the driver's choice: that follows the
    # global size, and PoCL compiles passes 1 and 3 again for each new one
    # (every n below the item count; see opencl.ELEMENTWISE_WG).  Chunks:
    # a work-group each (so the driver spreads them over the cores) unless
    # the configuration sets a size.
    local = (config.wgs,) if config.wgs else (1,)
    most = work_items(queue.device)
    if config.wgs or tiled:
        most = (most + wg - 1) // wg * wg
    if tiled:     # enough work-groups to fill a GPU (and several on a CPU device)
        local = (wg,)
        most = max(most, 64 * wg)
    dtype = spec.out_type.dtype
    sums = backend.empty(most, dtype)
    carry = backend.empty(most, dtype)
    flags = backend.empty(most, np.int32)
    total = backend.empty(1, dtype)
    args.hold(sums, carry, flags, total)
    after = 2 + args.width          # the first parameter after the user arguments
    for kernel, buffers in ((pass1, (sums, flags)), (pass3, (carry, total))):
        for j, buf in enumerate(buffers):
            kernel.set_arg(after + j, buf.data)
    for j, buf in enumerate((sums, flags, carry, total)):
        pass2.set_arg(1 + j, buf.data)
    import pyopencl as cl
    enqueue_nd = cl.enqueue_nd_range_kernel
    state = [None, None, None]      # n, global size of passes 1 and 3, mapped buffer

    def enqueue(n):
        if n == 0:
            return
        if n != state[0]:
            chunk = (n + most - 1) // most
            p = (n + chunk - 1) // chunk
            p = (p + local[0] - 1) // local[0] * local[0]
            if tiled:     # chunk: tiles of wg items per work-group
                chunk = (n + most - 1) // most
                p = (n + chunk * wg - 1) // (chunk * wg) * wg
            for kernel in (pass1, pass3):
                kernel.set_arg(0, np.int64(n))
                kernel.set_arg(1, np.int64(chunk))
            pass2.set_arg(0, np.int64(p // wg if tiled else p))
            if spec.complex_map and (state[2] is None or len(state[2]) < n):
                state[2] = backend.empty(max(n, 1), dtype)
                pass1.set_arg(after + 2, state[2].data)
                pass3.set_arg(after + 2, state[2].data)
            state[:2] = [n, (p,)]
        enqueue_nd(queue, pass1, state[1], local)
        enqueue_nd(queue, pass2, (wg,), (wg,))
        enqueue_nd(queue, pass3, state[1], local)

    def run(n, values):
        args.set(values)
        enqueue(n)
    names = tuple(spec.arg_names)
    return BuiltKernel(generated, backend.name, run,
                       binder(args, enqueue, queue.context, names))
