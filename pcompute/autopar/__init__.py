"""Automatic parallelisation of plain Python loop nests, and the race check
of Elementwise kernels, on one dependence analysis.

- :mod:`.affine`, :mod:`.deptest`: affine subscripts and the classic tests
  (ZIV, strong/weak SIV, GCD, Banerjee with direction vectors);
- :mod:`.nest`, :mod:`.scalars`, :mod:`.analysis`: loops and accesses of a
  nest, private/reduction/carried scalars, a verdict with reasons per loop.
"""
from .analysis import PARALLEL, REDUCTION, SEQUENTIAL, analyse  # noqa: F401

from ..primitives.elementwise import BUILD_CHECKS as _BUILD_CHECKS  # noqa: E402
from .race import check_kernel as _check_kernel  # noqa: E402

if _check_kernel not in _BUILD_CHECKS:
    _BUILD_CHECKS.append(_check_kernel)
from .parallelize import Parallelized, parallelize  # noqa: E402,F401
