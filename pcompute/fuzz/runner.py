"""Running a generated case on the backends and comparing with the python backend.

For one :class:`~pcompute.fuzz.generator.FuzzCase`, one precision and one
number of items:

1. draw the inputs (seeded by the case), evaluate the kernel and the map
   function with error tracking (:mod:`pcompute.fuzz.tracked`); elements
   whose result could legitimately differ between backends (fragile) get new
   inputs, a few rounds at most; generator errors (a bound broken, a Python
   exception) are failures;
2. run the python backend: the reference (checked against the tracked values:
   a disagreement is a failure of the python backend or of the model);
3. run every selected backend configuration and compare: integers exactly,
   floats within ``TOLERANCE_FACTOR`` times the element's error bound plus two
   ulps of the output type.  Elements still fragile after the redraws are
   left out of the elementwise comparison and counted; a reduction or scan
   over such elements is skipped and counted.
"""
import json
import math
import os
import time
import traceback
import warnings
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from ..errors import PrecisionWarning
from . import tracked as tk
from . import generator as gen
from .generator import FuzzCase

REDRAW_ROUNDS = 4
NEUTRAL = {"a + b": "0", "min(a, b)": "INFINITY", "max(a, b)": "-INFINITY", "a ^ b": "0"}
DTYPES = {"i32": np.int32, "i64": np.int64, "f32": np.float32, "f64": np.float64,
          "i8": np.int8, "u8": np.uint8, "i16": np.int16, "u16": np.uint16,
          "u32": np.uint32, "b": np.bool_}


@dataclass(frozen=True)
class Target:
    """One backend configuration: backend name, OpenMP, precision."""
    name: str
    openmp: bool
    precision: str

    @property
    def id(self):
        return "%s%s-%s" % (self.name, "-openmp" if self.openmp else "", self.precision)

    @property
    def use_double(self):
        return self.precision == "float64"

    def config(self):
        from ..config import use_config
        return use_config(backend=self.name, use_openmp=self.openmp,
                          use_double=self.use_double)

    def why_unavailable(self):
        from ..backends.registry import get_backend
        return get_backend(self.name).why_unavailable()


def targets_from_names(names, precisions=("float32", "float64")):
    """Targets for names like ``cython``, ``cython-openmp``, ``opencl``."""
    out = []
    for name in names:
        name = name.strip()
        if not name:
            continue
        base, openmp = (name[:-len("-openmp")], True) if name.endswith("-openmp") \
            else (name, False)
        for p in precisions:
            out.append(Target(base, openmp, p))
    return out


def items_for(target, n):
    """Enough items that an OpenMP loop really runs in parallel."""
    if target.openmp:
        from ..backends.cython import SERIAL_BELOW
        return max(n, SERIAL_BELOW + 5)
    return n


@dataclass
class Failure:
    kind: str            # mismatch, crash, rejected, model, generator
    primitive: str
    target: str
    message: str
    case: FuzzCase

    def report(self):
        return ("[%s] %s on %s: %s\n--- kernel (case %s, data seed %d) ---\n%s"
                % (self.kind, self.primitive, self.target, self.message, self.case.label,
                   self.case.seed, self.case.source))


@dataclass
class Stats:
    kernels: int = 0
    comparisons: int = 0
    mismatches: int = 0
    counts: Counter = field(default_factory=Counter)
    failures: list = field(default_factory=list)
    shown: list = field(default_factory=list)   # (seed, source) asked for by --show

    def add_failure(self, failure):
        self.failures.append(failure)
        self.counts["failure:" + failure.kind] += 1
        if failure.kind == "mismatch":
            self.mismatches += 1

    def summary(self):
        lines = ["kernels generated:        %d" % self.kernels,
                 "backend comparisons:      %d" % self.comparisons,
                 "mismatches:               %d" % self.mismatches]
        for key in sorted(self.counts):
            lines.append("%-25s %d" % (key + ":", self.counts[key]))
        return "\n".join(lines)


# -- functions from the generated text -------------------------------------------
def _real_namespace():
    import math
    from ..types import annotate, cast, declare
    ns = {"declare": declare, "cast": cast, "annotate": annotate, "math": math,
          "pi": math.pi}
    for name in ("sin", "cos", "tanh", "atan", "erf", "sqrt", "log", "exp", "fabs",
                 "floor", "ceil", "trunc", "hypot", "fmod", "pow"):
        ns[name] = getattr(math, name)
    return ns


