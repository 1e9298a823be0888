"""Kernel arguments of pyopencl launches, set once and re-set only on change.

pyopencl's ``kernel(queue, gsize, lsize, *args)`` sets every argument
(``clSetKernelArg``) and converts every scalar again on each call.  A
:class:`KernelArgs` owns its pyopencl ``Kernel`` objects (:func:`own_kernel`:
nobody else sets their arguments) and remembers the device array object and
the scalar value last given for each user argument
(:class:`pcompute.backends.launch_args.LaunchArgs`): a launch re-sets only
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
import numpy as np

from ..arraybase import ArrayBase
from ..codegen.arrays import hidden_names, meta_values
from ..config import GENERATION
from .fastrules import bound_array
from .launch_args import LaunchArgs, _differs


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


class KernelArgs(LaunchArgs):
    """The user arguments of one launch, at the same parameter positions of
    one or more pyopencl kernels (``targets``: ``(kernel, position of the
    first user argument)`` pairs), set with ``kernel.set_arg``; ``pointer``:
    ``(values(t, dev), width(t))`` of an array argument (default: buffer,
    offset, n-D shape and strides)."""

    def __init__(self, types, targets, pointer=(buffer_and_offset,
                                                buffer_and_offset_width)):
        super().__init__(types, targets, pointer)

    @staticmethod
    def writer(kernel):
        return kernel.set_arg


def _layout(dev):
    """(rank, last axis contiguous) of a device array (as the checked path's
    signature records it)."""
    shape, strides = dev.shape, dev.strides
    return len(shape), (not shape or strides[-1] == dev.dtype.itemsize or shape[-1] <= 1)


def binder(kernel_args, enqueue, context, names, returns=False):
    """The ``fastcall`` of a launch whose user arguments are ``kernel_args``
    (a :class:`KernelArgs`) and that ``enqueue(n)`` starts once they are set.

    ``bind(args, stamp, backend_name, shaped=False)`` gives ``fast(args,
    kw)`` (None for ``shaped``: calls given ``shape=``), which
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

    def bind(args, stamp, backend_name, shaped=False):
        if shaped or objects or len(args) != count:
            return None             # a call given shape=: Elementwise's Python fast path
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
