"""Kernel argument tuples, made once and kept while their objects are the same.

At N = 1000 a step lasts tens of microseconds, and making each kernel's
argument tuple at every launch (lists, numpy scalars) was a tenth of
pcompute's Python time per step.  A :class:`Kept` makes its tuple again only
when one of the objects it was made from is not the same object as last time
(compared by identity: new values put into the same arrays need nothing,
a replaced array or tuple of arrays makes the tuple again).  The integrator
and the neighbour strategies keep theirs this way
(:mod:`examples.md.integrator`, :mod:`examples.md.strategies`).
"""
import numpy as np

_NEVER = object()       # compared with a keeper's objects before its first call


class Kept:
    """The argument tuple ``name``: ``make()`` (any iterable), made again when
    one of the objects ``a``, ``b``, ``c``, ``d`` of a call is not the one of
    the call before, compared by identity.

    The objects must be every object the tuple holds (directly or as
    elements) that its owner may replace; what ``make`` reads and is never
    replaced (a fixed array, a constant) need not be among them.  Up to
    four objects, compared one by one: a call costs one Python call and four
    ``is not`` tests, as the hand-written checks it replaces.
    """

    __slots__ = ("name", "_make", "_a", "_b", "_c", "_d", "_value")

    def __init__(self, name, make):
        self.name = name
        self._make = make
        self._a = self._b = self._c = self._d = _NEVER
        self._value = None

    def __call__(self, a, b=None, c=None, d=None):
        if a is not self._a or b is not self._b or c is not self._c or d is not self._d:
            self._value = tuple(self._make())
            self._a, self._b, self._c, self._d = a, b, c, d
        return self._value

    def __repr__(self):
        return "<Kept %s: %s>" % (self.name, "made" if self._a is not _NEVER else "not made")


def geometry(sim):
    """The trailing ``(side, periodic)`` arguments of the 3-D kernels, in the
    simulation's types; none in 2-D (walls only)."""
    return (sim.real(sim.side), np.int32(sim.periodic)) if sim.dim == 3 else ()
