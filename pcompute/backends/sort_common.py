"""What the radix sorts of the backends share: key types and pass planning.

A least-significant-digit radix sort needs one pass per digit.  The keys'
bitwise OR and AND say in which bits they differ (``OR ^ AND``); a digit
with no such bit is the same for every key, so its pass is never run.  The
passes are planned from those bits: at most ``max_width`` bits per digit,
as few passes as possible, and the narrowest digits giving that count.
"""
import numpy as np

from ..codegen import device_preamble
from ..errors import KernelTypeError, KernelValueError
from ..templates import render
from .scan_device import scan_device_source

#: key dtype -> (unsigned dtype of the same size, sign bit to flip)
KEY_TYPES = {
    np.dtype(np.int32): (np.dtype(np.uint32), 1 << 31),
    np.dtype(np.uint32): (np.dtype(np.uint32), 0),
    np.dtype(np.int64): (np.dtype(np.uint64), 1 << 63),
    np.dtype(np.uint64): (np.dtype(np.uint64), 0),
}

#: Unsigned integer types by size, used to copy values of any dtype.
COPY_TYPES = {1: np.dtype(np.uint8), 2: np.dtype(np.uint16), 4: np.dtype(np.uint32),
              8: np.dtype(np.uint64)}


def check_key_dtype(dtype):
    """The key dtype, if radix sorts support it (32- and 64-bit integers)."""
    dtype = np.dtype(dtype)
    if dtype not in KEY_TYPES:
        raise KernelTypeError("sort keys must be int32, uint32, int64 or uint64, not %s"
                              % dtype, hint="convert the keys: keys.astype(numpy.int64)")
    return dtype


def key_range_error(key_bits):
    """The error of keys outside ``[0, 2**key_bits)`` when ``key_bits`` was given."""
    return KernelValueError(
        "sort_by_keys: key_bits=%d but some keys are outside [0, 2**%d)" % (key_bits, key_bits),
        hint="leave key_bits=None to sort keys of any value (negative too)")


def index_dtype(n):
    """The dtype of the permutation of ``n`` items: int32 when it fits."""
    return np.dtype(np.int32) if n < 2 ** 31 else np.dtype(np.int64)


def _digit_shifts(varying, width):
    """Greedy digit starts covering the set bits of ``varying``."""
    shifts = []
    while varying:
        low = (varying & -varying).bit_length() - 1
        shifts.append(low)
        varying &= ~((1 << (low + width)) - 1)
    return shifts


def plan_passes(varying, key_bits, max_width):
    """``(shifts, widths)`` of the digit passes sorting keys that differ in
    the bits of ``varying`` (only the low ``key_bits`` bits count)."""
    if key_bits is not None:
        varying &= (1 << key_bits) - 1
    if not varying:
        return [], []
    count = len(_digit_shifts(varying, max_width))
    width = max_width
    while width > 1 and len(_digit_shifts(varying, width - 1)) == count:
        width -= 1
    top = varying.bit_length()
    shifts = _digit_shifts(varying, width)
    return shifts, [min(width, top - s) for s in shifts]


def plan_cpu_passes(varying, key_bits, narrow=8, wide=11, wide_cost=1.7):
    """``(shifts, widths)`` for a CPU radix sort: digits of at most
    ``narrow`` bits, or of up to ``wide`` bits when that is cheaper, a
    wide pass costing ``wide_cost`` narrow ones.  A pass scatters to
    2**width places per array: 256 write streams stay in the L1 cache, 2048
    do not, so a wide pass costs much more than a narrow one.  Measured on
    AMD EPYC (2 cores): the C reference sort (benchmarks/reference/kernels.c)
    at 2 threads on an idle machine, 10^7 int32 keys, an 11-bit pass 1.65-1.68
    8-bit ones (ed547a1's ``make bench``); this sort at one thread, 10^7 keys
    below 2**20, a 10-bit pass 1.8-2.1 8-bit ones (3 passes of 7, 7, 6 bits
    77.7-78.2 ms CPU, 2 of 10 bits 109.4-112.1 ms, load 3.2-3.4).  With 1.7:
    32- and 64-bit keys take 8-bit digits, 20-bit keys 3 passes of 7 bits
    rather than 2 of 10, 9 to 11 varying bits one wide pass rather than 2."""
    small = plan_passes(varying, key_bits, narrow)
    large = plan_passes(varying, key_bits, wide)
    cost = sum(wide_cost if w > narrow else 1.0 for w in large[1])
    return large if cost < len(small[1]) else small


