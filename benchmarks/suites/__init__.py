"""The benchmark suites, in the order they run; each has NAME and run(ctx)."""
from . import axpy, build, overhead, reduction, scan, sort

SUITES = {m.NAME: m for m in (axpy, overhead, build, reduction, scan, sort)}
