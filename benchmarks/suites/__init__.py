"""The benchmark suites, in the order they run; each has NAME and run(ctx).

A suite's module is imported when the suite is looked up (``SUITES[name]``),
not with this package: a run of some suites imports only those, so
``benchmarks.ab`` can time an older pcompute that lacks what other suites
need."""
import importlib
from collections.abc import Mapping

#: (suite NAME, module), in the order they run
ORDER = (("axpy", "axpy"), ("map", "heavymap"), ("overhead", "overhead"),
         ("build", "build"), ("sum", "reduction"), ("min", "minimum"), ("scan", "scan"),
         ("segscan", "segscan"), ("sort", "sort"), ("align", "align"),
         ("numpy", "numpy_programs"), ("dataparallel", "dataparallel"),
         ("jacobi2d", "jacobi2d"), ("autopar", "autopar"), ("speculate", "speculate"),
         ("md", "md"))


class _Suites(Mapping):
    """NAME -> suite module, imported on first lookup."""

    def __init__(self, order):
        self._modules = dict(order)

    def __getitem__(self, name):
        module = importlib.import_module("%s.%s" % (__name__, self._modules[name]))
        if module.NAME != name:
            raise RuntimeError("suite module %s has NAME %r, listed as %r"
                               % (module.__name__, module.NAME, name))
        return module

    def __iter__(self):
        return iter(self._modules)

    def __len__(self):
        return len(self._modules)


SUITES = _Suites(ORDER)
