"""The plain Python reference of a case, running it on pcompute, and judging
the outcome."""
import importlib.util
import math
import os
import random
import sys
import traceback
import warnings

import numpy as np

from .cases import make_case
from .ctypes_model import INT_LIMITS, Model, is_int, wrap_to




# -- running --------------------------------------------------------------------------
def load(case, directory):
    """Write the case's module into ``directory`` and import it."""
    name = "indepgen_case_%d_%s%s" % (case.seed, case.kind, "_narrow" if case.narrow else "")
    path = os.path.join(directory, name + ".py")
    with open(path, "w") as f:
        f.write("\n".join(case.lines) + "\n")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    case.path, case.module = path, module
    return module


class PyArray(list):
    """An array as plain Python sees it: Python numbers, stored as the
    documented store rules say (wrap to the stored value's C type ``ctype``
    first, then to the element's type)."""

    def __init__(self, array, ctype=None):
        self.dtype = np.dtype(array.dtype)
        self.ctype = ctype
        list.__init__(self, array.tolist())

    def __setitem__(self, k, value):
        if self.ctype is not None and not isinstance(value, float):
            value = wrap_to(self.ctype, value)
        list.__setitem__(self, k, store(self.dtype, value))


def store(dtype, value):
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return bool(value)
    if dtype.kind in "iu":
        return wrap_to(dtype.name, int(value))
    return float(np.array(value, dtype=dtype))


def device_dtype(dtype, narrow):
    return "float32" if narrow and dtype == "float64" else dtype


def reference(case):
    """The plain Python results: {output name: numpy array} or the reduced value."""
    mod = case.module
    narrow = case.narrow
    f = getattr(mod, case.fname)
    if case.kind == "elementwise":
        values = []
        for name, a in case.args:
            if isinstance(a, np.ndarray):
                a = a.astype(device_dtype(a.dtype.name, narrow))
                ctype = case.outs[name][3] if name in case.outs else None
                values.append(PyArray(a, ctype))
            else:
                values.append(a)
        for i in range(case.n):
            f(i, *values)
        return {name: np.array(list(v), dtype=v.dtype) for (name, _), v in
                zip(case.args, values) if name in case.outs}
    op, neutral, dtype = case.reduce
    dtype = device_dtype(dtype, narrow)
    inputs = [PyArray(a.astype(device_dtype(a.dtype.name, narrow)))
              if isinstance(a, np.ndarray) else a
              for name, a in case.args if name not in ("out", "flags")]
    vals = [f(i, *inputs) for i in range(case.n)]
    vals = [int(v) if is_int(dtype) else float(np.array(v, dtype=dtype)) for v in vals]
    combine = {"a+b": lambda a, b: a + b, "min(a, b)": min, "max(a, b)": max}[op]
    start = 0 if op == "a+b" else (math.inf if op.startswith("min") else -math.inf)
    if is_int(dtype) and op != "a+b":
        start = INT_LIMITS[dtype][1] if op.startswith("min") else INT_LIMITS[dtype][0]
    if case.kind == "reduction":
        acc = start
        for v in vals:
            acc = combine(acc, v)
        return {"result": np.array([acc], dtype=dtype)}
    seg, excl = case.scan_opts
    flags = dict(case.args).get("flags")
    out, acc = [], start
    for i, v in enumerate(vals):
        if seg and flags[i]:
            acc = start
        prev = acc
        acc = combine(acc, v)
        out.append(prev if excl else acc)
    return {"out": np.array(out, dtype=dtype)}


def tolerance(case, name, dtype):
    """Allowed |difference| per element (0: exact), from the tracked error bounds."""
    model = Model(case.narrow)
    u = model.u(dtype)
    if case.kind == "elementwise":
        v = case.outs[name][0]
        if is_int(v.t) or v.exact:
            return 0.0, 0.0
        return 2 * v.err, 2 * u
    v = case.ret
    if is_int(v.t) or v.exact:
        # integer items summed in a float accumulator (a float32 device's
        # scan) are exact only while every partial sum fits its mantissa
        exact_sum = is_int(dtype) or case.n * v.mag / 2.0 ** v.e < 2.0 ** model.mant(dtype)
        if case.reduce[0] != "a+b" or exact_sum:
            return 0.0, 0.0
    n = case.n if case.reduce[0] == "a+b" else 1
    err = 2 * n * v.err + 2 * u * n * n * v.mag
    return err, 2 * u


