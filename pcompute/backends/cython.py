"""The cython backend: Cython compiled with the C compiler, serial or OpenMP."""
import logging
import re

import numpy as np

from ..build import toolchain
from ..build.cython_builder import build_cython
from ..config import DEFAULT_SCHEDULE
from ..codegen import print_programs, printer_for
from ..codegen.arrays import expanded_names, hidden_names, stride_name
from ..codegen.blockmath import block_source, plan as block_plan
from ..kernel_options import options_of
from ..records import BuiltKernel, GeneratedKernel
from ..templates import render
from ..types import dtype_to_ctype
from .base import Backend, is_serial
from .reduce_ops import reduce_operator  # noqa: F401 (also imported from here)
from .cython_launch import (SERIAL_BELOW, array_address, extern_link_args,  # noqa: F401
                            launch_converter, openmp_threads, pointer_launcher, serial_below)
from . import index_text
from .cython_fast import binder, fast_arguments, fast_source

log = logging.getLogger("pcompute.backends.cython")


#: Chunks per OpenMP loop of a kernel built with the ``balance`` option.
BALANCE_CHUNKS = 64


def schedule_clause(schedule):
    """The prange keyword text for an ``(kind, chunk)`` schedule."""
    kind, chunk = schedule
    text = ", schedule='%s'" % kind
    if chunk:
        text += ", chunksize=%d" % chunk
    return text


def elementwise_schedules(func, config, counts):
    """The prange keyword texts of an Elementwise's OpenMP loops over the
    item counts ``counts`` (names of C variables).  The configured schedule;
    but a kernel built with the ``balance`` option (its items do unequal
    work) under the default schedule hands its items out dynamically, in
    :data:`BALANCE_CHUNKS` chunks per loop, so a thread that got light items
    takes more."""
    options = options_of(func) if func is not None else {}
    if options.get("balance") and tuple(config.omp_schedule) == DEFAULT_SCHEDULE:
        return ["%s, chunksize=%s // %d + 1" % (schedule_clause(("dynamic", None)), n,
                                               BALANCE_CHUNKS) for n in counts]
    return [schedule_clause(config.omp_schedule)] * len(counts)


def row_peel(entry, align):
    """The expression of a 2-D Elementwise's first aligned item of row
    ``pc_i0`` (the ``align_rows`` build option ``align``: array name, row
    and column start): how many of the row's first items to run before its
    store to that array reaches a 64-byte boundary (at most the row's
    length); None without the option or for an array it cannot be (not a
    C-ordered 2-D array argument)."""
    if not align:
        return None
    name, row, col = align
    t = dict(entry.args).get(name)
    if t is None or not t.is_ndarray or t.ndim != 2 or t.layout != "C":
        return None
    cname = entry.cname(name)
    address = "<size_t>(%s + (%d + pc_i0) * %s + %d)" % (cname, row, stride_name(cname, 0), col)
    return "min(pc_n1, <long long>(((64 - (%s & 63)) & 63) // sizeof(%s[0])))" % (
        address, cname)


def static_shares(func, config):
    """True when an Elementwise's OpenMP loops run as a parallel block in
    which each thread takes its contiguous share of the items (the
    ``elementwise_cython`` template's ``pc_share``), rather than as
    ``prange``: under the default schedule (static) for a kernel without
    the ``balance`` option.  It is OpenMP's static schedule without what
    Cython adds to a ``prange``: the loop variable ``firstprivate`` and
    ``lastprivate``, for which GCC puts a barrier at the start of the loop
    (one more wait for every thread at every launch)."""
    options = options_of(func) if func is not None else {}
    return tuple(config.omp_schedule) == DEFAULT_SCHEDULE and not options.get("balance")


def componentwise(parts):
    """True when a tuple accumulator with neutral elements combines each
    component with itself only, by an operator that commutes (``a0 + b0``,
    ``min(a1, b1)``, ...): its lanes may then be interleaved like a scalar
    sum's."""
    if parts is None or parts.flagged:
        return False
    for k, func in enumerate(parts.reduce_funcs):
        expr = func.source.split("return ")[1].strip()
        plain = re.sub(r"\bb%d\b" % k, "b", re.sub(r"\ba%d\b" % k, "a", expr))
        if re.search(r"\b[ab]\d+\b", plain) or reduce_operator(plain) is None:
            return False
    return True


def lane_math(func):
    """True when ``func``'s kernel calls its math functions through lane
    wrappers (:mod:`pcompute.codegen.lanemath`): built for the host CPU and
    without ``vector_math`` (whose vector functions vectorise anyway)."""
    options = options_of(func) if func is not None else {}
    return bool(options.get("host_cpu")) and not options.get("vector_math")


