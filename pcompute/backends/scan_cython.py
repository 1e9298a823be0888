"""Scan on the cython backend: serial, or block-wise in parallel with OpenMP.

With OpenMP (and at least ``SCAN_SERIAL_BELOW`` items) each thread takes one
contiguous block: pass 1 reduces its block (the scan since the block's last
segment start, and whether a segment starts in it), a serial exclusive scan
of the block results gives each block its carry (restarting after blocks
that contain a segment start), and pass 2 rescans each block from its carry,
calling the output.  ``last_item`` is the carry after the last block.  The
serial path runs pass 1 over everything only when the output needs
``last_item``.  Temporaries are C values and C arrays: no Python objects in
the ``nogil`` code.
"""
from ..build.cython_builder import build_cython
from ..codegen import print_programs
from ..records import BuiltKernel, GeneratedKernel
from ..templates import render
from .cython_fast import binder, fast_arguments, fast_source
from .cython_launch import extern_link_args, pointer_launcher

#: Blocks per OpenMP thread, handed out dynamically: on a busy machine a thread
#: that gets less CPU time does fewer blocks.
BLOCKS_PER_THREAD = 4
#: Below this many items the scan runs serially even with OpenMP: it reads
#: its input twice in parallel, and on 2 cores the serial scan was faster up
#: to 25000 int32 counts (best of 600 calls: 16 us serial, 19 us parallel;
#: 48 against 63 us at 10^5).
SCAN_SERIAL_BELOW = 1 << 15


def block_len(segment_call):
    """The text of a block's lane length in the OpenMP passes: 8 lanes of a
    block (scans without segments), none ("0": one chain) with segments."""
    if segment_call:
        return "0"
    return "(min(pc_n, (pc_b + 1) * pc_chunk) - min(pc_n, pc_b * pc_chunk)) // 8"


def generate_scan(backend, spec, config):
    """The GeneratedKernel (Cython) of the scan described by ``spec``; compiles nothing."""
    runtime, functions, printer = print_programs(spec.programs(), "cython")
    cnames = spec.arg_cnames()
    params, unpack, cparams, fast = [], [], [], []
    for name, t in zip(spec.arg_names, spec.arg_types):
        cname, tname = cnames[name], printer.type_name(t)
        fast.append((name, cname, t, tname))
        cparams.append("%s %s" % (tname, cname))
        if t.is_pointer:
            params.append("size_t pc_a_%s" % name)
            unpack.append("cdef %s %s = <%s>pc_a_%s" % (tname, cname, tname, name))
        else:
            params.append("%s %s" % (tname, cname))

    def output_call(item):
        return spec.call_text("output", i="pc_i", item=item, prev_item="pc_prev",
                              last_item="pc_last", N="pc_n")

    segment_call = None
    if spec.segment is not None:
        segment_call = spec.call_text("segment", i="pc_i", N="pc_n")
    openmp = backend.use_openmp(config)
    neutral = printer.literal(spec.neutral.item(), spec.out_type)  # before cimports()
    need_last = spec.needs("last_item")
    source = render(
        "scan_cython", name=spec.name, expr=spec.expr, openmp=openmp,
        cimports=printer.cimports(), runtime=runtime, functions=functions,
        T=printer.type_name(spec.out_type), neutral=neutral, unpack=unpack,
        run_params=", ".join(["long long pc_n"] + params),
        run_args=", ".join(["pc_n"] + [p.split()[-1] for p in params]),
        extra="".join(", " + p for p in cparams),
        args="".join(", " + cnames[n] for n in spec.arg_names),
        input_i=spec.call_text("input", i="pc_i", N="pc_n"),
        output_acc=output_call("pc_acc"), output_item=output_call("pc_item"),
        segment_call=segment_call, block_len=block_len(segment_call),
        complex_map=spec.complex_map, need_last=need_last, need_last_flag=int(need_last),
        serial_below=SCAN_SERIAL_BELOW, blocks_per_thread=BLOCKS_PER_THREAD,
        most_blocks=64 * BLOCKS_PER_THREAD,
        fastcall=fast_source(fast_arguments(fast)))
    return GeneratedKernel("scan", spec.name, "cython", source, ("run",),
                           tuple(zip(spec.arg_names, spec.arg_types)),
                           (("openmp", openmp), ("link", extern_link_args(printer))))


def build_scan(backend, spec, config):
    """The BuiltKernel performing the scan described by ``spec``."""
    generated = generate_scan(backend, spec, config)
    module = build_cython(generated.source, "scan_" + spec.name,
                          generated.option("openmp"),
                          extra_link_args=generated.option("link", ()))
    return BuiltKernel(generated, backend.name, pointer_launcher(module.run, generated),
                       binder(module, generated))
