"""Running phases: each fused phase is one pcompute primitive (one kernel).

The kernel functions are made from their kernel-language source with the
lazy NumPy layer's :func:`pcompute.numpy.kernels.make_function`, and the
primitive made for a source text is kept, so a phase with the same
structure reuses its compiled kernel.  Every launch goes through the
call's :class:`~pcompute.dataparallel.plan.Tape` (which records it for the
plan and for ``f.last_phases``).
"""
from ..array.sorting import sort_by_keys
from ..numpy import kernels

_FILENAME = "<pcompute.dataparallel phase kernel>"


def make_function(source, name):
    """The kernel function of ``source`` (the lazy NumPy layer's maker)."""
    return kernels.make_function(source, name, filename=_FILENAME)
from ..parallel import Elementwise
from ..primitives.reduction import Reduction
from ..primitives.scan import Scan

_CACHE = {}


def _cached(key, make):
    prim = _CACHE.get(key)
    if prim is None:
        prim = _CACHE[key] = make()
    return prim


def elementwise(trace, source, args):
    """Run the elementwise phase ``source`` (``def dp_map(i, ...)``)."""
    prim = _cached(("ew", source), lambda: Elementwise(make_function(source, "dp_map")))
    trace.launch("elementwise", source, prim, args)


def reduction(trace, source, reduce_expr, dtype, neutral, args):
    """Run a fused map+reduce phase; returns the host scalar."""
    key = ("red", source, reduce_expr, str(dtype), neutral)
    prim = _cached(key, lambda: Reduction(reduce_expr, make_function(source, "dp_reduce"),
                                          dtype_out=dtype, neutral=neutral))
    return trace.launch("reduction", source, prim, args)


def tuple_reduction(trace, sources, reduce_exprs, dtypes, args, neutrals=None):
    """Run a reduction of tuples (one map function per component, each
    ``def dp_reduce(i, ...)`` over the same arguments); returns the tuple of
    host scalars.  Without ``neutrals`` items are combined in order."""
    key = ("tuple", tuple(sources), tuple(reduce_exprs), tuple(map(str, dtypes)), neutrals)
    prim = _cached(key, lambda: Reduction(
        tuple(reduce_exprs), tuple(make_function(s, "dp_reduce") for s in sources),
        dtype_out=tuple(dtypes), neutral=neutrals))
    return trace.launch("reduction", "\n".join(sources), prim, args)


def scan(trace, input_src, output_src, scan_expr, dtype, neutral, args, segment_src=None):
    """Run a fused map+scan phase (input and output functions; a segmented
    scan with the ``dp_seg`` function ``segment_src``)."""
    key = ("scan", input_src, output_src, segment_src, scan_expr, str(dtype), neutral)
    prim = _cached(key, lambda: Scan(
        make_function(input_src, "dp_in"), make_function(output_src, "dp_out"),
        scan_expr=scan_expr, dtype=dtype, neutral=neutral,
        is_segment=segment_src and make_function(segment_src, "dp_seg")))
    trace.launch("scan", input_src + (segment_src or "") + output_src, prim, args)


def sort(trace, arrays):
    """Sort ``arrays`` by the integer keys ``arrays[0]`` (pcompute's stable
    radix sort: one phase, several launches inside)."""
    return trace.launch("sort", "sort_by_keys(%d arrays)" % len(arrays),
                        _sort_arrays, arrays)


def _sort_arrays(*arrays):
    return sort_by_keys(list(arrays))
