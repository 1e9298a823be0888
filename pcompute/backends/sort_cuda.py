"""Radix sort for the cuda backend: generated kernels (template
``sort_device``, shared with opencl, where the same layout is tested on
PoCL), launched through pycuda: groups of 256 threads, 16 keys per thread,
4-bit digits."""
import numpy as np

from ..build import cuda_builder
from .sort_common import DeviceLayout, device_sort, generate_device_sort, index_dtype

KERNELS = ["pc_sort_bits", "pc_sort_count", "pc_sort_scan", "pc_sort_scatter",
           "pc_sort_identity"]

LAYOUT = DeviceLayout(wg=256, radix_bits=4, items=16, scan_wg=256, item_wg=256)


def generate_sort(key_dtype, idx_dtype, value_dtypes, layout=LAYOUT):
    """The CUDA source of the sort (needs no GPU; ``nvcc --ptx`` checks it)."""
    return generate_device_sort("cuda", layout, key_dtype, idx_dtype, value_dtypes)


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
        # pycuda packs numpy scalars; a view's gpudata is a plain int address.
        values = [a if isinstance(a, np.generic) else np.uintp(int(a.gpudata)) for a in args]
        self.kernels[name](*values, block=(wg, 1, 1), grid=(groups, 1))


def sort_by_keys(backend, keys, values, key_bits, config, permutation=True):
    """Stable sort of device ``keys``; returns (keys, values, permutation)
    (the permutation is always made; ``permutation`` is accepted for the
    common interface)."""
    source = generate_sort(keys.dtype, index_dtype(len(keys)), [v.dtype for v in values])
    names = KERNELS + (["pc_sort_gather"] if values else [])
    kernels = cuda_builder.build_cuda(source, names)
    return device_sort(_Ops(backend, kernels), LAYOUT, keys, values, key_bits)
