"""pcompute: write parallel kernels once in Python, run them on CPUs and GPUs."""
__version__ = "0.1.0"
