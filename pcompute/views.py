"""Copies between strided views and contiguous arrays on a backend's device.

A view of an :class:`~pcompute.array.Array` (``a[1:-1, ::2]``, ``a.T``) shares
the device buffer of its base: on OpenCL it is the buffer, an offset and
strides.  Device libraries move only contiguous memory to and from the host,
so :meth:`Array.get` / :meth:`Array.push` of a strided view go through a
contiguous device array and one of the kernels below (written in the kernel
language, so they run on every backend).  Arrays of rank above 3 are copied
one rank-3 slab at a time.
"""
import itertools

import numpy as np

from .arraybase import DeviceBuffer
from .primitives.elementwise import Elementwise


def _copy1(i, dst, src):
    dst[i] = src[i]


def _copy2(i, j, dst, src):
    dst[i, j] = src[i, j]


def _copy3(i, j, k, dst, src):
    dst[i, j, k] = src[i, j, k]


def _fill1(i, dst, value):
    dst[i] = value


def _fill2(i, j, dst, value):
    dst[i, j] = value


def _fill3(i, j, k, dst, value):
    dst[i, j, k] = value


_COPY = {1: _copy1, 2: _copy2, 3: _copy3}
_FILL = {1: _fill1, 2: _fill2, 3: _fill3}
_KERNELS = {}


def _kernel(func, backend):
    key = (func, backend.name)
    if key not in _KERNELS:
        _KERNELS[key] = Elementwise(func, backend=backend.name)
    return _KERNELS[key]


def _arrays(backend, *devs):
    return [DeviceBuffer(d, backend) for d in devs]


def _slabs(dst, src=None):
    """(dst, src) pairs of rank <= 3 covering arrays of any rank."""
    if len(dst.shape) <= 3:
        return [(dst, src)]
    return [(dst[idx], None if src is None else src[idx])
            for idx in itertools.product(*(range(d) for d in dst.shape[:-3]))]


def copy_into(backend, dst, src):
    """``dst[...] = src`` for two device arrays of one shape (any strides)."""
    if 0 in dst.shape:
        return
    for d, s in _slabs(dst, src):
        _kernel(_COPY[len(d.shape)], backend)(*_arrays(backend, d, s))


def fill(backend, dst, value):
    """Set every element of the device array ``dst`` (any strides) to ``value``."""
    if 0 in dst.shape:
        return
    value = np.dtype(dst.dtype).type(value)
    for d, _ in _slabs(dst):
        _kernel(_FILL[len(d.shape)], backend)(*_arrays(backend, d), value)


def contiguous(backend, dev):
    """``dev`` itself if it is C-contiguous, else a contiguous device copy."""
    if dev.flags.c_contiguous:
        return dev
    out = backend.empty(int(np.prod(dev.shape, dtype=np.int64)), dev.dtype)
    out = out.reshape(dev.shape)
    copy_into(backend, out, dev)
    return out
