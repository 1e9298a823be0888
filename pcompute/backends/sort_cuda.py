"""Radix sort for the cuda backend: generated kernels (template
``sort_device``, shared with opencl, where the same layout is tested on
PoCL), launched through pycuda: the tiled layout (:data:`GPU_LAYOUT`:
thread blocks of 256 threads, each owning a tile of 2048 keys, 4-bit digits)
with the tiled scan of the digit counts (template ``scan_device``)."""
import struct

import numpy as np

from ..build import cuda_builder
from .cuda_args import address
from .memo import per_generation
from .sort_common import (GPU_LAYOUT, SCAN_KERNELS, device_sort, generate_device_sort,
                          generate_offsets_scan, index_dtype, sort_kernel_names)

LAYOUT = GPU_LAYOUT


def generate_sort(key_dtype, idx_dtype, value_dtypes, layout=LAYOUT):
    """The CUDA source of the sort (needs no GPU; ``nvcc --ptx`` checks it)."""
    return generate_device_sort("cuda", layout, key_dtype, idx_dtype, value_dtypes)


def generate_scan(idx_dtype, layout=LAYOUT):
    """The CUDA source of the scan of the digit counts (needs no GPU)."""
    return generate_offsets_scan("cuda", layout, idx_dtype)


class _Ops:
    """The adapter :func:`device_sort` launches through."""

    def __init__(self, backend, kernels):
        self.backend = backend
        self.kernels = kernels

    def empty(self, n, dtype):
        return self.backend.empty(n, dtype)

    def get(self, dev):
        return dev.get()

    def launch(self, name, groups, wg, args):
        # Numpy scalars packed by their dtype and arrays by their address, as
        # pycuda's kernel call packs them, then pycuda's launch of the packed
        # buffer (see cuda_args.Packed): about 40 launches per sort of 32-bit
        # keys, so the Python work per launch counts at 10^6 keys.
        fmt = "".join(a.dtype.char if isinstance(a, np.generic) else "P" for a in args)
        values = [a if isinstance(a, np.generic) else address(a) for a in args]
        self.kernels[name]._launch_kernel((groups, 1), (wg, 1, 1), struct.pack(fmt, *values),
                                          0, None)


def sort_by_keys(backend, keys, values, key_bits, config, permutation=True):
    """Stable sort of device ``keys``; returns (keys, values, permutation)
    (the permutation is always made; ``permutation`` is accepted for the
    common interface)."""
    kernels = _kernels(LAYOUT, keys.dtype, index_dtype(len(keys)),
                       tuple(v.dtype for v in values))
    return device_sort(_Ops(backend, kernels), LAYOUT, keys, values, key_bits)


@per_generation
def _kernels(layout, key_dtype, idx_dtype, value_dtypes):
    """The sort's kernels and, for the tiled layout, the counts' scan
    (rendered and built once per configuration)."""
    kernels = cuda_builder.build_cuda(
        generate_sort(key_dtype, idx_dtype, list(value_dtypes), layout),
        sort_kernel_names(layout, value_dtypes))
    if layout.tiled:
        kernels.update(cuda_builder.build_cuda(generate_scan(idx_dtype, layout),
                                               list(SCAN_KERNELS)))
    return kernels
