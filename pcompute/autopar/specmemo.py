"""Checked runs that reuse the verdict of an earlier run on the same keys.

A loop such as ``x[p[i]] = y[i]`` in an iterative program usually runs
again and again with the same index array ``p``.  When a loop

- only writes the arrays it may write (never reads or updates them: the
  overwrite-only loops of :func:`~.specplan.overwrite_only`), and
- every instrumented access is an unconditional write ``x[q[i]] = ...`` (a
  statement of the loop body, not under an ``if`` or an inner loop, in a
  body without ``continue``, ``break`` or ``return``) whose
  key is an element ``q[i]`` of a 1-D array the loop does not write, at the
  loop variable,

then which elements each iteration writes, hence every dependence between
its chunks, depends on the keys ``q[lo + step*t]`` only.  A chunked run
(:mod:`.specchunk`) that passed its check with keys ``K`` proves that any run
with the same iteration space, the same chunks and the same keys ``K`` has
no dependence between chunks, for the plan of that run (the arrays that are
one array under two names are part of the plan: a call that aliases other
arguments has a plan, and verdicts, of its own).  So after such a run has
stored its keys (``autopar_record = 1``), the next runs use the *validating
kernel*: the loop in the same chunks without bitmaps, comparing each key
with the stored one (a sequential read beside the loop's own).  If no key
differs the run passed, exactly.  If one differs the result of that run is
discarded: the loop is overwrite-only, so the checked chunked run that
follows rewrites every element it wrote, and decides.

Recording costs (one more store per iteration, a stored copy of the keys)
and a validation that fails pays its run and the checked run, so a run
records only when the keys are likely to repeat: every checked run of such
a loop leaves a fingerprint of its keys (:func:`~.specchunk.fingerprint`:
per chunk, a sum and a position-weighted sum of every key, or of every
64th in loops of 2**16 iterations or more, read in order before the chunk's
loop), and a run records only after two passing checked runs in a row with
the same fingerprint and run signature.  Keys that change at every call (a
new permutation each time) therefore never record nor validate: they pay
the bitmaps (and the fingerprint: about 1 %) only.  A loop with stable
keys reuses the verdict from its fourth call (checked, checked with the
same fingerprint, checked and recorded, validated).  Keys changed where
the fingerprint does not look are found by the validation, exactly, as
any change is.  After a failed validation the keys must repeat again, and
the next recording waits 1, 3, 7, ... checked runs (at most 63) more; a
recording run that violates counts as a failed validation, and a run that
violates never counts towards a repeat (its verdict could not be reused).
"""
import ast

from .specchunk import CHUNK, KEYS, SIZE, _Bitmaps, chunk_loop
from .speclower import (COUNT, LO, ST, TT, VIOL, SpecKernelText, _owned, _stmt,
                        instrumented_body, kernel_source)

#: The flag slot (after the kinds of dependence) of a key that differs.
CHANGED = 3

#: A failed validation waits at most 2**MAX_BACKOFF - 1 calls to retry.
MAX_BACKOFF = 6

#: Loops of at least FP_SAMPLED iterations fingerprint every FP_STRIDE-th
#: key (a quarter of the keys' cache lines: about 1 % of the checked run);
#: shorter ones every key.
FP_SAMPLED, FP_STRIDE = 2 ** 16, 64


def fingerprint_stride(count):
    """Every how many iterations the checked run of ``count`` iterations
    adds a key to its fingerprint."""
    return FP_STRIDE if count >= FP_SAMPLED else 1


