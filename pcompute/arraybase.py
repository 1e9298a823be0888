"""What the primitives know of an Array.

:class:`pcompute.array.Array` subclasses :class:`ArrayBase`.  The primitives
work on device buffers and a Backend: given an ArrayBase they use its
``dev`` (the device array), ``dtype``, ``backend`` (the backend's name) and
``len()``, so they never import :mod:`pcompute.array`, which is built on them.
Code below :mod:`pcompute.array` that has only a device array hands it to a
primitive as a :class:`DeviceBuffer`.

A class whose instances keep their device array in a plain attribute (what
``dev`` returns) names it in ``DEV_ATTRIBUTE``: the cython backend's
compiled fast calls then read it directly.
"""


class ArrayBase:
    """Marker base class of pcompute's Array (see the module docstring)."""

    __slots__ = ()

    #: The instance attribute holding the device array, or None (see above).
    DEV_ATTRIBUTE = None


class DeviceBuffer(ArrayBase):
    """A device array ``dev`` of ``backend`` (a Backend object) as a primitive
    argument: no copy, no checks (the caller made ``dev`` on ``backend``)."""

    __slots__ = ("dev", "dtype", "backend")

    DEV_ATTRIBUTE = "dev"

    def __init__(self, dev, backend):
        self.dev = dev
        self.dtype = dev.dtype
        self.backend = backend.name

    def __len__(self):
        return self.dev.shape[0] if len(self.dev.shape) else 0