def compare(case, got, want):
    """Findings (strings) of ``got`` against ``want``; and the number of elements compared."""
    findings, count = [], 0
    for name, w in want.items():
        g = got[name]
        count += len(w)
        if g.dtype != w.dtype:
            findings.append("%s: dtype %s, expected %s" % (name, g.dtype, w.dtype))
            continue
        if w.dtype.kind in "iub":
            bad = np.nonzero(g != w)[0]
        else:
            absolute, relative = tolerance(case, name, w.dtype.name)
            gf, wf = g.astype(np.float64), w.astype(np.float64)
            if absolute == 0.0 and relative == 0.0:
                bad = np.nonzero(gf != wf)[0]
                sign = np.nonzero((gf == 0) & (np.signbit(gf) != np.signbit(wf)))[0]
                if len(sign):
                    # Python's int zero has no sign; a C float zero may (-x of a
                    # float 0 that Python holds as an int): noted, not a finding
                    findings.append("note: sign of zero: %s[%d] = %r, plain Python %r"
                                    % (name, sign[0], g[sign[0]].item(), w[sign[0]].item()))
            else:
                with np.errstate(invalid="ignore"):
                    close = (gf == wf) | (np.abs(gf - wf) <= absolute + relative * np.abs(wf))
                bad = np.nonzero(~close)[0]
        if len(bad):
            k = bad[0]
            findings.append("silent difference: %s[%d] = %r, plain Python gives %r "
                            "(%d of %d elements differ)" % (name, k, g[k].item(),
                                                            w[k].item(), len(bad), len(w)))
    return findings, count


def split_backend(label):
    return (label[:-7], True) if label.endswith("-openmp") else (label, False)


def run_on(case, label, use_double):
    """Run the case on one backend; return {output name: numpy array}."""
    import pcompute as pc
    name, openmp = split_backend(label)
    with pc.use_config(backend=name, use_openmp=openmp, use_double=use_double):
        return run_current(case)


def run_current(case):
    """Run the case under the current configuration (the ``backend`` fixture's)."""
    import pcompute as pc
    mod = case.module
    f = getattr(mod, case.fname)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if case.kind == "elementwise":
            devs = [pc.wrap(a.copy()) if isinstance(a, np.ndarray) else a
                    for _, a in case.args]
            pc.Elementwise(f)(*devs)
            out = {}
            for (name, _), d in zip(case.args, devs):
                if name in case.outs:
                    d.pull()
                    out[name] = np.array(d.data)
            return out
        op, neutral, dtype = case.reduce
        if case.kind == "reduction":
            red = pc.Reduction(op, map_func=f, dtype_out=np.dtype(dtype), neutral=neutral)
            args = [pc.wrap(a.copy()) if isinstance(a, np.ndarray) else a
                    for _, a in case.args]
            r = red(*args)
            return {"result": np.array([r])}
        seg, excl = case.scan_opts
        kwargs = {name: (pc.wrap(a.copy()) if isinstance(a, np.ndarray) else a)
                  for name, a in case.args}
        scan = pc.Scan(f, getattr(mod, "output%d" % case.seed), op, dtype=np.dtype(dtype),
                       neutral=neutral,
                       is_segment=getattr(mod, "seg%d" % case.seed) if seg else None)
        scan(**kwargs)
        kwargs["out"].pull()
        return {"out": np.array(kwargs["out"].data)}


def cuda_source(case, use_double):
    """The CUDA C of the case (generated only, no GPU needed)."""
    import pcompute as pc
    mod = case.module
    f = getattr(mod, case.fname)
    with pc.use_config(use_double=use_double), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # float64 data stands for float32 device arrays without use_double
        args = [(name, a.astype(device_dtype(a.dtype.name, not use_double))
                 if isinstance(a, np.ndarray) else a) for name, a in case.args]
        arrays = [a for _, a in args]
        if case.kind == "elementwise":
            return pc.Elementwise(f).generate("cuda", *arrays)
        op, neutral, dtype = case.reduce
        if case.kind == "reduction":
            return pc.Reduction(op, map_func=f, dtype_out=np.dtype(dtype),
                                neutral=neutral).generate("cuda", *arrays)
        seg, excl = case.scan_opts
        scan = pc.Scan(f, getattr(mod, "output%d" % case.seed), op, dtype=np.dtype(dtype),
                       neutral=neutral,
                       is_segment=getattr(mod, "seg%d" % case.seed) if seg else None)
        return scan.generate("cuda", **dict(args))


