"""Kernel arguments of pyopencl launches, set once and re-set only on change.

pyopencl's ``kernel(queue, gsize, lsize, *args)`` sets every argument
(``clSetKernelArg``) and converts every scalar again on each call.  A
:class:`KernelArgs` owns its pyopencl ``Kernel`` objects (:func:`own_kernel`:
nobody else sets their arguments) and remembers the device array object and
the scalar value last given for each user argument: a launch re-sets only
what changed, then the caller enqueues with
``pyopencl.enqueue_nd_range_kernel``.

:func:`binder` makes the ``BuiltKernel.fastcall`` of such a launch: the same
signature checks as the cython backend's compiled fast call (exact Python
type of each argument, Array backend, dtype, rank and layout, configuration
generation), but an
Array whose device array is the one of the last call is not checked again
(its backend, dtype and layout cannot have changed).  The device arrays of
the last launch are kept referenced until the next one, so a kernel argument
never names a freed buffer.  The rules, side by side with the cython
backend's, are the table of :mod:`pcompute.backends.fastrules`.
"""
import math

import numpy as np

from ..arraybase import ArrayBase
from ..codegen.arrays import hidden_names, meta_values
from ..config import GENERATION
from ._device import scalar_dtype
from .fastrules import bound_array


def _differs(value, old):
    """True when the scalar argument ``value`` is not the one set before:
    another type, another value, or a zero of the other sign (0.0 == -0.0,
    but x / -0.0 is -inf where x / 0.0 is inf)."""
    return type(value) is not type(old) or value != old or (
        not value and math.copysign(1.0, value) != math.copysign(1.0, old))


def own_kernel(kernel):
    """A new pyopencl Kernel of ``kernel``'s program and function: argument
    state of its own (the build memo hands the same Kernel objects to every
    caller)."""
    import pyopencl as cl
    return cl.Kernel(kernel.program, kernel.function_name)


def buffer_and_offset(t, dev):
    """The values of an array argument passed as (buffer, element offset,
    n-D shape and strides)."""
    return ([dev.base_data, np.int64(dev.offset // dev.dtype.itemsize)]
            + [np.int64(v) for v in meta_values(t, dev)])


def buffer_and_offset_width(t):
    """How many kernel parameters :func:`buffer_and_offset` fills."""
    return 2 + len(hidden_names("", t))


def whole_buffer(t, dev):
    """The value of an array argument passed as its whole buffer."""
    return [dev.data]


class KernelArgs:
    """The user arguments of one launch, at the same parameter positions of
    one or more kernels.

    ``types``: the CTypes of the user arguments in call order; ``targets``:
    ``(kernel, position of the first user argument)`` pairs; ``pointer``:
    ``(values(t, dev), width(t))`` of an array argument.
    """

    def __init__(self, types, targets, pointer=(buffer_and_offset,
                                                buffer_and_offset_width)):
        self.targets = list(targets)
        self.values_of, width = pointer
        self.types = list(types)
        self.scalar = [None if t.is_pointer else scalar_dtype(t).type for t in types]
        self.positions, pos = [], 0
        for t in types:
            self.positions.append(pos)
            pos += width(t) if t.is_pointer else 1
        self.width = pos        # parameters the user arguments fill
        self.last = [_UNSET] * len(types)
        self.held = []

    def hold(self, *arrays):
        """Keep ``arrays`` (set as fixed arguments of the kernels) alive as
        long as these arguments: a kernel argument must never name a freed
        buffer."""
        self.held.extend(arrays)

    def set(self, values):
        """Make the kernels' arguments ``values`` (device arrays and
        numbers, in call order); re-sets only those that changed."""
        last = self.last
        for k, value in enumerate(values):
            old = last[k]
            if value is old or (self.scalar[k] is not None and not _differs(value, old)):
                continue
            self.put(k, value)

    def put(self, k, value):
        """Set user argument ``k`` to ``value`` in every target kernel."""
        convert = self.scalar[k]
        parts = [convert(value)] if convert is not None else \
            self.values_of(self.types[k], value)
        pos = self.positions[k]
        for kernel, first in self.targets:
            for j, part in enumerate(parts):
                kernel.set_arg(first + pos + j, part)
        self.last[k] = value


_UNSET = object()


def _layout(dev):
    """(rank, last axis contiguous) of a device array (as the checked path's
    signature records it)."""
    shape, strides = dev.shape, dev.strides
    return len(shape), (not shape or strides[-1] == dev.dtype.itemsize or shape[-1] <= 1)


def binder(kernel_args, enqueue, context, names, returns=False):
    """The ``fastcall`` of a launch whose user arguments are ``kernel_args``
    (a :class:`KernelArgs`) and that ``enqueue(n)`` starts once they are set.

    ``bind(args, stamp, backend_name)`` gives ``fast(args, kw)``, which
    returns None when the call does not match the signature of ``args``
    (the checked path then runs), else True (or, with ``returns``, what
    ``enqueue(n)`` returns: a Reduction's value).
    ``bind`` returns None when ``args`` hold something it does not handle
    (numpy arrays, no Array at all).  ``context`` is the pyopencl context the
    kernels run in: an array of another context is left to the checked
    path, which names it (None: arrays have no context to check, as the cuda
    backend's, whose :class:`~pcompute.backends.cuda_args.PackedArgs` take
    the place of ``kernel_args``).
    """
    count = len(names)
    # an object of a user class becomes a new record at each call: checked path
    objects = any(t.is_struct for t in kernel_args.types)

    def bind(args, stamp, backend_name):
        if objects or len(args) != count:
            return None
        want, attrs, dtypes, layouts, first = [], [], [], [], None
        for k, value in enumerate(args):
            want.append(type(value))
            if isinstance(value, ArrayBase):
                bound = bound_array(value)
                if bound is None:
                    return None
                attr, dev = bound
                attrs.append(attr)
                dtypes.append(dev.dtype)
                layouts.append(_layout(dev))
                if first is None:
                    first = k
            elif isinstance(value, np.generic) and type(value) is kernel_args.scalar[k]:
                attrs.append(None)          # a numpy scalar of the parameter's own type
                dtypes.append(None)         # (no conversion, so no range to check)
                layouts.append(None)
            elif hasattr(value, "shape"):
                return None                 # numpy arrays and the like: checked path
            else:
                attrs.append(None)
                dtypes.append(None)
                layouts.append(None)
        if first is None:
            return None
        last = kernel_args.last
        put = kernel_args.put
        slots = list(zip(range(count), want, attrs))
        length = [None, 0]      # (device array, n) of the first array argument

        def admit(k, value, dev):
            """Checks of an array argument whose device array is new."""
            return (value.backend == backend_name and dev.dtype == dtypes[k]
                    and _layout(dev) == layouts[k]
                    and (context is None or dev.context == context))

        def fast(args, kw):
            if GENERATION[0] != stamp:
                return None
            if kw:
                if len(args) + len(kw) != count:
                    return None
                args = tuple(args) + tuple(map(kw.get, names[len(args):]))
            elif len(args) != count:
                return None
            for k, cls, attr in slots:
                value = args[k]
                if type(value) is not cls:
                    return None
                if attr is not None:
                    dev = getattr(value, attr)
                    if dev is not last[k]:
                        if not admit(k, value, dev):
                            return None
                        put(k, dev)
                elif value is not last[k] and _differs(value, last[k]):
                    put(k, value)
            if length[0] is not last[first]:
                length[0], length[1] = last[first], len(args[first])
            result = enqueue(length[1])
            return result if returns else True
        return fast
    return bind
