"""pcompute: write parallel kernels once in Python, run them on CPUs and GPUs.

Kernels are plain Python functions in a C-like subset; pcompute translates
them to Cython with OpenMP, OpenCL C or CUDA C and runs them through the
primitives Elementwise, Reduction, Scan and sort.  Choose the backend with
``get_config().use_openmp / use_opencl / use_cuda``.
"""
__version__ = "0.1.0"

from .api import *  # noqa: E402,F401,F403
from .api import __all__  # noqa: E402,F401
