"""An independent random-kernel generator for pcompute (issue 24).

Written as a new user would write kernels, from the user documentation only
(docs/language.rst, semantics.rst, types.rst, precision.rst, elementwise.rst,
reduction.rst, scan.rst), without reading :mod:`pcompute.fuzz`.  Each case is
a small Python module written to a file: an ``Elementwise`` kernel, or the map
function of a ``Reduction``, or the input/output functions of a ``Scan``,
with helpers, locals (plain and ``declare``-d), loops with ``break``, over
int8 ... uint64, float32/float64 and bool arrays.

The reference is the *plain Python call* of the same functions on Python
numbers (arrays become lists of Python ints, floats and bools), with only the
conversions the documentation states applied where a value leaves the kernel:
a value stored into an array element becomes the element's type (integers
wrap to its width, floats are truncated towards zero, anything into a bool is
its truth value, floats are rounded to the element's precision), and the
outermost integer operation of a stored value wraps around in its documented
C type (semantics.rst: "Signed overflow is defined: it wraps around").
Everywhere else the generator keeps values inside their documented C types,
so that C and Python agree by the documented rules alone: it tracks, for
every expression, its C type by the documented promotion rules, the interval
of its Python value and, for floats, whether it is exact (a dyadic value that
fits the mantissa) or else a bound on its rounding error.  Float comparisons,
``int()``, ``floor``, ``//`` and ``%`` only see exact values.

Some Elementwise cases contain one construct the documentation says is an
error (a run-time power that may be negative, a ``uint64`` compared with a
signed value, a float into a ``declare('int')`` local, a float passed to an
``int`` helper parameter, ``and`` between numbers, a literal beyond 64 bits):
every backend must raise a pcompute error located at that line.

Every case runs on each selected backend (python, cython, cython with
OpenMP, opencl) and its CUDA source is compile-checked with ``nvcc --ptx``.
Outcomes other than "matches the reference" or "the expected located error"
are findings: a silent difference, a compiler dump (``BuildError``), an
unexpected or unlocated error, a crash or a hang.

Long run (one kernel per child process, so a crash or hang is caught), from
the repository root::

    PYTHONPATH=tests python -m indepgen --seconds 1200 --seed 1 --out indep-failures
    PYTHONPATH=tests python -m indepgen --case 17 --show   # one case: source and report

Modules: :mod:`.ctypes_model` (the documented types and the value model),
:mod:`.exprs` (expressions), :mod:`.cases` (kernels and their data),
:mod:`.check` (the plain Python reference, running, judging), ``__main__``
(the long run).

``tests/test_indepgen.py`` runs a few fixed seeds through the ``backend``
fixture.
"""
from .cases import Case, make_case
from .check import (check_cuda, check_current, load, reference, run_case,
                    run_on)

__all__ = ["Case", "make_case", "check_cuda", "check_current", "load", "reference",
           "run_case", "run_on"]
