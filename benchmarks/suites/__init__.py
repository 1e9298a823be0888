"""The benchmark suites, in the order they run; each has NAME and run(ctx)."""
from . import (align, autopar, axpy, build, dataparallel, heavymap, jacobi2d, md, minimum,
               numpy_programs, overhead,
               reduction, scan, segscan, sort, speculate)

SUITES = {m.NAME: m for m in (axpy, heavymap, overhead, build, reduction, minimum, scan,
                               segscan, sort, align, numpy_programs, dataparallel, jacobi2d,
                               autopar, speculate, md)}
