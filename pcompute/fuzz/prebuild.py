"""The kernels a fuzz case builds on a target, generated ahead without building.

:func:`generated_kernels` gives the :class:`~pcompute.records.GeneratedKernel`
records that :meth:`CaseRun.check <pcompute.fuzz.runner.CaseRun.check>` of a
case builds on a target (its Elementwise, and its Reduction or Scan), made as
the runner makes its primitives, so that a caller can build the kernels of
many cases together (:meth:`~pcompute.backends.base.Backend.prebuild`: the
cython backend's group modules) and the runs then find them built.
"""
import logging
import warnings

from ..backends.registry import get_backend
from ..errors import PrecisionWarning
from .runner import (Inputs, elementwise_outputs, make_functions, reduction_of, scan_available,
                     scan_of, scan_output)

log = logging.getLogger("pcompute.fuzz")


def _same(a):
    return a


def generated_kernels(case, target, n):
    """The generated kernels of ``case`` on ``target`` (a
    :class:`~pcompute.fuzz.runner.Target`) for ``n`` items, under the current
    configuration with the target's applied; those already built are left out.

    A primitive whose kernel cannot be generated (a kernel the front end
    rejects, a generator bug) is left out and logged: its run on the target
    raises the same error, reported there as that case's failure."""
    backend = get_backend(target.name)
    funcs = make_functions(case)
    inputs = Inputs(case, target.precision, n)
    args = inputs.map_args(_same)
    made = {
        "elementwise": lambda config: _elementwise(funcs).generated_for(
            backend, config, args + list(elementwise_outputs(inputs, _same))),
        "reduction": lambda config: reduction_of(case, funcs, inputs).generated_for(
            backend, config, args),
        "scan": lambda config: scan_of(case, funcs, inputs).generated_for(
            backend, config, args + [scan_output(case, inputs, _same)]),
    }
    out = []
    with target.config() as config, warnings.catch_warnings():
        warnings.simplefilter("ignore", PrecisionWarning)   # as the runs do
        for prim in case.primitives:
            if prim == "scan" and not scan_available():
                continue
            try:
                generated = made[prim](config)
            except Exception as exc:
                log.info("%s of case %s (seed %d) on %s not generated ahead (%s: %s); its "
                         "run reports it", prim, case.label, case.seed, target.id,
                         type(exc).__name__, exc)
                continue
            if generated is not None:
                out.append(generated)
    return out


def _elementwise(funcs):
    from ..primitives.elementwise import Elementwise
    return Elementwise(funcs["fz_kernel"])
