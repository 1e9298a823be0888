"""One kernel being assembled: its parameters, body lines and temporaries.

The kernel is kernel-language Python source (``def k(i, ...)``) that the
normal front end checks, types and translates for whichever backend runs it;
arrays and scalars are parameters (never baked into the text), so the text
is the structure of the phase and the cache key of its compiled kernel.
"""
import contextlib
import re

import numpy as np

from .plan import Dyn, value_of

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class Builder:
    """Parameters, lines and temporaries of one kernel under construction."""

    def __init__(self, prefix=""):
        self.prefix = prefix             # of parameter names (several functions, one kernel)
        self.params, self.args = [], []
        self.lines = []
        self.memo = {}
        self.kept = {}                   # id -> (Lazy to keep, its item's name): keep.py
        self._arrays = {}
        self._count = 0
        self.indent = ""

    def fresh(self, prefix):
        self._count += 1
        return "%s%d" % (prefix, self._count)

    def array(self, arr):
        """The parameter name of the pcompute Array ``arr``."""
        name = self._arrays.get(id(arr))
        if name is None:
            name = "%sa%d" % (self.prefix, len(self._arrays))
            self._arrays[id(arr)] = name
            self.params.append(name)
            self.args.append(arr)
        return name

    def scalar(self, value):
        """A kernel scalar parameter holding the host value ``value`` (a
        number or a :class:`~.plan.Dyn`)."""
        if isinstance(value_of(value), (bool, np.bool_)):
            value = value.tape.host(_int32_of_bool, value) if isinstance(value, Dyn) \
                else _int32_of_bool(value)
        name = "%sc%d" % (self.prefix, len(self.params))
        self.params.append(name)
        self.args.append(value)
        return name

    def lead(self, n, empty):
        """Put an array of ``n`` elements first among the parameters: the
        primitives take the number of items from the first array argument.
        Without one, an ``n``-element carrier array (from ``empty(n, dtype)``)
        is added."""
        for k, value in enumerate(self.args):
            if (isinstance(value, np.ndarray) or hasattr(value, "get")) and \
                    hasattr(value, "dtype") and len(value) == n:
                self.params.insert(0, self.params.pop(k))
                self.args.insert(0, self.args.pop(k))
                return
        self.params.insert(0, "dp_items")
        self.args.insert(0, empty(n, np.int8))

    @contextlib.contextmanager
    def scope(self):
        """Lines indented one level (a loop or branch body); temporaries made
        inside are not reused outside."""
        indent, memo = self.indent, self.memo
        self.indent, self.memo = indent + "    ", dict(memo)
        try:
            yield
        finally:
            self.indent, self.memo = indent, memo

    def line(self, text):
        self.lines.append(self.indent + text)

    def temp(self, text):
        """``text`` as a local name (assigned on a line of its own)."""
        if _NAME.match(text):
            return text
        name = self.fresh("t")
        self.line("%s = %s" % (name, text))
        return name

    def lower_bound(self, read, m, j):
        """Lines of a binary search over the sorted sequence ``read(k)``,
        ``k`` in ``[0, m)``: the name that then holds the first ``k`` with
        ``read(k) >= j`` (``m`` if none).  ``read`` gives the text of an
        element for the name of its index (it may add lines)."""
        lo, hi, mid = self.fresh("lo"), self.fresh("hi"), self.fresh("mid")
        self.line("%s = cast(0, 'long')" % lo)
        self.line("%s = %s" % (hi, m))
        self.line("while %s < %s:" % (lo, hi))
        with self.scope():
            self.line("%s = (%s + %s) // 2" % (mid, lo, hi))
            self.line("if %s < %s:" % (read(mid), j))
            with self.scope():
                self.line("%s = %s + 1" % (lo, mid))
            self.line("else:")
            with self.scope():
                self.line("%s = %s" % (hi, mid))
        return lo

    def function(self, name, head, tail):
        """The source of ``def name(<head>, <params>)``: body lines, then ``tail``."""
        lines = ["def %s(%s):" % (name, ", ".join(list(head) + self.params))]
        lines += ["    " + ln for ln in self.lines + list(tail)]
        return "\n".join(lines) + "\n"


def _int32_of_bool(value):
    return np.int32(bool(value))
