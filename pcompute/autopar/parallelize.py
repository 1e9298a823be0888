"""``pcompute.parallelize``: plain Python loop nests run as kernels.

The function's top-level ``for`` statements are its loop nests; everything
else runs as plain Python between them.  At each call, every nest is analysed
with the call's values (:mod:`.analysis`: loop bounds, invariants, which
arguments are the same array), the result cached on what it depends on, and
the nest runs as:

- one Elementwise kernel over its outer parallel loops (up to three,
  perfectly nested, with bounds known at the call) with the inner loops
  sequential inside each item;
- a host loop launching kernels, when its outer loop is sequential but
  every statement of its body is a parallel nest;
- otherwise one sequential kernel (one item running the whole nest,
  compiled) and a :class:`~pcompute.errors.SequentialLoopWarning` naming the
  loop and the dependence (:class:`~pcompute.errors.SequentialLoopError`
  with ``strict=True``).

The kernels are kernel-language functions written by :mod:`.lower`; they
go through the front end and the configured backend like any user kernel.
This module holds the static stage and a call; planning is in
:mod:`.planner`, running in :mod:`.execute`, warnings and reports in
:mod:`.report`, speculation in :mod:`.specplan`.
"""
import ast
import copy
import inspect
import textwrap
import warnings

import numpy as np

from ..array import Array
from ..config import GENERATION
from ..errors import (KernelIndexError, KernelValueError, SequentialLoopWarning,
                      SpeculationWarning)
from .analysis import analyse
from .coverage import fresh_outputs, segments, sole_stores
from .execute import ExecutorMixin
from .nest import assigned_names, atomic_called, range_args
from .callee import module_reads
from .planner import PlannerMixin, global_numbers, helper_numbers
from .plans import Step
from .prebuild import PrebuildMixin
from .replay import Replay
from .report import ReportMixin
from .residency import DevicePool, Residency, is_array, same_memory, written_arrays
from .scalars import live_after
from .specplan import SpeculativeMixin


