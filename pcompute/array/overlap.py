"""Whether two arrays share memory: NumPy arrays and :class:`Array` objects
of any backend, views included (``a[2:]``, ``a.get_view(...)``,
``a[1:-1, ::2]``, ``a.T``, ``a.reshape(...)``, an Array around a user's
device array or an OpenCL sub-buffer).

On the host backends an Array's memory is a NumPy array and NumPy answers.
A device Array's memory is asked of its backend
(:meth:`~pcompute.backends.base.Backend.memory_address`: the allocation, or
address space, and the byte address of its first element); two device
arrays in one space overlap when some element of one is an element of the
other, found exactly from their shapes and strides (views taking every other
column of one array do not overlap).  An Array's host mirror (``data`` on a
device backend) is not its memory.
"""
import numpy as np

#: :func:`memory_overlap`'s answers.
DISTINCT, SAME, OVERLAP = 0, 1, 2


def memory_overlap(a, b):
    """:data:`DISTINCT` (0) when the arrays ``a`` and ``b`` (NumPy arrays or
    Arrays) share no memory, :data:`SAME` (1) when they are the same array
    (the same object, or views starting at the same address with the same
    shape, strides and dtype), :data:`OVERLAP` (2) when they share memory
    otherwise."""
    if a is b:
        return SAME
    ha, hb = _host_memory(a), _host_memory(b)
    if ha is not None and hb is not None:
        return _host_overlap(ha, hb)
    if ha is not None or hb is not None:
        return DISTINCT                 # host memory and a device's
    return _device_overlap(a, b)


def _host_memory(x):
    """The NumPy array that is ``x``'s memory, or None on a device."""
    if isinstance(x, np.ndarray):
        return x
    if x._backend.on_host:
        return x._dev
    return None


def _host_overlap(ha, hb):
    if ha is hb:            # two Arrays around one NumPy array, or one and it
        return SAME
    if ha.base is None and hb.base is None and ha.flags.owndata and hb.flags.owndata:
        return DISTINCT     # two arrays owning their memory (the common case: quick)
    if not np.shares_memory(ha, hb):
        return DISTINCT
    same = (ha.__array_interface__["data"][0] == hb.__array_interface__["data"][0]
            and ha.shape == hb.shape and ha.strides == hb.strides and ha.dtype == hb.dtype)
    return SAME if same else OVERLAP


def _device_overlap(a, b):
    da, db = a._dev, b._dev
    wa = a._backend.memory_address(da)
    wb = b._backend.memory_address(db)
    if wa is None or wb is None or wa[0] != wb[0]:
        return DISTINCT
    return _strided_overlap(wa[1], da, wb[1], db)


def _extent(address, dev):
    """The bytes [low, high) spanned by ``dev``'s elements, its first at
    ``address``; None when it has no element."""
    if 0 in dev.shape:
        return None
    low = high = address
    for n, stride in zip(dev.shape, dev.strides):
        if stride < 0:
            low += (n - 1) * stride
        else:
            high += (n - 1) * stride
    return low, high + dev.dtype.itemsize


def _strided_overlap(pa, da, pb, db):
    """The answer for two device arrays in one space, their first elements
    at byte addresses ``pa`` and ``pb``."""
    ea, eb = _extent(pa, da), _extent(pb, db)
    if ea is None or eb is None or ea[1] <= eb[0] or eb[1] <= ea[0]:
        return DISTINCT
    if pa == pb and tuple(da.shape) == tuple(db.shape) and \
            tuple(da.strides) == tuple(db.strides) and da.dtype == db.dtype:
        return SAME
    # NumPy's exact test on stand-ins: views of one host buffer laid out as
    # the two device arrays are in their space (its pages are never touched)
    low = min(ea[0], eb[0])
    scratch = np.empty(max(ea[1], eb[1]) - low, np.uint8)
    va, vb = (np.ndarray(tuple(d.shape), d.dtype, buffer=scratch, offset=p - low,
                         strides=tuple(d.strides)) for p, d in ((pa, da), (pb, db)))
    return OVERLAP if np.shares_memory(va, vb) else DISTINCT