def unsigned_bits(value, dtype):
    """A numpy integer scalar as a non-negative Python int of its bits."""
    return int(np.asarray(value, dtype=dtype).view(KEY_TYPES[np.dtype(dtype)][0]))


# ---------------------------------------------------------------- device sorts
#
# The opencl and cuda backends run one radix sort (template ``sort_device``)
# through a small adapter: ``empty(n, dtype)``, ``get(dev)`` and
# ``launch(name, groups, wg, args)``, with device arrays and numpy scalars
# in ``args``.

_DEVICE_C_TYPES = {np.dtype(np.int32): "pc_i32", np.dtype(np.uint32): "pc_u32",
                   np.dtype(np.int64): "pc_i64", np.dtype(np.uint64): "pc_u64",
                   np.dtype(np.uint8): "pc_u8", np.dtype(np.uint16): "pc_u16"}


class DeviceLayout:
    """How a device sort cuts the keys: ``wg`` work-items per group, each
    handling a run of ``items`` keys (None: as many as gives ``groups``
    groups), digits of ``radix_bits`` bits, a scan group of ``scan_wg``.

    ``tiled=True`` is the layout for GPUs: each group owns a tile of ``wg x
    items`` consecutive keys and reads and writes it in rounds of ``wg``
    neighbouring keys (coalesced), ranks it in local memory, and the
    (digit, group) counts are scanned by the tiled scan (template
    ``scan_device``) in at most ``scan_groups`` groups of ``scan_wg``, or
    in one group when they are few (:data:`ONE_GROUP_SCAN`)."""

    def __init__(self, wg, radix_bits, items=None, groups=None, scan_wg=1, item_wg=64,
                 tiled=False, scan_groups=None):
        self.wg, self.radix_bits, self.items = wg, radix_bits, items
        self.groups, self.scan_wg, self.item_wg = groups, scan_wg, item_wg
        self.tiled, self.scan_groups = tiled, scan_groups
        if tiled:
            # Tile ranks are kept in 16 bits; the reductions halve wg.
            assert items and scan_groups and wg & (wg - 1) == 0 and wg * items < 2 ** 16

    def cut(self, n):
        """``(items, groups)`` for ``n`` keys."""
        if self.items is not None:
            items = self.items
        else:
            groups = max(1, min(self.groups, n // 4096))
            items = -(-n // (groups * self.wg))
        return items, max(1, -(-n // (items * self.wg)))

    def local_bytes(self, key_size, idx_size):
        """Local memory of the tiled scatter kernel (the largest) in bytes."""
        def pad(n):                 # PC_PAD: one place more every 32
            return n + n // 32
        tile = self.wg * self.items
        return pad(tile) * (key_size + idx_size) + 2 * pad(self.wg * 2 ** self.radix_bits) + \
            idx_size * (self.wg + 2 ** self.radix_bits)

    def key(self):
        return self._fields()

    def _fields(self):
        return (self.wg, self.radix_bits, self.items, self.groups, self.scan_wg,
                self.item_wg, self.tiled, self.scan_groups)

    def __eq__(self, other):
        return isinstance(other, DeviceLayout) and self._fields() == other._fields()

    def __hash__(self):
        return hash(self._fields())


#: The layout on GPUs (cuda; opencl devices that are not CPUs): tiles of
#: 256 x 8 keys, 4-bit digits (the tile's ranks take 16 x 256 16-bit
#: counters; with 64-bit keys and indices the scatter kernel uses 43 KB of
#: local memory, under CUDA's 48 KB of static shared memory per block).
GPU_LAYOUT = DeviceLayout(wg=256, radix_bits=4, items=8, scan_wg=256, item_wg=256,
                          tiled=True, scan_groups=1024)

#: Local memory a generated sort kernel may use (CUDA's static limit).
LOCAL_LIMIT = 48 * 1024


def generate_device_sort(dialect, layout, key_dtype, idx_dtype, value_dtypes):
    """The OpenCL C or CUDA source of the device radix sort (needs no device)."""
    key_dtype = check_key_dtype(key_dtype)
    udtype, sign = KEY_TYPES[key_dtype]
    if layout.tiled and layout.local_bytes(key_dtype.itemsize,
                                           np.dtype(idx_dtype).itemsize) > LOCAL_LIMIT:
        raise ValueError("sort layout needs more than %d bytes of local memory"
                         % LOCAL_LIMIT)
    types = [_DEVICE_C_TYPES[COPY_TYPES[np.dtype(d).itemsize]] for d in value_dtypes]
    return render("sort_device", dialect=dialect, device=device_preamble(dialect),
                  key=_DEVICE_C_TYPES[key_dtype],
                  ukey=_DEVICE_C_TYPES[udtype], signed=bool(sign),
                  idx=_DEVICE_C_TYPES[np.dtype(idx_dtype)], wg=layout.wg,
                  scan_wg=layout.scan_wg, item_wg=layout.item_wg,
                  radix_bits=layout.radix_bits, radix=2 ** layout.radix_bits, types=types,
                  gather_params="".join(", PC_GLOBAL const %s *src%d, PC_GLOBAL %s *dst%d"
                                        % (t, k, t, k) for k, t in enumerate(types)),
                  tiled=layout.tiled, items=layout.items)


#: The kernels of the sort source (pc_sort_gather too when there are values)
#: and of the tiled layout's scan source.
SORT_KERNELS = ("pc_sort_bits", "pc_sort_count", "pc_sort_scan", "pc_sort_scatter",
                "pc_sort_identity")
SCAN_KERNELS = ("pc_scan_pass1", "pc_scan_pass2", "pc_scan_pass3")


#: The tiled layout scans up to this many digit counts per work-item of the
#: scan group in one launch of pc_sort_scan (the tiled scan takes three): at
#: 10^6 keys the GPU layout has 7824 counts.
ONE_GROUP_SCAN = 32


def sort_kernel_names(layout, values):
    """The kernels to build from :func:`generate_device_sort`'s source."""
    return list(SORT_KERNELS) + (["pc_sort_gather"] if values else [])


def generate_offsets_scan(dialect, layout, idx_dtype):
    """The tiled layout's scan of the (digit, group) counts (exclusive sums,
    ``pc_offsets[i] = counts[0] + ... + counts[i - 1]``): the tiled Scan's
    template with a sum of ``idx_dtype`` (needs no device)."""
    idx = _DEVICE_C_TYPES[np.dtype(idx_dtype)]
    return scan_device_source(
        dialect=dialect, name="the radix sort's digit counts", expr="a+b",
        device=device_preamble(dialect), wg=layout.scan_wg, prelude="",
        functions="#define pc_scan_op(a, b) ((a) + (b))", T=idx, neutral="0",
        params=["PC_GLOBAL const %s* pc_counts" % idx, "PC_GLOBAL %s* pc_offsets" % idx],
        complex_map=False, need_last=False, segment_call=None,
        input_call="pc_counts[pc_i]", tiled=True, output_call="",
        output_call_tiled="pc_offsets[pc_i] = pc_prev")


class _OffsetsScan:
    """Launches the tiled scan of :func:`generate_offsets_scan` over the first
    ``m`` counts (buffers for ``layout.scan_groups`` groups, made once)."""

    def __init__(self, ops, layout, idx):
        self.ops, self.layout = ops, layout
        self.sums = ops.empty(layout.scan_groups, idx)
        self.carry = ops.empty(layout.scan_groups, idx)
        self.flags = ops.empty(layout.scan_groups, np.dtype(np.int32))
        self.total = ops.empty(1, idx)

    def __call__(self, m, counts, offsets):
        wg = self.layout.scan_wg
        tiles = -(-m // (self.layout.scan_groups * wg))      # per group
        groups = -(-m // (tiles * wg))
        pass1 = [np.int64(m), np.int64(tiles), counts, offsets, self.sums, self.flags]
        self.ops.launch("pc_scan_pass1", groups, wg, pass1)
        self.ops.launch("pc_scan_pass2", 1, wg, [np.int64(groups), self.sums, self.flags,
                                                 self.carry, self.total])
        self.ops.launch("pc_scan_pass3", groups, wg, pass1[:4] + [self.carry, self.total])


def device_sort(ops, layout, keys, values, key_bits):
    """Stable radix sort of device ``keys`` through the adapter ``ops`` (see
    above); returns (sorted keys, permuted values, permutation)."""
    n = len(keys)
    idx = index_dtype(n)
    I = idx.type
    out_k = ops.empty(n, keys.dtype)
    perm = ops.empty(n, idx)
    outs = [ops.empty(n, v.dtype) for v in values]
    if n == 0:
        return out_k, outs, perm
    udtype = KEY_TYPES[keys.dtype][0]
    items, groups = layout.cut(n)
    # The tiled kernels know their tile's size (PC_ITEMS); the others take it.
    run = [] if layout.tiled else [I(items)]
    partial = ops.empty(2 * groups, udtype)
    ops.launch("pc_sort_bits", groups, layout.wg, [I(n)] + run + [keys, partial])
    bits = ops.get(partial)
    bits_or = int(np.bitwise_or.reduce(bits[0::2]))
    if key_bits is not None and bits_or >> key_bits:
        raise key_range_error(key_bits)              # some key is not in [0, 2**key_bits)
    varying = bits_or ^ int(np.bitwise_and.reduce(bits[1::2]))
    shifts, widths = plan_passes(varying, key_bits, layout.radix_bits)
    item_groups = -(-n // layout.item_wg)
    if not shifts:
        ops.launch("pc_sort_identity", item_groups, layout.item_wg, [I(n), keys, out_k, perm])
    m = groups << layout.radix_bits
    counts = ops.empty(m if shifts else 0, idx)
    offsets = ops.empty(m if shifts else 0, idx)
    tmp_k = ops.empty(n if len(shifts) > 1 else 0, keys.dtype)
    tmp_i = ops.empty(n if len(shifts) > 1 else 0, idx)
    many = layout.tiled and m > ONE_GROUP_SCAN * layout.scan_wg
    scan = _OffsetsScan(ops, layout, idx) if many and shifts else None
    src_k, src_i = keys, perm
    for p, (shift, width) in enumerate(zip(shifts, widths)):
        last = (len(shifts) - 1 - p) % 2 == 0
        dst_k, dst_i = (out_k, perm) if last else (tmp_k, tmp_i)
        scalars = [I(n), np.int32(shift), udtype.type((1 << width) - 1)] + run
        ops.launch("pc_sort_count", groups, layout.wg, scalars + [src_k, counts])
        if scan is not None:
            scan(m, counts, offsets)
        else:
            ops.launch("pc_sort_scan", 1, layout.scan_wg, [I(m), counts, offsets])
        ops.launch("pc_sort_scatter", groups, layout.wg,
                   scalars + [np.int32(p == 0), src_k, src_i, offsets, dst_k, dst_i])
        src_k, src_i = dst_k, dst_i
    if values:
        args = [I(n), perm]
        for v, o in zip(values, outs):
            args += [v, o]
        ops.launch("pc_sort_gather", item_groups, layout.item_wg, args)
    return out_k, outs, perm
