"""Arrays that live on a backend's device: :class:`Array`, :func:`wrap` and friends.

The API follows Compyle's ``compyle.array``::

    import numpy as np
    from pcompute.array import wrap, zeros

    x = np.linspace(0, 1, 1000)
    xa, ya = wrap(x, np.zeros_like(x))      # on the configured backend
    ...                                      # run kernels on xa, ya
    ya.pull()                                # device -> ya.data (and the
                                             # original numpy array)

An :class:`Array` has a device array ``dev`` (a numpy array on the host
backends ``python`` and ``cython``, a ``pyopencl.array.Array`` on ``opencl``,
a ``pycuda`` ``GPUArray`` on ``cuda``) and a host array ``data``.  On the host
backends ``data is dev`` and :meth:`Array.pull` / :meth:`Array.push` do
nothing.  On device backends ``data`` is a host mirror that is only up to date
after :meth:`~Array.pull` and only reaches the device with
:meth:`~Array.push`: nothing is copied between host and device behind the
user's back, except in the operations whose docstrings say they run on the
host (creation with :func:`arange` / :func:`linspace`).

Precision: float64 data wrapped or created for a GPU backend (``opencl``,
``cuda``) while ``get_config().use_double`` is False is stored as float32, as
Compyle users expect; a :class:`~pcompute.errors.PrecisionWarning` says so once
per process.  Set ``get_config().use_double = True`` to keep float64.

As in Compyle, the array algorithms are here too: ``sort_by_keys``,
``argsort``, ``align``, ``take``, ``diff``, ``trapz``, ``update_minmax_gpu``
(:mod:`pcompute.array.sorting`) and ``cumsum``, ``where``, ``take_bool``,
``sum``, ``dot``, ``minimum``, ``maximum`` (:mod:`pcompute.array.algorithms`).
The package's modules import one way: :mod:`~pcompute.array.core` (the Array)
is built on the primitives, the algorithms on the core.
"""
from .core import (GROWTH, MIN_CAPACITY, Array, arange, empty, empty_like, get_backend,
                   get_backend_name, linspace, ones, ones_like, to_device, wrap,
                   wrap_array, zeros, zeros_like)
from .core import __all__
from .algorithms import cumsum, dot, maximum, minimum, sum, take_bool, where
from .sorting import (align, argsort, diff, sort_by_keys, take, trapezoid, trapz,
                      update_min_max, update_minmax_gpu)

__all__ = list(__all__)
