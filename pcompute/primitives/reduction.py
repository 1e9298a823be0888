"""Reduction: combine the elements of an array (or mapped values) into one."""
from dataclasses import dataclass

import numpy as np

from ..backends.registry import get_backend
from ..bounds import checked, checked_launch
from ..config import get_config
from ..errors import KernelTypeError, KernelValueError
from ..frontend import type_kernel
from ..frontend.source import read_function
from ..frontend.arrays import shape_reads
from ..frontend.program import annotation_types
from ..types import LONG, dtype_to_ctype
from .args import argument_types, device_values, index_space, parameter_names, shaped
from ..records import BuiltKernel
from .base import Primitive
from .exprfunc import make_function, neutral_value
from .tuple_reduction import check_tuple, shape_names as tuple_shape_names, tuple_parts

#: The largest index space of a Reduction's map function: map(i, j, k, ...).
MAX_INDEX_DIMS = 3


def _rank(value):
    dev = getattr(value, "dev", value)
    shape = getattr(dev, "shape", None)
    return len(shape) if shape is not None and hasattr(dev, "strides") else 0


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
    parts: object = None     # TupleParts of a tuple accumulator (the fields above: its first)


class Reduction(Primitive):
    """Reduce an array, or ``map_func(i, *args)`` for i < n, with ``reduce_expr``.

    ``reduce_expr`` is an associative expression over ``a`` and ``b``
    (``'a+b'``, ``'min(a, b)'``, ...), ``neutral`` its neutral element as an
    expression (``'INFINITY'``; None: ``'0'``).  Called with positional
    arguments (the single array, or the map function's arguments after ``i``); returns a
    host scalar of ``dtype_out``.  An operator that may not commute has its
    elements combined left to right in contiguous blocks.  For ``a+b``,
    ``a*b``, ``min(a, b)`` and ``max(a, b)`` the Cython backend interleaves
    its SIMD lanes (item k of each 2048-item block goes to lane k mod 16;
    blocks, then lanes, are combined pairwise), which changes the order of a
    float sum (still pairwise, as accurate); ``ordered=True`` keeps the
    order-preserving pairwise scheme for them too.  Float32 sums accumulate
    in float64 on the Cython backend.

    Several outputs at once (a tuple accumulator): ``reduce_expr`` a tuple
    of expressions over ``a0, a1, ..`` and ``b0, b1, ..``, ``map_func`` a
    tuple of map functions with the same parameters (component k of item i
    is ``map_func[k](i, *args)``), ``dtype_out`` a tuple of dtypes and
    ``neutral`` a tuple of neutral elements or None (then any associative
    operator works: it is applied to items only, and no items is an
    error).  The call returns a tuple; items are combined in order (unless
    every component is combined with itself by ``+``, ``*``, ``min`` or
    ``max`` and has a neutral element).  See :mod:`pcompute.primitives.tuple_reduction`.
    """

    def __init__(self, reduce_expr, map_func=None, dtype_out=np.float64, neutral=None,
                 backend=None, ordered=False):
        Primitive.__init__(self, backend)
        self.reduce_expr = reduce_expr
        self.map_func = map_func
        self.neutral = neutral
        self.ordered = bool(ordered)
        self._nd_memo = {}
        self._shape_names = set()   # arguments whose shape a wrapped n-D map reads
        self._maps = None           # a tuple accumulator's map functions
        if isinstance(reduce_expr, (tuple, list)):
            self._reduces, self._maps, self._dtypes, self.neutral = check_tuple(
                reduce_expr, map_func, dtype_out, neutral)
            self.reduce_expr = tuple(reduce_expr)
            self.dtype_out, self.ordered = self._dtypes, True
            self._map, self._reduce = self._maps[0], self._reduces[0]
            self._params = parameter_names(self._map)
            self._shape_names = tuple_shape_names(self._maps)
            self.name = self._map.__name__
            return
        self.neutral = "0" if neutral is None else neutral
        self.dtype_out = np.dtype(dtype_out)
        dtype_to_ctype(self.dtype_out)
        self._reduce = make_function("reduce_op", ("a", "b"), reduce_expr, "reduce_expr")
        neutral_value(self.neutral, self.dtype_out)
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
        out = None
        if self._maps is None:
            out = dtype_to_ctype(self.dtype_out)
            if demote and out.base == "double":
                out = out.with_base("float")
        declared = {}
        if self.map_func is not None:
            declared, _ = annotation_types(self._map, read_function(self._map))
        types = argument_types(self._params[1:], args, declared, self._where(), backend,
                               config, nd=True)
        # With bounds checks every array argument knows its shape.
        types = shaped(types, self._params if config.bounds_check else
                       shape_reads(read_function(self._map)) | self._shape_names)
        if self._params[0] not in declared:
            types[self._params[0]] = LONG
        map_program = type_kernel(self._map, types, use_double=config.use_double,
                                  demote_double=demote)
        if config.bounds_check:
            map_program = checked(map_program)
        if self._maps is not None:
            parts = tuple_parts(self, types, map_program, config, demote, checked)
            return ReductionSpec(map_program, parts.reduce_programs[0], parts.out_types[0],
                                 None, self._map, self._reduce, self.name, True, parts)
        reduce_program = type_kernel(self._reduce, {"a": out, "b": out},
                                     use_double=config.use_double, demote_double=demote)
        return ReductionSpec(map_program, reduce_program, out,
                             neutral_value(self.neutral, out.dtype), self._map,
                             self._reduce, self.name, self.ordered)

    def _build(self, args, backend, config):
        spec = self._spec(args, backend, config)
        built = backend.build_reduction(spec, config)
        if spec.map_program.bounds_check:
            built = BuiltKernel(built.generated, built.backend, checked_launch(
                spec.map_program, backend, built.launch, "%s of %s" % (self._where(),
                                                                        self.name)))
        return built

    def __call__(self, *args, shape=None):
        """Reduce over ``[0, n)`` (n: the first array's length), or over the
        n-D index space of a map function ``map(i, j, ...)`` /
        ``map(i, j, k, ...)`` (the shape of its first array of that rank, or
        ``shape=``); without a map function an array of rank 2 or 3 (a view
        too) is reduced whole."""
        fast = self._fast
        if fast is not None and shape is None:
            try:
                result = fast(args, None)
            except OverflowError as exc:
                self._raise_range_error(self._last, args, exc)
                raise
            if result is not None:
                return result
        if self._maps is not None and (shape is not None or
                                       len(self._params) - len(args) != 1):
            raise KernelTypeError("%s takes %d argument(s) (%s), got %d; a tuple "
                                  "Reduction runs over a 1-D index space"
                                  % (self._where(), len(self._params) - 1,
                                     ", ".join(self._params[1:]), len(args)))
        if self.map_func is None and len(args) == 1 and _rank(args[0]) in (2, 3):
            extents = tuple(int(e) for e in getattr(args[0], "dev", args[0]).shape)
            total = int(np.prod(extents, dtype=np.int64))
            return self._nd(len(extents), input_rank=True)._run(extents[1:] + args, total)
        dims = len(self._params) - len(args)
        if not 1 <= dims <= MAX_INDEX_DIMS or (self.map_func is None and dims != 1):
            nargs = len(self._params) - 1
            raise KernelTypeError("%s takes %d argument(s) (%s), got %d"
                                  % (self._where(), nargs, ", ".join(self._params[1:]),
                                     len(args)),
                                  hint="a map function with 2 or 3 index parameters "
                                  "(map(i, j, ...)) reduces over a 2-D or 3-D index space")
        if dims > 1 or shape is not None:
            extents = index_space(args, dims, shape, self._params, self._where())
            extents = (extents,) if dims == 1 else extents
            total = int(np.prod(extents, dtype=np.int64))
            if dims == 1:
                return self._run(args, total)
            return self._nd(dims)._run(tuple(extents[1:]) + tuple(args), total)
        return self._run(args, fast=True)

    def generate(self, backend, *args):
        """The source the reduction would compile on ``backend`` (a name) for
        these arguments (a 1-D reduction; numpy arrays and numbers stand for
        the real ones), under the current configuration; builds and runs
        nothing, so CUDA C can be produced without a GPU."""
        be = get_backend(backend)
        if be.dialect is None:
            raise KernelValueError("the %s backend runs Python directly and generates "
                                   "no source" % be.name)
        config = get_config()
        return be.generate_reduction(self._spec(args, be, config), config).source

    def generated_for(self, backend, config, args):
        """The :class:`~pcompute.records.GeneratedKernel` a 1-D call with
        ``args`` builds on ``backend`` under ``config``, or None when it is
        built already or the call is not a 1-D one (for
        :meth:`~pcompute.backends.base.Backend.prebuild`).  Runs no checks
        and builds nothing."""
        if len(self._params) - len(args) != 1 or (
                self.map_func is None and len(args) == 1 and _rank(args[0]) in (2, 3)):
            return None
        if self._memo_key(args, backend, config) in self._memo:
            return None
        return backend.generate_reduction(self._spec(args, backend, config), config)

    def _run(self, args, n=None, fast=False):
        """Reduce over ``n`` items (None: the first array's length); ``fast``:
        keep the compiled fast call for later calls like this one."""
        stamp = self._stamp()
        config, backend = self._call_setup()
        built = self._kernel(args, backend, config)
        values, length = device_values(self._params[1:], args, self._where(), backend)
        result = self._launch(built, backend, config, length if n is None else n, values)
        if fast:
            self._remember_fast(built, args, stamp, backend, config)
        return result

    def _nd(self, dims, input_rank=False):
        """The 1-D Reduction over ``dims``-D index spaces: its map function
        takes the flat index and the extents of the axes after the first,
        and calls this one's map with one index per axis (a helper call, so
        the user's map is typed and translated as written)."""
        key = (dims, input_rank)
        inner = self._nd_memo.get(key)
        if inner is None:
            if input_rank:
                axes = "ijk"[:dims]
                user = make_function("reduce_input", tuple(axes) + ("x",),
                                     "x[%s]" % ", ".join(axes), "input")
                nargs = 1
            else:
                user, nargs = self._map, len(self._params) - dims
            extents = ["nd_m%d" % d for d in range(1, dims)]
            data = ["nd_a%d" % k for k in range(nargs)]
            if dims == 2:
                index = ["nd_t // nd_m1", "nd_t % nd_m1"]
            else:
                index = ["nd_t // (nd_m1 * nd_m2)", "nd_t // nd_m2 % nd_m1", "nd_t % nd_m2"]
            wrapper = make_function(
                "reduce_nd_map", ["nd_t"] + extents + data,
                "%s(%s)" % (user.__name__, ", ".join(index + data)), "map",
                names={user.__name__: user})
            inner = Reduction(self.reduce_expr, wrapper, self.dtype_out, self.neutral,
                              self._backend, self.ordered)
            inner.name = self.name
            inner._shape_names = {"nd_a%d" % k for k, p in enumerate(
                parameter_names(user)[dims:]) if p in shape_reads(read_function(user))}
            self._nd_memo[key] = inner
        inner._backend = self._backend
        return inner

    @property
    def profile_name(self):
        """The name of this reduction's timings: ``reduce[<expr>]``, or
        ``<map function>[<expr>]`` with a map function."""
        base = "reduce" if self.map_func is None else self.name
        return "%s[%s]" % (base, self.reduce_expr)
