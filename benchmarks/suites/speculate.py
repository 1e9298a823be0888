"""Suite: speculative parallel loops (``parallelize(speculate=True)``, issue 19).

Two loops whose dependences go through data, at n = 10^7 iterations: a
permutation scatter ``x[p[i]] = y[i]`` and a NAS-CG-like sparse product whose
rows are stored under a permutation (``q[perm[j]] = sum_k a[k]*p[colidx[k]]``,
4 nonzeros per row).  Per backend variant, five rows:

- ``sequential``: the loop as parallelize runs it without speculation (one
  compiled sequential kernel);
- ``unchecked parallel``: the same loop marked safe (parallel, no checks);
- ``speculative``: checked parallel run that passes (no copy-before: both
  loops only overwrite what they write, so a failed run's sequential rerun
  rewrites it), called again and again on the same index array as an iterative program
  does: once two checked runs saw the same keys, the third stores them and
  the next runs compare their keys with those instead
  (``pcompute.autopar.specmemo``; the first call and the calibration are
  not samples, the third call is); targets: >= 1.5x
  faster than ``sequential`` and at most 1.6x ``unchecked`` (checking
  overhead under 60%);
- ``speculative, new keys each call``: the same alternating between two
  permutations, so the runs are checked with the bitmaps (the keys never
  repeat from one call to the next, so they are never recorded nor
  compared); targets: >= 1.5x faster than ``sequential``, at most 1.6x
  ``unchecked``; both permutations' results are verified;
- ``violating``: the same with one duplicate index, so the run fails and
  the loop reruns sequentially, rewriting what the failed run wrote; the target (at most
  the sequential time plus the failed attempt, a run checked with the
  bitmaps: the changing-keys row) is printed as a note.
"""
import warnings

import numpy as np

from pcompute import parallelize
from pcompute.errors import SequentialLoopWarning, SpeculationWarning

from .. import pc
from ..context import close

NAME = "speculate"
PER_ROW = 4


def scatter(x, y, p, n):
    for i in range(n):
        x[p[i]] = y[i]


def cg_rows(q, perm, rowstr, colidx, a, p, n):
    for j in range(n):
        s = 0.0
        for k in range(rowstr[j], rowstr[j + 1]):
            s += a[k] * p[colidx[k]]
        q[perm[j]] = s


def _line(func):
    return func.__code__.co_firstlineno + 1


def _cases(n):
    rng = np.random.default_rng(19)
    perm = rng.permutation(n).astype(np.int32)
    dup = perm.copy()
    dup[n - 1] = dup[0]                 # one duplicate: the run must fail
    y = rng.random(n)
    rows = n // PER_ROW
    rowstr = np.arange(0, rows * PER_ROW + 1, PER_ROW).astype(np.int32)
    colidx = rng.integers(0, rows, rows * PER_ROW).astype(np.int32)
    a, pv = rng.random(rows * PER_ROW), rng.random(rows)
    rperm = rng.permutation(rows).astype(np.int32)
    rdup = rperm.copy()
    rdup[rows - 1] = rdup[0]
    sums = (a * pv[colidx]).reshape(rows, PER_ROW).sum(axis=1)
    return [
        ("permutation scatter", "float64 x[p[i]] = y[i]", scatter, n,
         lambda idx: [np.zeros(n), y, idx, n], perm, dup, y),
        ("NAS-CG-like rows", "float64 %d rows x %d nonzeros, q[perm[j]] = row . p"
         % (rows, PER_ROW), cg_rows, n,
         lambda idx: [np.zeros(rows), idx, rowstr, colidx, a, pv, rows], rperm, rdup, sums),
    ]


def run(ctx):
    for n in ctx.sizes(48, NAME):
        for name, case, func, size, make, good, bad, values in _cases(n):
            with ctx.group("%s %s" % (NAME, name), case, size) as g:
                for variant in (pc.OMP, pc.OPENCL):
                    why = variant.why_unavailable()
                    if why:
                        ctx.rec.note("%s skipped: %s" % (variant.label, why))
                        continue
                    _rows(g, variant, func, make, good, bad, values)
            _violation_note(ctx, name, case, size)


