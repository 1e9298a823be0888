"""Per-kernel timings (Compyle-compatible names).

Profiling is off unless ``get_config().profile`` is True (``PCOMPUTE_PROFILE=1``,
``--profile`` of :class:`pcompute.utils.ArgumentParser`, or set it yourself).
When off, the primitives pay one attribute check per call and nothing is
recorded.  When on:

* every :class:`~pcompute.Elementwise`, :class:`~pcompute.Reduction` (and
  Scan/sort) call is timed under the kernel's name (the user function's name,
  e.g. ``axpy``; reductions as ``reduce[a+b]`` or ``<map name>[a+b]``);
* building a kernel (type inference, code generation and compilation or a
  cache load) is timed apart, under ``compile:<name>``, and reported in its own
  section;
* :func:`profile` / :func:`profile_ctx` / :class:`ProfileContext` time your
  own Python code.  As in Compyle these record whether or not profiling is on
  (two clock reads per call): they are there because you asked for them.

How kernels are timed: on host backends (python, cython) by the wall clock.
On OpenCL and CUDA the device is synchronised before and after the launch and
the wall clock is read (``Backend.now()``), so a time is the kernel's own time
plus its launch overhead, never the time of earlier queued work.  Device
events are used where they are available to us: :func:`profile_kernel` on a
raw pyopencl kernel whose queue has profiling enabled reports the event's
device time, and on a raw pycuda function the ``time_kernel=True`` time.  The
primitives' launches go through the backend's queue, which is created without
profiling, so they are wall-clock timed as above.

``PCOMPUTE_PROFILE=1`` (or ``ArgumentParser --profile``) prints the table to
stderr at exit.  :func:`get_profile_info` returns the numbers in Compyle's
layout, ``{level: {name: {'calls', 'time', ...}}}``,
:func:`profile2csv` writes them to a CSV file, :func:`reset_profile` forgets
them.

Nesting: :func:`profile` and :func:`profile_ctx` raise the nesting level of
what runs inside them (as in Compyle); a name timed at two levels has an
entry at each, and "total profiled time" sums level 0 only, so nothing is
counted twice.

This module is Compyle's API; the timings live in :mod:`pcompute.timing`
(the store, the timers primitives use, the reports).
"""
import contextlib
import functools
import inspect
import os

from .config import get_config
from .timing.report import (format_profile, print_profile, profile2csv,  # noqa: F401
                            register_print_at_exit)
from .timing.store import (clock as _clock, enter as _enter,  # noqa: F401
                           get_profile_info, leave as _leave, record, reset_profile)
from .timing.timers import compile_timer, kernel_timer, resolve_backend  # noqa: F401

__all__ = ["profile", "profile_ctx", "named_profile", "profile_kernel",
           "get_profile_info", "print_profile", "format_profile", "profile2csv",
           "reset_profile", "kernel_timer", "compile_timer", "record",
           "ProfileContext", "register_print_at_exit"]


@contextlib.contextmanager
def _nested(name):
    _enter()
    start = _clock()
    try:
        yield start
    finally:
        end = _clock()
        _leave()
    record(name, end - start, "run")


def profile_ctx(name):
    """Context manager timing its block under ``name`` (when profiling is on)::

        with profile_ctx('step'):
            step()

    Kernels run inside the block are recorded one level deeper.  It yields the
    start time, as Compyle's does, and records whether or not profiling is on
    (see the module's docstring).
    """
    return _nested(name)


class ProfileContext:
    """Start/stop timing without a ``with`` block (Compyle compatible)::

        p = ProfileContext('part')
        ...
        p.stop()
    """

    def __init__(self, name):
        self.name = name
        self.active = True
        _enter()
        self.start = _clock()

    def stop(self):
        if not self.active:
            return
        self.active = False
        elapsed = _clock() - self.start
        _leave()
        record(self.name, elapsed, "run")


def _is_method(func):
    try:
        params = list(inspect.signature(func).parameters)
    except (TypeError, ValueError):
        return False
    return bool(params) and params[0] == "self"


def profile(method=None, name=None):
    """Decorator timing a Python function when profiling is on::

        @profile
        def step(): ...

        @profile(name='force computation')
        def compute(): ...

    The entry is ``name`` if given; else, for a method (first parameter
    ``self``) whose object has a string ``name`` attribute, that name (so
    ``Elementwise``-like classes report per instance, as in Compyle); else the
    function's qualified name.  Like Compyle's, it records whether or not
    profiling is on (see the module's docstring).
    """
    def decorate(func):
        default = getattr(func, "__qualname__", func.__name__)
        method_like = name is None and _is_method(func)

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            label = name or default
            if method_like and args:
                own = getattr(args[0], "name", None)
                if isinstance(own, str) and own:
                    label = own
            with _nested(label):
                return func(*args, **kwargs)
        return wrapper

    if method is None:
        return decorate
    if isinstance(method, str) and name is None:      # @profile('label')
        return profile(name=method)
    return decorate(method)


# -------------------------------------------------------------- raw kernels

def profile_kernel(kernel, name, backend=None):
    """Wrap a raw kernel (pyopencl Kernel, pycuda Function, compiled Cython
    function or any callable) so that each call is recorded under ``name``.

    As in Compyle, the wrapper is made only if profiling is on when this is
    called; otherwise ``kernel`` itself is returned (zero cost).  On OpenCL the
    returned event is waited for and its device time used if the queue has
    profiling enabled (else the wall time up to the event's completion); on
    CUDA a pycuda function is called with ``time_kernel=True``; elsewhere the
    device is synchronised and the wall clock read.  The wrapper returns what
    the kernel returns (for pycuda functions: the time, as Compyle does).
    """
    if not get_config().profile:
        return kernel
    be = resolve_backend(backend)

    def profiled(*args, **kwargs):
        if not get_config().profile:
            return kernel(*args, **kwargs)
        result, seconds = be.timed_call(kernel, args, kwargs)
        record(name, seconds, "run")
        return result

    for attr in ("get_work_group_info", "function_name", "source"):
        if hasattr(kernel, attr):
            try:
                setattr(profiled, attr, getattr(kernel, attr))
            except AttributeError:
                pass
    profiled.__wrapped__ = kernel
    return profiled


def named_profile(name, backend=None):
    """Decorator for a function that returns a raw kernel: the kernel it
    returns is wrapped by :func:`profile_kernel` under ``name`` (the
    function's name if ``name`` is None)::

        @named_profile('prefix_sum', backend='opencl')
        def get_prefix_sum(ctx):
            return GenericScanKernel(...)
    """
    def decorate(func):
        label = name or func.__name__

        @functools.wraps(func)
        def make(*args, **kwargs):
            return profile_kernel(func(*args, **kwargs), label, backend=backend)
        return make
    return decorate


if os.environ.get("PCOMPUTE_PROFILE", "").strip().lower() in ("1", "true", "yes", "on"):
    register_print_at_exit()
