"""Compyle's ``compyle.jit`` names over pcompute's type inference.

In Compyle, functions decorated with a bare ``@annotate`` are typed at their
first call by ``AnnotationHelper``, and ``ElementwiseJIT``/``ReductionJIT``/
``ScanJIT`` run them.  pcompute's primitives do this themselves (types from
the call's arguments, then the front end's inference), so here:

* :class:`ElementwiseJIT`, :class:`ReductionJIT` and :class:`ScanJIT` are the
  primitives :class:`~pcompute.parallel.Elementwise`,
  :class:`~pcompute.parallel.Reduction` and :class:`~pcompute.parallel.Scan`
  under Compyle's names and constructor signatures;
* :class:`AnnotationHelper` reports what pcompute's front end infers for a
  function given its argument types (``arg_types``, ``var_types``,
  ``undecl_var_types``, ``external_funcs``, ``get_return_type()``), with
  Compyle's type names (``'int'``, ``'gdoublep'``, ...).  Unlike Compyle's,
  :meth:`AnnotationHelper.annotate` does not rewrite the function's
  annotations: pcompute types a JIT function afresh for every set of argument
  types.  The inferred types follow pcompute's rules (see docs/types.rst),
  e.g. ``uint + int`` is ``long`` as in numpy, where Compyle says ``int``.
"""
import ast
import inspect

import numpy as np

from .frontend import type_kernel
from .primitives.elementwise import Elementwise
from .primitives.reduction import Reduction
from .primitives.scan import Scan
from .types import KnownType, dtype_to_ctype, parse_type, promote

__all__ = ["AnnotationHelper", "ElementwiseJIT", "ReductionJIT", "ScanJIT",
           "get_binop_return_type", "get_ctype_from_arg", "get_signed_type",
           "getargspec"]

_PREFIX = {"global": "g", "local": "l", "": ""}


def type_name(ctype):
    """Compyle's short name of a pcompute type: ``'int'``, ``'gdoublep'``,
    ``'lfloatp'``; a local array (``declare('matrix(3)')``) is a pointer to
    its elements, ``'doublep'``, as in Compyle, and a truth value is ``'int'``."""
    if ctype.shape:
        return "%sp" % ctype.base
    if ctype.pointer:
        return "%s%sp" % (_PREFIX[ctype.space], ctype.base)
    return "int" if ctype.base == "bool" else ctype.base  # C has no bool


def getargspec(f):
    """The argument names of ``f``."""
    return inspect.getfullargspec(f)[0]


def get_signed_type(a):
    """``'int'`` for ``'uint'``: the type name without its ``u`` prefix."""
    return a[1:] if a.startswith("u") else a


def get_ctype_from_arg(arg, backend=None):
    """The C type name (Compyle's spelling) of a call argument: an Array or
    numpy array gives its element's type (a pointer for arrays), a Python
    float ``'double'``, a Python int ``'int'`` or ``'long'`` by size."""
    from .array import Array
    if isinstance(arg, Array):
        return "GLOBAL_MEM %s*" % _c_spelling(dtype_to_ctype(arg.dtype).base)
    if isinstance(arg, np.ndarray):
        return "%s*" % _c_spelling(dtype_to_ctype(arg.dtype).base)
    if isinstance(arg, np.generic):
        return _c_spelling(dtype_to_ctype(arg.dtype).base)
    if isinstance(arg, float):
        return "double"
    return "long" if abs(arg) > 2147483647 else "int"


def _c_spelling(base):
    from .types import KNOWN_TYPES
    return KNOWN_TYPES[base].type if base in KNOWN_TYPES else base


def get_binop_return_type(a, b):
    """The type of ``x op y`` for operands of types ``a`` and ``b`` (names
    like ``'int'``, ``'double'``, ``'gintp'``), by pcompute's promotion rules.

    A pointer with an integer gives the pointer; None if either is None."""
    if a is None or b is None:
        return None
    ta, tb = parse_type(a), parse_type(b)
    if ta.pointer and tb.is_int:
        return a
    if tb.pointer and ta.is_int:
        return b
    return type_name(promote(ta, tb))


