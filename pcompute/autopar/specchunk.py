"""The speculative kernel for few threads: contiguous chunks and private
bitmaps, checked after the loop.

On a CPU the atomic-max logs of :mod:`.speclower` cost more than the loop:
every locked read-modify-write per iteration stops the random stores of the
loop from overlapping (about 3x the unchecked loop on the scatter).  When
the backend runs a handful of threads (it says how many chunks suit it:
``Backend.speculation_chunks``), the loop's iterations are split into
``P`` contiguous chunks instead, one item of the kernel per chunk:

- item ``c`` runs the iterations of its chunk in increasing order, so a
  dependence between two iterations of one chunk is honoured as in the
  sequential loop, and harmless;
- every instrumented access sets the element's bit in the chunk's *own*
  bitmap, one per array and kind (read ``R_c``, write ``W_c``; one bit per
  element: n/8 bytes per chunk): plain ``|=`` stores, no atomics, nothing
  lost, since no other thread writes that bitmap;
- after the loop, a check kernel (:func:`check_kernel`) over the bitmap
  words finds every element written by one chunk and read or written by
  another, ``W_c & (R_d | W_d) != 0`` for ``c != d``: with ``c < d``,
  ``W_c & W_d`` is an output dependence, ``W_c & R_d`` a flow and
  ``R_c & W_d`` an anti dependence that may have run out of order.  The
  check clears the words it read, so the bitmaps are zero for the next run.

The check is exact at element granularity for the chunks it ran: no false
positive on a loop whose chunks touch disjoint elements (a permutation
scatter), and every dependence between iterations of different chunks is
found, whatever order the threads ran them in.  The accesses at the loop
index (``a[i]``: only iteration ``i`` touches the element) are not logged;
an instrumented access of such an element is checked against the owner's
chunk directly, as the logs check it against the owner iteration.
"""
import ast
from dataclasses import dataclass

from .speclower import (COUNT, KINDS, LO, ST, TT, VIOL, SpecKernelText, _Instrument, _stmt,
                        instrumented_body, kernel_source)

RB, WB = "autopar_rb_%s", "autopar_wb_%s"
ROW, WORDS = "autopar_row_%s", "autopar_nw_%s"
CHUNK, SIZE, FIRST, END = "autopar_c", "autopar_s", "autopar_t1", "autopar_t2"
KEYS, RECORD = "autopar_keys_%s", "autopar_record"
FP, HASH, HASH2 = "autopar_fp", "autopar_h", "autopar_h2"
STRIDE, SAMPLE = "autopar_fs", "autopar_u"

#: The fingerprint's sums are kept modulo 2**61 (this mask): no overflow.
FP_MASK = 2 ** 61 - 1

#: Bits per bitmap word (the bitmaps are uint32 arrays).
WORD_BITS = 32

#: Iterations ahead of the one running whose ``x[q[i]]`` the chunk loop
#: prefetches (:func:`prefetches`).
PREFETCH_AHEAD = 32

#: Above this many chunks the bitmaps (n/8 bytes per chunk and array) and
#: their check cost more than the logs save: the logs are used.
MAX_CHUNKS = 64


@dataclass(frozen=True)
class ChunkKernels:
    """The chunked speculative kernel of a loop and the check kernel of each
    instrumented array: ``checks`` holds ``(array, has_read_map, text)``."""
    run: SpecKernelText
    checks: tuple


class _Bitmaps(_Instrument):
    """Instruments the accesses with the bits of the chunk's own bitmaps."""

    def _bit(self, bitmap, log, key):
        return [_stmt("%s[%s + (%s >> 5)] |= cast(1, 'uint') << (%s & 31)"
                      % (bitmap % log, ROW % log, key, key))]

    def apart(self, owner):
        return "%s // %s != %s" % (owner, SIZE, CHUNK)

    def read_before(self, log, key):
        return self._bit(RB, log, key) if log in self.rd_logged else []

    def read_after(self, log, key):
        return []

    def update_before(self, log, key):
        return self._bit(WB, log, key)      # a write bit covers the read too

    def update_after(self, log, key):
        return []

    def write_before(self, log, key):
        return self._bit(WB, log, key)

    def write_after(self, log, key):
        return []


class _RecordingBitmaps(_Bitmaps):
    """The bitmaps, and each key ``q[i]`` stored in ``autopar_keys_q[t]``
    when the run records them (:mod:`.specmemo`)."""

    def __init__(self, *args):
        super().__init__(*args)
        self.slices = {}            # key temporary -> the subscript it holds

    def _key(self, node, pre):
        key = super()._key(node, pre)
        self.slices[key] = node.slice
        return key

    def write_before(self, log, key):
        q = self.slices[key].value.id
        return super().write_before(log, key) + [_stmt(
            "if %s != 0:\n    %s[%s] = %s" % (RECORD, KEYS % q, TT, key))]


