"""The dynamic race check of the python backend (debug mode).

With ``get_config().debug`` on, the array arguments of an Elementwise kernel
become :class:`RecordedArray` views (same memory, bounds checked as
:class:`~.pychecks.CheckedArray`) that record, per element, the item that
wrote it and the items that read it.  An element written by one item and
read or written by another is a data race on the parallel backends, even
when the static check could not see it (a scatter ``x[idx[i]]`` with repeated
indices): the first one seen in a launch is reported as a
:class:`~pcompute.errors.RaceWarning` naming the kernel, the array, the
element, the two items and the lines of both accesses.  Elements updated by
``atomic_inc``/``atomic_dec`` are exempt.
"""
import sys
import warnings

import numpy as np

from ..errors import RaceWarning
from .pychecks import CheckedArray


class Recorder:
    """The accesses of one launch: ``item`` is the current item index."""

    def __init__(self, kernel):
        self.kernel = kernel
        self.item = None
        self.paused = 0
        self.seen = {}           # (array, element) -> [writer, line, readers{item: line}]
        self.conflict = None

    def record(self, name, key, write, line):
        if self.paused or self.conflict is not None:
            return
        element = tuple(int(k) for k in key) if isinstance(key, tuple) else (int(key),)
        entry = self.seen.setdefault((name, element), [None, None, {}])
        writer, wline, readers = entry
        item = self.item
        if writer is not None and writer != item:
            self.conflict = (name, element, writer, "writes", wline, item,
                             "writes" if write else "reads", line)
        elif write:
            other = next((r for r in readers if r != item), None)
            if other is not None:
                self.conflict = (name, element, other, "reads", readers[other], item,
                                 "writes", line)
            entry[0], entry[1] = item, line
        elif item not in readers and len(readers) < 2:
            readers[item] = line

    def report(self):
        if self.conflict is None:
            return
        name, element, a, how_a, line_a, b, how_b, line_b = self.conflict
        text = ("race in the Elementwise kernel %s() seen at run time (debug mode): "
                "item %s %s %s[%s] at %s and item %s %s it at %s"
                % (self.kernel, _item(a), how_a, name, ", ".join(map(str, element)),
                   line_a, _item(b), how_b, line_b))
        warnings.warn(RaceWarning(text + "\nhint: give each item its own elements, "
                                  "use atomic_inc/atomic_dec, or mark the kernel @serial"),
                      stacklevel=4)


def _item(index):
    return str(index[0]) if len(index) == 1 else str(tuple(index))


class RecordedArray(CheckedArray):
    """A view of an array argument recording its element accesses.

    The python backend's kernel arrays call ``_check(index)`` on every
    element access from their ``__getitem__``/``__setitem__``; the caller's
    name says which, the frame above it is the kernel's line."""

    def _check(self, key, depth=2):
        CheckedArray._check(self, key, depth + 1)
        if _is_element(key, self.ndim):
            access = sys._getframe(1)
            frame = access.f_back
            self.pc_recorder.record(self.pc_name, key, access.f_code.co_name == "__setitem__",
                                    "%s:%d" % (frame.f_code.co_filename, frame.f_lineno))


def _is_element(key, ndim):
    keys = key if isinstance(key, tuple) else (key,)
    return len(keys) == ndim and all(
        isinstance(k, (int, np.integer)) and not isinstance(k, bool) for k in keys)


def recorded_args(names, args, recorder, kernel):
    """``args`` with the numpy arrays among them as :class:`RecordedArray` views."""
    out = []
    for name, a in zip(names, args):
        if isinstance(a, np.ndarray) and a.ndim:
            a = a.view(RecordedArray)
            a.pc_name, a.pc_kernel, a.pc_recorder = name, kernel, recorder
        out.append(a)
    return out
