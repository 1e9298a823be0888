"""Kernel arguments of pycuda launches, packed once and re-packed only on change.

pycuda's ``prepared_async_call(grid, block, stream, *args)`` packs every
argument into a new parameter buffer on each call (``pack`` of the prepared
format) and sets the block shape again.  A :class:`PackedArgs` keeps, per
kernel, the packed parameter buffer itself (a ``bytearray`` laid out as
pycuda packs the prepared format: native alignment, :func:`field_offsets`)
and the device array object and scalar last given for each user argument: a
launch re-packs only what changed, then starts the kernel with pycuda's own
launch of a packed buffer (:class:`Packed`).

The fast call (``BuiltKernel.fastcall``) of such a launch is the opencl
backend's :func:`pcompute.backends.cl_args.binder` (the same rules, see
:mod:`pcompute.backends.fastrules`); pycuda arrays have no context to check
(the backend runs in the device's primary context).
"""
import struct

import numpy as np

from ..codegen.arrays import hidden_names, meta_values
from ._device import scalar_dtype
from .launch_args import LaunchArgs


def launch_format(types):
    """pycuda's prepare() format of the arguments: P for a pointer, then an
    n-D array's shape and strides (q each), else the scalar's dtype char."""
    out = ""
    for t in types:
        if t.is_pointer:
            out += "P" + "q" * len(hidden_names("", t))
        else:
            out += scalar_dtype(t).char
    return out


def launch_values(types, args):
    """The values of ``launch_format(types)`` for the arguments ``args``."""
    values = []
    for t, a in zip(types, args):
        if t.is_pointer:
            values.append(a.gpudata)
            values.extend(np.int64(v) for v in meta_values(t, a))
        else:
            values.append(a)
    return values


def packable(fmt):
    """True if Python's struct lays out ``fmt`` (every format pcompute makes
    but that of a user-class object, a record: those launch through
    pycuda's own packing)."""
    try:
        struct.calcsize(fmt)
    except struct.error:
        return False
    return True


def field_offsets(fmt):
    """The byte offset of every field of ``fmt`` (pycuda's prepared format:
    one struct character per field, native alignment) and the buffer size."""
    offsets = [struct.calcsize(fmt[:k + 1]) - struct.calcsize(c) for k, c in enumerate(fmt)]
    return offsets, struct.calcsize(fmt)


class Packed:
    """One kernel's parameter buffer for the prepared format ``fmt``.

    ``start(grid, block, buffer, 0, None)`` launches it on the default
    stream: pycuda's launch of a packed buffer (``Function._launch_kernel``,
    what its ``prepared_call`` and ``prepared_async_call`` end in after
    packing; the driver copies the parameters at the launch, so the buffer
    may change afterwards).  Callers call ``start`` themselves: one Python
    function less per launch."""

    def __init__(self, function, fmt):
        self.format = fmt
        self.offsets, size = field_offsets(fmt)
        self.buffer = bytearray(size)
        self.start = function._launch_kernel if function is not None else None

    def put(self, field, value):
        """Pack ``value`` (a number; a pointer as an int) into field ``field``."""
        struct.pack_into(self.format[field], self.buffer, self.offsets[field], value)


def address(dev):
    """The device address of pycuda array ``dev`` as an int (0 for an empty
    array, which has no allocation)."""
    return 0 if dev.gpudata is None else int(dev.gpudata)


def pointer_fields(t, dev):
    """The field values of an array argument: its address, then an n-D
    array's shape and strides (as :func:`launch_values`)."""
    return [address(dev)] + [int(v) for v in meta_values(t, dev)]


def pointer_width(t):
    """How many fields :func:`pointer_fields` fills."""
    return 1 + len(hidden_names("", t))


class PackedArgs(LaunchArgs):
    """The user arguments of one launch, at the same field positions of one or
    more :class:`Packed` buffers (``targets``: ``(packed, first user field)``
    pairs), packed with ``Packed.put``; ``types`` are their CTypes in call
    order; ``pointer``: ``(fields(t, dev), width(t))`` of an array argument
    (default: address, n-D shape and strides).  The interface of
    :class:`~pcompute.backends.cl_args.KernelArgs`, which ``binder`` uses."""

    def __init__(self, types, targets, pointer=(pointer_fields, pointer_width)):
        super().__init__(types, targets, pointer)

    @staticmethod
    def writer(packed):
        return packed.put