def fingerprint(keys):
    """The statements, before the chunk's loop, that leave a fingerprint of
    the keys ``q[i]`` (``keys``: the arrays ``q``) of every
    ``autopar_fs``-th iteration of the chunk in ``autopar_fp[2c]`` and
    ``[2c + 1]``: the sum of those keys and the sum of its running sums
    (the keys weighted by their distance to the chunk's end), both modulo
    2**61 (no overflow).  With a stride of 1 the first changes with any one
    key and the second with any swap of two (a shifted array, an order
    changed).  A loop of its own over the keys, read in order: inside the
    loop, the four operations per key cost about 8 % of the checked run of
    a scatter (the loop's overlap of its random accesses shrinks with every
    instruction); the host samples long loops (:mod:`.specmemo`)."""
    add = ["%s = (%s + %s[%s + %s * %s]) & %d" % (HASH, HASH, q, LO, ST, SAMPLE, FP_MASK)
           for q in keys]
    text = "\n".join(
        ["%s = cast(0, 'long')" % HASH, "%s = cast(0, 'long')" % HASH2,
         "for %s in range(%s, %s, %s):" % (SAMPLE, FIRST, END, STRIDE)]
        + ["    " + a for a in add]
        + ["    %s = (%s + %s) & %d" % (HASH2, HASH2, HASH, FP_MASK),
           "%s[2 * %s] = %s" % (FP, CHUNK, HASH), "%s[2 * %s + 1] = %s" % (FP, CHUNK, HASH2)])
    return ast.parse(text).body


