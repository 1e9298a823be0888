"""Error and warning classes of pcompute, and source-location formatting.

User mistakes raise subclasses of the matching builtin exception
(``SyntaxError``, ``TypeError``, ``ValueError``) and point at the user's code:
file, absolute line, the source line and a caret under the construct, then one
line on what to write instead.  Failures inside pcompute raise
:class:`InternalError`, which says so.  A failed compilation raises
:class:`BuildError` carrying the compiler log and the numbered generated source.
"""


import threading
import warnings

_warned_lock = threading.Lock()
_warned = set()     # (category, message) pairs already warned about in this process


def warn_once(message, category, stacklevel=3):
    """Warn ``message`` as ``category`` once per process: the same message of
    the same class again says nothing.  ``stacklevel`` counts as
    :func:`warnings.warn` does from inside this function (3: the caller of the
    function that calls ``warn_once``)."""
    with _warned_lock:
        if (category, message) in _warned:
            return
        _warned.add((category, message))
    warnings.warn(message, category, stacklevel=stacklevel)


class SourceLocation:
    """Where a construct sits in the user's file (1-based line, 0-based column)."""

    __slots__ = ("filename", "lineno", "col", "end_col", "funcname", "line")

    def __init__(self, filename, lineno, col=0, end_col=None, funcname=None,
                 line=""):
        self.filename = filename
        self.lineno = lineno
        self.col = col
        self.end_col = end_col
        self.funcname = funcname
        self.line = line

    def format(self):
        """The traceback-style description of this location with a caret."""
        where = 'File "%s", line %s' % (self.filename, self.lineno)
        if self.funcname:
            where += ", in %s" % self.funcname
        if not self.line:
            return where
        text = self.line.rstrip("\n")
        stripped = text.lstrip()
        indent = len(text) - len(stripped)
        col = max(self.col - indent, 0)
        end = self.end_col if self.end_col and self.end_col > self.col else None
        width = (end - self.col) if end else 1
        width = max(1, min(width, len(stripped) - col))
        return "%s\n    %s\n    %s%s" % (where, stripped, " " * col, "^" * width)


class KernelError(Exception):
    """Base of the errors about a user's kernel code.

    ``location`` is a :class:`SourceLocation` or None, ``hint`` one line on
    what to write instead.
    """

    def __init__(self, message, location=None, hint=None):
        self.message = message
        self.location = location
        self.hint = hint
        Exception.__init__(self, self._full_text())

    def _full_text(self):
        parts = []
        if self.location is not None:
            parts.append(self.location.format())
        parts.append(self.message)
        if self.hint:
            parts.append("hint: " + self.hint)
        return "\n".join(parts)

    def __str__(self):
        return self._full_text()

    def __reduce__(self):
        return (type(self), (self.message, self.location, self.hint))


class KernelSyntaxError(KernelError, SyntaxError):
    """A construct outside the supported Python subset.

    Also carries the attributes of a :class:`SyntaxError` (``filename``,
    ``lineno``, ``offset``, ``text``, ``end_lineno``, ``end_offset``) so that
    Python's own traceback shows the user's line with a caret; ``msg`` is the
    message and hint without the location, which that traceback prints itself.
    """

    def __init__(self, message, location=None, hint=None):
        KernelError.__init__(self, message, location, hint)
        SyntaxError.__init__(self, self._full_text())
        self.msg = message + ("\nhint: " + hint if hint else "")
        if location is not None:
            self.filename = location.filename
            self.lineno = location.lineno
            self.offset = location.col + 1
            self.text = location.line
            self.end_lineno = location.lineno
            if location.end_col and location.end_col > location.col:
                self.end_offset = location.end_col + 1
            else:
                self.end_offset = self.offset + 1

    def __str__(self):
        return self._full_text()


class KernelTypeError(KernelError, TypeError):
    """A type problem in a kernel, or arguments of the wrong type at a call."""


class KernelValueError(KernelError, ValueError):
    """A bad value given to pcompute (argument, option, configuration)."""


class KernelIndexError(KernelError, IndexError):
    """An array index out of range in a kernel run with bounds checks
    (``get_config().bounds_check`` or ``PCOMPUTE_DEBUG=1``); its location is
    the access in the user's code."""


class BackendUnavailableError(RuntimeError):
    """The selected backend cannot run on this machine; the message says why."""


class BuildError(RuntimeError):
    """A generated source failed to compile.

    Carries ``log`` (the compiler output) and ``source`` (the generated text);
    the message shows both, the source with line numbers.
    """

    def __init__(self, message, log="", source="", backend=None):
        self.log = log
        self.source = source
        self.backend = backend
        text = [message]
        if log:
            text.append("--- compiler log ---")
            text.append(log.rstrip())
        if source:
            text.append("--- generated source ---")
            text.append(number_lines(source))
        RuntimeError.__init__(self, "\n".join(text))


class GroupBuildError(BuildError):
    """A group module (several generated Cython kernels built as one, see
    :mod:`pcompute.build.cython_group`) could not be merged or built, under
    ``Config.strict_groups`` (``PCOMPUTE_STRICT_GROUPS=1``); without it the
    kernels are built one by one.  ``members`` names the group's kernels,
    ``cause`` says what failed."""

    def __init__(self, members, cause, log=""):
        self.members = tuple(members)
        self.cause = cause
        BuildError.__init__(
            self, "the group module of the kernels %s could not be %s; the group's "
            "text is pcompute's, so this is a bug in pcompute (please report it). "
            "strict_groups (PCOMPUTE_STRICT_GROUPS=1) makes this an error; with it "
            "off the kernels are built one by one (each with its own errors)"
            % (", ".join(self.members), cause), log=log)


class InternalError(RuntimeError):
    """A failure inside pcompute itself: a bug, please report it."""

    def __init__(self, message):
        RuntimeError.__init__(
            self, "internal error in pcompute (this is a bug, please report "
            "it): " + message)


class PcomputeWarning(UserWarning):
    """Base class of pcompute's warnings."""


class ConfigWarning(PcomputeWarning):
    """A configuration value (often from the environment) was not valid."""


class CacheWarning(PcomputeWarning):
    """The compile cache could not be used as asked; a fallback was taken."""


class OpenMPWarning(PcomputeWarning):
    """OpenMP is not available: kernels run serially."""


class PrecisionWarning(PcomputeWarning):
    """Data was converted to another precision."""


def number_lines(source):
    """Return ``source`` with right-aligned line numbers."""
    lines = source.splitlines()
    width = len(str(len(lines)))
    return "\n".join("%*d | %s" % (width, k + 1, line)
                     for k, line in enumerate(lines))


class RaceWarning(PcomputeWarning):
    """Two items of an Elementwise kernel may touch the same array element,
    one of them writing (a data race); the message names the file, line,
    the conflicting accesses and two item indices that conflict."""


class RaceError(KernelError, ValueError):
    """A data race in an Elementwise kernel, under ``strict=True``."""


class SequentialLoopWarning(PcomputeWarning):
    """A loop nest given to :func:`pcompute.parallelize` runs sequentially
    (compiled); the message names the loop and the dependence."""


class SequentialLoopError(KernelError, ValueError):
    """A loop nest cannot be parallelised, under ``strict=True``."""


class SpeculationWarning(PcomputeWarning):
    """A loop run speculatively by :func:`pcompute.parallelize` violated a
    dependence: its arrays were restored and it ran again sequentially
    (compiled).  The message names the loop and the kind of dependence."""


class SpeculationError(KernelError, ValueError):
    """A speculated loop violated a dependence, under ``strict=True`` (the
    arrays it writes are restored to their values before the loop)."""
