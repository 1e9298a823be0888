"""Global prefix scans over arrays partitioned across ranks (rank order).

Rank ``r`` holds block ``r`` of the global sequence.  Each rank reduces its
block with the scan's operator (one Reduction kernel), the block totals are
combined into each rank's carry-in (an exclusive scan over the ranks, folded
in rank order), and the rank then scans its block with the carry applied by
the output kernel: ``out[i] = carry (op) item``.  Two passes over the data
and one collective; the concatenated outputs equal the single-process scan
(exactly for integers, to rounding for floats).
"""
import ast

import numpy as np

from ..errors import KernelValueError
from ..primitives.exprfunc import _NAMESPACE, make_function, neutral_value
from ..primitives.reduction import Reduction
from ..primitives.scan import Scan
from ..array import Array
from .mpi import fold, get_comm

_RESERVED = ("dscan_out", "dscan_carry")


class _Rename(ast.NodeTransformer):
    def __init__(self, names):
        self.names = names

    def visit_Name(self, node):
        if node.id in self.names:
            return ast.copy_location(ast.Name(id=self.names[node.id], ctx=node.ctx), node)
        return node


def _carry_output(scan_expr, exclusive):
    """``dscan_output(i, item|prev_item, dscan_out, dscan_carry)`` writing carry (op) value."""
    value = "prev_item" if exclusive else "item"
    tree = ast.parse(scan_expr.strip(), mode="eval")
    expr = ast.unparse(_Rename({"a": "dscan_carry", "b": value}).visit(tree))
    source = "def dscan_output(i, %s, dscan_out, dscan_carry):\n    dscan_out[i] = %s\n" % (value,
                                                                             expr)
    namespace = dict(_NAMESPACE)
    exec(compile(source, "<distributed scan output>", "exec"), namespace)
    func = namespace["dscan_output"]
    func.source = source
    return func


class DistributedScan:
    """An inclusive or exclusive scan of a sequence split across ranks.

    ``input``: None to scan an array argument (call ``scan(x, out)``), or a
    function ``input(i, *args)`` giving the value at local index ``i`` (call
    ``scan(*args, out)``).  ``scan_expr`` is an associative expression over
    ``a`` and ``b`` with ``neutral`` its neutral element; the result, of
    ``dtype``, is written to ``out`` (one element per local item).
    ``exclusive=True`` writes the scan of the items before each one.
    """

    def __init__(self, input=None, scan_expr="a+b", dtype=np.float64, neutral="0",
                 exclusive=False, backend=None, comm=None):
        self.comm = get_comm(comm)
        self.dtype = np.dtype(dtype)
        self.exclusive = bool(exclusive)
        self._op = make_function("dscan_op", ("a", "b"), scan_expr, "scan_expr")
        self._neutral = neutral_value(neutral, self.dtype)
        self._total = Reduction(scan_expr, map_func=input, dtype_out=self.dtype,
                                neutral=neutral, backend=backend, ordered=True)
        if input is None:
            input = make_function("dscan_input", ("i", "dscan_x"), "dscan_x[i]", "input")
            self._names = ["dscan_x"]
        else:
            code = input.__code__
            self._names = list(code.co_varnames[1:code.co_argcount])
            clash = [n for n in self._names if n in _RESERVED]
            if clash:
                raise KernelValueError("the input function of DistributedScan may not "
                                       "name a parameter %s" % clash[0],
                                       hint="rename it")
        self._scan = Scan(input=input, output=_carry_output(scan_expr, self.exclusive),
                          scan_expr=scan_expr, dtype=self.dtype, neutral=neutral,
                          backend=backend)

    def __call__(self, *args):
        if len(args) != len(self._names) + 1:
            raise KernelValueError("DistributedScan takes %d argument(s) (%s, out), got %d"
                                   % (len(self._names) + 1, ", ".join(self._names),
                                      len(args)))
        *inputs, out = args
        if not isinstance(out, Array):
            raise KernelValueError("the output of DistributedScan must be an Array")
        total = self.dtype.type(self._total(*inputs)) if len(out) else self._neutral
        carry = self.carry(total)
        if len(out):
            kwargs = dict(zip(self._names, inputs))
            self._scan(dscan_out=out, dscan_carry=carry, **kwargs)
        return carry

    def carry(self, total):
        """This rank's carry-in from every rank's block ``total`` (collective)."""
        totals = self.comm.allgather(total)
        before = totals[:self.comm.Get_rank()]
        return self.dtype.type(fold([self._neutral] + before, self._op))
