"""The user arguments of a launch, written into its targets only when they change.

A launch whose parameters persist between calls (pyopencl ``Kernel`` objects
of its own, pycuda packed parameter buffers) need not set every argument
again at each call: :class:`LaunchArgs` remembers the device array object
and the scalar value last given for each user argument and writes only what
changed.  Its two subclasses differ in two hooks only: how an array argument
splits into parameters (``pointer``) and how one parameter of a target is
written (:meth:`LaunchArgs.writer`): :class:`pcompute.backends.cl_args.KernelArgs`
(``kernel.set_arg``) and :class:`pcompute.backends.cuda_args.PackedArgs`
(``Packed.put``).
"""
import math

from ._device import scalar_dtype

_UNSET = object()


def _differs(value, old):
    """True when the scalar argument ``value`` is not the one set before:
    another type, another value, or a zero of the other sign (0.0 == -0.0,
    but x / -0.0 is -inf where x / 0.0 is inf)."""
    return type(value) is not type(old) or value != old or (
        not value and math.copysign(1.0, value) != math.copysign(1.0, old))


class LaunchArgs:
    """The user arguments of one launch, at the same parameter positions of
    one or more targets.

    ``types``: the CTypes of the user arguments in call order; ``targets``:
    ``(target, position of the first user argument)`` pairs; ``pointer``:
    ``(parts(t, dev), width(t))``: the parameter values of an array argument
    and how many parameters it fills (a scalar fills one).
    """

    def __init__(self, types, targets, pointer):
        self.types = list(types)
        self.targets = list(targets)
        self.parts_of, width = pointer
        self.writes = [(self.writer(target), first) for target, first in self.targets]
        self.scalar = [None if t.is_pointer else scalar_dtype(t).type for t in types]
        self.positions, pos = [], 0
        for t in types:
            self.positions.append(pos)
            pos += width(t) if t.is_pointer else 1
        self.width = pos        # parameters the user arguments fill
        self.last = [_UNSET] * len(types)
        self.held = []

    @staticmethod
    def writer(target):
        """``write(position, value)``: sets one parameter of ``target``."""
        raise NotImplementedError

    def hold(self, *arrays):
        """Keep ``arrays`` (set as fixed parameters of the targets) alive as
        long as these arguments: a parameter must never name a freed buffer."""
        self.held.extend(arrays)

    def set(self, values):
        """Make the targets' arguments ``values`` (device arrays and numbers,
        in call order); writes only those that changed."""
        last = self.last
        for k, value in enumerate(values):
            old = last[k]
            if value is old or (self.scalar[k] is not None and not _differs(value, old)):
                continue
            self.put(k, value)

    def put(self, k, value):
        """Write user argument ``k`` = ``value`` into every target."""
        convert = self.scalar[k]
        parts = [convert(value)] if convert is not None else \
            self.parts_of(self.types[k], value)
        pos = self.positions[k]
        for write, first in self.writes:
            for j, part in enumerate(parts):
                write(first + pos + j, part)
        self.last[k] = value
