"""What every suite gets: the profile, the recorder, the C reference, helpers.

``Context.time`` is the one way a suite measures an implementation: a first
call (build or JIT or cache load, plus one run, timed on its own), a check of
its result, then the repeated timing.  A failure is recorded and printed,
never fatal to the run.
"""
import traceback

import numpy as np

from . import reference
from .machine import available_bytes
from .results import fmt_n, fmt_time
from .timing import c_timed, first_call, measure

QUICK_SIZES = (10**7,)
FULL_SIZES = (10**4, 10**5, 10**6, 10**7, 10**8)


class Context:
    def __init__(self, profile, recorder, full=False):
        self.profile = profile
        self.rec = recorder
        self.full = full
        self._cref = None
        self._cref_error = None

    # ---------------------------------------------------------------- sizes
    def sizes(self, bytes_per_item, what):
        """The sizes of this profile whose arrays fit in memory (about
        ``bytes_per_item`` bytes per item in all)."""
        out = []
        avail = available_bytes()
        for n in FULL_SIZES if self.full else QUICK_SIZES:
            if avail is not None and n * bytes_per_item > 0.5 * avail:
                self.rec.note("%s: n = %s skipped (needs about %.1f GiB, %.1f GiB free)"
                              % (what, fmt_n(n), n * bytes_per_item / 2**30, avail / 2**30))
                continue
            out.append(n)
        return out

    # ------------------------------------------------------------ reference
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

    def c_ref(self, suite, case, n, kernel, make_args, verify=None, nt=0,
              label="C+OpenMP", is_ref=True, ctypes_row=True):
        """Rows for the C ``kernel``: timed inside C (``label (in C)``) and,
        if ``ctypes_row``, through ctypes.  ``make_args(nt)`` gives its args."""
        cref = self.cref
        if cref is None:
            return None
        args = make_args(nt)
        py = lambda: getattr(cref, kernel)(*args[:-1], nt=nt) if kernel != "scan" \
            else cref.scan(args[0], args[1], nt=nt, chains=args[3])
        row_py = None
        if ctypes_row:
            row_py = self.time(suite, case, n, label + " (ctypes)", "reference", py,
                               verify=verify)
            one = row_py.stats.median if row_py.stats else 1e-3
        else:
            one = first_call(py)
        try:
            stats = c_timed(lambda reps, inner: cref.timed(kernel, args, reps, inner),
                            self.profile, one)
            check = "" if row_py is not None else _verdict(verify)
            row = self.rec.add(suite, case, n, label + " (in C)", "reference", stats,
                               is_ref=is_ref, check=check or (row_py and row_py.check) or "")
            self._print(row)
            return row
        except Exception as exc:
            return self._failed(suite, case, n, label + " (in C)", "reference", exc)

    # ------------------------------------------------------------ measuring
    def time(self, suite, case, n, impl, kind, fn, sync=None, verify=None, target=None,
             after_first=None, **kw):
        """Measure ``fn`` (see the module doc).  ``verify()`` returns None when
        the result is right, else what is wrong (or raises); ``after_first()``
        returns a note about the first call (e.g. 'built' / 'cache')."""
        try:
            first = first_call(fn, sync)
            check = _verdict(verify)
            note = after_first() if after_first else ""
            stats = measure(fn, self.profile, sync)
        except Exception as exc:
            return self._failed(suite, case, n, impl, kind, exc)
        extra = kw.pop("extra", {})
        if note:
            extra["first_call"] = note
        row = self.rec.add(suite, case, n, impl, kind, stats, first_s=first, check=check,
                           target=target, extra=extra, **kw)
        self._print(row)
        return row

    def _failed(self, suite, case, n, impl, kind, exc):
        text = "%s: %s" % (type(exc).__name__, str(exc).strip().splitlines()[0][:160]
                           if str(exc).strip() else "")
        print("  %-28s FAILED %s" % (impl, text))
        if self.full:
            traceback.print_exc()
        return self.rec.add(suite, case, n, impl, kind, None, check="FAILED " + text)

    def _print(self, row):
        ref = next((r for r in reversed(self.rec.rows) if r.is_ref and r.stats
                    and (r.suite, r.case, r.n) == (row.suite, row.case, row.n)), None)
        ratio = " %6.2fx C" % (row.stats.median / ref.stats.median) if ref else ""
        first = "  first %s" % fmt_time(row.first_s) if row.first_s is not None else ""
        extra = " (%s)" % row.extra["first_call"] if row.extra.get("first_call") else ""
        print("  %-28s %10s%s%s%s %s %s" % (row.impl, fmt_time(row.stats.median), ratio,
                                            first, extra, row.check, row.note))

    def header(self, suite, case, n):
        print("\n[%s] %s, n = %s" % (suite, case, fmt_n(n)))


def _verdict(verify):
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
    got = np.asarray(got)
    want = np.asarray(want)
    if got.shape != want.shape:
        return "shape %s, expected %s" % (got.shape, want.shape)
    if np.allclose(got, want, rtol=rtol, atol=atol):
        return None
    bad = np.flatnonzero(~np.isclose(got, want, rtol=rtol, atol=atol))
    i = bad[0]
    return "%d items differ, first at %d: %r vs %r" % (len(bad), i, got[i], want[i])


def equal(got, want):
    got = np.asarray(got)
    want = np.asarray(want)
    if got.shape != want.shape:
        return "shape %s, expected %s" % (got.shape, want.shape)
    bad = np.flatnonzero(got != want)
    if len(bad) == 0:
        return None
    return "%d items differ, first at %d: %r vs %r" % (len(bad), bad[0], got[bad[0]],
                                                       want[bad[0]])
