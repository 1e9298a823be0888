"""What the primitives know of an Array.

:class:`pcompute.array.Array` subclasses :class:`ArrayBase`.  The primitives
work on device buffers and a Backend: given an ArrayBase they use its
``dev`` (the device array), ``dtype``, ``backend`` (the backend's name) and
``len()``, so they never import :mod:`pcompute.array`, which is built on them.
"""


class ArrayBase:
    """Marker base class of pcompute's Array (see the module docstring)."""

    __slots__ = ()
