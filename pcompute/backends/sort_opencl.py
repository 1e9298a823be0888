"""Radix sort for the opencl backend: generated kernels (template
``sort_device``, shared with cuda), launched directly.

On a CPU device each work-item sorts a long run with 8-bit digits (few,
wide groups: like the cython sort); on other devices groups of 256
work-items handle 16 keys each with 4-bit digits (the cuda layout).
"""
import numpy as np

from ..build import opencl_builder
from .memo import per_generation
from .sort_common import DeviceLayout, device_sort, generate_device_sort, index_dtype

KERNELS = ["pc_sort_bits", "pc_sort_count", "pc_sort_scan", "pc_sort_scatter",
           "pc_sort_identity"]

#: Layout on devices other than CPUs (and on CPUs when forced, in tests).
GPU_LAYOUT = DeviceLayout(wg=256, radix_bits=4, items=16, scan_wg=256, item_wg=256)


def cpu_layout(device):
    """Layout for a CPU device: one work-item per group, 4 groups per core."""
    return DeviceLayout(wg=1, radix_bits=8, groups=4 * max(1, device.max_compute_units),
                        scan_wg=1, item_wg=64)


def layout_for(device):
    import pyopencl as cl
    if device.type & cl.device_type.CPU:
        return cpu_layout(device)
    return GPU_LAYOUT


def generate_sort(layout, key_dtype, idx_dtype, value_dtypes):
    """The OpenCL C source of the sort (needs no device)."""
    return generate_device_sort("opencl", layout, key_dtype, idx_dtype, value_dtypes)


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
    """The sort's kernels (rendered and built once per configuration and
    context)."""
    source = generate_sort(layout, key_dtype, idx_dtype, list(value_dtypes))
    names = KERNELS + (["pc_sort_gather"] if value_dtypes else [])
    return opencl_builder.build_opencl(source, names)
