"""What a parallelised function (:class:`~pcompute.autopar.Parallelized`)
tells its user: the SequentialLoopWarning / SequentialLoopError of a nest that
does not run in parallel (or not compiled), an index out of range told in the
user's function and line (found before the launch by :mod:`.bounds`, or by a
kernel under ``bounds_check``), and the ``explain()`` report.  A mixin."""
import re
import warnings

from ..errors import KernelIndexError, SequentialLoopError, SequentialLoopWarning, SourceLocation
from . import bounds, callee


class ReportMixin:
    """The warnings, errors and reports of :class:`~pcompute.autopar.Parallelized`."""

    def _user_index_error(self, error, step):
        """``error`` (an index out of range in a kernel of nest ``step``, under
        ``bounds_check``) told in the user's terms: their function and the
        nest's line, not the generated kernel's name."""
        where = "%s() (the loop nest at line %d)" % (self.__name__, step.node.lineno)
        message = re.sub(r"autopar_(nest|spec)_\w+(\(\))?", where, error.message)
        loc = error.location
        if loc is not None and loc.filename == self.filename:
            loc = SourceLocation(loc.filename, loc.lineno, loc.col, loc.end_col,
                                 self.__name__, loc.line)
        return KernelIndexError(message, loc, error.hint)


    def _index_notes(self, step, report, scope):
        """Check the subscripts of nest ``step`` against the shapes of the
        arrays at this call (:mod:`.bounds`; cached on the report and those
        shapes): raise the located :class:`~pcompute.errors.KernelIndexError`
        of an index plain Python would take out of range, before anything
        runs; return the notes of what could not be checked (explain())."""
        names = report.__dict__.get("array_names")
        if names is None:           # the report's arrays, sorted, once
            names = report.array_names = tuple(sorted({a.array for a in report.accesses}))
        shapes = tuple([tuple(scope[name].shape) for name in names])
        key = (id(report), shapes)
        cached = self._index_checks.get(key)
        if cached is not None and cached[0] is report:
            return cached[1]
        findings, notes = bounds.check(report.expanded, dict(zip(names, shapes)))
        if findings:
            raise self._index_error(findings[0], step)
        self._index_checks[key] = (report, tuple(notes))
        return tuple(notes)

    def _index_error(self, finding, step):
        access = finding.access
        text = access.text or access.array
        index = finding.index
        message = ("index %d is out of range for axis %d of array '%s' (length %d) in %s() "
                   "(the loop nest at line %d): the subscript %s takes the indices %d to %d "
                   "over the loops at this call" % (
                       index, finding.axis, access.array, finding.length, self.__name__,
                       step.node.lineno, text, finding.low, finding.high))
        if index < 0:
            message += "; plain Python counts a negative index from the end, a kernel does not"
            hint = ("start the loop where the index is 0 or more, or write the index plain "
                    "Python means where it is negative (the length added: %d + %d = %d)" % (
                        index, finding.length, index + finding.length))
        else:
            message += "; plain Python raises IndexError there"
            hint = ("end the loop where the index is below %d (the length), or pass a larger "
                    "array" % finding.length)
        node = access.node
        line = self.lines[node.lineno - 1] if node.lineno <= len(self.lines) else ""
        end = node.end_col_offset if node.end_lineno == node.lineno else len(line)
        return KernelIndexError(message, SourceLocation(
            self.filename, node.lineno, node.col_offset, end, self.__name__, line), hint=hint)

    def _interpreted(self, index, step, record):
        """A loop that is not a top-level ``for ... in range(...)`` runs in the
        interpreter: said (warning, or error under strict), never silent."""
        message = ("this statement holds a loop but is not a top-level `for v in "
                   "range(...)` nest: it runs as plain Python, not compiled")
        if record is not None:
            record.append((step, None, None, ()))
        error = SequentialLoopError(
            message, self._location(step.node),
            hint="make the loop a top-level `for v in range(...)` statement of %s() "
                 "(move conditions inside it)" % self.__name__)
        if self.strict:
            raise error
        if (index, "python") not in self._warned:
            self._warned.add((index, "python"))
            warnings.warn(SequentialLoopWarning(str(error)), stacklevel=5)

    # ------------------------------------------------------------ reports
    def _location(self, node):
        line = self.lines[node.lineno - 1] if node.lineno <= len(self.lines) else ""
        return SourceLocation(self.filename, node.lineno, node.col_offset,
                              node.col_offset + 3, self.__name__, line)

    def _warn(self, index, plan):
        loop = plan.loop
        what = ("runs its iterations in order, each launching the parallel loops "
                "inside" if plan.kind == "host" else "runs sequentially (compiled, "
                "one work item)")
        message = "the loop over %s %s: %s" % (loop.var, what, "; ".join(plan.reasons))
        error = SequentialLoopError(
            message, self._location(loop.node),
            hint="see %s.explain(...) for every loop's verdict" % self.__name__)
        if self.strict:
            raise error
        key = (index, message)
        if key not in self._warned:
            self._warned.add(key)
            warnings.warn(SequentialLoopWarning(str(error)), stacklevel=5)

    def _report(self, record):
        out = ["parallelize report for %s() in %s" % (self.__name__, self.filename)]
        for step, report, plan, notes in record:
            out.append("")
            if report is None:
                out.append("line %d: plain Python (not compiled): the loop in it is not a "
                           "top-level for-range nest" % step.node.lineno)
                continue
            out.append("loop nest at line %d: %s" % (step.node.lineno, _describe(plan)))
            for part in _plans(plan):
                if part.kind == "speculate":
                    stats = self._speculations[part.loop.lineno].stats
                    out.append("  speculated loop at line %d: %s" % (part.loop.lineno,
                                                                    stats.summary()))
                out.extend("  line %d: %s" % (part.loop.lineno, r) for r in part.reasons
                           if r.startswith("not speculated"))
            for verdict in report.verdicts:
                lp = verdict.loop
                head = self.lines[lp.lineno - 1].strip()
                out.append("  line %d: %s" % (lp.lineno, head))
                out.append("      %s" % verdict.kind)
                for reason in verdict.reasons:
                    out.append("        - %s" % reason)
            helpers = callee.helper_accesses(report.expanded)
            if helpers:
                out.append("  arrays handed to helpers:")
                out.extend("    - line %d: %s %s%s" % (
                    a.node.lineno, kind, a.text, " (may not run)" if a.conditional else "")
                    for a, kind in helpers)
            if notes:
                out.append("  indices not checked before the launch:")
                out.extend("    - %s" % note for note in notes)
        return "\n".join(out)


