"""Radix sort for the opencl backend: generated kernels (template
``sort_device``, shared with cuda), launched directly.

On a CPU device each work-item sorts a long run with 8-bit digits (few,
wide groups: like the cython sort); on other devices the tiled layout of the
cuda backend (``GPU_LAYOUT``: groups of 256 work-items each own a tile of
2048 keys, 4-bit digits, the digit counts scanned by the tiled scan).

The CPU layout needs no gap between groups' digit counts (unlike the
cython sort's blocks, d9fa7dc): a group counts in local memory, and PoCL's
pthread device gives each worker thread a local memory block of its own; the
global counts (digit-major, groups adjacent) are written once per group and
pass, 2**8 stores against ~n / groups keys counted.  10^7 int32 keys below
2**20 with values, 8 groups, process CPU per sort 1 vs 2 PoCL threads
(POCL_MAX_PTHREAD_COUNT), processes alternated x3: 0.98-1.04 (AMD EPYC,
load 4-5.5), where eight work-groups adding to adjacent global counters take
1.26-1.46x the CPU of counters 64 bytes apart at 2 threads.
"""
import numpy as np

from ..build import opencl_builder
from .memo import per_generation
from .sort_common import (GPU_LAYOUT, SCAN_KERNELS, DeviceLayout, device_sort,
                          generate_device_sort, generate_offsets_scan, index_dtype,
                          sort_kernel_names)


def cpu_layout(device):
    """Layout for a CPU device: one work-item per group, 4 groups per core."""
    return DeviceLayout(wg=1, radix_bits=8, groups=4 * max(1, device.max_compute_units),
                        scan_wg=1, item_wg=64)


def layout_for(device):
    """The layout of sorts on ``device``: :func:`cpu_layout` on CPU devices,
    the tiled :data:`GPU_LAYOUT` on others."""
    import pyopencl as cl
    if device.type & cl.device_type.CPU:
        return cpu_layout(device)
    return GPU_LAYOUT


def generate_sort(layout, key_dtype, idx_dtype, value_dtypes):
    """The OpenCL C source of the sort (needs no device)."""
    return generate_device_sort("opencl", layout, key_dtype, idx_dtype, value_dtypes)


def generate_scan(layout, idx_dtype):
    """The OpenCL C source of the tiled layout's scan of the digit counts."""
    return generate_offsets_scan("opencl", layout, idx_dtype)


def _plain(dev):
    """``dev`` itself, or a copy when it is a view with an offset (kernels
    take whole buffers)."""
    return dev.copy() if getattr(dev, "offset", 0) else dev


class _Ops:
    """The adapter :func:`device_sort` launches through."""

    def __init__(self, backend, kernels):
        self.backend = backend
        self.kernels = kernels
        self.queue = backend.queue

    def empty(self, n, dtype):
        return self.backend.empty(n, dtype)

    def get(self, dev):
        return dev.get()

    def launch(self, name, groups, wg, args):
        values = [a if isinstance(a, np.generic) else a.base_data for a in args]
        self.kernels[name](self.queue, (groups * wg,), (wg,), *values)


def sort_by_keys(backend, keys, values, key_bits, config, permutation=True, layout=None):
    """Stable sort of device ``keys``; returns (keys, values, permutation).

    The permutation is always made (``permutation`` is accepted for the
    common interface); ``layout`` overrides the device's (tests)."""
    keys = _plain(keys)
    values = [_plain(v) for v in values]
    layout = layout or layout_for(backend.queue.device)
    kernels = _kernels(layout, keys.dtype, index_dtype(len(keys)),
                       tuple(v.dtype for v in values))
    return device_sort(_Ops(backend, kernels), layout, keys, values, key_bits)


@per_generation
def _kernels(layout, key_dtype, idx_dtype, value_dtypes):
    """The sort's kernels and, for the tiled layout, the counts' scan
    (rendered and built once per configuration and context)."""
    kernels = dict(opencl_builder.build_opencl(
        generate_sort(layout, key_dtype, idx_dtype, list(value_dtypes)),
        sort_kernel_names(layout, value_dtypes)))
    if layout.tiled:
        kernels.update(opencl_builder.build_opencl(generate_scan(layout, idx_dtype),
                                                   list(SCAN_KERNELS)))
    return kernels
