"""Reduction: combine the elements of an array (or mapped values) into one."""
from dataclasses import dataclass

import numpy as np

from ..errors import KernelTypeError
from ..frontend import type_kernel
from ..frontend.source import read_function
from ..frontend.arrays import shape_reads
from ..frontend.program import annotation_types
from ..types import LONG, dtype_to_ctype
from .args import argument_types, device_values, parameter_names, shaped
from .base import Primitive
from .exprfunc import make_function, neutral_value


@dataclass(frozen=True, eq=False)
class ReductionSpec:
    """What a backend needs to build a reduction kernel."""
    map_program: object      # TypedProgram of map(i, *args) -> value
    reduce_program: object   # TypedProgram of reduce(a, b) -> value
    out_type: object         # CType of the accumulator
    neutral: object          # numpy scalar of the accumulator's dtype
    map_func: object         # the Python map function (python backend)
    reduce_func: object      # the Python reduce function
    name: str
    ordered: bool = False    # keep the items' order even if the operator commutes


class Reduction(Primitive):
    """Reduce an array, or ``map_func(i, *args)`` for i < n, with ``reduce_expr``.

    ``reduce_expr`` is an associative expression over ``a`` and ``b``
    (``'a+b'``, ``'min(a, b)'``, ...), ``neutral`` its neutral element as an
    expression (``'0'``, ``'INFINITY'``).  Called with positional arguments
    (the single array, or the map function's arguments after ``i``); returns a
    host scalar of ``dtype_out``.  An operator that may not commute has its
    elements combined left to right in contiguous blocks.  For ``a+b``,
    ``a*b``, ``min(a, b)`` and ``max(a, b)`` the Cython backend interleaves
    its SIMD lanes (item k goes to lane k mod 16), which changes the order
    of a float sum (still pairwise, as accurate); ``ordered=True`` keeps the
    order-preserving pairwise scheme for them too.  Float32 sums accumulate
    in float64 on the Cython backend.
    """

    def __init__(self, reduce_expr, map_func=None, dtype_out=np.float64, neutral="0",
                 backend=None, ordered=False):
        Primitive.__init__(self, backend)
        self.reduce_expr = reduce_expr
        self.map_func = map_func
        self.dtype_out = np.dtype(dtype_out)
        dtype_to_ctype(self.dtype_out)
        self.neutral = neutral
        self.ordered = bool(ordered)
        self._reduce = make_function("reduce_op", ("a", "b"), reduce_expr, "reduce_expr")
        neutral_value(neutral, self.dtype_out)
        if map_func is None:
            self._map = make_function("reduce_input", ("i", "x"), "x[i]", "input")
            self._params = ["i", "x"]
        else:
            self._map = map_func
            self._params = parameter_names(map_func)
        self.name = getattr(map_func, "__name__", "reduction")

    @property
    def reduction(self):
        """Compyle's name for the built kernel: None until the first call, then
        the :class:`~pcompute.records.BuiltKernel` (``.backend`` is its backend)."""
        return self._last

    def _where(self):
        return "Reduction(%r)" % (self.reduce_expr,)

    def _spec(self, args, backend, config):
        demote = backend.demote_double(config)
        out = dtype_to_ctype(self.dtype_out)
        if demote and out.base == "double":
            out = out.with_base("float")
        declared = {}
        if self.map_func is not None:
            declared, _ = annotation_types(self._map, read_function(self._map))
        types = argument_types(self._params[1:], args, declared, self._where(), backend,
                               config, nd=self.map_func is not None)
        types = shaped(types, shape_reads(read_function(self._map)))
        if self._params[0] not in declared:
            types[self._params[0]] = LONG
        map_program = type_kernel(self._map, types, use_double=config.use_double,
                                  demote_double=demote)
        reduce_program = type_kernel(self._reduce, {"a": out, "b": out},
                                     use_double=config.use_double, demote_double=demote)
        return ReductionSpec(map_program, reduce_program, out,
                             neutral_value(self.neutral, out.dtype), self._map,
                             self._reduce, self.name, self.ordered)

    def _build(self, args, backend, config):
        return backend.build_reduction(self._spec(args, backend, config), config)

    def __call__(self, *args):
        nargs = len(self._params) - 1
        if len(args) != nargs:
            raise KernelTypeError("%s takes %d argument(s) (%s), got %d"
                                  % (self._where(), nargs, ", ".join(self._params[1:]),
                                     len(args)))
        config, backend = self._call_setup()
        built = self._kernel(args, backend, config)
        values, n = device_values(self._params[1:], args, self._where(), backend)
        return self._launch(built, backend, config, n, values)

    @property
    def profile_name(self):
        """The name of this reduction's timings: ``reduce[<expr>]``, or
        ``<map function>[<expr>]`` with a map function."""
        base = "reduce" if self.map_func is None else self.name
        return "%s[%s]" % (base, self.reduce_expr)
