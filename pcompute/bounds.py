"""Bounds checks of array accesses (``get_config().bounds_check``, or
``PCOMPUTE_DEBUG=1``).

With checks on, every access ``a[i, j]`` of an array that knows its shape is
printed through ``pc_bound_long(index, extent, site, axis, pc_err)``: an index
outside ``[0, extent)`` is recorded in the 4-element int64 array ``pc_err``
(site, axis, index, extent; the first one found) and replaced by 0, so the
kernel never touches memory outside the array.  After the launch the
primitive reads ``pc_err`` and raises :class:`~pcompute.errors.KernelIndexError`
(an ``IndexError``) naming the kernel, the array, the axis and the index, at
the access in the user's file.  The error record is a hidden last argument of
every function of the kernel.  Off by default: without checks the generated
code is unchanged.

A shift by a count that may be negative (a signed count that is not a
literal) is a site too: its count goes through ``pc_shcount_long(count, site,
pc_err)``, which records a negative count (Python raises ``ValueError``; the
shift itself gives the defined value of docs/semantics.rst, Shifts), and the
primitive raises :class:`~pcompute.errors.KernelValueError` at the shift.

Sites are numbered in the order of :func:`sites`, which the code generators
and the error report share.
"""
import ast
from dataclasses import replace

import numpy as np

from .errors import KernelIndexError, KernelValueError
from .types import CType

#: The name of the error record argument.
ERR = "pc_err"
ERR_TYPE = CType("long", True, "global")


def checked(program):
    """``program`` with bounds checks: ``pc_err`` appended to every function."""
    functions = tuple(replace(fn, args=fn.args + ((ERR, ERR_TYPE),))
                      for fn in program.functions)
    return replace(program, functions=functions, entry=functions[-1], bounds_check=True)


_SIGNED = ("char", "short", "int", "long")


def checked_shift(fn, node):
    """True when ``node`` (of function ``fn``) is a shift, ``x << n`` or
    ``x <<= n``, whose count may be negative: signed and not a literal."""
    if isinstance(node, ast.BinOp):
        count = node.right
    elif isinstance(node, ast.AugAssign):
        count = node.value
    else:
        return False
    if not isinstance(node.op, (ast.LShift, ast.RShift)) or isinstance(count, ast.Constant):
        return False
    t = fn.types.get(id(count))
    return t is not None and t.base in _SIGNED


def sites(program):
    """{id(node): site number (from 1)} of the checked accesses (Subscript
    nodes) and shifts (see :func:`checked_shift`), and the list of (function,
    array name or None for a shift, node) per site."""
    numbers, table = {}, []
    for fn in program.functions:
        for node in ast.walk(fn.tree):
            if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
                t = fn.types.get(id(node.value))
                if t is not None and t.is_ndarray:
                    table.append((fn, node.value.id, node))
                    numbers[id(node)] = len(table)
            elif checked_shift(fn, node):
                table.append((fn, None, node))
                numbers[id(node)] = len(table)
    return numbers, table


def negative_shift_error(count, location, where):
    """The error of a shift by the negative ``count`` found by the checks."""
    return KernelValueError(
        "negative shift count %d in %s (Python raises ValueError; without bounds "
        "checks the shift gives 0, or the sign for >>)" % (count, where), location,
        hint="shift the other way for a negative count (x >> -n for x << n), or "
             "keep the count >= 0")


def raise_if_out_of_bounds(program, err, where):
    """Raise :class:`KernelIndexError` if the host copy ``err`` of the error
    record says an access was out of range."""
    site, axis, index, extent = (int(v) for v in np.asarray(err)[:4])
    if site == 0:
        return
    _, table = sites(program)
    fn, name, node = table[site - 1]
    if name is None:
        raise negative_shift_error(index, fn.location(node), where)
    raise KernelIndexError(
        "index %d is out of range for axis %d of array %r (length %d) in %s"
        % (index, axis, name, extent, where), location=fn.location(node),
        hint="indices run from 0 to %d on that axis" % (extent - 1) if extent > 0
        else "that axis is empty")


def checked_launch(program, backend, launch, where):
    """``launch(n, values)`` with a fresh error record appended to the values,
    checked after the kernel ran."""
    def run(n, values):
        err = backend.to_device(np.zeros(4, np.int64))
        result = launch(n, list(values) + [err])
        raise_if_out_of_bounds(program, backend.to_host(err), where)
        return result
    return run