def make_functions(case, tracked=False):
    """The functions of ``case.source`` (each with a ``source`` attribute)."""
    ns = tk.namespace() if tracked else _real_namespace()
    filename = "<pcompute.fuzz %s>" % (case.label or "kernel")
    exec(tk.compile_tracked(case.source, filename) if tracked else
         compile(case.source, filename, "exec"), ns)
    funcs = {}
    for name, value in list(ns.items()):
        if name.startswith("fz_") and callable(value):
            value.source = case.source
            funcs[name] = value
    return funcs


# -- inputs -------------------------------------------------------------------------
def _dtype(code, precision):
    if code == "fp":
        return np.dtype(precision)
    return np.dtype(DTYPES[code])


def _draw_array(spec, precision, rng, size):
    dtype = _dtype(spec.code, precision)
    if spec.kind == "i":
        b = int(spec.bound)
        if dtype.kind == "b":
            return rng.integers(0, 2, size).astype(dtype)
        if dtype.kind == "u":
            offset = gen.U32_OFFSET if spec.code == "u32" else 0
            return (rng.integers(0, b + 1, size) + offset).astype(dtype)
        return rng.integers(-b, b + 1, size).astype(dtype)
    values = rng.uniform(-spec.bound, spec.bound, size)
    if precision == "float32":
        # float64 arrays may be stored as float32 on a device in single
        # precision (with a PrecisionWarning): keep them exact there
        values = values.astype(np.float32)
    return values.astype(dtype)


def _draw_scalar(spec, rng):
    if spec.kind == "i":
        v = int(rng.integers(-int(spec.bound), int(spec.bound) + 1))
        return np.int32(v) if spec.code == "i32" else v
    v = float(np.float32(rng.uniform(-spec.bound, spec.bound)))
    return {"float": float, "f32": np.float32, "f64": np.float64}[spec.code](v)


class Inputs:
    """The arrays and scalars of one run (numpy), redrawable element by element."""

    def __init__(self, case, precision, n):
        self.case = case
        self.precision = precision
        self.n = n
        self.rng = np.random.default_rng([case.seed, n, 32 if precision == "float32" else 64])
        self.arrays = [_draw_array(a, precision, self.rng, n) for a in case.arrays]
        self.scalars = [_draw_scalar(s, self.rng) for s in case.scalars]

    def redraw(self, indices):
        idx = np.array(sorted(indices), dtype=np.int64)
        for spec, arr in zip(self.case.arrays, self.arrays):
            arr[idx] = _draw_array(spec, self.precision, self.rng, len(idx))

    def map_args(self, wrap=None):
        conv = wrap or (lambda a: a.copy())
        return [conv(a) for a in self.arrays] + list(self.scalars) + [self.n]

    def out_int_dtype(self):
        return np.dtype(DTYPES[self.case.out_int])

    def float_dtype(self):
        return np.dtype(self.precision)

    def tracked_args(self):
        out = []
        for spec, arr in zip(self.case.arrays, self.arrays):
            if spec.code == "u32":
                out.append(tk.InputArray(tk.wide_int(v) for v in arr.tolist()))
            elif spec.kind == "i":
                out.append(tk.InputArray(tk.Tracked(int(v)) for v in arr.tolist()))
            else:
                f32 = arr.dtype == np.float32
                out.append(tk.InputArray(tk.Tracked(v, 0.0, f32) for v in arr.tolist()))
        for spec, v in zip(self.case.scalars, self.scalars):
            if spec.kind == "i":
                out.append(tk.Tracked(int(v)))
            else:
                out.append(tk.Tracked(float(v), 0.0, isinstance(v, np.float32)))
        return out + [self.n]


def _value_err(x):
    v, e, _ = tk._parts(x)
    return v, e