class Parallelized(PlannerMixin, ExecutorMixin, ReportMixin, SpeculativeMixin, PrebuildMixin):
    """A function whose loop nests run as kernels (see :func:`parallelize`)."""

    def __init__(self, func, strict=False, speculate=None, vector_math=False):
        if not inspect.isfunction(func):
            raise KernelValueError("parallelize() needs a Python function, got %r" % (func,))
        self.func = func
        self.strict = strict
        self.speculate = speculate
        self.vector_math = bool(vector_math)
        self.__name__ = func.__name__
        self.__doc__ = func.__doc__
        self.__wrapped__ = func
        self._parse()
        self._analyses = {}
        self._index_checks = {}     # (report, array shapes) -> notes (report.py)
        self._reads = {}            # id(step) -> module-level names its helpers read
        self._kernels = {}
        self._reductions = {}
        self._warned = set()
        self._speculations = {}     # line of a speculated loop -> Speculation
        self._marks = {}            # line -> "safe" / "unsafe"
        self._profiling = False
        self._explaining = False
        self._profile = {}          # line -> ProfileEntry (profile mode)
        self.last_plans = []
        self._replay = None         # the quick path of the next call (replay.py)
        self._pool = DevicePool()   # device arrays kept for the next call (residency.py)
        self._prebuilt = {}         # (backend, codegen key) -> nests planned ahead
        self._prebuild_stamp = (None, ())   # (GENERATION, those nests) of the last call

    # ------------------------------------------------------------ static stage
    def _parse(self):
        lines, first = inspect.getsourcelines(self.func)
        text = textwrap.dedent("".join(lines))
        tree = ast.parse(text)
        ast.increment_lineno(tree, first - 1)
        fdef = tree.body[0]
        fdef.decorator_list = []
        self.filename = self.func.__code__.co_filename
        self.first = first
        self.lines = [""] * (first - 1) + text.splitlines()
        self.signature = inspect.signature(self.func)
        self.params = list(self.signature.parameters)
        # a call with exactly these positional arguments binds them in order
        self._plain_arity = len(self.params) if all(
            p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
            for p in self.signature.parameters.values()) else -1
        self.local_names = set(self.params) | assigned_names(fdef)
        self.steps = []
        body = fdef.body
        for k, stmt in enumerate(body):
            loaded = live_after(body[k + 1:])
            if isinstance(stmt, ast.For) and range_args(stmt) is not None:
                self._refuse_atomics(stmt)
                names = tuple(sorted({n.id for n in ast.walk(stmt)
                                      if isinstance(n, ast.Name)}))
                self.steps.append(Step("nest", stmt, None, frozenset(loaded), names,
                                       written_arrays(stmt)))
            elif isinstance(stmt, ast.Return):
                value = stmt.value if stmt.value is not None else ast.Constant(None)
                expr = ast.Expression(value)
                ast.copy_location(expr, stmt)
                self.steps.append(Step("return", stmt, compile(
                    expr, self.filename, "eval")))
            else:
                module = ast.Module([stmt], [])
                kind = "python-loop" if any(isinstance(n, (ast.For, ast.While))
                                            for n in ast.walk(stmt)) else "python"
                self.steps.append(Step(kind, stmt, compile(
                    module, self.filename, "exec")))

        for k, run in segments(self.steps).items():
            others = [self.steps[j] for j in run if j != k]
            self.steps[k].sole_stores = sole_stores(self.steps[k].node,
                                                    [o.node for o in others])
            self.steps[k].segment_names = frozenset().union(
                *(self.steps[j].loaded for j in run))

    def _refuse_atomics(self, nest):
        """A located error for an ``atomic_*`` call in ``nest``: called from
        plain Python it returns its argument and changes nothing, so a
        compiled nest (where it is a real atomic) would compute something
        else than the function run as Python."""
        for node in ast.walk(nest):
            if isinstance(node, ast.Call):
                name = atomic_called(node, self.func.__globals__)
                if name is not None:
                    raise self._atomic_error(name, node, "")

    def _atomic_error(self, name, node, via):
        return KernelValueError(
            "%s(): %s in the loop nest at line %d%s: called from plain Python an "
            "atomic returns its argument and changes nothing, so the nest cannot be "
            "parallelised to compute what %s() computes as Python"
            % (self.__name__, name, node.lineno, via, self.__name__),
            self._location(node),
            hint="update the counter in the loop itself (k = cnt[0]; cnt[0] += 1: "
                 "parallelize finds the dependence and keeps the order), or write the "
                 "loop body as an Elementwise kernel, where atomics are real")

    def _segment(self, node):
        line = self.lines[node.lineno - 1] if node.lineno <= len(self.lines) else ""
        if getattr(node, "end_lineno", None) == node.lineno:
            return line[node.col_offset:node.end_col_offset]
        return ast.unparse(node)

    # ------------------------------------------------------------ a call
    def __call__(self, *args, **kwargs):
        replay = self._replay
        if replay is not None and not kwargs and not self._marks and replay(args):
            return None
        return self._run(args, kwargs, record=None)

    def explain(self, *args, **kwargs):
        """The report of a call with these arguments: for every loop, parallel,
        reduction or sequential and the dependence that decided it, with file
        and lines, and how each nest runs.  The arguments are not changed:
        the function runs on copies of the NumPy arrays, and on the pcompute
        Arrays themselves, each given its values back after the run (views of
        one Array keep sharing its memory, so the analysis sees them as the
        call would).  Returns the text."""
        memo = {}           # one memo: arrays sharing memory keep sharing it
        args = [_copy_array(a, memo) for a in args]
        kwargs = {k: _copy_array(v, memo) for k, v in kwargs.items()}
        saved = [(a, a.copy()) for a in list(args) + list(kwargs.values())
                 if isinstance(a, Array) and a.size]
        record = []
        self._explaining = True
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", SequentialLoopWarning)
                warnings.simplefilter("ignore", SpeculationWarning)
                self._run(args, kwargs, record=record)
        finally:
            self._explaining = False
            for a, values in saved:         # overlapping Arrays: the same values
                a[(slice(None),) * a.ndim] = values
        return self._report(record)

    def _run(self, args, kwargs, record):
        self._replay = None
        stamp = GENERATION[0]
        scope = self._scope(args, kwargs)
        residency = Residency(self._pool)
        self.last_plans = []
        launches = []
        try:
            for index, step in enumerate(self.steps):
                if step.kind == "nest":
                    self._prebuild(index, scope)    # kernels of later nests too (prebuild.py)
                    residency.wrote(scope.get(name) for name in step.writes)
                    launches.append((step, self._nest(index, step, scope, residency, record)))
                    continue
                residency.sync()
                if step.kind == "return":
                    return eval(step.code, scope)
                if step.kind == "python-loop":
                    self._interpreted(index, step, record)
                exec(step.code, scope)
            if record is None and not kwargs and not self._marks and not self._profiling:
                self._replay = Replay.make(self, args, scope, launches, stamp)
            return None
        except BaseException:
            residency.drop_fresh()      # never filled: not copied back half written
            raise
        finally:
            residency.sync()

    def _scope(self, args, kwargs):
        """The names a call with ``args`` and ``kwargs`` starts with: the
        function's globals, then its parameters bound (views of one array
        made one object: :meth:`_one_object_per_array`)."""
        scope = dict(self.func.__globals__)
        if not kwargs and len(args) == self._plain_arity:
            scope.update(zip(self.params, args))
        else:
            bound = self.signature.bind(*args, **kwargs)
            bound.apply_defaults()
            scope.update(bound.arguments)
        self._one_object_per_array(scope)
        return scope

    def _one_object_per_array(self, scope):
        """Give the parameters bound to NumPy views of one same array (the
        same memory, shape, strides and dtype: ``f(a, a[:])``) that one
        object, as if the array were passed twice: the analysis then sees
        one array under two names, and a device backend wraps it once (two
        device copies of it would each see only their own writes)."""
        arrays = [(name, scope[name]) for name in self.params
                  if isinstance(scope.get(name), np.ndarray)]
        for x, (name, value) in enumerate(arrays):
            for first, other in arrays[:x]:
                if other is not value and same_memory(other, value) == 1:
                    scope[name] = scope[first]
                    break

    # ------------------------------------------------------------ one nest
    def _nest(self, index, step, scope, residency, record):
        report, plan = self._analysis(index, step, scope)
        notes = self._index_notes(step, report, scope)     # raises before any launch
        self.last_plans.append(plan)
        if step.sole_stores:
            residency.fresh((scope[name], box) for name, box in fresh_outputs(
                step, report.root, scope, step.segment_names))
        if record is not None:
            record.append((step, report, plan, notes))
        if plan.kind not in ("launch", "reduce", "speculate"):
            self._warn(index, plan)
        try:
            self._execute(plan, scope, residency)
        except KernelIndexError as error:
            raise self._user_index_error(error, step) from None
        return plan

    def _module_reads(self, step):
        """The module-level names the helpers called in nest ``step`` read
        (:func:`.callee.module_reads`), found at its first call."""
        reads = self._reads.get(id(step))
        if reads is None:
            reads = self._reads[id(step)] = tuple(module_reads(
                step.node, self.func.__globals__.get))
        return reads

    def _analysis(self, index, step, scope):
        """(report, plan) of nest ``index`` for the values in ``scope`` (cached
        on the integer values and array identities the nest reads)."""
        ints, arrays = [], []
        for name in step.loaded:
            value = scope.get(name)
            if is_array(value):
                arrays.append((name, id(value), np.ndim(value)))
            elif isinstance(value, (int, np.integer)) and not isinstance(value, bool):
                ints.append((name, int(value)))
        aliases = []
        for x, a in enumerate(arrays):
            for b in arrays[x + 1:]:
                kind = same_memory(scope[a[0]], scope[b[0]])
                if kind:
                    aliases.append((a[0], b[0], kind))
        aliases = tuple(aliases)
        # the kernels read globals as constants (planner._kernel)
        consts = global_numbers(self.func.__globals__,
                                [n for n in step.loaded if n not in self.local_names])
        consts += helper_numbers(self._module_reads(step))     # the helpers' too
        key = (index, tuple(ints), tuple((a[0], a[2]) for a in arrays), aliases,
               self._speculating(), tuple(sorted(self._marks)), consts)
        cached = self._analyses.get(key)
        if cached is not None:
            return cached
        for a, b, kind in aliases:
            if kind == 2:
                raise KernelValueError(
                    "%s(): the arguments %s and %s overlap without being the same "
                    "array; the loop nest at line %d cannot be analysed"
                    % (self.__name__, a, b, step.node.lineno),
                    self._location(step.node),
                    hint="pass separate arrays (a copy of one), or the same array once")
        same = {a: a for a, _, _ in arrays}
        for a, b, _ in aliases:
            same[b] = same[a]
        array_names = {a[0] for a in arrays}
        env = {k: v for k, v in ints}
        report = analyse(step.node, env, lambda n: n in array_names,
                         lambda a, b: same.get(a, a) == same.get(b, b),
                         live_out=step.live_out, segment=self._segment,
                         lookup=self.func.__globals__.get)
        for access in report.expanded:
            if access.atomic:       # an atomic_* of a helper the nest calls
                raise self._atomic_error(
                    "an atomic of a helper", access.node,
                    " (%s)" % (access.text or "%s via %s" % (access.array, access.via)))
        canon = (lambda name: same.get(name, name))
        plan = self._plan(report.root, report, scope, step, canon)
        self._analyses[key] = (report, plan)
        return report, plan


