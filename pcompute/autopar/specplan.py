"""The speculation side of :class:`~pcompute.autopar.Parallelized`: the
"speculate" plan of a loop whose dependences go through data, running it
(:mod:`.specrun`), marks, the profile mode (:mod:`.specref`) and the numbers
``explain()`` reports.  A mixin: it uses the parallelised function's
analysis, kernels and plans."""
import ast
import time
import warnings

import numpy as np

from ..array import zeros
from ..backends.registry import get_backend
from ..config import get_config, use_config
from ..errors import (InternalError, KernelError, KernelValueError, SpeculationError,
                      SpeculationWarning)
from .lower import parallel_kernel
from .plans import Plan
from .specchunk import MAX_CHUNKS, chunked_kernel
from .specmemo import CHANGED, fingerprint_stride, memo_keys, validating_kernel
from .speclower import check_accesses, speculable, speculative_kernel
from .specref import run_reference
from .specrun import ProfileEntry, Speculation, restore


def overwrite_only(node, written, canon):
    """True when every array in ``written`` (canonical names) appears in the
    loop ``node`` only as the target of a plain assignment ``x[s] = e``
    (never read, never updated with ``op=``, never passed whole).  Then the
    loop reads only arrays it does not write, so which elements it writes
    and the values it stores are the same in any order of its iterations,
    and a sequential rerun writes every element a failed speculative run
    wrote: the run needs no copy-before."""
    targets = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Assign):
            targets.update(id(t.value) for t in n.targets if isinstance(t, ast.Subscript))
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and canon(n.id) in written and id(n) not in targets:
            return False
    return True