def module_flags(generated):
    """``(compile_args, link_args)`` a generated Cython kernel is built with
    on top of the builder's: those of its build options and its links."""
    cflags, ldflags = [], []
    if generated.option("vector_math"):
        cflags, ldflags = toolchain.vector_math_flags()
    if generated.option("host_cpu"):
        cflags = cflags + toolchain.host_cpu_flags()
    if generated.option("unroll") and not toolchain.is_msvc():
        cflags = cflags + ["-funroll-loops"]
    if generated.option("fma"):
        cflags = cflags + toolchain.fma_flags()     # last: overrides -ffp-contract=off
    link = list(generated.option("link", ()))
    return cflags, link + [flag for flag in ldflags if flag not in link]


def kernel_build_options(func):
    """The options of ``func``'s :func:`~pcompute.kernel_options.build_options`
    this backend applies, as GeneratedKernel option pairs."""
    options = options_of(func) if func is not None else {}
    names = ("host_cpu", "vector_math", "balance", "unroll", "fma")
    return tuple((name, True) for name in names if options.get(name))


def parallel_items(func):
    """True if ``func`` was built with ``parallel_items`` (few long items:
    run in parallel however few; :mod:`~pcompute.kernel_options`)."""
    return func is not None and bool(options_of(func).get("parallel_items"))