def _copy_array(value, memo):
    """A copy of the NumPy array ``value`` for :meth:`Parallelized.explain`
    (anything else as it is): the array owning its memory is copied once per
    ``memo`` and ``value`` rebuilt as the same view of that copy, so
    arguments that share memory (``a`` and ``a[:]``, ``a[:-1]`` and
    ``a[1:]``) share it in the copies as they do in the call."""
    if not isinstance(value, np.ndarray):
        return value
    owner = value
    while isinstance(owner.base, np.ndarray):
        owner = owner.base
    if owner.base is not None or not (owner.flags.c_contiguous or owner.flags.f_contiguous):
        return copy.deepcopy(value, memo)       # memory not owned by a NumPy array
    twin = memo.get(id(owner))
    if twin is None:
        twin = memo[id(owner)] = owner.copy(order="K")      # the same layout
        memo.setdefault("keep", []).append(owner)   # its id stays its own
    offset = value.__array_interface__["data"][0] - owner.__array_interface__["data"][0]
    return np.ndarray(value.shape, value.dtype, buffer=twin.data, offset=offset,
                      strides=value.strides)


def parallelize(func=None, *, strict=False, speculate=None, vector_math=False):
    """Run the loop nests of ``func`` as kernels on the configured backend.

    Use as ``@parallelize`` / ``@parallelize(strict=True)`` or
    ``parallelize(f)``.  The returned callable leaves the arrays with the
    values ``func`` would have produced and returns what it returns; its
    ``explain(*args)`` gives each loop's verdict and reasons.  A nest that
    cannot run in parallel runs compiled and sequential with a
    :class:`~pcompute.errors.SequentialLoopWarning` (an error with
    ``strict=True``).

    ``speculate=True`` (default: the configuration's ``speculate``) runs a
    nest whose outer loop carries dependences only through data-dependent
    subscripts (``x[p[i]] = ...``) in parallel with exact dependence checks;
    a violation restores the arrays and reruns the loop sequentially, with a
    :class:`~pcompute.errors.SpeculationWarning` (an error with
    ``strict=True``).  See the speculation section of the docs.

    The kernels are built for the CPU that runs them (the ``host_cpu`` build
    option: its vector instructions, no fused multiply-add, so the results
    are those of plain Python).  ``vector_math=True`` lets loops calling
    ``exp``, ``log``, ``sin``, ... run vectorised (the ``vector_math``
    build option): their results may then differ from Python's by a few
    units in the last place."""
    def make(f):
        return Parallelized(f, strict=strict, speculate=speculate, vector_math=vector_math)
    return make if func is None else make(func)
