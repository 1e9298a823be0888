"""Timing primitives: first call, calibration, samples, statistics.

A *sample* is ``inner`` back-to-back calls followed by one ``sync()`` (the
device is synchronised before the clock stops), divided by ``inner``;
``inner`` grows for fast calls (1, 2, 5, 10, ...) so one sample lasts at
least ``min_sample`` seconds.  The garbage collector is off while sampling.
How many samples are taken is the :class:`Profile`'s business (see
``context.Group.run``).
"""
import gc
import time
from dataclasses import dataclass

import numpy as np


@dataclass
class Stats:
    """Seconds per call over the samples."""
    median: float
    q1: float
    q3: float
    min: float
    max: float
    reps: int
    inner: int

    @classmethod
    def of(cls, samples, inner=1):
        s = np.asarray(samples, dtype=float)
        q1, med, q3 = np.percentile(s, [25, 50, 75])
        return cls(float(med), float(q1), float(q3), float(s.min()), float(s.max()),
                   len(s), inner)


@dataclass
class Profile:
    """How hard to measure: samples per implementation and seconds each, and
    the sizes measured unless the command line chooses others."""
    name: str
    min_reps: int
    max_reps: int
    budget: float               # seconds per implementation, after min_reps
    min_sample: float = 0.002
    sizes: tuple = (10**7,)     # n of the primitives
    md_sizes: tuple = (10**3, 10**4, 10**5)     # MD particle counts (2-D)
    md_3d_sizes: tuple = (10**4, 10**5)   # 3-D MD at these N, those among the MD sizes
    md_samples: int = 7         # samples per MD implementation, at least
    build_reps: int = 3         # cold + warm build processes


QUICK = Profile("quick", min_reps=3, max_reps=15, budget=0.6)
FULL = Profile("full", min_reps=5, max_reps=30, budget=2.0,
               sizes=(10**4, 10**5, 10**6, 10**7, 10**8),
               md_sizes=(10**3, 10**4, 10**5, 10**6), md_samples=11, build_reps=5)
# Checks the harness end to end in a few minutes (tiny sizes, 2 samples):
# its figures mean nothing and ``benchmarks.publish`` refuses to publish it.
SMOKE = Profile("smoke", min_reps=2, max_reps=2, budget=0.0, min_sample=0.0005,
                sizes=(10**4,), md_sizes=(10**3,), md_3d_sizes=(10**3,), md_samples=2,
                build_reps=1)
PROFILES = {p.name: p for p in (SMOKE, QUICK, FULL)}


def _nothing():
    pass


def first_call(fn, sync=None):
    """Seconds taken by one call (typically the build, plus one run)."""
    start = time.perf_counter()
    fn()
    (sync or _nothing)()
    return time.perf_counter() - start


def calibrate(fn, sync, min_sample):
    """Calls per sample: 1, 2, 5, 10, 20, 50, ... until a batch lasts
    ``min_sample`` seconds (these calls also warm up)."""
    inner = 1
    while True:
        start = time.perf_counter()
        for _ in range(inner):
            fn()
        sync()
        if time.perf_counter() - start >= min_sample or inner >= 100000:
            return inner
        inner = inner * 5 // 2 if str(inner)[0] == "2" else inner * 2


def sample(fn, sync, inner):
    """Seconds per call over ``inner`` calls and one ``sync()``."""
    sync = sync or _nothing
    enabled = gc.isenabled()
    gc.disable()
    try:
        start = time.perf_counter()
        for _ in range(inner):
            fn()
        sync()
        return (time.perf_counter() - start) / inner
    finally:
        if enabled:
            gc.enable()
