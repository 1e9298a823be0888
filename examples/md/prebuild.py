"""The kernels of a run built together, before the first one is needed.

A simulation launches a fixed set of kernels, known once it is set up
(:meth:`examples.md.simulation.Simulation.launches`): the integrator's, the
neighbour search's, the forces' and the energies' (about 15 for one
dimension and strategy).  Built one by one, each is a compiled module of its
own on the cython backend (~0.35 CPU-s of the C compiler each at -O0, nearly
all of it the fixed cost of a module); built together they are one group
module per set of build flags
(:meth:`~pcompute.backends.base.Backend.prebuild`,
:mod:`pcompute.build.cython_group`).  Other backends build nothing ahead
(their ``prebuild`` does nothing).

``sort_by_keys`` (the ``sort`` strategy) is a library function, not a kernel
of the example: its modules are built at its first call, as elsewhere.
Correctness never depends on this: every kernel is keyed by its own source
and flags, and one not built here is built at its launch.
"""
import logging

from pcompute import get_config
from pcompute.backends.registry import get_backend

log = logging.getLogger("examples.md")


def generated_kernels(sims, backend, config):
    """The :class:`~pcompute.records.GeneratedKernel` records of the kernels
    of simulations ``sims`` on ``backend`` (a Backend) under ``config`` that
    are not built yet, each once."""
    out, seen = [], set()
    for sim in sims:
        for kernel, args in sim.launches():
            generated = kernel.generated_for(backend, config, args)
            if generated is not None and generated.source not in seen:
                seen.add(generated.source)
                out.append(generated)
    return out


def build_together(sims):
    """Build the kernels of ``sims`` (set-up simulations, started or not,
    all on one backend) together where that backend can, under the current
    configuration; returns the number of modules made."""
    names = {sim.backend for sim in sims}
    if len(names) != 1:
        raise ValueError("build_together takes simulations of one backend, not %s"
                         % ", ".join(sorted(names)))
    config = get_config()
    backend = get_backend(names.pop())
    if not backend.builds_together:
        return 0
    generated = generated_kernels(sims, backend, config)
    if len(generated) < 2:
        return 0
    made = backend.prebuild(generated, config)
    log.info("%d kernels of the run built as %d module(s)", len(generated), made)
    return made
