"""Building generated sources: the compile cache, the C toolchain and one
builder per backend (Cython+C, OpenCL through pyopencl, CUDA through nvcc and
pycuda).

Importing this package is cheap: the builders import Cython, setuptools,
pyopencl or pycuda only when they build.
"""

from pcompute.build.cache import (Cache, cache_dir, cache_root, clear,
                                  list_entries, make_key, save_source)

__all__ = ["Cache", "cache_dir", "cache_root", "clear", "list_entries",
           "make_key", "save_source"]