# -- tracked evaluation ------------------------------------------------------------
class Evaluation:
    """Tracked values of one run: per element value, error bound, fragility."""

    def __init__(self, case, tfuncs, n, mode32, need_map):
        self.n = n
        self.mode32 = mode32
        self.kernel = tfuncs["fz_kernel"]
        self.map = tfuncs["fz_map"] if need_map else None
        self.out_f = [None] * n       # (value, error)
        self.out_i = [None] * n
        self.map_ve = [None] * n
        self.reads = [()] * n         # input indices each element read
        self.kernel_fragile = {}
        self.map_fragile = {}
        self.invalid = {}             # (function, i) -> reason

    def run(self, inputs, elements=None):
        """Evaluate ``elements`` (default: all) on ``inputs``."""
        rec = tk.set_mode(self.mode32)
        args = inputs.tracked_args()
        out_f = np.empty(self.n, dtype=object)
        out_i = tk.IntOutput(self.n)
        for i in (range(self.n) if elements is None else sorted(elements)):
            for store in (self.kernel_fragile, self.map_fragile):
                store.pop(i, None)
            self.invalid.pop(("fz_kernel", i), None)
            self.invalid.pop(("fz_map", i), None)
            out_f[i] = tk.Tracked(0.0)
            out_i[i] = tk.Tracked(0)
            rec.reset()
            self.kernel(i, *args, out_f, out_i)
            if rec.invalid:
                self.invalid[("fz_kernel", i)] = rec.invalid
            elif rec.fragile:
                self.kernel_fragile[i] = rec.fragile
            self.out_f[i] = _value_err(out_f[i])
            self.out_i[i] = _value_err(out_i[i])[0]
            reads = rec.reads
            if self.map is not None:
                rec.reset()
                r = self.map(i, *args)
                if rec.invalid:
                    self.invalid[("fz_map", i)] = rec.invalid
                elif rec.fragile:
                    self.map_fragile[i] = rec.fragile
                self.map_ve[i] = _value_err(r)
                reads = reads | rec.reads
            self.reads[i] = frozenset(reads)

    def affected_by(self, changed):
        """The elements that read any input element in ``changed``."""
        return {i for i in range(self.n) if self.reads[i] & changed}

    def fragile(self):
        return set(self.kernel_fragile) | (set(self.map_fragile) if self.map else set())

    @property
    def out_f_values(self):
        return np.array([float(v) for v, _ in self.out_f])

    @property
    def out_f_errors(self):
        return np.array([e for _, e in self.out_f], dtype=np.float64)

    @property
    def out_i_values(self):
        return np.array([int(v) for v in self.out_i], dtype=np.int64)

    @property
    def map_v(self):
        return np.array([v for v, _ in self.map_ve], dtype=object)

    @property
    def map_err(self):
        return np.array([e for _, e in self.map_ve], dtype=np.float64)


# -- running primitives ------------------------------------------------------------
def _host(a):
    if isinstance(a, np.ndarray):
        return a
    a.pull()
    return np.asarray(a.data)


def elementwise_outputs(inputs, wrap):
    """The two output arrays of ``fz_kernel`` (floats, integers), zeroed."""
    n = inputs.n
    return (wrap(np.zeros(n, inputs.float_dtype())),
            wrap(np.zeros(n, inputs.out_int_dtype())))


def run_elementwise(funcs, inputs, wrap):
    from ..primitives.elementwise import Elementwise
    out_f, out_i = elementwise_outputs(inputs, wrap)
    Elementwise(funcs["fz_kernel"])(*inputs.map_args(wrap), out_f, out_i)
    return _host(out_f).copy(), _host(out_i).copy()


def _map_dtype(case, inputs):
    return inputs.out_int_dtype() if case.map_kind == "i" else inputs.float_dtype()


def reduction_of(case, funcs, inputs):
    """The Reduction of ``case`` (called with ``inputs.map_args``)."""
    from ..primitives.reduction import Reduction
    return Reduction(case.reduce_expr, map_func=funcs["fz_map"],
                     dtype_out=_map_dtype(case, inputs), neutral=NEUTRAL[case.reduce_expr])


def run_reduction(case, funcs, inputs, wrap):
    return np.asarray(reduction_of(case, funcs, inputs)(*inputs.map_args(wrap)))


def scan_of(case, funcs, inputs):
    """The Scan of ``case`` (called with ``inputs.map_args`` and its output,
    :func:`scan_output`)."""
    from ..primitives.scan import Scan
    dtype = _map_dtype(case, inputs)
    return Scan(input=funcs["fz_map"], output=funcs["fz_scan_out"],
                scan_expr=case.scan_expr, dtype=dtype, neutral=NEUTRAL[case.scan_expr],
                is_segment=funcs["fz_seg"] if case.segmented else None)


def scan_output(case, inputs, wrap):
    return wrap(np.zeros(inputs.n, _map_dtype(case, inputs)))


def run_scan(case, funcs, inputs, wrap):
    out = scan_output(case, inputs, wrap)
    scan_of(case, funcs, inputs)(*inputs.map_args(wrap), out)
    return _host(out).copy()


