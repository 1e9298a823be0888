"""The reference implementation of speculation, for the profile mode.

:meth:`Parallelized.profile <pcompute.autopar.Parallelized.profile>` runs a
speculated loop's instrumented kernel as Python (the python backend's copy of
the kernel function), item after item, with its rd/wr logs in dictionaries
(an element never touched costs nothing).  Item ``t`` runs iteration
``count - 1 - t`` (:mod:`.speclower`), so the iterations run in reverse
order: every flow or anti dependence between two iterations is then out of
order, and every one is found, as every output dependence is.  The profile
therefore says exactly whether the loop, with these data, is parallel.

The kernel runs as the python backend runs kernels: with the C types of the
compiled kernel's typed program (its logs are int32 arrays there), on kernel
values (a ``uint8`` element is an ``int``, so ``p[i] + p[i]`` does not wrap at
256 as NumPy's scalars would), so the indices it logs are the ones the
compiled kernel would touch.
"""
import numpy as np

from ..array import Array
from ..backends.pyexec import python_callable
from ..backends.pyints import I64
from ..backends.pyvalues import kernel_values
from .speclower import KINDS


class DictLog(dict):
    """A log in a dictionary: element index -> highest iteration id (0 when
    never touched)."""

    def __missing__(self, key):
        return 0


def host(value):
    """The NumPy array behind ``value`` (an Array or a NumPy array)."""
    if isinstance(value, Array):
        return value.pull().data
    return value


def run_reference(ew, values, loop, text, base):
    """Run the speculative kernel of the Elementwise ``ew`` (its
    :class:`SpecKernelText` ``text``) for every iteration of ``loop``,
    logging in dictionaries; returns the violation flags (one per kind of
    :data:`KINDS`)."""
    nlogs = sum(has_read + has_write for name, has_read, has_write in text.logged)
    flags = np.zeros(len(KINDS), np.int32)
    args = [host(v) for v in values] + [loop.lo.const, loop.step, loop.count, base]
    program = ew.typed_program("python", *(args + [np.zeros(1, np.int32)] * nlogs
                                           + [flags]))
    fn = python_callable(ew.func, program)
    args = kernel_values(args + [DictLog() for _ in range(nlogs)] + [flags])
    for t in range(loop.count):
        fn(I64(t), *args)
    return flags
