"""What every suite gets: the profile, the recorder, the C reference, and
:class:`Group`, the one way a suite measures implementations.

A group is one (suite, case, n).  ``group.time(...)`` makes an
implementation's first call at once (build, JIT or cache load plus one run,
timed on its own), checks its result and sizes its samples; when the
``with`` block ends the group samples all its implementations in turn
(round-robin), so a noisy machine slows them alike, then records and prints
the rows.  A group made with ``warm=True`` starts each sample with one
untimed call (steady states compared, not cold first calls).  A failure is
recorded and printed, never fatal to the run.
"""
import contextlib
import time
import traceback

import numpy as np

from . import reference
from .machine import available_bytes, load_average
from .results import fmt_n, fmt_time, reference_of
from .timing import Stats, calibrate, first_call, sample

SLOW = 2.0       # seconds: an implementation this slow per sample gets 3 samples
# In a group with ``min_samples``, an implementation this slow per sample
# stops at the profile's ``min_reps``; the others get ``min_samples``.
SLOW_PEER = 0.5


class Context:
    """``sizes``: the primitives' n (default: the profile's); ``md_sizes``:
    the MD's particle counts (default: ``sizes`` when given, else the
    profile's); ``md_cases``: texts, one of which an MD group's case must
    contain to run (default: every group)."""

    def __init__(self, profile, recorder, sizes=None, md_sizes=None, md_cases=None):
        self.profile = profile
        self.rec = recorder
        self.full = profile.name == "full"
        self._sizes = tuple(sizes or profile.sizes)
        self.md_sizes = tuple(md_sizes or sizes or profile.md_sizes)
        self.md_cases = tuple(md_cases or ())
        self._cref = None
        self._cref_error = None

    def sizes(self, bytes_per_item, what):
        """The sizes of this profile whose arrays fit in half the free memory
        (about ``bytes_per_item`` bytes per item in all)."""
        out = []
        avail = available_bytes()
        for n in self._sizes:
            if avail is not None and n * bytes_per_item > 0.5 * avail:
                self.rec.note("%s: n = %s skipped (needs about %.1f GiB, %.1f GiB free)"
                              % (what, fmt_n(n), n * bytes_per_item / 2**30, avail / 2**30))
                continue
            out.append(n)
        return out

    def md_case_wanted(self, case):
        """True if the MD group ``case`` is to run (``--md-case``)."""
        return not self.md_cases or any(text in case for text in self.md_cases)

    @property
    def cref(self):
        """The C reference library, or None (a note says why)."""
        if self._cref is None and self._cref_error is None:
            try:
                self._cref = reference.load()
            except Exception as exc:
                self._cref_error = str(exc)
                self.rec.note("C reference unavailable: %s" % exc)
        return self._cref

    def group(self, suite, case, n, warm=False, min_samples=None):
        """A :class:`Group`; ``warm=True``: every sample of every
        implementation starts with one untimed call; ``min_samples``: the
        samples each implementation faster than ``SLOW_PEER`` takes at least
        (see :class:`Group`)."""
        print("\n[%s] %s, n = %s" % (suite, case, fmt_n(n)))
        return Group(self, suite, case, n, warm=warm, min_samples=min_samples)

    def failed(self, suite, case, n, impl, kind, exc):
        msg = str(exc).strip()
        text = "%s: %s" % (type(exc).__name__, msg.splitlines()[0][:160] if msg else "")
        print("  %-36s FAILED %s" % (impl, text))
        if self.full:
            traceback.print_exc()
        return self.rec.add(suite, case, n, impl, kind, None, check="FAILED " + text)

    def print_row(self, row):
        ref = reference_of([r for r in self.rec.rows
                            if (r.suite, r.case, r.n) == (row.suite, row.case, row.n)])
        ratio = " %6.2fx C" % (row.stats.median / ref.stats.median) if ref else " " * 9
        first = "  first %s" % fmt_time(row.first_s) if row.first_s is not None else ""
        extra = " (%s)" % row.extra["first_call"] if row.extra.get("first_call") else ""
        print("  %-36s %10s%s%s%s %s %s" % (row.impl, fmt_time(row.stats.median), ratio,
                                            first, extra, row.check, row.note))