class AnnotationHelper:
    """The types pcompute's front end infers for ``func`` called with
    ``arg_types`` ({argument: type name}); see the module docstring."""

    def __init__(self, func, arg_types):
        self.func = func
        self.name = func.__name__
        self.arg_types = {name: _short(t) for name, t in arg_types.items()}
        self.var_types = dict(self.arg_types)
        self.undecl_var_types = {}
        self.external_funcs = {}
        self._typed = None

    def annotate(self):
        """Type the function and its helpers; returns Compyle's missing
        declarations ({function name: {variable: 'type name;'}})."""
        given = {k: v for k, v in self.arg_types.items() if k != "return_"}
        program = type_kernel(self.func, given)
        by_cname = {f.c_name: f for f in program.functions}
        self._fill(program.entry, by_cname)
        return self._missing()

    def _fill(self, typed, by_cname):
        self._typed = typed
        if not typed.ret.is_void:
            self.arg_types["return_"] = type_name(typed.ret)
        for name, t in typed.args:
            self.arg_types.setdefault(name, type_name(t))
            self.var_types.setdefault(name, self.arg_types[name])
        declared, assigned = _local_names(typed.tree)
        types = dict(typed.locals)
        for name in declared:
            if name in types:
                self.var_types[name] = type_name(types[name])
        for name in assigned:
            if name in types and name not in declared and name not in self.var_types:
                self.undecl_var_types[name] = type_name(types[name])
        for cname in typed.callees:
            callee = by_cname[cname]
            helper = AnnotationHelper(callee.src.func, {})
            helper._fill(callee, by_cname)
            self.external_funcs[callee.name] = helper

    def _missing(self):
        out = {self.name: {v: "%s %s;" % (t, v) for v, t in self.undecl_var_types.items()}}
        for helper in self.external_funcs.values():
            out.update(helper._missing())
        return out

    def get_var_type(self, name):
        """The type name of a variable ('double' if unknown, as in Compyle)."""
        return self.var_types.get(name, self.undecl_var_types.get(name, "double"))

    def get_return_type(self):
        """The return type name ('double' when not known, as in Compyle)."""
        if "return_" in self.arg_types:
            return self.arg_types["return_"]
        ann = (getattr(self.func, "__annotations__", None) or {}).get("return")
        if ann is not None:
            return _short(ann)
        return "double"


def _short(t):
    if isinstance(t, KnownType) or not isinstance(t, str):
        return type_name(parse_type(t))
    return t


def _local_names(tree):
    """(names given a type by declare(), other names assigned) in ``tree``."""
    declared, assigned = [], []
    for node in ast.walk(tree):
        targets = []
        if isinstance(node, ast.Assign):
            targets = node.targets
            is_declare = isinstance(node.value, ast.Call) and \
                getattr(node.value.func, "id", None) == "declare"
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets, is_declare = [node.target], False
        elif isinstance(node, ast.For):
            targets, is_declare = [node.target], False
        for target in targets:
            for n in ast.walk(target):
                if isinstance(n, ast.Name):
                    (declared if is_declare else assigned).append(n.id)
    return declared, assigned


class ElementwiseJIT(Elementwise):
    """Compyle's JIT elementwise: pcompute's :class:`Elementwise` (types from
    the first call's arguments when ``func`` is not annotated)."""

    def __init__(self, func, backend=None):
        super().__init__(func, backend=backend)


class ReductionJIT(Reduction):
    """Compyle's JIT reduction: pcompute's :class:`Reduction`."""

    def __init__(self, reduce_expr, map_func=None, dtype_out=np.float64, neutral="0",
                 backend="cython"):
        super().__init__(reduce_expr, map_func=map_func, dtype_out=dtype_out,
                         neutral=neutral, backend=backend)


class ScanJIT(Scan):
    """Compyle's JIT scan: pcompute's :class:`Scan`."""

    def __init__(self, input=None, output=None, scan_expr="a+b", is_segment=None,
                 dtype=np.float64, neutral="0", complex_map=False, backend="opencl"):
        super().__init__(input=input, output=output, scan_expr=scan_expr,
                         is_segment=is_segment, dtype=dtype, neutral=neutral,
                         complex_map=complex_map, backend=backend)
