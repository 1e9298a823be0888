"""Compiled fast calls of the cython backend's kernel modules.

A primitive's checked call path (configuration, backend, argument types,
memo lookup, conversion) costs several microseconds in Python.  Each
Elementwise, Reduction and Scan module therefore also carries ``pc_fast(plan,
args, kw)`` (``templates/fastcall_cython.mako``): C code that checks that
the call arguments have exactly the signature recorded in ``plan`` and that
no configuration field has changed since (:data:`pcompute.config.GENERATION`),
then runs the kernel, or returns None so that the primitive takes its
checked path.  ``plan`` is made once per signature by :func:`binder` after a
call went through the checked path.

What the fast call accepts is a subset of what the checked path accepts for
the same kernel: per argument, the exact Python type seen then; for arrays
the same canonical dtype object, rank 1, C-contiguous, an Array of this
backend or a writable numpy array.  Anything else (another dtype, a view, a
different backend or configuration, keyword arguments in another
arrangement) falls back to the checked path, which may build another kernel.
The rules, side by side with the opencl backend's, are the table of
:mod:`pcompute.backends.fastrules`.
"""
import functools

import numpy as np

from ..arraybase import ArrayBase
from ..codegen.arrays import hidden_names
from ..config import GENERATION
from ..templates import render
from .fastrules import bound_array


def fast_arguments(args):
    """The template variables of ``pc_fast`` for the user arguments ``args``
    (``(name, cname, ctype, type_name)`` each, in call order), or None when a
    kind of argument has no fast call (an n-D or strided array)."""
    out = []
    for name, cname, t, type_name in args:
        if t.is_struct:
            return None         # an object: its record is made by the checked path
        if t.is_pointer:
            hidden = hidden_names(cname, t)
            if t.is_ndarray and not (t.ndim == 1 and t.layout == "C"):
                return None
            decls = ["size_t pc_a_%s" % name] + ["long long %s" % h for h in hidden]
            names = ["pc_a_%s" % name] + list(hidden)
            out.append((name, "array", decls, names))
        else:
            out.append((name, "scalar", ["%s %s" % (type_name, cname)], [cname]))
    return out


def fast_source(args):
    """The text of ``pc_fast`` for :func:`fast_arguments` ``args`` ('' for None)."""
    if args is None:
        return ""
    return render("fastcall_cython", args=args)


def _canonical_dtype(dtype):
    """The dtype object numpy uses for new arrays of ``dtype`` (None when
    ``dtype`` is not a plain native one: no fast call then)."""
    canonical = np.dtype(dtype.type)
    return canonical if canonical == dtype and dtype.isnative else None


def binder(module, generated, finish=None):
    """The ``fastcall`` of a BuiltKernel made from ``module``: ``bind(args,
    stamp, backend_name)`` gives ``fast(args, kw)`` for calls with the
    signature of ``args`` (the user values of a call that has just run through
    the checked path while ``GENERATION[0]`` was ``stamp``), or None.
    ``fast`` returns None when a call does not match; else True, or
    ``finish(result)`` when ``finish`` is given."""
    fast = getattr(module, "pc_fast", None)
    if fast is None:
        return None
    kinds = [t.is_pointer for _, t in generated.args]

    def bind(args, stamp, backend_name):
        if len(args) != len(kinds):
            return None
        dtypes, array_cls = [], None
        for value, is_array in zip(args, kinds):
            if not is_array:
                if isinstance(value, (np.ndarray, ArrayBase)):
                    return None
                dtypes.append(None)
                continue
            dev = value
            if isinstance(value, ArrayBase):
                bound = bound_array(value)
                if bound is None or array_cls not in (None, type(value)):
                    return None
                array_cls = type(value)
                dev = bound[1]
            if type(dev) is not np.ndarray or dev.ndim != 1:
                return None
            dtype = _canonical_dtype(dev.dtype)
            if dtype is None:
                return None
            dtypes.append(dtype)
        plan = (GENERATION, stamp, tuple(type(a) for a in args), tuple(dtypes),
                array_cls, np.ndarray, backend_name, finish, "backend",
                array_cls.DEV_ATTRIBUTE if array_cls is not None else None)
        return functools.partial(fast, plan)
    return bind