class _Entry:
    """One implementation waiting to be sampled."""

    def __init__(self, row_kw, sampler, inner, using=None, warm_up=None):
        self.row_kw = row_kw
        self.sampler = sampler      # sampler(inner) -> seconds per call
        self.inner = inner
        self.using = using or contextlib.nullcontext
        self.warm_up = warm_up      # one untimed call (and sync), or None
        self.samples = []


class Group:
    """``warm``: each sample starts with one untimed call of its
    implementation (then its ``sync()``), so that every sample measures a
    steady state: the implementations sampled in turn leave the caches full
    of each other's data, and a sample of a few calls otherwise weighs its
    cold first call more for a slower implementation (fewer calls per
    sample).  Applies to every implementation of the group alike.

    ``min_samples``: every implementation whose samples last at most
    ``SLOW_PEER`` takes at least this many (at most the profile's
    ``max_reps``), slower ones the profile's ``min_reps``: a group whose slow
    peers spend its time budget in 3 rounds would otherwise give its fast
    rows (the reference and pcompute) a median of 3 samples."""

    def __init__(self, ctx, suite, case, n, warm=False, min_samples=None):
        self.ctx = ctx
        self.key = (suite, case, n)
        self.entries = []
        self.warm = warm
        self.min_samples = min_samples

    def _warm_up(self, fn, sync=None):
        """The untimed call before each sample, or None (``warm`` off)."""
        if not self.warm:
            return None

        def call():
            fn()
            (sync or _nothing)()
        return call

    def __enter__(self):
        return self

    def __exit__(self, kind, exc, tb):
        if kind is None:
            self.run()

    def time(self, impl, kind, fn, sync=None, verify=None, target=None, after_first=None,
             using=None, before=None, **kw):
        """Queue ``fn``.  ``before()`` runs before the first call (e.g. to reset
        an output array that implementations share, so the check sees this
        one's result); ``verify()`` returns None when the result is right,
        else what is wrong (or raises); ``after_first()`` returns a note on
        the first call (e.g. 'built' / 'cache'); ``using()`` is a context
        manager that every call runs in, entered outside the clock (e.g. a
        pcompute ``use_config``).  Returns a dict that the row's fields can
        still be added to (``note``, ``extra``)."""
        try:
            with (using or contextlib.nullcontext)():
                if before is not None:
                    before()
                first = first_call(fn, sync)
                check = verdict(verify)
                note = after_first() if after_first else ""
                inner = calibrate(fn, sync or _nothing, self.ctx.profile.min_sample)
        except Exception as exc:
            self.ctx.failed(*self.key, impl, kind, exc)
            return {}
        extra = kw.pop("extra", {})
        if note:
            extra["first_call"] = note
        row_kw = dict(impl=impl, kind=kind, first_s=first, check=check, target=target,
                      extra=extra, **kw)
        self.entries.append(_Entry(row_kw, lambda k: sample(fn, sync, k), inner, using,
                                   self._warm_up(fn, sync)))
        return row_kw

    def failed(self, impl, kind, exc):
        """Record that ``impl`` could not be set up or run."""
        return self.ctx.failed(*self.key, impl, kind, exc)

    @contextlib.contextmanager
    def guard(self, impl, kind):
        """Record an exception raised while setting ``impl`` up, and go on."""
        try:
            yield
        except Exception as exc:
            self.failed(impl, kind, exc)

    def c_ref(self, kernel, args, verify=None, label="C+OpenMP", is_ref=True,
              ctypes_row=True, before=None):
        """Queue the C ``kernel`` (see :class:`reference.CRef`) on ``args`` (the
        thread count last), timed inside C (``label (in C)``; the group's
        reference if ``is_ref``) and, if ``ctypes_row``, through ctypes."""
        cref = self.ctx.cref
        if cref is None:
            return {}
        call = lambda: cref.call(kernel, args)
        check = None
        if ctypes_row:
            check = self.time(label + " (ctypes)", "reference", call, verify=verify,
                              before=before).get("check")
        try:
            if check is None and before is not None:
                before()
            first_call(call)
            check = verdict(verify) if check is None else check
            inner = calibrate(call, _nothing, self.ctx.profile.min_sample)
        except Exception as exc:
            self.ctx.failed(*self.key, label + " (in C)", "reference", exc)
            return {}
        row_kw = dict(impl=label + " (in C)", kind="reference", is_ref=is_ref,
                      check=check, extra={})
        self.entries.append(_Entry(
            row_kw, lambda k: float(cref.timed(kernel, args, 1, k)[0]), inner,
            warm_up=self._warm_up(call)))
        return row_kw

    def run(self):
        """Sample every entry in turn until each has ``min_reps`` samples
        (``min_samples`` for the fast ones) and the group's budget is spent
        (or ``max_reps``; 3 for samples slower than ``SLOW``); record the rows,
        each with the 1-minute load average before and after the samples
        (``extra["load"]``, printed below the rows, as the MD suite's groups):
        a row that flips between runs can then be told from one that ran
        beside other work."""
        prof = self.ctx.profile
        budget = prof.budget * max(1, len(self.entries))
        need = prof.min_reps
        if self.min_samples:
            need = max(need, min(self.min_samples, prof.max_reps))
        start = time.perf_counter()
        load_before = load_average()
        for rnd in range(prof.max_reps):
            if rnd >= need and time.perf_counter() - start > budget:
                break
            for e in list(self.entries):
                cost = min(e.samples) * e.inner if e.samples else 0.0
                if rnd >= 3 and cost > SLOW:
                    continue            # 3 samples of a call this slow will do
                if rnd >= prof.min_reps and self.min_samples and cost > SLOW_PEER:
                    continue            # a slow peer: min_reps samples
                try:
                    with e.using():
                        if e.warm_up is not None:
                            e.warm_up()
                        e.samples.append(e.sampler(e.inner))
                except Exception as exc:
                    self.entries.remove(e)
                    self.failed(e.row_kw["impl"], e.row_kw["kind"], exc)
        load = (load_before, load_average())
        for e in self.entries:
            e.row_kw["extra"] = dict(e.row_kw.get("extra") or {}, load=load)
        rows = [self.ctx.rec.add(*self.key, stats=Stats.of(e.samples, e.inner), **e.row_kw)
                for e in self.entries]
        for row in rows:
            self.ctx.print_row(row)
        if rows:
            print("  load average %s before, %s after the samples" % load)


def _nothing():
    pass


def verdict(verify):
    """'ok', 'WRONG: ...' or '' (nothing to check)."""
    if verify is None:
        return ""
    try:
        problem = verify()
    except Exception as exc:
        problem = "%s: %s" % (type(exc).__name__, exc)
    return "ok" if not problem else "WRONG: %s" % problem


def close(got, want, rtol=1e-10, atol=0.0):
    """None if ``got`` matches ``want``, else a short description."""
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape:
        return "shape %s, expected %s" % (got.shape, want.shape)
    if np.allclose(got, want, rtol=rtol, atol=atol):
        return None
    bad = np.flatnonzero(~np.isclose(got, want, rtol=rtol, atol=atol))
    return "%d items differ, first at %d: %r vs %r" % (len(bad), bad[0], got[bad[0]],
                                                       want[bad[0]])


def equal(got, want):
    """None if ``got`` equals ``want`` item by item, else a short description."""
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape:
        return "shape %s, expected %s" % (got.shape, want.shape)
    bad = np.flatnonzero(got != want)
    if len(bad) == 0:
        return None
    return "%d items differ, first at %d: %r vs %r" % (len(bad), bad[0], got[bad[0]],
                                                       want[bad[0]])
