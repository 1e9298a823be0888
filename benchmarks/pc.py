"""pcompute as the suites use it: the variants compared, and thin adapters.

Scan and sort are written against Compyle's API (``Scan(input, output,
scan_expr, dtype=...)`` called with keyword arrays; ``sort_by_keys([keys,
values], key_bits=...)`` returning the sorted arrays).  If pcompute's
signature differs, adapt ``make_scan`` / ``sort_by_keys`` here only.
"""
from dataclasses import dataclass, field

import numpy as np

from pcompute import get_backend, use_config, wrap
from pcompute.build import cython_builder


@dataclass(frozen=True)
class Variant:
    label: str
    backend: str
    config: dict = field(default_factory=dict)

    def why_unavailable(self):
        return get_backend(self.backend).why_unavailable()

    def use(self):
        """The ``use_config`` context this variant runs in."""
        return use_config(backend=self.backend, **self.config)

    def sync(self):
        return get_backend(self.backend).synchronize

    def put(self, *arrays):
        """The host arrays as this backend's arrays: numpy itself on host
        backends, else Arrays made from copies (an Array's host mirror may be
        the wrapped numpy array, which ``get()`` overwrites)."""
        if get_backend(self.backend).on_host:
            return arrays if len(arrays) > 1 else arrays[0]
        with self.use():
            return wrap(*[a.copy() for a in arrays], backend=self.backend)

    @property
    def on_host(self):
        return get_backend(self.backend).on_host


# The default build: Cython modules made for this CPU (Config.march 'native',
# -march=native with -ffp-contract=off), the build the targets are set on.
OMP = Variant("pcompute cython+omp", "cython", {"use_openmp": True, "march": "native"})
SERIAL = Variant("pcompute cython", "cython", {"use_openmp": False, "march": "native"})
OPENCL = Variant("pcompute opencl", "opencl", {"use_double": True})
PYTHON = Variant("pcompute python", "python")
# Config.march = 'generic' (PCOMPUTE_MARCH=generic): the build for caches copied
# to other machines, shown once per group beside the default build.
GENERIC_SUFFIX = " generic"
OMP_GENERIC = Variant("pcompute cython+omp" + GENERIC_SUFFIX, "cython",
                      {"use_openmp": True, "march": "generic"})
VARIANTS = (OMP, SERIAL, OPENCL)
WITH_GENERIC = (OMP, OMP_GENERIC, SERIAL, OPENCL)


def host(a):
    """A host numpy copy of a pcompute Array, device array or numpy array."""
    if isinstance(a, np.ndarray):
        return a
    return np.asarray(a.get())


def build_counter():
    """A function returning 'built' / 'cache' since this call (cython builds)."""
    before = dict(cython_builder.stats)

    def said():
        if cython_builder.stats["compiled"] > before["compiled"]:
            return "built"
        if cython_builder.stats["loaded"] > before["loaded"]:
            return "cache"
        return ""
    return said


# ------------------------------------------------------------ kernels used

def axpy(i, a, x, y):
    y[i] = a * x[i] + y[i]


def scan_input(i, x):
    return x[i]


def scan_output(i, item, y):
    y[i] = item


def import_scan():
    """pcompute's Scan class (raises ImportError while it does not exist)."""
    from pcompute.primitives.scan import Scan
    return Scan


def import_sort():
    from pcompute.array.sorting import sort_by_keys
    return sort_by_keys


def make_scan(dtype=np.float64):
    """``run(x, y)``: inclusive scan of x into y."""
    scan = import_scan()(scan_input, scan_output, "a+b", dtype=dtype)
    return lambda x, y: scan(x=x, y=y)


def sort_by_keys(keys, values, key_bits=None):
    """Sorted (keys, values) as the backend's arrays."""
    out = import_sort()([keys, values], key_bits=key_bits)
    return out[0], out[1]
