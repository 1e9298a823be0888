"""Fast calls, in Python, for backends whose kernels are launched from Python.

The checked call path of a primitive (configuration, backend, argument types,
memo lookup, device values) costs about 10 us in Python, which matters next
to an OpenCL enqueue of about 5 us.  :func:`python_binder` makes a
``BuiltKernel.fastcall`` for such a kernel: after a call has gone through the
checked path, later calls whose arguments have the same signature (the exact
Python type of each; for Arrays the backend, dtype, rank and layout of the
device array) and whose configuration is unchanged
(:data:`pcompute.config.GENERATION`) go straight to the kernel's launch.
Anything else returns None and takes the checked path.  (The cython backend
compiles the same checks into each module: :mod:`.cython_fast`.)
"""
from ..arraybase import ArrayBase
from ..config import GENERATION


def _layout(dev):
    """(rank, last axis contiguous) of a device array, as the checked path's
    signature records it."""
    shape, strides = dev.shape, dev.strides
    return len(shape), (not shape or strides[-1] == dev.dtype.itemsize or shape[-1] <= 1)


def python_binder(launch, generated, finish=None):
    """The ``fastcall`` of a BuiltKernel whose ``launch(n, values)`` takes the
    device values of the user arguments (``generated.args``): ``bind(args,
    stamp, backend_name)`` gives ``fast(args, kw)`` (None when a call does
    not match: else True, or ``finish(result)`` when ``finish`` is given), or
    None when ``args`` hold something it does not handle (numpy arrays)."""
    names = tuple(name for name, _ in generated.args)

    def bind(args, stamp, backend_name):
        if len(args) != len(names):
            return None
        checks, first = [], None
        for k, value in enumerate(args):
            if isinstance(value, ArrayBase):
                attr = type(value).DEV_ATTRIBUTE
                if attr is None:
                    return None
                dev = getattr(value, attr)
                if dev.dtype != value.dtype:
                    return None
                checks.append((type(value), attr, dev.dtype, _layout(dev)))
                if first is None:
                    first = k
            elif hasattr(value, "shape"):
                return None                 # numpy arrays and the like: checked path
            else:
                checks.append((type(value), None, None, None))
        if first is None:
            return None
        count = len(names)
        arrays = [k for k, c in enumerate(checks) if c[1] is not None]

        def fast(args, kw):
            if GENERATION[0] != stamp:
                return None
            if kw:
                if len(args) + len(kw) != count:
                    return None
                args = tuple(args) + tuple(kw.get(n) for n in names[len(args):])
            elif len(args) != count:
                return None
            values = list(args)
            for k, value in enumerate(args):
                want, attr, dtype, layout = checks[k]
                if type(value) is not want:
                    return None
                if attr is not None:
                    if value.backend != backend_name:
                        return None
                    dev = getattr(value, attr)
                    if dev.dtype != dtype or _layout(dev) != layout:
                        return None
                    values[k] = dev
            result = launch(len(args[arrays[0]]), values)
            return True if finish is None else finish(result)
        return fast
    return bind
