"""What the radix sorts of the backends share: key types and pass planning.

A least-significant-digit radix sort needs one pass per digit.  The keys'
bitwise OR and AND say in which bits they differ (``OR ^ AND``); a digit
with no such bit is the same for every key, so its pass is never run.  The
passes are planned from those bits: at most ``max_width`` bits per digit,
as few passes as possible, and the narrowest digits giving that count.
"""
import numpy as np

from ..errors import KernelTypeError

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


def unsigned_bits(value, dtype):
    """A numpy integer scalar as a non-negative Python int of its bits."""
    return int(np.asarray(value, dtype=dtype).view(KEY_TYPES[np.dtype(dtype)][0]))