def scan_available():
    try:
        from ..primitives import scan  # noqa: F401
        return hasattr(scan, "Scan")
    except Exception:
        return False


# -- expected values and tolerances ------------------------------------------------
def _ulp(dtype):
    return float(np.finfo(dtype).eps)


def _tolerance(err, ref, dtype):
    return tk.TOLERANCE_FACTOR * err + 2 * _ulp(dtype) * np.abs(ref) + \
        float(np.finfo(dtype).tiny)


def expected_reduction(case, ev, dtype):
    """(value, error bound) of the reduction of the tracked map values."""
    vals = ev.map_v
    errs = ev.map_err
    if case.reduce_expr == "a + b":
        total = sum(vals.tolist())
        mags = float(np.sum(np.abs(vals.astype(np.float64))))
        u = _ulp(dtype) if dtype.kind == "f" else 0.0
        return total, float(np.sum(errs)) + u * len(vals) * mags
    if case.reduce_expr == "a ^ b":
        acc = 0
        for v in vals.tolist():
            acc ^= int(v)
        return acc, 0.0
    pick = min if case.reduce_expr.startswith("min") else max
    return pick(vals.tolist()), float(np.max(errs)) if len(errs) else 0.0


def segment_starts(case, funcs, inputs):
    """is_segment(i) for every i (exact: it reads integers only)."""
    if not case.segmented:
        return [False] * inputs.n
    seg = funcs["fz_seg"]
    names = seg.__code__.co_varnames[1:seg.__code__.co_argcount]
    arrays = dict(zip([a.name for a in case.arrays], inputs.arrays))
    return [bool(seg(i, *[arrays[nm] for nm in names])) for i in range(inputs.n)]


def expected_scan(case, ev, dtype, starts):
    """(values, error bounds) of what fz_scan_out stores, from the tracked map."""
    vals = ev.map_v.tolist()
    errs = ev.map_err
    u = _ulp(dtype) if dtype.kind == "f" else 0.0
    neutral = {"a + b": 0, "min(a, b)": math.inf, "max(a, b)": -math.inf}[case.scan_expr]
    if dtype.kind in "iu" and neutral in (math.inf, -math.inf):
        info = np.iinfo(dtype)
        neutral = info.max if neutral > 0 else info.min
    incl, incl_e, excl, excl_e = [], [], [], []
    acc, err, mag, count = neutral, 0.0, 0.0, 0
    for k, (v, e) in enumerate(zip(vals, errs)):
        if starts[k]:
            acc, err, mag, count = neutral, 0.0, 0.0, 0
        excl.append(acc)
        excl_e.append(err + u * count * mag)
        if case.scan_expr == "a + b":
            acc = acc + v
            err += e
            mag += abs(float(v))
            count += 1
            incl_e.append(err + u * count * mag)
        else:
            acc = (min if case.scan_expr.startswith("min") else max)(acc, v)
            err = max(err, e)
            incl_e.append(err)
        incl.append(acc)
    if case.scan_output == "item":
        return incl, np.array(incl_e)
    if case.scan_output == "prev_item":
        return excl, np.array(excl_e)
    return [incl[-1]] * len(incl), np.array([incl_e[-1]] * len(incl))


def compare_float(got, ref, err, dtype, mask=None):
    """Indices where |got - ref| exceeds the tolerance (mask: compared elements)."""
    got = np.asarray(got, dtype=np.float64)
    ref = np.asarray(ref, dtype=np.float64)
    tol = _tolerance(np.asarray(err, dtype=np.float64), ref, dtype)
    with np.errstate(invalid="ignore"):
        bad = ~((got == ref) | (np.abs(got - ref) <= tol))   # == : neutral +-inf
    if mask is not None:
        bad &= mask
    return np.nonzero(np.atleast_1d(bad))[0]


def compare_int(got, ref, mask=None):
    bad = np.asarray(got).astype(np.int64) != np.asarray(ref).astype(np.int64)
    if mask is not None:
        bad &= mask
    return np.nonzero(np.atleast_1d(bad))[0]


def _describe(idx, got, ref, err=None):
    k = int(idx[0])
    got = np.atleast_1d(got)
    ref = np.atleast_1d(ref)
    text = "%d element(s) differ; first at %d: got %r, expected %r" % (
        len(idx), k, got[k].item(), ref[k].item())
    if err is not None:
        text += " (error bound %.3g)" % np.atleast_1d(err)[k]
    return text


