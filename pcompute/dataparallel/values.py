"""The values a ``@dataparallel`` function computes with, while it is compiled.

Host scalars stay Python/NumPy numbers.  A sequence is either
:class:`Stored` (a pcompute Array that exists) or :class:`Lazy` (an element
function not yet run: maps, gathers, indices, replicate, shift, rotate),
which later phases inline into their kernel.  :class:`Segments` is the
result of ``split`` (CSR offsets over a sequence).  Every element carries a
*proto*: a NumPy scalar (or weak Python scalar) of the element's type, so
types follow NumPy's rules exactly as the plain-Python oracle computes them.
"""
import numpy as np


class Seq:
    """A sequence of ``n`` elements whose elements have the type of ``proto``."""

    n = 0
    proto = None

    @property
    def dtype(self):
        return np.asarray(self.proto).dtype


class Stored(Seq):
    """A sequence held in the pcompute Array ``array``."""

    def __init__(self, array):
        self.array = array
        self.n = len(array)
        self.proto = array.dtype.type(0)

    def element(self, builder, index):
        return "%s[%s]" % (builder.array(self.array), index), self.proto


class Lazy(Seq):
    """A sequence whose element at ``index`` is ``emit(builder, index)``
    (returns ``(expression text, proto)``); inlined into whichever kernel
    reads it."""

    heavy = False       # its element function contains a loop
    keep = False        # stored by the first reduction that computes it (keep.py)
    stored = None       # the Stored sequence once a kernel wrote it

    def __init__(self, n, emit, proto, what):
        self.n, self.emit, self.proto, self.what = n, emit, proto, what

    def element(self, builder, index):
        if self.stored is not None:
            return self.stored.element(builder, index)
        key = (id(self), index)
        hit = builder.memo.get(key)
        if hit is None:
            text, proto = self.emit(builder, index)
            hit = (builder.temp(text), proto)
            builder.memo[key] = hit
            if self.keep and index == "i" and not builder.indent:
                builder.kept[id(self)] = (self, hit[0])    # item i, in the kernel's body
        return hit


class Segments:
    """``split(data, offsets)``: ``len(offsets) - 1`` segments of ``data``
    (``summary``: the offsets' checked summary under ``bounds_check``, see
    ``offsets.py``)."""

    def __init__(self, data, offsets, summary=None):
        self.data, self.offsets, self.summary = data, offsets, summary
        self.n = offsets.n - 1


class SegView:
    """Inside an element function: the segment ``[start, end)`` of a flat
    sequence, read as ``elem(builder, k)`` for ``start <= k < end``."""

    def __init__(self, start, end, elem, proto):
        self.start, self.end, self.elem, self.proto = start, end, elem, proto


class Tuples:
    """A sequence of ``n`` tuples held as a tuple of sequences (Copperhead's
    layout): from ``zip`` or a ``map`` whose function returns tuples.  Its
    ``components`` are Seqs of length ``n``; ``unzip`` gives them."""

    def __init__(self, components):
        self.components = tuple(components)
        self.n = self.components[0].n
