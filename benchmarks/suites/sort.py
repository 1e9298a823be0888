"""Suite 6: stable sort of int32 keys carrying int32 values (the index).

Keys are random over all of int32, negative ones included (``key_bits``
left to its default), or in [0, 2^20) with ``key_bits=20`` (3 radix passes
instead of 4).  The C reference candidates sort with every digit width of
:func:`c_digit_widths`; the fastest is the group's reference.
"""
import numpy as np

from .. import pc
from ..context import equal
from ..peers import compyle_peer

NAME = "sort"
TARGET = ("ratio", 1.2)      # cython+omp vs the fastest C radix sort (c_digit_widths)
TARGET_N = 10**7             # the size the target is set for
# Samples of each C and pcompute row (numpy's and Compyle's sorts, over 0.5 s
# a call, take the profile's 3): ed547a1's idle run gave pcompute 76, 108 and
# 117 ms, a median of 3 that one sample more or less would move by a third.
MIN_SAMPLES = 9
CASES = (("int32 keys+values", (-2**31, 2**31), None),
         ("key_bits=20", (0, 2**20), 20))          # case, key range, key_bits


def run(ctx):
    try:
        pc.import_sort()
        have_sort = True
    except ImportError as exc:
        have_sort = False
        ctx.rec.note("pcompute sort_by_keys not benchmarked: cannot import "
                     "pcompute.array.sorting.sort_by_keys (%s)" % exc)
    for case, (low, high), key_bits in CASES:
        for n in ctx.sizes(4 * 16, NAME):
            keys = np.random.default_rng(4).integers(low, high, n, dtype=np.int32)
            vals = np.arange(n, dtype=np.int32)
            order = np.argsort(keys, kind="stable")
            want = (keys[order], vals[order])
            del order
            with ctx.group(NAME, case, n, min_samples=MIN_SAMPLES) as g:
                _reference(g, keys, vals, want, key_bits or 32)
                if have_sort:
                    for variant in pc.WITH_GENERIC:
                        _pcompute(ctx, g, variant, keys, vals, want, key_bits)
                _numpy(g, keys, vals, want)
                _compyle(g, keys, vals, want, key_bits)


def _verify(out, want):
    def verify():
        return equal(pc.host(out[0]), want[0]) or equal(pc.host(out[1]), want[1])
    return verify


def c_digit_widths(key_bits):
    """The digit widths of the C reference candidates for keys of
    ``key_bits`` bits: 8 and 11 bits, and the narrowest width sorting them in
    as many passes as 8 bits (7 for 20 bits: 3 passes of 128 buckets beat 3
    of 256), since a narrower digit is a cheaper pass."""
    passes = -(-key_bits // 8)
    return sorted({8, 11, -(-key_bits // passes)})


def _reference(g, keys, vals, want, key_bits):
    # Every digit width is a reference candidate: the fastest one is the
    # group's reference (8-bit digits: 4 passes of 256 buckets for 32-bit
    # keys; 11-bit: 3 passes of 2048 buckets; key_bits=20 adds 7-bit: 3
    # passes of 128 buckets).
    out = [np.empty_like(keys) for _ in range(4)]      # keys, values, 2 work arrays
    runs = [("C radix+OpenMP %d-bit digits" % bits, 0, bits, True)
            for bits in c_digit_widths(key_bits)]
    runs.append(("C radix serial 8-bit digits", 1, 8, False))
    for label, nt, bits, is_ref in runs:
        g.c_ref("sort", (keys, vals, *out, key_bits, nt, bits), label=label, is_ref=is_ref,
                ctypes_row=False, verify=_verify(out, want),
                before=lambda: [a.fill(0) for a in out])


def _pcompute(ctx, g, variant, keys, vals, want, key_bits):
    why = variant.why_unavailable()
    if why:
        ctx.rec.note("%s skipped: %s" % (variant.label, why))
        return
    from pcompute import wrap
    with g.guard(variant.label, "pcompute"), variant.use():
        kd, vd = wrap(keys.copy(), vals.copy(), backend=variant.backend)
    out = [None, None]

    def run():
        out[:] = pc.sort_by_keys(kd, vd, key_bits=key_bits)
    g.time(variant.label, "pcompute", run, sync=variant.sync(), verify=_verify(out, want),
           after_first=pc.build_counter(), using=variant.use,
           target=TARGET if variant is pc.OMP and len(keys) == TARGET_N else None)


def _numpy(g, keys, vals, want):
    out = [None, None]

    def run():
        order = np.argsort(keys, kind="stable")
        out[:] = keys.take(order), vals.take(order)
    g.time("numpy argsort(stable)+take", "peer", run, verify=_verify(out, want))


def _compyle(g, keys, vals, want, key_bits):
    """Compyle's sort_by_keys: cython default (numpy argsort + align, not
    stable: duplicate keys may carry their values in another order), cython
    radix (1 bit per pass; only for non-negative keys, ``key_bits`` set) and
    OpenCL (pyopencl's RadixSort)."""
    if compyle_peer.why_missing():
        return
    runs = [(compyle_peer.OMP, False, " (argsort+align)")]
    if key_bits:
        runs.append((compyle_peer.OMP, True, " radix"))
    runs.append((compyle_peer.OPENCL, False, ""))
    for v, radix, suffix in runs:
        label = v.label + suffix
        with g.guard(label, "peer"):
            why = compyle_peer.guard_opencl(v)
            if why:
                g.ctx.rec.note(why)
                continue
            kd, vd = v.put(keys.copy(), vals.copy())
            sort = compyle_peer.sort_by_keys(v, kd, vd, key_bits=key_bits, radix=radix)
            out = [None, None]

            def run(sort=sort, out=out):
                out[:] = sort()
            g.time(label, "peer", run, sync=v.sync(), using=v.use,
                   verify=_verify(out, want))