class SpeculativeMixin:
    """Speculative execution for :class:`~pcompute.autopar.Parallelized`."""

    def _speculating(self):
        if self._profiling:
            return True
        return bool(get_config().speculate if self.speculate is None else self.speculate)

    def _speculative_plan(self, serial, loop, report, scope, canon):
        """A "speculate" plan for ``loop`` (the outermost loop of a nest, or a
        loop run by a host loop) whose plan is ``serial``, when it can run
        speculatively; else ``serial`` with the reason."""
        verdict = report.verdict(loop)
        accesses = [a for a in report.accesses if loop in a.loops]
        arrays, why = speculable(loop, verdict, lambda n: np.ndim(scope[n]), canon)
        if arrays is not None:
            why = check_accesses(loop.node, accesses, arrays, canon,
                                 lambda n: np.ndim(scope[n]))
        if why is not None:
            serial.reasons = serial.reasons + ("not speculated: " + why,)
            return serial
        names = {n for n in self.local_names if n in scope}
        names |= {lp.var for lp in loop.ancestors()[:-1]}
        text = speculative_kernel(loop, names, arrays, accesses, canon)
        written = tuple(sorted({a.array for a in accesses if a.write}))
        users = tuple(sorted({(a.array, canon(a.array)) for a in accesses
                              if canon(a.array) in arrays}))
        self._speculations.setdefault(loop.lineno, Speculation(loop.lineno))
        filename = "<pcompute speculative kernel for the loop at %s:%d>" % (
            self.filename, loop.lineno)
        plan = Plan("speculate", loop, self._kernel(text, filename), (serial,),
                    tuple(verdict.reasons), (), written, users)
        only = overwrite_only(loop.node, {canon(n) for n in written}, canon)
        plan.overwrite_only = not self.strict and only
        keys = memo_keys(loop, accesses, arrays, canon, {canon(n) for n in written},
                         lambda n: np.ndim(scope[n]) if n in scope else -1) if only else ()
        chunked = chunked_kernel(loop, names, arrays, accesses, canon, keys)
        plan.chunked = (self._kernel(chunked.run, filename.replace(
            "speculative kernel", "speculative chunked kernel")), tuple(
                (array, reads, self._kernel(check, "<pcompute speculation check kernel>"))
                for array, reads, check in chunked.checks))
        # the same, fetching its keyed accesses ahead (Backend.speculation_prefetch)
        ahead = chunked_kernel(loop, names, arrays, accesses, canon, keys, prefetch=True)
        plan.chunked_ahead = self._kernel(ahead.run, filename.replace(
            "speculative kernel", "speculative chunked kernel")) \
            if ahead.run.source != chunked.run.source else plan.chunked[0]
        if keys:
            plan.memo = (self._kernel(validating_kernel(loop, names, arrays, accesses, canon,
                                                        keys), filename.replace(
                "speculative kernel", "key-validating kernel")), keys)
        return plan

    def _speculate(self, plan, values, scope, residency):
        loop, (ew, text) = plan.loop, plan.kernel
        spec = self._speculations[loop.lineno]
        mark = None if self._profiling else self._marks.get(loop.lineno)
        if loop.count == 0:
            return
        if mark == "unsafe":
            spec.stats.sequential += 1
            self._execute(plan.children[0], scope, residency)
            return
        if mark == "safe":
            spec.stats.unchecked += 1
            self._unchecked(plan, scope, residency)
            return
        arrays = {c: residency.device(scope[u]) for u, c in plan.canon}
        written = [residency.device(scope[n]) for n in dict.fromkeys(plan.written)]
        written = list({id(a): a for a in written}.values())
        # An overwrite-only loop needs no copy: its sequential rerun writes
        # every element the failed run wrote (unless that run may stop early,
        # bounds_check, or strict must hand back the arrays as before).
        keep = [] if plan.overwrite_only and not get_config().bounds_check else written
        chunks = None if self._profiling else self._chunks(arrays)
        spec.stats.check = (
            "the reference logs (profile mode)" if self._profiling else
            "atomic-max logs of the iteration ids" if chunks is None else
            "private bitmaps of %d contiguous chunks, compared after the loop" % chunks)

        def launch(state):
            if self._profiling:
                return run_reference(ew, values, loop, text, state.base)
            if chunks is not None:
                return self._launch_chunks(plan, state, values, arrays, written, chunks,
                                           scope, residency)
            logs = state.logs(text, arrays, loop.count)
            flags = state.flags(written[0].backend if written else None)
            try:
                ew(*(values + [loop.lo.const, loop.step, loop.count, state.base] + logs
                     + [flags]), shape=loop.count)
            except KernelError as exc:
                state.restore_written()       # what it wrote before failing
                self._user_error(plan, scope, residency, exc)
            state.base += loop.count
            return flags.get()

        def violated(kinds):
            message = ("the loop over %s, run speculatively in parallel, violated %s "
                       "dependences between its iterations: its arrays were restored and "
                       "it ran again sequentially (compiled)" % (loop.var, "/".join(kinds)))
            error = SpeculationError(message, self._location(loop.node), hint=(
                "if this loop always violates, mark it unsafe: %s.mark(%d, 'unsafe')"
                % (self.__name__, loop.lineno)))
            if self.strict:
                raise error
            warnings.warn(SpeculationWarning(str(error)), stacklevel=8)

        kinds = spec.run(launch, keep, lambda: self._execute(plan.children[0], scope,
                                                             residency), violated)
        if self._explaining and not self._profiling and not kinds:
            self._time_unchecked(plan, scope, residency, spec.stats, written)
        if self._profiling:
            entry = self._profile.setdefault(loop.lineno, ProfileEntry(loop.lineno))
            entry.runs += 1
            entry.violated += bool(kinds)
            entry.kinds.update(kinds)

    @staticmethod
    def _chunks(arrays):
        """The chunks of a checked run on the arrays' backend (None: the
        atomic-max logs), as the backend asks (``speculation_chunks``)."""
        backend = get_backend(next(iter(arrays.values())).backend)
        chunks = backend.speculation_chunks(get_config())
        return None if chunks is None or chunks > MAX_CHUNKS else chunks

    def _launch_chunks(self, plan, state, values, arrays, written, chunks, scope, residency):
        """One checked run in contiguous chunks with private bitmaps
        (:mod:`.specchunk`): the chunked kernel, then each array's check;
        returns the host violation flags."""
        loop, (ew, text) = plan.loop, plan.chunked[0]
        if get_backend(next(iter(arrays.values())).backend).speculation_prefetch:
            ew = plan.chunked_ahead[0]
        maps, nwords = state.bitmaps(text.logged, arrays, chunks)
        flags = state.flags(written[0].backend if written else None)
        size = -(-loop.count // chunks)
        head = values + [loop.lo.const, loop.step, loop.count, size]
        memo, keys, record = state.memo, [], False
        if plan.memo is not None and not get_config().bounds_check:
            scope_arrays = {q: residency.device(scope[q]) for q in plan.memo[1]}
            backend = scope_arrays[plan.memo[1][0]].backend
            # the memo is the loop line's, shared by its plans (one per aliasing
            # of the arguments, ...): a verdict holds for the plan that proved it
            # (plans live as long as the function, so their ids stay unique)
            sig = (id(plan), loop.count, loop.lo.const, loop.step, chunks, backend)
            if memo.ready(sig):
                keys = memo.arrays(plan.memo[1], scope_arrays, loop.count, zeros, True)
                try:
                    plan.memo[0][0](*(head + keys + [flags]), shape=chunks)
                except KernelError as exc:
                    self._user_error(plan, scope, residency, exc)
                found = flags.get()
                if not found[CHANGED]:
                    memo.passed()
                    state.stats.reused += 1
                    state.stats.check = ("the verdict of an earlier checked run of %d "
                                         "chunks: its keys, compared in the loop, were "
                                         "unchanged" % chunks)
                    return found
                memo.failed()
                state.stats.stale += 1
                flags = state.flags(written[0].backend if written else None)
                state.stats.check += " (the keys of the earlier run had changed)"
            record = memo.record()
            fps = memo.fingerprints(backend, chunks, zeros)
            keys = (memo.arrays(plan.memo[1], scope_arrays, loop.count, zeros, record)
                    + [int(record), fps, fingerprint_stride(loop.count)])
        try:
            ew(*(head + nwords + maps + keys + [flags]), shape=chunks)
        except KernelError as exc:
            state.clear_bitmaps()
            state.restore_written()
            self._user_error(plan, scope, residency, exc)
        for (_, reads, (check, _)), n in zip(plan.chunked[1], nwords):
            mine, maps = maps[:1 + reads], maps[1 + reads:]
            check(*(mine + [chunks, n, flags]), shape=n)
        found = flags.get()
        if keys:
            memo.seen(sig, fps.get(), not any(found[:CHANGED]), record)
        return found

    def _user_error(self, plan, scope, residency, exc):
        """The speculative kernel was rejected before it ran: a mistake in
        the user's loop is reported by the sequential kernel, which keeps the
        user's file and lines; if that kernel runs, the speculative one was
        wrong (a bug: the arrays hold the loop's result then)."""
        self._execute(plan.children[0], scope, residency)
        raise InternalError("the speculative kernel of the loop at %s:%d was rejected "
                            "although the loop compiles sequentially: %s"
                            % (self.filename, plan.loop.lineno, exc)) from exc

    def _time_unchecked(self, plan, scope, residency, stats, written):
        """explain(): time the same loop run in parallel without checks (on
        the explain call's copies, restored after), for the overhead."""
        saved = [a.copy() for a in written]
        sync = get_backend(written[0].backend).synchronize if written else (lambda: None)
        if plan.unchecked is None:
            self._unchecked(plan, scope, residency)         # build it first
        sync()
        start = time.perf_counter()
        self._unchecked(plan, scope, residency)
        sync()
        stats.times["unchecked run (explain)"] = time.perf_counter() - start
        for array, copy_ in zip(written, saved):
            restore(array, copy_)

    def _unchecked(self, plan, scope, residency):
        """The speculated loop run in parallel without checks (marked safe)."""
        if plan.unchecked is None:
            names = {n for n in self.local_names if n in scope}
            plan.unchecked = self._kernel(parallel_kernel(self.lines, [plan.loop], names))
        self._execute(Plan("launch", plan.loop, plan.unchecked), scope, residency)

    def mark(self, line, verdict):
        """Mark the loop at ``line`` (of the function's file; a loop that can
        be speculated) as ``"safe"`` (run in parallel without checks),
        ``"unsafe"`` (run sequentially without trying) or ``None`` (speculate
        again, when speculation is on).  A mark holds even when speculation
        is off."""
        if verdict not in ("safe", "unsafe", None):
            raise KernelValueError("mark(): the verdict is 'safe', 'unsafe' or None, not %r"
                                   % (verdict,))
        if verdict is None:
            self._marks.pop(line, None)
        else:
            self._marks[line] = verdict

    def profile(self, *args, **kwargs):
        """Call the function on the python backend with every loop that can
        be speculated run by the reference implementation (logs in
        dictionaries, iterations in reverse order, so that every dependence
        between two iterations is found), and record per loop whether it
        violated (:meth:`speculation_profile`).  Returns what the call
        returns; the arrays end as the plain function leaves them."""
        with use_config(backend="python"):
            self._profiling = True
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", SpeculationWarning)
                    return self._run(args, kwargs, record=None)
            finally:
                self._profiling = False

    def speculation_profile(self):
        """{line: ProfileEntry} of the speculated loops seen by :meth:`profile`:
        runs, runs that violated, kinds of dependence found."""
        return dict(self._profile)

    def mark_from_profile(self):
        """Mark the profiled loops that never violated ``"safe"`` and those
        that violated in every run ``"unsafe"`` (see :meth:`mark`); loops that
        violated sometimes stay speculated.  Returns {line: mark}."""
        marks = {}
        for line, entry in self._profile.items():
            if entry.violated == 0:
                marks[line] = "safe"
            elif entry.violated == entry.runs:
                marks[line] = "unsafe"
        for line, verdict in marks.items():
            self.mark(line, verdict)
        return marks

    def speculation_stats(self):
        """{line: SpeculationStats} of the loops run speculatively so far."""
        return {line: spec.stats for line, spec in self._speculations.items()}
