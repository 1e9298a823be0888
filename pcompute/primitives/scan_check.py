"""Bounds checks of a Scan's input and is_segment functions.

The scan kernels take raw pointers, so they cannot check indices themselves.
With ``get_config().bounds_check`` on, a Scan first runs each of its input
and is_segment functions over every item in a checked
:class:`~pcompute.primitives.reduction.Reduction` (whose kernel calls the
user's function as a helper, so the located
:class:`~pcompute.errors.KernelIndexError` names the user's line), then
scans.  The check is one more launch per function, only while checks are on
(a debugging mode); the output function is not checked.
"""
import numpy as np

from .exprfunc import _NAMESPACE


def checker(func, params, dtype, where):
    """A Reduction evaluating ``func(*params)`` for every item ``i``; its map
    function takes ``i`` and then the other parameters in order (``N`` too);
    errors name it as ``where`` (the Scan)."""
    from .reduction import Reduction
    others = [p for p in params if p != "i"]
    name = "pc_check_%s" % func.__name__
    source = "def %s(%s):\n    return %s(%s)\n" % (
        name, ", ".join(["i"] + others), func.__name__, ", ".join(params))
    namespace = dict(_NAMESPACE)
    namespace[func.__name__] = func
    exec(compile(source, "<bounds check of %s>" % func.__name__, "exec"), namespace)
    wrapper = namespace[name]
    wrapper.source = source
    red = Reduction("a", wrapper, dtype_out=dtype, neutral="0")
    red.name = func.__name__
    red._where = lambda: "%s (its bounds check)" % where
    return red, others


def _checks(scan, values, n):
    """``(Reduction, its arguments)`` of each check of ``scan`` (memoised)."""
    by_name = dict(zip(scan.arg_names, values))
    by_name["N"] = np.int64(n)
    for role in ("input", "segment"):
        func = scan._func(role)
        if func is None:
            continue
        memo = scan._checkers
        if role not in memo:
            memo[role] = checker(func, scan._params[role], scan.dtype, scan._where())
        red, others = memo[role]
        yield red, [by_name[p] for p in others]


def check_functions(scan, values, n):
    """Run the checks of ``scan``'s input and is_segment functions over ``n``
    items (``values``: the user arguments by name, in ``scan.arg_names``)."""
    if n == 0:
        return
    for red, args in _checks(scan, values, n):
        red.set_backend(scan._backend)
        red._run(args, n)


def generated_checks(scan, backend, config, values):
    """The generated kernels of the checks :func:`check_functions` runs on
    ``backend`` (for :meth:`~pcompute.backends.base.Backend.prebuild`),
    those built already left out.  Builds nothing."""
    generated = (red.generated_for(backend, config, args)
                 for red, args in _checks(scan, values, 1))
    return [g for g in generated if g is not None]