def memo_keys(loop, accesses, arrays, canon, written, ndim_of):
    """The index arrays ``q`` (user names, in order) of the keys ``q[i]`` of
    the instrumented accesses when the loop's checks can be reused on
    unchanged keys (see the module), else ``()``.  ``written``: the
    canonical names of the arrays the loop writes; the caller has checked
    that the loop is overwrite-only."""
    body = loop.node.body
    top = {id(n) for stmt in body if isinstance(stmt, (ast.Assign, ast.AnnAssign))
           for n in ast.walk(stmt)}
    assigned = {n.id for stmt in body for n in ast.walk(stmt)
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    jumps = (ast.Continue, ast.Break, ast.Return, ast.Raise)
    if loop.var in assigned or any(isinstance(n, jumps) for stmt in body
                                   for n in ast.walk(stmt)):
        return ()                 # a statement may not run in every iteration
    keys = []
    for acc in accesses:
        if canon(acc.array) not in arrays:
            continue
        if id(acc.node) in top and _owned(acc, loop) is not None:
            continue                      # x[i]: checked against its owner, by key
        if not acc.write or id(acc.node) not in top or not isinstance(acc.node, ast.Subscript):
            return ()
        key = acc.node.slice
        if not (isinstance(key, ast.Subscript) and isinstance(key.value, ast.Name)
                and isinstance(key.slice, ast.Name) and key.slice.id == loop.var):
            return ()
        q = key.value.id
        if canon(q) in written or ndim_of(q) != 1:
            return ()
        if q not in keys:
            keys.append(q)
    return tuple(keys)


class _Validate(_Bitmaps):
    """Instruments each write ``x[q[i]]`` with the comparison of its key
    with the stored one; nothing else (the owner checks were part of the
    verdict being reused)."""

    def _key(self, node, pre):
        key = super()._key(node, pre)
        q = node.slice.value.id
        pre.append(_stmt("if %s != %s[%s]:\n    atomic_max(%s[%d], 1)"
                         % (key, KEYS % q, TT, VIOL, CHANGED)))
        return key

    def _owner_checks(self, log, key, write):
        return []

    def write_before(self, log, key):
        return []


def validating_kernel(loop, names_in_ns, arrays, accesses, canon, keys):
    """The :class:`SpecKernelText` of ``loop`` run in chunks (one item per
    chunk, as :func:`~.specchunk.chunked_kernel`) comparing each key
    ``q[i]`` with ``autopar_keys_q[t]``: flag :data:`CHANGED` if one
    differs.  Arguments: ``(chunk, params, lo, step, count, size, stored
    keys..., flags)``."""
    params, logged, body = instrumented_body(loop, names_in_ns, arrays, accesses, canon,
                                             _Validate)
    sig = ([CHUNK] + list(params) + [LO, ST, COUNT, SIZE] + [KEYS % q for q in keys]
           + [VIOL])
    name, source = kernel_source("autopar_same_keys_", sig, chunk_loop(loop, [], body))
    return SpecKernelText(source, name, params, logged, parallel_items=True)


class KeyMemo:
    """The stored keys of one speculated loop and when to record and try them."""

    def __init__(self):
        self.valid = None         # the run signature the stored keys belong to
        self.wait = 0             # checked runs before the next recording
        self.fails = 0            # validations failed in a row
        self.recordings = 0       # checked runs that stored their keys
        self.last = None          # (signature, fingerprint) of the last passing checked run
        self.repeated = False     # the last two checked runs passed with equal keys
        self._keys = {}           # (name, backend) -> Array of the stored keys
        self._fps = {}            # backend -> the fingerprints of the chunks (int64)

    def arrays(self, names, scope_arrays, count, zeros, record):
        """The stored-key Arrays for the index arrays ``names`` (their Arrays
        in ``scope_arrays``): ``count`` elements each when the run records
        or validates (``record``; new ones invalidate), else one element (the
        kernel stores nothing then)."""
        out = []
        for q in names:
            a = scope_arrays[q]
            key = (q, a.backend) if record else (q, a.backend, "unused")
            size = max(count, 1) if record else 1
            keys = self._keys.get(key)
            if keys is None or keys.size != size or keys.dtype != a.dtype:
                keys = self._keys[key] = zeros(size, a.dtype)
                if record:
                    self.valid = None
            out.append(keys)
        return out

    def fingerprints(self, backend, chunks, zeros):
        """The int64 Array the chunked kernel leaves each chunk's key
        fingerprint in (two values per chunk; kept from run to run)."""
        fps = self._fps.get(backend)
        if fps is None or fps.size != 2 * chunks:
            fps = self._fps[backend] = zeros(2 * chunks, "int64", backend)
        return fps

    def ready(self, sig):
        """True when this run may validate its keys (signature ``sig``)."""
        return self.valid == sig

    def failed(self):
        """A key differed: forget the keys, wait before the next recording."""
        self.valid = None
        self.repeated = False
        self.fails = min(self.fails + 1, MAX_BACKOFF)
        self.wait = 2 ** self.fails - 1

    def passed(self):
        """A validation passed."""
        self.fails = 0

    def record(self):
        """Whether this checked run stores its keys (the next run may try
        them): the keys repeated and no wait is left; counts down the wait."""
        if self.wait:
            self.wait -= 1
        if self.wait or not self.repeated:
            return False
        self.valid = None         # its keys replace the stored ones
        self.recordings += 1
        return True

    def seen(self, sig, fingerprint, passed, recorded):
        """A checked run of signature ``sig`` ended (``passed`` or not) with
        the keys' ``fingerprint`` (two values per chunk); ``recorded``: it
        stored its keys, which are valid for ``sig`` when it passed.  A run
        that violated forgets the repeat; one that recorded and violated
        backs the recordings off as a failed validation does (a loop that
        keeps violating does not pay for storing keys)."""
        if not passed:
            self.last, self.repeated = None, False
            if recorded:
                self.failed()
            return
        if recorded:
            self.valid = sig
        now = (sig, tuple(fingerprint))
        self.repeated = self.last == now
        self.last = now