# -- one case -------------------------------------------------------------------------
class CaseRun:
    """A case prepared for one precision and one number of items: inputs, tracked
    values and the python-backend reference, then compared per target."""

    def __init__(self, case, precision, n, stats, primitives=None, check_model=True):
        self.case = case
        self.precision = precision
        self.stats = stats
        self.ok = False
        self.primitives = [p for p in (primitives or case.primitives)
                           if p != "scan" or scan_available()]
        self.skipped = set()
        self.funcs = make_functions(case)
        tfuncs = make_functions(case, tracked=True)
        need_map = any(p in ("reduction", "scan") for p in self.primitives)
        self.inputs = Inputs(case, precision, n)
        ev = Evaluation(case, tfuncs, n, precision == "float32", need_map)
        try:
            ev.run(self.inputs)
            for rnd in range(REDRAW_ROUNDS):
                bad = ev.fragile()
                if ev.invalid or not bad:
                    break
                stats.counts["redrawn elements"] += len(bad)
                self.inputs.redraw(bad)
                ev.run(self.inputs, ev.affected_by(bad) | bad)
        except Exception:
            stats.add_failure(Failure("generator", "tracked evaluation", "-",
                                      traceback.format_exc(limit=4), case))
            return
        if ev.invalid:
            (fn, i), why = next(iter(ev.invalid.items()))
            stats.add_failure(Failure("generator", fn, "-",
                                      "bound broken at element %d: %s" % (i, why), case))
            return
        self.ev = ev
        self.mask = np.ones(n, dtype=bool)
        for i in ev.kernel_fragile:
            self.mask[i] = False
        if ev.kernel_fragile:
            stats.counts["fragile elements left out"] += len(ev.kernel_fragile)
            stats.counts["runs with fragile elements"] += 1
        if need_map and ev.map_fragile:
            for p in ("reduction", "scan"):
                if p in self.primitives:
                    self.skipped.add(p)
                    stats.counts["%s skipped (fragile map values)" % p] += 1
        self.expected = self._expected()
        self.reference = self._run_target(None)
        if self.reference is None:
            return
        if check_model:
            self._check_model()
        self.ok = True

    def _expected(self):
        ev = self.ev
        exp = {"elementwise": (ev.out_f_values, ev.out_f_errors, ev.out_i_values)}
        dtype = _map_dtype(self.case, self.inputs)
        if "reduction" in self.primitives and "reduction" not in self.skipped:
            exp["reduction"] = expected_reduction(self.case, ev, dtype)
        if "scan" in self.primitives and "scan" not in self.skipped:
            starts = segment_starts(self.case, self.funcs, self.inputs)
            exp["scan"] = expected_scan(self.case, ev, dtype, starts)
        return exp

    def active(self):
        return [p for p in self.primitives if p not in self.skipped]

    def _run_target(self, target):
        """{primitive: result} on ``target`` (None: the python backend)."""
        from ..array import wrap as pc_wrap
        from ..config import use_config
        results = {}
        tid = target.id if target is not None else "python-%s" % self.precision
        for prim in self.active():
            if target is None:
                ctx = use_config(backend="python", use_openmp=False,
                                 use_double=self.precision == "float64")
            else:
                ctx = target.config()
            try:
                with ctx, warnings.catch_warnings():
                    warnings.simplefilter("ignore", PrecisionWarning)

                    def wrap(a):
                        return pc_wrap(a.copy())
                    if prim == "elementwise":
                        results[prim] = run_elementwise(self.funcs, self.inputs, wrap)
                    elif prim == "reduction":
                        results[prim] = run_reduction(self.case, self.funcs, self.inputs,
                                                      wrap)
                    else:
                        results[prim] = run_scan(self.case, self.funcs, self.inputs, wrap)
            except Exception as exc:
                from ..errors import KernelSyntaxError, KernelTypeError
                kind = "rejected" if isinstance(exc, (KernelSyntaxError, KernelTypeError)) \
                    else "crash"
                self.stats.add_failure(Failure(kind, prim, tid, "%s: %s\n%s" % (
                    type(exc).__name__, exc, traceback.format_exc(limit=6)), self.case))
                if target is None:
                    return None
        return results

    def _check_model(self):
        """The python backend must agree with the tracked evaluation."""
        for prim, got in self.reference.items():
            msg = self._compare(prim, got, self._model_values(prim))
            if msg:
                self.stats.add_failure(Failure("model", prim, "python-%s" % self.precision,
                                               "python backend vs error model: " + msg,
                                               self.case))

    def _model_values(self, prim):
        """The tracked values, shaped like the results of ``prim``."""
        exp = self.expected[prim]
        if prim == "elementwise":
            return exp[0], exp[2]
        if prim == "reduction":
            return exp[0]
        return exp[0]

    def _compare(self, prim, got, want):
        """A description of how ``got`` differs from ``want``, or None.

        ``want`` is shaped like a result of ``prim`` (the reference, or the
        model's values); the error bounds come from the tracked evaluation."""
        exp = self.expected[prim]
        if prim == "elementwise":
            got_f, got_i = got
            want_f, want_i = want
            idx = compare_int(got_i, want_i, self.mask)
            if len(idx):
                return "out_i: " + _describe(idx, got_i, np.asarray(want_i))
            want_f = np.asarray(want_f, dtype=np.float64)
            idx = compare_float(got_f, want_f, exp[1], np.asarray(got_f).dtype, self.mask)
            if len(idx):
                return "out_f: " + _describe(idx, got_f, want_f, exp[1])
            return None
        dtype = _map_dtype(self.case, self.inputs)
        if prim == "reduction":
            err = exp[1]
            if dtype.kind in "iu":
                if int(got) != int(want):
                    return "got %r, expected %r" % (int(got), int(want))
                return None
            if len(compare_float(got, float(want), err, dtype)):
                return "got %r, expected %r (error bound %.3g)" % (float(got), float(want),
                                                                    err)
            return None
        errs = exp[1]
        if dtype.kind in "iu":
            want_i = np.array([int(v) for v in np.asarray(want, dtype=object)],
                              dtype=np.int64)
            idx = compare_int(got, want_i)
            return None if not len(idx) else "scan_out: " + _describe(idx, got, want_i)
        want_f = np.array([float(v) for v in np.asarray(want, dtype=object)])
        idx = compare_float(got, want_f, errs, dtype)
        return None if not len(idx) else "scan_out: " + _describe(idx, got, want_f, errs)

    def check(self, target):
        """Run on ``target`` and compare; returns the failures found."""
        before = len(self.stats.failures)
        results = self._run_target(target)
        for prim, got in results.items():
            self.stats.comparisons += 1
            msg = self._compare(prim, got, self.reference[prim])
            if msg:
                self.stats.add_failure(Failure("mismatch", prim, target.id, msg, self.case))
        return self.stats.failures[before:]