def judge(case, action):
    """Run ``action()`` and judge the outcome against the case's expectation:
    ``(findings, result)``; ``result`` is None unless the action returned."""
    from pcompute.errors import BuildError, KernelError
    try:
        result = action()
    except KernelError as exc:
        text = str(exc)
        if case.bad_line is None:
            return ["rejected a kernel the documentation allows: %s: %s"
                    % (type(exc).__name__, text)], None
        loc = exc.location
        if loc is None or os.path.basename(str(loc.filename)) != os.path.basename(case.path) \
                or loc.lineno != case.bad_line or "hint" not in text:
            return ["error for %s not located at line %d with a hint: %s: %s"
                    % (case.bad_what, case.bad_line, type(exc).__name__, text)], None
        return [], None
    except BuildError as exc:
        return ["compiler dump reaches the user: %s" % str(exc)[:3000]], None
    except Exception as exc:       # noqa: BLE001 (every other failure is a finding)
        return ["crash: %s: %s\n%s" % (type(exc).__name__, exc,
                                      traceback.format_exc()[-3000:])], None
    if case.bad_line is not None:
        return ["accepted a construct the documentation rejects (%s, line %d)"
                % (case.bad_what, case.bad_line)], None
    return [], result


def check_current(case, want):
    """Run the case under the current configuration and compare: (findings,
    count); notes (``note: ...``) are left out."""
    findings, got = judge(case, lambda: run_current(case))
    if got is None:
        return findings, 0
    findings, count = compare(case, got, want)
    return [f for f in findings if not f.startswith("note:")], count


def check_cuda(case, use_double):
    """Compile-check the CUDA source with nvcc --ptx; findings."""
    from pcompute.build import cuda_builder

    def action():
        source = cuda_source(case, use_double)
        cuda_builder.check_cuda_source(source)
    return judge(case, action)[0]


def run_case(seed, backends, cuda, directory):
    """Generate and run one case everywhere; a JSON-able report."""
    rng = random.Random(seed)
    narrow = "opencl" in backends and rng.random() < 0.3
    report = {"seed": seed, "narrow": narrow, "findings": [], "comparisons": 0,
              "elements": 0}
    case = make_case(seed, narrow=False)
    report["kind"] = case.describe()
    load(case, directory)
    report["path"] = case.path
    try:
        want = reference(case) if case.bad_line is None else None
    except Exception as exc:   # noqa: BLE001 (a generator bug, not a finding)
        report["generator_error"] = "%s: %s" % (type(exc).__name__, exc)
        return report
    for label in backends:
        findings, got = judge(case, lambda: run_on(case, label, True))
        if got is not None and want is not None:
            findings, count = compare(case, got, want)
            report["comparisons"] += 1
            report["elements"] += count
        report["findings"] += ["%s: %s" % (label, f) for f in findings
                               if not f.startswith("note:")]
        report.setdefault("notes", []).extend("%s: %s" % (label, f) for f in findings
                                              if f.startswith("note:"))
    if narrow:
        ncase = make_case(seed, narrow=True)
        load(ncase, directory)
        nwant = reference(ncase) if ncase.bad_line is None else None
        findings, got = judge(ncase, lambda: run_on(ncase, "opencl", False))
        if got is not None and nwant is not None:
            findings, count = compare(ncase, got, nwant)
            report["comparisons"] += 1
            report["elements"] += count
        report["findings"] += ["opencl (float32 device): %s" % f for f in findings
                               if not f.startswith("note:")]
    if cuda:
        for use_double in (True, False):
            c = case if use_double else make_case(seed, narrow=True)
            if not use_double:
                load(c, directory)
            report["findings"] += ["cuda nvcc --ptx (use_double=%s): %s" % (use_double, f)
                                   for f in check_cuda(c, use_double)]
            report["comparisons"] += 1
    return report