class CythonBackend(Backend):
    """Kernels as Cython modules; OpenMP ``prange`` when ``use_openmp`` is set."""

    name = "cython"
    dialect = "cython"
    comment = "#"
    has_openmp = True
    sort_checks_key_bits = True

    def calling_convention(self, kind):
        if kind == "elementwise":
            return ("module function run(n, then each array as its data address "
                    "(size_t), then each scalar)")
        return None

    speculation_prefetch = True

    def speculation_chunks(self, config):
        """A speculated loop runs as contiguous chunks checked with private
        bitmaps: one chunk per OpenMP thread (at least 2, so that a
        dependence between chunks is still found when one thread runs them)."""
        return max(2, openmp_threads()) if config.use_openmp else 2

    def use_openmp(self, config):
        """True if kernels should run with OpenMP (and OpenMP works here)."""
        if not config.use_openmp:
            return False
        if toolchain.openmp_flags() is None:
            toolchain.warn_no_openmp()
            return False
        return True

    def entry_parts(self, program, printer, first=1):
        """Def parameters, pointer unpacking lines and converters for the entry
        (its arguments from position ``first`` on: 1 skips the index ``i``)."""
        params, unpack, convert = [], [], []
        entry = program.entry
        for name, t in entry.args[first:]:
            cname = entry.cname(name)
            if t.is_pointer:
                params.append("size_t pc_a_%s" % name)
                unpack.append("cdef %s %s = <%s>pc_a_%s" % (
                    printer.type_name(t), cname, printer.type_name(t), name))
                convert.append(array_address)
                # An n-D array's shape and strides follow (codegen/arrays.py).
                params.extend("long long %s" % h for h in hidden_names(cname, t))
            else:
                params.append("%s %s" % (printer.type_name(t), cname))
                convert.append(None)
        return params, unpack, convert

    def fast_call(self, program, printer, first=1, dims=None):
        """The source of the module's compiled fast calls (see
        :mod:`.cython_fast`) for the entry's arguments from ``first`` on, for
        calls given ``shape=`` too over a ``dims``-D index space unless
        ``dims`` is None (see :func:`.cython_fast.fast_source`): '' when
        one of them has none (an object, a strided array)."""
        entry = program.entry
        return fast_source(fast_arguments(
            [(name, entry.cname(name), t, printer.type_name(t))
             for name, t in entry.args[first:]]), dims)

    def generate_elementwise(self, program, func, config):
        """The :class:`~pcompute.records.GeneratedKernel` of an Elementwise
        module; compiles nothing."""
        printer = printer_for(program, "cython")
        printer.lane_math = lane_math(func)
        dims = program.index_dims
        entry = program.entry
        openmp = self.use_openmp(config) and not is_serial(func)
        shares = openmp and static_shares(func, config)
        # Straight-line items with math calls run in blocks (codegen/blockmath):
        # one call per thread's share of the items (or all of them); never
        # @serial items, which may read what the item before wrote.
        blocks = block_plan(program, printer.lane_math) \
            if (not openmp or shares) and not is_serial(func) else None
        if blocks:
            functions = block_source(printer, blocks)
            runtime = printer.module_runtime()
        else:
            runtime, functions = printer.print_program()
        params, unpack, _ = self.entry_parts(program, printer, first=dims)
        index = ["pc_i"] if dims == 1 else ["pc_i%d" % d for d in range(dims)]
        args = ", ".join(index + expanded_names(entry, dims))
        block_call = "%s_block(%%s, %%s%s)" % (entry.c_name, "".join(
            ", " + name for name in expanded_names(entry, dims))) if blocks else None
        # the template pastes the block calls by name: all items, a thread's share
        block_all = block_call % ("0", "pc_n") if blocks else None
        block_share = block_call % ("pc_share(pc_n, pc_thread)",
                                    "pc_share(pc_n, pc_thread + 1)") if blocks else None
        fastcall = self.fast_call(program, printer, first=dims, dims=dims)
        schedule, schedule_total = elementwise_schedules(
            func, config, ["pc_n" if dims == 1 else "pc_n0", "pc_total"])
        peel = row_peel(entry, options_of(func).get("align_rows")) \
            if dims == 2 and func is not None else None
        extents = ["pc_n"] if dims == 1 else ["pc_n%d" % d for d in range(dims)]
        inner_loops, inner_body_pad = index_text.nest(dims, first=1)
        source = render(
            "elementwise_cython", entry=entry.name, openmp=openmp, dims=dims, peel=peel,
            cimports=printer.cimports(), runtime=runtime, functions=functions,
            run_params=("long long pc_n, " + ", ".join(params) if dims == 1
                        else index_text.signature(dims, "long long", params)),
            run_args=", ".join(extents + [p.split()[-1] for p in params]),
            indices=", ".join(index), last_axis=dims - 1, total=" * ".join(extents),
            inner_loops=inner_loops, inner_body_pad=inner_body_pad,
            fastcall=fastcall, unpack=unpack, call="%s(%s)" % (entry.c_name, args),
            serial_below=2 if parallel_items(func) else serial_below(program, func),
            schedule=schedule, schedule_total=schedule_total,
            shares=shares, parallel_name="parallel" if shares else "prange",
            block_all=block_all, block_share=block_share,
            pad="    " if shares else "")
        return GeneratedKernel("elementwise", entry.name, "cython", source, ("run",),
                               tuple(entry.args[dims:]),
                               (("openmp", openmp), ("index_dims", dims),
                                ("link", extern_link_args(printer)))
                               + kernel_build_options(func))

    def _module(self, generated, module_name):
        """The compiled module of a generated Cython kernel."""
        cflags, ldflags = module_flags(generated)
        return build_cython(generated.source, module_name, generated.option("openmp"),
                            extra_compile_args=cflags, extra_link_args=ldflags)

    builds_together = True

    def prebuild_elementwise(self, items, config):
        """Build the Elementwise kernels of ``items`` (``(program, func)``
        pairs) as group modules (:mod:`pcompute.build.cython_group`): one
        module per set of build flags instead of one per kernel."""
        return self.prebuild([self.generate_elementwise(program, func, config)
                              for program, func in items], config)

    def before_compile(self, hook):
        """``hook()`` runs before the first module compiled within the block
        (:func:`pcompute.build.cython_builder.before_compile`)."""
        from ..build.cython_builder import before_compile
        return before_compile(hook)

    def prebuild(self, generated, config):
        """Build the generated kernels ``generated`` (Elementwise,
        Reduction, Scan records) as group modules
        (:mod:`pcompute.build.cython_group`): one module per set of build
        flags instead of one per kernel.  Each is built later with the same
        source and flags (``module_flags``), so its build finds its group."""
        modules = []
        for g in generated:
            cflags, ldflags = module_flags(g)
            modules.append((g.source, g.name, g.option("openmp"), cflags, ldflags))
        from ..build.cython_group import build_group
        return build_group(modules, strict=config.strict_groups)

    def build_elementwise(self, program, func, config):
        generated = self.generate_elementwise(program, func, config)
        module = self._module(generated, program.entry.name)
        return BuiltKernel(generated, self.name,
                           pointer_launcher(module.run, generated, program.index_dims),
                           binder(module, generated))

    def generate_reduction(self, spec, config):
        """The :class:`~pcompute.records.GeneratedKernel` of a Reduction
        module; compiles nothing."""
        from .reduction_lanes import comma_tail, lane_statements
        from .reduction_parts import reduction_programs, reduction_text, tuple_fields
        parts = spec.parts
        runtime, functions, printer = print_programs(reduction_programs(spec), "cython")
        params, unpack, _ = self.entry_parts(spec.map_program, printer)
        entry = spec.map_program.entry
        cparams = [printer.param(entry.cname(n), t) for n, t in entry.args[1:]]
        cargs = expanded_names(entry, 1)
        openmp = self.use_openmp(config)
        expr = reduction_text(spec)
        op = None if parts else reduce_operator(expr)
        interleave = op is not None and not getattr(spec, "ordered", False) or \
            componentwise(parts)
        acc_type = spec.out_type
        if op == "+" and spec.out_type.is_float:
            acc_type = dtype_to_ctype(np.float64)   # float32 sums accumulate in double
        T = W = printer.type_name(acc_type) if parts is None else "pc_tuple"
        if parts is None:
            T, neutral = printer.type_name(spec.out_type), printer.literal(
                spec.neutral.item(), spec.out_type)
        else:
            neutral = "pc_neutral()"
        record = tuple_fields(parts, printer)   # (its literals) before cimports()
        soa = bool(parts) and interleave
        lanes, block = (16 if interleave else 8), 2048
        arg_tail = comma_tail(cargs)
        source = render(
            "reduction_cython", name=spec.name, expr=expr, openmp=openmp,
            cimports=printer.cimports(), runtime=runtime, functions=functions,
            T=T, W=W, **record,
            reduce_args=", ".join(["pc_a." + f for f, _ in record["fields"]] +
                                  ["pc_b." + f for f, _ in record["fields"]]),
            add=op == "+", interleave=interleave, lanes=lanes, soa=soa,
            **lane_statements(soa, lanes, neutral, arg_tail),
            leaf=1024, block=block, block_rows=block // lanes,
            pair_width=2 * lanes, last_lane=lanes - 1, neutral=neutral,
            unpack=unpack, cparam_tail=comma_tail(cparams), arg_tail=arg_tail,
            param_tail=comma_tail(params),
            param_name_tail=comma_tail(p.split()[-1] for p in params),
            serial_below=min(serial_below(program, spec.map_func) for program in
                             (parts.map_programs if parts else (spec.map_program,))),
            fastcall=self.fast_call(spec.map_program, printer))
        return GeneratedKernel("reduction", spec.name, "cython", source, ("run",),
                               tuple(entry.args[1:]),
                               (("openmp", openmp), ("link", extern_link_args(printer)))
                               + kernel_build_options(spec.map_func))

    def build_reduction(self, spec, config):
        generated = self.generate_reduction(spec, config)
        module = self._module(generated, "reduce_" + spec.name)
        finish = spec.out_type.dtype.type if spec.parts is None else spec.parts.finish
        launch = pointer_launcher(module.run, generated)
        return BuiltKernel(generated, self.name, lambda n, args: finish(launch(n, args)),
                           binder(module, generated, finish=finish))

    # -- one compiled function (Compyle's Cython(func)) -----------------------------
    compiles_functions = True

    def generate_function(self, program, name, config):
        """The :class:`~pcompute.records.GeneratedKernel` of a module whose
        ``run(*args)`` calls the entry of ``program`` and returns its value;
        compiles nothing."""
        printer = printer_for(program, "cython")
        runtime, functions = printer.print_program()
        entry = program.entry
        params, unpack, _ = self.entry_parts(program, printer, first=0)
        call = "%s(%s)" % (entry.c_name, ", ".join(entry.cname(n) for n, _ in entry.args))
        openmp = self.use_openmp(config)
        source = render("cython_function", name=name, openmp=openmp,
                        cimports=printer.cimports(), runtime=runtime,
                        functions=functions, signature=", ".join(params), unpack=unpack,
                        call=call,
                        ret_type=printer.type_name(entry.ret))
        return GeneratedKernel("function", name, "cython", source, ("run",),
                               tuple(entry.args),
                               (("openmp", openmp), ("link", extern_link_args(printer))))

    def build_function(self, program, name, config):
        generated = self.generate_function(program, name, config)
        run = self._module(generated, name).run
        convert = launch_converter(t for _, t in generated.args)
        if convert is None:
            return BuiltKernel(generated, self.name, lambda n, args: run(*args))
        return BuiltKernel(generated, self.name, lambda n, args: run(*convert(args)))

    # -- scan and sort: this backend's modules ---------------------------------------
    def generate_scan(self, spec, config):
        from . import scan_cython
        return scan_cython.generate_scan(self, spec, config)

    def build_scan(self, spec, config):
        from . import scan_cython
        return scan_cython.build_scan(self, spec, config)

    def sort_by_keys(self, keys, values, key_bits, config, permutation=True):
        from . import sort_cython
        return sort_cython.sort_by_keys(self, keys, values, key_bits, config,
                                        permutation=permutation)
