"""The reference implementation of speculation, for the profile mode.

:meth:`Parallelized.profile <pcompute.autopar.Parallelized.profile>` runs a
speculated loop's instrumented kernel as Python (the python backend's copy of
the kernel function), item after item, with its rd/wr logs in dictionaries
(an element never touched costs nothing).  Item ``t`` runs iteration
``count - 1 - t`` (:mod:`.speclower`), so the iterations run in reverse
order: every flow or anti dependence between two iterations is then out of
order, and every one is found, as every output dependence is.  The profile
therefore says exactly whether the loop, with these data, is parallel.
"""
import numpy as np

from ..array import Array
from ..backends.pyexec import python_callable
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


def run_reference(func, values, loop, text, base):
    """Run the speculative kernel ``func`` (its :class:`SpecKernelText`
    ``text``) for every iteration of ``loop``, logging in dictionaries;
    returns the violation flags (one per kind of :data:`KINDS`)."""
    fn = python_callable(func)
    logs = [DictLog() for name, has_read, has_write in text.logged
            for _ in range(has_read + has_write)]
    flags = np.zeros(len(KINDS), np.int32)
    args = [host(v) for v in values] + [loop.lo.const, loop.step, loop.count, base]
    args += logs + [flags]
    for t in range(loop.count):
        fn(t, *args)
    return flags
