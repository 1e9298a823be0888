"""Scan on the cuda backend: the three passes of the opencl backend in CUDA C.

G thread blocks each own one contiguous chunk of the n items and walk it in
tiles of one item per thread (coalesced loads and stores): pass 1 reduces
every chunk (segment-aware, each tile in order in shared memory), pass 2 (one
block) scans the G results into carries and the total (``last_item``, kept on
the device), pass 3 rescans every chunk tile by tile from its carry and calls
the output.  The generated source is complete CUDA C
(``generate_scan``), so it is compile-checked with nvcc where no GPU exists.
"""
import numpy as np

from ..build import cuda_builder
from ..codegen import device_preamble, print_programs
from ..records import BuiltKernel, GeneratedKernel
from ._device import (CUDA_BLOCK as BLOCK, check_double, check_no_link, reduction_groups,
                      scalar_dtype)
from .cl_args import binder
from .cuda_args import Packed, PackedArgs, address, packable
from .scan_opencl import kernel_params
from .scan_device import scan_device_source

KERNELS = ("pc_scan_pass1", "pc_scan_pass2", "pc_scan_pass3")


def tile_groups(block):
    """Thread blocks of passes 1 and 3 at most: two waves of resident blocks
    (the device's multiprocessors x the blocks of ``block`` threads each
    holds), each walking its chunk tile by tile."""
    return reduction_groups(block)


def scan_block(config):
    """Threads per block: the configured work-group size, else 256."""
    return config.wgs or BLOCK


def generate_scan(backend, spec, config):
    """The CUDA source of the scan described by ``spec`` (needs no GPU)."""
    runtime, functions, printer = print_programs(spec.programs(), "cuda")
    check_no_link(printer, backend)
    segment_call = None
    if spec.segment is not None:
        segment_call = spec.call_text("segment", i="pc_i", N="pc_n")
    source = scan_device_source(
        dialect=backend.dialect, name=spec.name, expr=spec.expr,
        device=device_preamble(backend.dialect), wg=scan_block(config),
        prelude=runtime, functions=functions, T=printer.type_name(spec.out_type),
        neutral=printer.literal(spec.neutral.item(), spec.out_type),
        params=kernel_params(spec, printer), complex_map=spec.complex_map,
        need_last=spec.needs("last_item"), segment_call=segment_call,
        input_call=spec.call_text("input", i="pc_i", N="pc_n"), tiled=True,
        output_call="", output_call_tiled=spec.call_text(
            "output", i="pc_i", item="pc_item", prev_item="pc_prev", last_item="pc_last",
            N="pc_n"))
    return GeneratedKernel("scan", spec.name, "cuda", source, tuple(KERNELS),
                           tuple(zip(spec.arg_names, spec.arg_types)), ())


def build_scan(backend, spec, config):
    """The BuiltKernel performing the scan described by ``spec``."""
    for f in spec.functions:
        check_double(backend, f.program)
    generated = generate_scan(backend, spec, config)
    kernels = cuda_builder.build_cuda(generated.source, KERNELS)
    pass1, pass2, pass3 = (kernels[k] for k in KERNELS)
    pointers = [t.is_pointer for t in spec.arg_types]
    user = "".join("P" if p else scalar_dtype(t).char for p, t in zip(pointers, spec.arg_types))
    mapped = "P" if spec.complex_map else ""
    fmt = "qq" + user + "PP" + mapped
    pass1.prepare(fmt)
    pass2.prepare("qPPPP")
    pass3.prepare(fmt)
    block = scan_block(config)
    most = tile_groups(block)
    dtype = spec.out_type.dtype
    sums = backend.empty(most, dtype)
    carry = backend.empty(most, dtype)
    flags = backend.empty(most, np.int32)
    total = backend.empty(1, dtype)
    if packable(fmt):
        return _packed_scan(backend, generated, spec, (pass1, pass2, pass3), fmt, block, most,
                            (sums, flags, carry, total))
    store = {}

    def mapped_buffer(n):
        buf = store.get("mapped")
        if buf is None or len(buf) < n:
            buf = store["mapped"] = backend.empty(max(n, 1), dtype)
        return [buf.gpudata]

    def run(n, args):
        if n == 0:
            return
        tiles = (n + most * block - 1) // (most * block)    # per block
        groups = (n + tiles * block - 1) // (tiles * block)
        grid = (groups, 1)
        values = [a.gpudata if ptr else a for ptr, a in zip(pointers, args)]
        extra = mapped_buffer(n) if spec.complex_map else []
        n64, tiles64 = np.int64(n), np.int64(tiles)
        pass1.prepared_async_call(grid, (block, 1, 1), None, n64, tiles64, *values,
                                  sums.gpudata, flags.gpudata, *extra)
        pass2.prepared_async_call((1, 1), (block, 1, 1), None, np.int64(groups),
                                  sums.gpudata, flags.gpudata, carry.gpudata, total.gpudata)
        pass3.prepared_async_call(grid, (block, 1, 1), None, n64, tiles64, *values,
                                  carry.gpudata, total.gpudata, *extra)
    return BuiltKernel(generated, backend.name, run)


def _whole_pointer(t, dev):
    return [address(dev)]


def _packed_scan(backend, generated, spec, passes, fmt, block, most, buffers):
    """The BuiltKernel of the scan launching its packed parameters (re-packed
    only when an argument changed), with a fast call (``cl_args.binder``)."""
    first, middle, last = Packed(passes[0], fmt), Packed(passes[1], "qPPPP"), \
        Packed(passes[2], fmt)
    args = PackedArgs(spec.arg_types, [(first, 2), (last, 2)],
                      pointer=(_whole_pointer, lambda t: 1))
    sums, flags, carry, total = buffers
    args.hold(*buffers)
    after = 2 + args.width          # the first field after the user arguments
    for packed, fixed in ((first, (sums, flags)), (last, (carry, total))):
        for j, buf in enumerate(fixed):
            packed.put(after + j, int(buf.gpudata))
    for j, buf in enumerate(buffers):
        middle.put(1 + j, int(buf.gpudata))
    state = [None, None, None]      # n, grid of passes 1 and 3, mapped buffer
    shape = (block, 1, 1)

    def enqueue(n):
        if n != state[0]:
            if n == 0:
                return
            tiles = (n + most * block - 1) // (most * block)    # per block
            groups = (n + tiles * block - 1) // (tiles * block)
            for packed in (first, last):
                packed.put(0, n)
                packed.put(1, tiles)
            middle.put(0, groups)
            if spec.complex_map and (state[2] is None or len(state[2]) < n):
                state[2] = backend.empty(max(n, 1), spec.out_type.dtype)
                first.put(after + 2, int(state[2].gpudata))
                last.put(after + 2, int(state[2].gpudata))
            state[:2] = [n, (groups, 1)]
        first.start(state[1], shape, first.buffer, 0, None)
        middle.start((1, 1), shape, middle.buffer, 0, None)
        last.start(state[1], shape, last.buffer, 0, None)

    def run(n, values):
        args.set(values)
        enqueue(n)
    return BuiltKernel(generated, backend.name, run,
                       binder(args, enqueue, None, tuple(spec.arg_names)))
