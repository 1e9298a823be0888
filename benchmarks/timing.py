"""Repeated timing: warm-up, adaptive repetitions, median and spread.

A *sample* is ``inner`` back-to-back calls followed by one ``sync()`` (the
device is synchronised before the clock stops), divided by ``inner``;
``inner`` grows for fast calls so one sample lasts at least ``min_sample``
seconds.  Samples are taken until ``max_reps`` or, after ``min_reps``, until
``budget`` seconds are spent.  The garbage collector is off while timing.
"""
import gc
import math
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
    """How hard to measure: repetitions and seconds per implementation."""
    name: str
    min_reps: int
    max_reps: int
    budget: float
    min_sample: float = 0.002


QUICK = Profile("quick", min_reps=3, max_reps=15, budget=0.6)
FULL = Profile("full", min_reps=5, max_reps=30, budget=2.0)


def _nothing():
    pass


def first_call(fn, sync=None):
    """Seconds taken by one call (typically the build, plus one run)."""
    sync = sync or _nothing
    start = time.perf_counter()
    fn()
    sync()
    return time.perf_counter() - start


def measure(fn, profile, sync=None, warmup=1):
    """:class:`Stats` of ``fn()`` after ``warmup`` calls (the last one also
    sizes ``inner``)."""
    sync = sync or _nothing
    one = None
    for _ in range(max(1, warmup)):
        one = first_call(fn, sync)
    inner = 1
    if one < profile.min_sample:
        inner = min(100000, math.ceil(profile.min_sample / max(one, 1e-7)))
    samples = []
    enabled = gc.isenabled()
    gc.disable()
    try:
        start = time.perf_counter()
        while len(samples) < profile.max_reps:
            if len(samples) >= profile.min_reps and \
                    time.perf_counter() - start > profile.budget:
                break
            t0 = time.perf_counter()
            for _ in range(inner):
                fn()
            sync()
            samples.append((time.perf_counter() - t0) / inner)
    finally:
        if enabled:
            gc.enable()
    return Stats.of(samples, inner)


def c_timed(run, profile, one_call):
    """:class:`Stats` from a C ``time_*`` twin: ``run(reps, inner)`` returns
    per-call seconds per rep; ``one_call`` (seconds, from a Python-timed
    call) sizes ``inner`` and ``reps`` to the profile's budget."""
    inner = 1
    if one_call < profile.min_sample:
        inner = min(100000, math.ceil(profile.min_sample / max(one_call, 1e-7)))
    per_rep = max(one_call * inner, 1e-6)
    reps = int(min(profile.max_reps, max(profile.min_reps, profile.budget // per_rep)))
    run(1, inner)                                   # warm-up
    return Stats.of(run(reps, inner), inner)
