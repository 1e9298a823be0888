"""Compiled fast calls of the cython backend's kernel modules.

A primitive's checked call path (configuration, backend, argument types,
memo lookup, conversion) costs several microseconds in Python.  Each
Elementwise, Reduction and Scan module therefore also carries ``pc_fast(plan,
args, kw)`` (``templates/fastcall_cython.mako``): C code that checks that
the call arguments have exactly the signature recorded in ``plan`` and that
no configuration field has changed since (:data:`pcompute.config.GENERATION`),
then runs the kernel, or returns None so that the primitive takes its
checked path.  Calls of an Elementwise given their index space (``shape=``:
n-D index spaces, and every launch of :func:`pcompute.parallelize`) have a
compiled fast call too: in a 1-D kernel's module ``pc_fast`` itself, bound
with a plan that says so (it then takes the index space in place of the
keywords; one entry, so a module built for plain calls serves later calls
given ``shape=`` without a second build), in the other kernels' modules
(n-D index spaces, 1-D ones over n-D arrays) ``pc_fast_shaped(plan, args,
shape)``.  Reduction and Scan modules carry no shaped entry.  ``plan`` is
made once per signature by :func:`binder` after a call went through the
checked path.

What the fast call accepts is a subset of what the checked path accepts for
the same kernel: per argument, the exact Python type seen then; for arrays
the same canonical dtype object, the rank of the kernel's parameter (1 for
``pc_fast``), C-contiguous, an Array of this backend or a writable numpy
array; for ``shape`` an int (1-D) or a tuple of ints, each exactly ``int``
and not negative.  Anything else (another dtype, a view, a
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
    """The template variables of the fast calls for the user arguments
    ``args`` (``(name, cname, ctype, type_name)`` each, in call order), or
    None when a kind of argument has no fast call (an object, an array whose
    last axis is not contiguous)."""
    out = []
    for name, cname, t, type_name in args:
        if t.is_struct:
            return None         # an object: its record is made by the checked path
        if t.is_pointer:
            hidden = hidden_names(cname, t)
            if t.is_ndarray and t.layout != "C":
                return None
            decls = ["size_t pc_a_%s" % name] + ["long long %s" % h for h in hidden]
            names = ["pc_a_%s" % name] + list(hidden)
            out.append((name, "array", decls, names, t.ndim if t.is_ndarray else 1))
        else:
            out.append((name, "scalar", ["%s %s" % (type_name, cname)], [cname], 0))
    return out


def fast_source(args, dims=None):
    """The text of the fast calls for :func:`fast_arguments` ``args`` ('' for
    None): ``pc_fast`` over a 1-D index space (``dims`` None or 1) when every
    array has rank 1 (with ``dims`` 1 it also takes an index space given
    with ``shape=``), else ``pc_fast_shaped`` over a ``dims``-D index space
    unless ``dims`` is None (an Elementwise's index rank; None for the other
    primitives)."""
    if args is None:
        return ""
    plain = dims in (None, 1) and all(
        rank == 1 for _, kind, _, _, rank in args if kind == "array")
    if not plain and dims is None:
        return ""
    extents = 1 if plain else dims
    run_types = ["long long"] * extents + [decl.rsplit(" ", 1)[0]
                                           for _, _, decls, _, _ in args for decl in decls]
    ranks = [rank for _, kind, _, _, rank in args if kind == "array"]
    # per argument: its index, name (and as a Python literal), kind, C
    # declarations, first C name and (index in pc_meta, name) of the others
    rows = [(k, name, repr(name), kind, decls, names[0], list(enumerate(names[1:])), rank)
            for k, (name, kind, decls, names, rank) in enumerate(args)]
    return render("fastcall_cython", rows=rows, n_args=len(args), plain=plain, dims=dims,
                  run_types=", ".join(run_types),
                  run_names="".join(", " + n for _, _, _, names, _ in args for n in names),
                  meta_size=max([2 * r - 1 for r in ranks] + [1]),
                  extent_values=", ".join("pc_e[%d]" % d for d in range(dims or 0)))


def _canonical_dtype(dtype):
    """The dtype object numpy uses for new arrays of ``dtype`` (None when
    ``dtype`` is not a plain native one: no fast call then)."""
    canonical = np.dtype(dtype.type)
    return canonical if canonical == dtype and dtype.isnative else None


def binder(module, generated, finish=None):
    """The ``fastcall`` of a BuiltKernel made from ``module``: ``bind(args,
    stamp, backend_name, shaped=False)`` gives ``fast(args, kw)`` (with
    ``shaped``: ``fast(args, shape)``, for calls given their index space)
    for calls with the signature of ``args`` (the user values of a call that
    has just run through the checked path while ``GENERATION[0]`` was
    ``stamp``), or None.  ``fast`` returns None when a call does not match;
    else True, or ``finish(result)`` when ``finish`` is given."""
    plain = getattr(module, "pc_fast", None)
    shaped_fast = getattr(module, "pc_fast_shaped", None)
    if plain is None and shaped_fast is None:
        return None
    if shaped_fast is None and generated.option("index_dims") == 1:
        shaped_fast = plain         # a 1-D Elementwise's pc_fast takes shape= too
    ranks = [(t.ndim if t.is_ndarray else 1) if t.is_pointer else 0
             for _, t in generated.args]

    def bind(args, stamp, backend_name, shaped=False):
        fast = shaped_fast if shaped else plain
        if fast is None or len(args) != len(ranks):
            return None
        dtypes, array_cls = [], None
        for value, rank in zip(args, ranks):
            if not rank:
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
            if type(dev) is not np.ndarray or dev.ndim != rank:
                return None
            dtype = _canonical_dtype(dev.dtype)
            if dtype is None:
                return None
            dtypes.append(dtype)
        plan = (GENERATION, stamp, tuple(type(a) for a in args), tuple(dtypes),
                array_cls, np.ndarray, backend_name, finish, "backend",
                array_cls.DEV_ATTRIBUTE if array_cls is not None else None, shaped)
        return functools.partial(fast, plan)
    return bind
