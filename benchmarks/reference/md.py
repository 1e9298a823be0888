"""The C + OpenMP reference of the MD example (``md.c``), through ctypes.

Built with ``gcc -O3 -march=native -fopenmp`` (code for this CPU, as
pcompute's default build) and, as a second library, with ``gcc -O3
-fopenmp`` (the generic target, as pcompute's ``march='generic'``).  Both are
the benchmark's reference candidates: the faster is the reference.
"""
import ctypes
from pathlib import Path

import numpy as np

from . import build

SOURCE = Path(__file__).with_name("md.c")
FLAGS = {"native": ["-O3", "-march=native", "-fopenmp", "-shared", "-fPIC"],
         "generic": ["-O3", "-fopenmp", "-shared", "-fPIC"]}
STRATEGIES = {"count": 0, "cells": 1, "simple": 2}

_P, _I64, _I, _D = ctypes.c_void_p, ctypes.c_int64, ctypes.c_int, ctypes.c_double
_SIGNATURES = {
    "md_create": (_P, [_I64, _I, _I, _I, _D, _D, _D, _I, _P]),
    "md_reset": (None, [_P, _P]),
    "md_steps": (None, [_P, _I]),
    "md_time_steps": (_D, [_P, _I]),
    "md_energy": (None, [_P, _P]),
    "md_rebuilds": (_I64, [_P]),
    "md_positions": (None, [_P, _P]),
    "md_pairs": (_I64, [_P]),
    "md_free": (None, [_P]),
}
_libs = {}


def library(variant="native"):
    """The ctypes library built with FLAGS[variant] (built once)."""
    if variant not in _libs:
        lib = ctypes.CDLL(str(build(SOURCE, FLAGS[variant])))
        for name, (restype, argtypes) in _SIGNATURES.items():
            f = getattr(lib, name)
            f.restype, f.argtypes = restype, argtypes
        _libs[variant] = lib
    return _libs[variant]


class CMD:
    """One simulation in C: ``positions`` is a list of dim arrays."""

    def __init__(self, positions, side, strategy="cells", periodic=False, skin=0.0,
                 dt=0.02, nt=0, variant="native"):
        self.lib = library(variant)
        self.n, self.dim = len(positions[0]), len(positions)
        self.pos = np.ascontiguousarray(np.concatenate(positions), dtype=np.float64)
        self.ptr = self.lib.md_create(self.n, self.dim, int(periodic), STRATEGIES[strategy],
                                      skin, dt, side, nt, self.pos.ctypes.data)

    def reset(self):
        self.lib.md_reset(self.ptr, self.pos.ctypes.data)

    def step(self, count):
        self.lib.md_steps(self.ptr, count)

    def timed_steps(self, count):
        return self.lib.md_time_steps(self.ptr, count)

    def energy(self):
        out = np.zeros(3)
        self.lib.md_energy(self.ptr, out.ctypes.data)
        return tuple(out)

    @property
    def rebuilds(self):
        return self.lib.md_rebuilds(self.ptr)

    def positions(self):
        """The current positions: a list of dim arrays (copies)."""
        out = np.empty(self.dim * self.n)
        self.lib.md_positions(self.ptr, out.ctypes.data)
        return list(out.reshape(self.dim, self.n))

    def __del__(self):
        ptr, self.ptr = getattr(self, "ptr", None), None
        if ptr:
            self.lib.md_free(ptr)
