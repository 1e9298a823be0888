"""The parts of a Reduction whose accumulator is a tuple (several outputs).

``Reduction(("a0 if a0 <= b0 else b0", "a1 if a0 <= b0 else b1"), (value, index),
dtype_out=(np.float64, np.int64))`` reduces pairs: component ``k`` of an item is
``map_funcs[k](i, *args)`` and component ``k`` of the combination of ``a`` and
``b`` is ``reduce_exprs[k]``, an expression over ``a0 .. a<m-1>`` and
``b0 .. b<m-1>`` (all components of both sides: argmin, a mean and variance
in one pass, energy and virial together).  Backends keep the accumulator in a
record (a C struct) whose fields are ``f0 .. f<m-1>``.

Without neutral elements (``neutral=None``) the record has a ``valid`` flag
as well: the operator is only ever applied to items, so any associative
operator works (a reduction of no items is then an error).  Items are
combined in order, as for operators that may not commute; except that with
neutral elements and every component combined with itself only by ``+``,
``*``, ``min`` or ``max`` (``a0 + b0``, ``max(a1, b1)``) the Cython backend
interleaves SIMD lanes, as for a scalar sum.
"""
from dataclasses import dataclass

import numpy as np

from ..errors import KernelTypeError, KernelValueError
from ..frontend import type_kernel
from ..frontend.arrays import shape_reads
from ..frontend.source import read_function
from ..types import dtype_to_ctype
from .args import parameter_names
from .exprfunc import make_function, neutral_value


@dataclass(frozen=True, eq=False)
class TupleParts:
    """The components of a tuple accumulator (all tuples of one length)."""
    map_programs: tuple
    reduce_programs: tuple
    out_types: tuple
    neutrals: object         # tuple of numpy scalars, or None: a ``valid`` flag instead
    map_funcs: tuple
    reduce_funcs: tuple

    @property
    def fields(self):
        """(name, CType) of the record's value fields (not ``f0``, ``f1``:
        NumPy names the padding of an aligned record so, and a record with a
        padded field called ``f1`` cannot pass through ``__array_interface__``,
        which pycuda's ``get`` does)."""
        return [("c%d" % k, t) for k, t in enumerate(self.out_types)]

    @property
    def flagged(self):
        """True when the record carries a ``valid`` flag (no neutral elements)."""
        return self.neutrals is None

    def record_dtype(self):
        """The NumPy dtype laid out as the C struct of the accumulator."""
        fields = [(name, t.dtype) for name, t in self.fields]
        if self.flagged:
            fields.append(("valid", np.int32))
        return np.dtype(fields, align=True)

    def empty(self):
        """The result of a reduction of no items."""
        if self.neutrals is None:
            raise KernelValueError("a tuple Reduction without neutral elements was given "
                                   "no items", hint="give neutral=(...) for empty inputs")
        return tuple(self.neutrals)

    def finish(self, record):
        """The user's result (a tuple of NumPy scalars) from the backend's
        record (a dict from Cython, a NumPy record, or a tuple)."""
        if isinstance(record, tuple):
            return tuple(t.dtype.type(v) for v, (_, t) in zip(record, self.fields))
        if self.flagged and not record["valid"]:
            return self.empty()
        return tuple(t.dtype.type(record[name]) for name, t in self.fields)


def check_tuple(reduce_exprs, map_funcs, dtypes, neutrals):
    """The validated (reduce functions, map functions, dtypes, neutral texts)."""
    m = len(reduce_exprs)
    if m < 2:
        raise KernelValueError("a tuple Reduction needs at least two components",
                               hint="pass one reduce expression for a scalar")
    if not isinstance(map_funcs, (tuple, list)) or len(map_funcs) != m:
        raise KernelValueError("a tuple Reduction of %d components takes a tuple of %d map "
                               "functions, got %r" % (m, m, map_funcs),
                               hint="map_func=(f0, f1, ...): f_k(i, *args) is component k")
    if not isinstance(dtypes, (tuple, list)) or len(dtypes) != m:
        raise KernelValueError("a tuple Reduction of %d components takes dtype_out as a "
                               "tuple of %d dtypes, got %r" % (m, m, dtypes))
    if neutrals is not None and (not isinstance(neutrals, (tuple, list)) or
                                 len(neutrals) != m):
        raise KernelValueError("neutral of a tuple Reduction is None or a tuple of %d "
                               "values, got %r" % (m, neutrals))
    params = parameter_names(map_funcs[0])
    for f in map_funcs[1:]:
        if parameter_names(f) != params:
            raise KernelTypeError("the map functions of a tuple Reduction must take the "
                                  "same parameters: %s(%s) and %s(%s)"
                                  % (map_funcs[0].__name__, ", ".join(params),
                                     f.__name__, ", ".join(parameter_names(f))))
    names = tuple("a%d" % k for k in range(m)) + tuple("b%d" % k for k in range(m))
    reduces = tuple(make_function("reduce_op%d" % k, names, e, "reduce_expr")
                    for k, e in enumerate(reduce_exprs))
    dtypes = tuple(np.dtype(d) for d in dtypes)
    for d in dtypes:
        dtype_to_ctype(d)
    if neutrals is not None:
        for text, d in zip(neutrals, dtypes):
            neutral_value(text, d)
    return reduces, tuple(map_funcs), dtypes, neutrals


def shape_names(map_funcs):
    """The arguments whose shape any of the map functions reads."""
    names = set()
    for f in map_funcs:
        names |= shape_reads(read_function(f))
    return names


def tuple_parts(red, types, map_program, config, demote, checked):
    """The :class:`TupleParts` of Reduction ``red`` for argument ``types``;
    ``map_program`` is its first map function's typed program."""
    outs = []
    for d in red._dtypes:
        out = dtype_to_ctype(d)
        outs.append(out.with_base("float") if demote and out.base == "double" else out)
    maps = [map_program]
    for f in red._maps[1:]:
        prog = type_kernel(f, types, use_double=config.use_double, demote_double=demote)
        maps.append(checked(prog) if config.bounds_check else prog)
    arg_types = {"a%d" % k: t for k, t in enumerate(outs)}
    arg_types.update({"b%d" % k: t for k, t in enumerate(outs)})
    reduces = tuple(type_kernel(f, arg_types, use_double=config.use_double,
                                demote_double=demote) for f in red._reduces)
    neutrals = None if red.neutral is None else tuple(
        neutral_value(text, t.dtype) for text, t in zip(red.neutral, outs))
    return TupleParts(tuple(maps), reduces, tuple(outs), neutrals, red._maps,
                      red._reduces)