def _rows(g, variant, func, make, good, bad, values):
    label = variant.label
    seq, unchecked = label + " sequential", label + " unchecked parallel"
    spec, violating = label + " speculative", label + " violating"
    changing = label + " speculative, new keys each call"
    plain = parallelize(func, speculate=False)
    safe = parallelize(func, speculate=True)
    safe.mark(_line(func), "safe")
    checked = parallelize(func, speculate=True)
    rechecked = parallelize(func, speculate=True)
    failing = parallelize(func, speculate=True)
    for impl, f, index, other, target in (
            (seq, plain, good, None, None),
            (unchecked, safe, good, None, None),
            (spec, checked, good, None, [("vs", seq, 1 / 1.5), ("vs", unchecked, 1.6)]),
            (changing, rechecked, good, np.roll(good, 1),
             [("vs", seq, 1 / 1.5), ("vs", unchecked, 1.6)]),
            (violating, failing, bad, None, None)):
        with g.guard(impl, "pcompute"):
            args = _put(variant, make(index))
            others = [(args, index)]
            if other is not None:
                others.append((_put(variant, make(other)), other))
            call = _quiet(f, [a for a, _ in others])
            g.time(impl, "pcompute", call, sync=variant.sync(),
                   verify=_verify(call, others, values, variant.sync()),
                   using=variant.use, target=target)


def _put(variant, args):
    if variant.on_host:
        return args
    return [variant.put(a) if isinstance(a, np.ndarray) else a for a in args]


def _quiet(f, argsets):
    """A call of ``f`` on the next of ``argsets`` (in turn), warnings off."""
    turn = [0]

    def call():
        args = argsets[turn[0] % len(argsets)]
        turn[0] += 1
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SequentialLoopWarning)
            warnings.simplefilter("ignore", SpeculationWarning)
            f(*args)
    return call


def _verify(call, argsets, values, sync):
    """The check of ``call``'s results: the sequential result
    ``out[index[t]] = values[t]`` in order of t for each of ``argsets``
    (``(args, index)``, called in turn).  After the first call (argument set
    0, checked first) each set's output is zeroed again (as made) and ``call`` runs on it
    again, twice around, so every set's result is this code's, including the
    runs after a set of keys changed (a failed key comparison, a recording)."""
    wants = []
    for _, index in argsets:
        want = np.zeros(len(index))
        want[index] = values
        want[index[-1]] = values[-1]    # a duplicate index: the last write wins
        wants.append(want)

    def check():
        problems = []
        for turn in range(1 + 2 * len(argsets)):
            k = turn % len(argsets)
            args = argsets[k][0]
            if turn:                        # the first call ran before the check
                args[0].fill(0.0)     # as made (numpy array or device Array)
                call()
                if sync is not None:
                    sync()
            problem = close(pc.host(args[0]), wants[k], rtol=1e-12)
            if problem:
                problems.append("argument set %d, check %d: %s" % (k, turn, problem))
        return "; ".join(problems) or None
    return check


def _violation_note(ctx, name, case, size):
    """The violating run's target: at most sequential + the failed attempt."""
    rows = {r.impl: r for r in ctx.rec.rows
            if (r.suite, r.case, r.n) == ("%s %s" % (NAME, name), case, size)
            and r.stats is not None}
    for variant in (pc.OMP, pc.OPENCL):
        label = variant.label
        try:
            seq = rows[label + " sequential"].stats.median
            bad = rows[label + " violating"].stats.median
            # the failed attempt is a run checked with the bitmaps: the
            # changing-keys row (the same-keys row reuses a verdict)
            spec = rows.get(label + " speculative, new keys each call",
                            rows[label + " speculative"]).stats.median
        except KeyError:
            continue
        verdict = "met" if bad <= 1.1 * (seq + spec) else "MISSED"
        ctx.rec.note("%s %s: violating run %.1f ms vs sequential + failed attempt "
                     "%.1f + %.1f ms (target: at most their sum, 10%% noise allowed): %s"
                     % (name, label, 1e3 * bad, 1e3 * seq, 1e3 * spec, verdict))
