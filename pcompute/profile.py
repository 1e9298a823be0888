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

For primitive authors::

    from ..profile import kernel_timer, compile_timer
    if config.profile:                      # the only cost when off
        with kernel_timer(name, backend):
            run(n, values)
    ...
    with compile_timer(name):               # no-op when profiling is off
        run = backend.build_scan(spec, config)
"""
import atexit
import contextlib
import csv
import functools
import inspect
import os
import sys
import threading
import time

from .config import get_config

__all__ = ["profile", "profile_ctx", "named_profile", "profile_kernel",
           "get_profile_info", "print_profile", "format_profile", "profile2csv",
           "reset_profile", "kernel_timer", "compile_timer", "record",
           "ProfileContext", "register_print_at_exit"]

COMPILE_PREFIX = "compile:"

_lock = threading.Lock()
_records = {}           # (level, name) -> _Record, in first-recorded order
_level = 0              # nesting depth of profile()/profile_ctx() (global, as in Compyle)
_clock = time.perf_counter


class _Record:
    __slots__ = ("calls", "total", "min", "max", "kind", "level")

    def __init__(self, kind, level):
        self.calls = 0
        self.total = 0.0
        self.min = float("inf")
        self.max = 0.0
        self.kind = kind
        self.level = level

    def add(self, seconds):
        self.calls += 1
        self.total += seconds
        if seconds < self.min:
            self.min = seconds
        if seconds > self.max:
            self.max = seconds

    def as_dict(self):
        mean = self.total / self.calls if self.calls else 0.0
        return {"calls": self.calls, "time": self.total, "total": self.total,
                "min": self.min if self.calls else 0.0, "mean": mean,
                "max": self.max, "kind": self.kind, "level": self.level}


# ------------------------------------------------------------------ recording

def record(name, seconds, kind=None):
    """Add one call of ``seconds`` to the entry ``name``.

    ``kind`` is ``'run'`` or ``'compile'`` (default: ``'compile'`` for names
    starting with ``compile:``, else ``'run'``).  Records even when profiling
    is off: callers check ``get_config().profile`` (the helpers below do).
    """
    if kind is None:
        kind = "compile" if name.startswith(COMPILE_PREFIX) else "run"
    with _lock:
        key = (_level, name)
        rec = _records.get(key)
        if rec is None:
            rec = _records[key] = _Record(kind, _level)
        rec.add(float(seconds))


def reset_profile():
    """Forget every recorded timing."""
    with _lock:
        _records.clear()


def get_profile_info():
    """A snapshot of the timings in Compyle's layout: one dict per nesting
    level, ``{level: {name: {calls, time, total, min, mean, max, kind,
    level}}}`` with the levels in order (``info[0]['step']['calls']``;
    ``time`` is the total, as in Compyle; times in seconds; ``kind`` is
    ``'run'`` or ``'compile'``).  Empty when nothing was recorded."""
    with _lock:
        items = [(key, rec.as_dict()) for key, rec in _records.items()]
    info = {}
    for (level, name), stats in sorted(items, key=lambda kv: kv[0][0]):
        info.setdefault(level, {})[name] = stats
    return info


def _rows(info):
    """``(name, stats)`` for every entry of a :func:`get_profile_info` result."""
    return [(name, stats) for level in info for name, stats in info[level].items()]


# ------------------------------------------------------------------- timers

class _NullTimer:
    """What the timers return when profiling is off: does nothing."""
    __slots__ = ()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


_NULL = _NullTimer()


def _resolve_backend(backend):
    """A Backend object for a name, an object or None (the configured one)."""
    if backend is None or isinstance(backend, str):
        from .backends.registry import get_backend
        return get_backend(backend)
    return backend


class _Timer:
    """Times its block and records it on a clean exit."""
    __slots__ = ("name", "kind", "backend", "start")

    def __init__(self, name, kind, backend):
        self.name = name
        self.kind = kind
        self.backend = backend      # None: plain wall clock, no synchronisation

    def _now(self):
        return _clock() if self.backend is None else self.backend.now()

    def __enter__(self):
        self.start = self._now()
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            record(self.name, self._now() - self.start, self.kind)
        return False


def kernel_timer(name, backend=None):
    """Context manager timing one kernel launch under ``name``.

    A no-op (a shared object, no allocation) when profiling is off.  When on,
    a device backend (``backend``: a name, a Backend object, or None for the
    configured one) is synchronised before and after the block, so the time
    is the launch's own.  Not recorded if the block raises.
    """
    if not get_config().profile:
        return _NULL
    be = _resolve_backend(backend)
    return _Timer(name, "run", None if be.on_host else be)


def compile_timer(name):
    """Context manager timing the build of kernel ``name`` under
    ``compile:<name>`` (wall clock, no device synchronisation); a no-op when
    profiling is off."""
    if not get_config().profile:
        return _NULL
    return _Timer(COMPILE_PREFIX + name, "compile", None)


@contextlib.contextmanager
def _nested(name):
    global _level
    with _lock:
        _level += 1
    start = _clock()
    try:
        yield start
    finally:
        end = _clock()
        with _lock:
            _level -= 1
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
        global _level
        self.name = name
        self.active = True
        with _lock:
            _level += 1
        self.start = _clock()

    def stop(self):
        global _level
        if not self.active:
            return
        self.active = False
        elapsed = _clock() - self.start
        with _lock:
            _level -= 1
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
    be = _resolve_backend(backend)

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


# ------------------------------------------------------------------ reports

_COLUMNS = ("calls", "total", "min", "mean", "max")


def _table(rows, width):
    head = "%-*s %8s %12s %12s %12s %12s" % ((width, "name") + _COLUMNS)
    lines = [head, "-" * len(head)]
    for name, d in rows:
        label = ("  " * min(d["level"], 4)) + name
        lines.append("%-*s %8d %12.6f %12.6f %12.6f %12.6f" % (
            width, label, d["calls"], d["total"], d["min"], d["mean"], d["max"]))
    return lines


def format_profile(info=None):
    """The profile table as text (times in seconds): the run times (level 0
    by total time, then the entries timed inside a ``profile`` block, indented
    by their level), then the compile times."""
    info = get_profile_info() if info is None else info
    if not info:
        return "pcompute profile: no profiling information recorded (is " \
               "get_config().profile / PCOMPUTE_PROFILE=1 set?)\n"
    ordered = sorted(_rows(info), key=lambda kv: (kv[1].get("level", 0) > 0,
                                                  -kv[1]["total"], kv[0]))
    runs = [(n, d) for n, d in ordered if d.get("kind", "run") != "compile"]
    builds = [(n, d) for n, d in ordered if d.get("kind", "run") == "compile"]
    width = max(24, max(len(n) + 2 * min(d.get("level", 0), 4) for n, d in ordered))
    lines = ["pcompute profile (times in seconds)"]
    if runs:
        lines += _table(runs, width)
        level0 = sum(d["total"] for _, d in runs if d.get("level", 0) == 0)
        lines.append("total profiled run time: %.6f s" % level0)
    if builds:
        lines += ["", "compile time (kept apart from the run times above)"]
        lines += _table(builds, width)
        lines.append("total compile time: %.6f s"
                     % sum(d["total"] for _, d in builds))
    return "\n".join(lines) + "\n"


def print_profile(file=None):
    """Write the profile table (:func:`format_profile`) to ``file``
    (default: standard output)."""
    (file or sys.stdout).write(format_profile())


def profile2csv(fname, info=None):
    """Write the timings to the CSV file ``fname``.

    Columns: ``rank, level, function, calls, time, min, mean, max, kind``
    (the first five as in Compyle; times in seconds).  ``info`` is a
    :func:`get_profile_info` result or a list of them, one per rank (for
    parallel runs); default: this process's timings as rank 0.
    """
    if info is None:
        info = [get_profile_info()]
    elif isinstance(info, dict):
        info = [info]
    with open(fname, "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["rank", "level", "function", "calls", "time", "min",
                      "mean", "max", "kind"])
        for rank, data in enumerate(info):
            for name, d in sorted(_rows(data),
                                  key=lambda kv: (kv[1].get("level", 0),
                                                  -kv[1]["time"], kv[0])):
                out.writerow([rank, d.get("level", 0), name, d["calls"],
                              repr(float(d["time"])), repr(float(d.get("min", 0.0))),
                              repr(float(d.get("mean", 0.0))),
                              repr(float(d.get("max", 0.0))), d.get("kind", "run")])


# ---------------------------------------------------------- print at exit

_at_exit_registered = False


def _print_at_exit():
    try:
        sys.stderr.write(format_profile())
        sys.stderr.flush()
    except Exception:       # interpreter shutting down, stderr closed
        pass


def register_print_at_exit():
    """Print the profile table to stderr when the process exits (once, however
    often this is called)."""
    global _at_exit_registered
    with _lock:
        if _at_exit_registered:
            return
        _at_exit_registered = True
    atexit.register(_print_at_exit)


if os.environ.get("PCOMPUTE_PROFILE", "").strip().lower() in ("1", "true", "yes", "on"):
    register_print_at_exit()