def run_case(case, targets, stats, n=67, primitives=None):
    """Run ``case`` on every target (grouped by precision and item count)."""
    stats.kernels += 1
    groups = {}
    for t in targets:
        groups.setdefault((t.precision, items_for(t, n)), []).append(t)
    for (precision, items), ts in sorted(groups.items()):
        run = CaseRun(case, precision, items, stats, primitives)
        if not run.ok:
            continue
        for t in ts:
            run.check(t)


ITEM_COUNTS = (67, 67, 1, 5, 130, 300, 1100)


def fuzz_one(seed, targets, items=None, show=False):
    """Generate the kernel of ``seed`` and run it on ``targets``; its Stats.
    ``items`` None draws the number of items from :data:`ITEM_COUNTS`."""
    import random
    from .choosers import RandomChooser
    from .generator import generate_case
    stats = Stats()
    case = generate_case(RandomChooser(seed), label="s%d" % seed)
    if show:
        stats.shown.append((seed, case.source))
    n = items or random.Random(seed).choice(ITEM_COUNTS)
    run_case(case, targets, stats, n=n)
    return stats


def save_failure(failure, directory):
    """Write a failure (report and replayable case) into ``directory``."""
    os.makedirs(directory, exist_ok=True)
    base = "%s-%s-%s-%s" % (failure.case.label or "case", failure.kind, failure.primitive,
                            failure.target)
    base = "".join(c if c.isalnum() or c in "-_." else "_" for c in base)
    path = os.path.join(directory, base + ".json")
    with open(path, "w") as fh:
        json.dump({"report": failure.report(), "case": failure.case.as_dict(),
                   "time": time.strftime("%Y-%m-%d %H:%M:%S")}, fh, indent=1)
    with open(os.path.join(directory, base + ".py"), "w") as fh:
        fh.write("# %s\n" % failure.report().replace("\n", "\n# ").split("\n# --- kernel")[0])
        fh.write(failure.case.source + "\n")
    return path


def load_case(path):
    with open(path) as fh:
        data = json.load(fh)
    return FuzzCase.from_dict(data.get("case", data))
