"""Device kernels that move particles: select, pack (gather) and unpack.

They are ordinary pcompute kernels, so they run on the rank's own backend
(on OpenCL/CUDA the packing happens on the device and only the packed
buffers cross to the host for MPI).
"""
import numpy as np

from ..array import Array, empty, zeros
from ..primitives.elementwise import Elementwise
from ..primitives.scan import Scan


def in_slab(i, x, lo, hi):
    if x[i] >= lo and x[i] < hi:
        return 1
    return 0


def selected_output(i, item, prev_item, N, x, lo, hi, sel_idx, sel_count):
    if x[i] >= lo and x[i] < hi:
        sel_idx[prev_item] = i
    if i == N - 1:
        sel_count[0] = item


def pack_shifted(i, idx, src, buf, offset, shift):
    buf[offset + i] = src[idx[i]] + shift


def pack_values(i, idx, src, buf, offset):
    buf[offset + i] = src[idx[i]]


def unpack_values(i, src, dst, start):
    dst[start + i] = src[i]


class Packer:
    """The kernels of one backend, and device scratch arrays reused between calls."""

    def __init__(self, backend):
        self.backend = backend
        self._select = Scan(input=in_slab, output=selected_output, dtype=np.int32,
                            backend=backend)
        self._pack_shifted = Elementwise(pack_shifted, backend=backend)
        self._pack = Elementwise(pack_values, backend=backend)
        self._unpack = Elementwise(unpack_values, backend=backend)
        self._count = zeros(1, np.int32, backend=backend)
        self._buffers = {}

    def buffer(self, name, n, dtype):
        """A device scratch Array ``name`` of ``n`` elements (grown as needed)."""
        key = (name, np.dtype(dtype))
        buf = self._buffers.get(key)
        if buf is None:
            buf = self._buffers[key] = empty(max(n, 1), dtype, backend=self.backend)
        buf.resize(n)
        return buf

    def select(self, x, lo, hi, name):
        """Indices ``i`` (increasing) with ``lo <= x[i] < hi``: an int32 Array."""
        n = len(x)
        idx = self.buffer(name, n, np.int32)
        if n == 0:
            return idx
        real = x.dtype.type
        self._select(x=x, lo=real(lo), hi=real(hi), sel_idx=idx, sel_count=self._count)
        idx.resize(int(self._count.get()[0]))
        return idx

    def pack(self, idx, fields, shifts=None):
        """Gather ``fields[f][idx]`` (+ ``shifts[f]``) into one host array per
        dtype: ``{dtype: host array}`` in field order."""
        out = {}
        k = len(idx)
        by_dtype = {}
        for f, field in enumerate(fields):
            by_dtype.setdefault(field.dtype, []).append(f)
        for dtype, members in by_dtype.items():
            buf = self.buffer("pack", k * len(members), dtype)
            if k:
                for slot, f in enumerate(members):
                    if shifts is not None and shifts[f]:
                        self._pack_shifted(idx, fields[f], buf, np.int64(slot * k),
                                           dtype.type(shifts[f]))
                    else:
                        self._pack(idx, fields[f], buf, np.int64(slot * k))
            out[dtype] = buf.get() if k else np.empty(0, dtype)
        return out

    def unpack(self, host, fields, start, count):
        """Write ``count`` received values per field (``host``: {dtype: array},
        laid out as :meth:`pack` does) into ``fields[f][start:start + count]``."""
        if count == 0:
            return
        by_dtype = {}
        for f, field in enumerate(fields):
            by_dtype.setdefault(field.dtype, []).append(f)
        for dtype, members in by_dtype.items():
            buf = self.buffer("unpack", len(host[dtype]), dtype)
            buf.set(host[dtype])
            for slot, f in enumerate(members):
                self._unpack(buf.get_view(slot * count, count), fields[f],
                             np.int64(start))


def grow(arrays, n):
    """Resize every Array of ``arrays`` to ``n`` elements (contents kept)."""
    for a in arrays:
        if isinstance(a, Array):
            a.resize(n)