def _plans(plan):
    """``plan`` and the plans of the loops it runs (a host loop's children)."""
    yield plan
    if plan.kind == "host":
        for child in plan.children:
            yield from _plans(child)


def _describe(plan):
    if plan.kind == "speculate":
        undo = ("no copy needed (but under bounds_check): the loop only overwrites %s, "
                "so " % ", ".join(plan.written) if plan.overwrite_only else "restore, then ")
        return ("speculative parallel kernel with dependence checks on %s (%s); on a "
                "violation: %s%s" % (
                    ", ".join(sorted({c for _, c in plan.canon})), plan.kernel[0].name,
                    undo, _describe(plan.children[0])))
    if plan.kind == "launch":
        ew, text = plan.kernel
        text = "one kernel over %d parallel loop(s) (%s)" % (text.dims, plan.kernel[0].name)
        return text + ("; " + plan.reasons[0] if plan.reasons else "")
    if plan.kind == "reduce":
        return "one kernel computing partial %s, then a Reduction (%s)" % (
            ", ".join("%s of %s" % (op, r) for r, op in plan.reductions),
            plan.kernel[0].name)
    if plan.kind == "host":
        return "host loop over %s launching %s" % (
            plan.loop.var, "; ".join(_describe(c) for c in plan.children))
    return "one sequential kernel (%s)" % plan.kernel[0].name

