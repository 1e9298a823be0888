"""What every compiled backend prints for a Reduction, scalar or tuple.

A tuple accumulator (:mod:`pcompute.primitives.tuple_reduction`) prints its
map functions as ``pc_map0 ..`` and its component operators as
``pc_reduce0 ..``; the templates wrap them in a record type ``pc_tuple`` with
``pc_map``/``pc_reduce``/``pc_neutral`` over whole records, so the reduction
loops are the same text for one output or several.
"""
from ..codegen.arrays import expanded_names


def reduction_programs(spec):
    """The (typed program, entry name) pairs a reduction module prints."""
    parts = spec.parts
    if parts is None:
        return [(spec.map_program, "pc_map"), (spec.reduce_program, "pc_reduce")]
    return ([(p, "pc_map%d" % k) for k, p in enumerate(parts.map_programs)] +
            [(p, "pc_reduce%d" % k) for k, p in enumerate(parts.reduce_programs)])


def reduction_text(spec):
    """The operator as the user wrote it (comments of the generated source)."""
    funcs = (spec.reduce_func,) if spec.parts is None else spec.parts.reduce_funcs
    return "; ".join(f.source.split("return ")[1].strip() for f in funcs)


def tuple_fields(parts, printer):
    """Template variables of a tuple accumulator (empty for a scalar one):
    ``fields`` [(name, C type)], ``flagged`` (a valid flag instead of
    neutral elements) and ``neutrals`` (their literals)."""
    if parts is None:
        return {"fields": [], "flagged": False, "neutrals": []}
    neutrals = [] if parts.flagged else [
        printer.literal(v.item(), t) for v, t in zip(parts.neutrals, parts.out_types)]
    return {"fields": [(name, printer.type_name(t)) for name, t in parts.fields],
            "flagged": parts.flagged, "neutrals": neutrals}


def device_record(spec, printer, params, cargs):
    """Template variables of a device reduction (``reduction_device.mako``)
    whose first stage takes the kernel parameters ``params`` and passes the
    names ``cargs`` on to the map: the accumulator's type ``T`` and
    ``neutral`` text; the first stage's parameter list ``stage1_params`` and
    item ``stage1_item``; for a tuple accumulator its record
    (:func:`~.reduction_parts.tuple_fields`; ``neutral_fields`` [(field,
    neutral literal)], ``indexed_fields`` [(component, field)]) and its
    ``pc_map``'s parameter list ``map_params``, the arguments ``map_args`` of
    each component's map and ``reduce_args`` of each component's
    operator (every field of two records)."""
    parts = spec.parts
    variables = tuple_fields(parts, printer)
    fields = [name for name, _ in variables["fields"]]
    variables.update(stage1_params=", ".join(["pc_idx pc_n"] + list(params)),
                     stage1_item="pc_map(%s)" % ", ".join(["pc_i"] + list(cargs)),
                     neutral_fields=list(zip(fields, variables["neutrals"])),
                     indexed_fields=list(enumerate(fields)),
                     reduce_args=", ".join(["pc_a." + f for f in fields] +
                                           ["pc_b." + f for f in fields]))
    if parts is None:
        variables.update(T=printer.type_name(spec.out_type), map_params="", map_args="",
                         neutral=printer.literal(spec.neutral.item(), spec.out_type))
        return variables
    entry = spec.map_program.entry
    mparams = [printer.param(entry.cname(n), t) for n, t in entry.args[1:]]
    variables.update(T="pc_tuple", neutral="pc_neutral()",
                     map_params=", ".join(["pc_idx pc_i"] + mparams),
                     map_args=", ".join(["pc_i"] + expanded_names(entry, 1)))
    return variables