def prefetched(loop, accesses, arrays, canon):
    """The ``(array, q)`` user names of the instrumented accesses
    ``array[q[i]]`` whose element the chunk's loop can fetch ahead
    (:func:`prefetches`): each a statement of the loop body (not under an
    ``if`` or an inner loop, so it runs in every iteration: ``q[i]`` is read
    at every ``i`` of the loop), its key an element ``q[i]`` of a 1-D array at
    the loop variable, in a body without inner loops, ``break``,
    ``continue`` or ``return`` and that never assigns the loop variable.
    A body with an inner loop (NAS CG's rows: ``q[perm[j]] = s`` after a
    row's sum) gained nothing: its own loads dominate, and the checked run
    took 2-6 % more CPU time with the prefetch (one thread, 2 x 11-15
    alternated calls, load ~11)."""
    body = loop.node.body
    top = {id(n) for stmt in body
           if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Expr))
           for n in ast.walk(stmt)}
    jumps = (ast.Continue, ast.Break, ast.Return, ast.Raise, ast.For, ast.While)
    stored = {n.id for stmt in body for n in ast.walk(stmt)
              if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    if loop.var in stored or any(isinstance(n, jumps) for stmt in body for n in ast.walk(stmt)):
        return ()
    out = []
    for acc in accesses:
        node = acc.node
        if canon(acc.array) not in arrays or id(node) not in top or \
                not isinstance(node, ast.Subscript):
            continue
        key = node.slice
        if isinstance(key, ast.Subscript) and isinstance(key.value, ast.Name) and \
                isinstance(key.slice, ast.Name) and key.slice.id == loop.var and \
                key.value.id not in stored and (acc.array, key.value.id) not in out:
            out.append((acc.array, key.value.id))
    return tuple(out)


def prefetches(pairs):
    """The statements, first in the chunk loop's body, that prefetch the
    element ``array[q[i]]`` of the iteration :data:`PREFETCH_AHEAD` ahead
    (within the chunk) for each ``(array, q)`` of ``pairs``.

    The bitmap stores double the stores of a scatter such as ``x[p[i]] =
    y[i]``: the processor's store buffer then holds half as many stores to
    ``x`` waiting for their cache line, and fewer of those misses overlap.  A
    prefetch is no store: it starts the line's load ahead without taking a
    store buffer entry.  A C copy of the chunk loop (5 * 10^6 iterations of
    the scatter over 10^7 float64, one thread, CPU time, AMD EPYC, load ~7):
    the bitmap run 51-70 ms, 44-55 ms with the prefetch (32 ahead: 16 and 64
    gained less), the loop without bitmaps 38-44 ms."""
    out = []
    for array, q in pairs:
        out.extend(ast.parse(
            "if %s + %d < %s:\n    prefetch(%s[%s[%s + %s * (%s + %d)]])"
            % (TT, PREFETCH_AHEAD, END, array, q, LO, ST, TT, PREFETCH_AHEAD)).body)
    return out


def bitmap_params(logged):
    """The bitmap parameters of the chunked kernel, in order, for the
    instrumented arrays ``logged`` ((array, has_read, has_write))."""
    return [p for a, r, w in logged if w for p in ((RB % a,) if r else ()) + (WB % a,)]


def chunked_kernel(loop, names_in_ns, arrays, accesses, canon, keys=(), prefetch=False):
    """The :class:`ChunkKernels` of ``loop`` with the accesses of the
    ``arrays`` (canonical names) recorded in per-chunk bitmaps; with
    ``keys`` (the index arrays ``q`` of keys ``q[i]``, :mod:`.specmemo`), a
    run given ``autopar_record = 1`` also stores the keys it used, and every
    run leaves each chunk's fingerprint of its keys in ``autopar_fp`` (an
    int64 array, two per chunk, of every ``autopar_fs``-th key:
    :func:`fingerprint`); with ``prefetch``, the chunk loop fetches its keyed
    accesses ahead (:func:`prefetches`)."""
    kind = _RecordingBitmaps if keys else _Bitmaps
    params, logged, body = instrumented_body(loop, names_in_ns, arrays, accesses, canon,
                                             kind)
    if prefetch:
        body = prefetches(prefetched(loop, accesses, arrays, canon)) + body
    rows = [_stmt("%s = %s * %s" % (ROW % a, CHUNK, WORDS % a)) for a, r, w in logged if w]
    if keys:
        rows += fingerprint(keys)
    sig = ([CHUNK] + list(params) + [LO, ST, COUNT, SIZE]
           + [WORDS % a for a, r, w in logged if w] + bitmap_params(logged)
           + ([KEYS % q for q in keys] + [RECORD, FP, STRIDE] if keys else []) + [VIOL])
    name, source = kernel_source("autopar_chunk_", sig, chunk_loop(loop, rows, body))
    run = SpecKernelText(source, name, params, logged, parallel_items=True)
    checks = tuple((a, r, check_kernel(r)) for a, r, w in logged if w)
    return ChunkKernels(run, checks)


def chunk_loop(loop, head, body):
    """The statements of a kernel item that runs chunk ``autopar_c`` of
    ``loop`` (``autopar_s`` iterations, the last chunk fewer) in order:
    ``head``, then ``body`` per iteration ``autopar_t``."""
    bounds = [_stmt("%s = %s * %s" % (FIRST, CHUNK, SIZE)),
              _stmt("%s = %s + %s" % (END, FIRST, SIZE)),
              _stmt("if %s > %s:\n    %s = %s" % (END, COUNT, END, COUNT))]
    chunk = ast.parse("for %s in range(%s, %s):\n    pass" % (TT, FIRST, END)).body[0]
    chunk.body = [_stmt("%s = %s + %s * %s" % (loop.var, LO, ST, TT))] + body
    return bounds + list(head) + [chunk]


def check_kernel(with_reads):
    """The check of one array's bitmaps: item ``j`` reads word ``j`` of every
    chunk's bitmaps in chunk order, flags the bits another chunk touched
    (flags by kind, as :data:`~.speclower.KINDS`) and clears the words.
    Arguments: ``(j, [read maps,] write maps, chunks, words per chunk, flags)``."""
    out, ant, flo = (KINDS.index(k) for k in ("output", "anti", "flow"))
    lines = ["w_all = wb[j]", "wb[j] = 0"]
    if with_reads:
        lines += ["r_all = rb[j]", "rb[j] = 0"]
    lines += ["for c in range(1, chunks):",
              "    x = c * words + j",
              "    w = wb[x]",
              "    wb[x] = 0",
              "    if (w & w_all) != 0:",
              "        atomic_max(flags[%d], 1)" % out]
    if with_reads:
        lines += ["    r = rb[x]",
                  "    rb[x] = 0",
                  "    if (w & r_all) != 0:",
                  "        atomic_max(flags[%d], 1)" % ant,
                  "    if (r & w_all) != 0:",
                  "        atomic_max(flags[%d], 1)" % flo,
                  "    r_all = r_all | r"]
    lines += ["    w_all = w_all | w"]
    sig = ["j"] + (["rb"] if with_reads else []) + ["wb", "chunks", "words", "flags"]
    # every name prefixed, as in the other kernels the layer writes
    renames = {n: "autopar_" + n for n in ("j", "rb", "wb", "chunks", "words", "flags",
                                          "w_all", "r_all", "c", "x", "w", "r")}
    statements = ast.parse("\n".join(lines)).body
    for node in ast.walk(ast.Module(statements, [])):
        if isinstance(node, ast.Name) and node.id in renames:
            node.id = renames[node.id]
    sig = [renames[n] for n in sig]
    name, source = kernel_source("autopar_check_", sig, statements)
    return SpecKernelText(source, name, (), ())


def words(size):
    """Bitmap words per chunk for an array of ``size`` elements."""
    return max(1, -(-size // WORD_BITS))
