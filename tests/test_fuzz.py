"""Differential fuzzing, fast profile (the long one is ``make fuzz``).

Hypothesis drives :mod:`pcompute.fuzz.generator` (derandomized: the same
``FAST_EXAMPLES`` kernels in every process and every run, drawn once per
process, so the shared compile cache makes warm runs cheap); each kernel runs
through Elementwise and Reduction or Scan on the ``backend`` fixture's
configuration and is compared with the python backend: integers exactly,
floats within the error bound that the tracked evaluation
(:mod:`pcompute.fuzz.tracked`) gives each element.  On the python cases the
python backend is checked against that error model instead.

On the Cython cases, the kernels of every case (the random ones and the
regressions) are built as group modules (several kernels in one module:
:mod:`pcompute.build.cython_group`, strict: a group that cannot be merged
or built is an error) ahead of the first such test in each process
(``fuzz_groups``); each test then finds its kernels built.
"""
import fnmatch
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from pcompute import use_config
from pcompute.backends.registry import get_backend
from pcompute.fuzz import DataChooser, FuzzCase, RandomChooser, Stats, Target, generate_case
from pcompute.fuzz import tracked
from pcompute.fuzz.generator import KNOWN_BUGS
from pcompute.fuzz.prebuild import generated_kernels
from pcompute.fuzz.runner import CaseRun, items_for, make_functions

from conftest import BACKEND_CASES, worker_rotation
from fuzz_regressions import REGRESSIONS

# Random kernels against the oracle: the optimiser must see them (-O3), as
# it would exploit undefined behaviour in the generated C.
pytestmark = pytest.mark.optimised_build

FAST_EXAMPLES = int(os.environ.get("PCOMPUTE_FUZZ_EXAMPLES", "16"))
N = 67

_RUNS = {}
_CASES = []


def prepared(case, precision, n):
    """The inputs, tracked values and python reference of ``case`` (memoised
    per process: every backend case of one precision reuses them)."""
    key = (repr(sorted(case.as_dict().items())), precision, n)
    run = _RUNS.get(key)
    if run is None:
        run = _RUNS[key] = CaseRun(case, precision, n, Stats())
    return run


def case_failures(case, backend):
    """The failures of ``case`` on the ``backend`` case (none: it matches)."""
    target = Target(backend.name, backend.openmp, backend.precision)
    run = prepared(case, backend.precision, items_for(target, N))
    failures = list(run.stats.failures)  # generator, model or reference failures
    if run.ok and backend.name != "python":
        failures += run.check(target)
    return failures


def assert_none(failures):
    assert not failures, "\n\n".join(f.report() for f in failures)


@settings(max_examples=FAST_EXAMPLES, derandomize=True, deadline=None, database=None,
          phases=(Phase.explicit, Phase.generate),
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def _draw_case(data):
    _CASES.append(generate_case(DataChooser(data), label="hypothesis"))


def random_cases():
    """The ``FAST_EXAMPLES`` cases hypothesis draws (derandomized: the same in
    every process; drawn once per process: ~16000 draws)."""
    if not _CASES:
        _draw_case()
        assert len(_CASES) == FAST_EXAMPLES, "hypothesis drew %d cases, not %d" % (
            len(_CASES), FAST_EXAMPLES)
    return _CASES


def regression_case(name):
    return FuzzCase.from_dict(REGRESSIONS[name]["case"])


#: The cases whose kernels are built as group modules (all Cython cases),
#: in chunks of about ``CHUNK`` cases (each one or two group modules: an
#: Elementwise and a Reduction or Scan per case).
GROUPED = [(name, openmp, p) for name, openmp in BACKEND_CASES if name == "cython"
           for p in ("float32", "float64")]
CHUNK = 11
_grouped_here = []          # set once the groups were asked for in this process


def group_chunks():
    """``(target, cases)`` of every chunk of the GROUPED cases."""
    cases = random_cases() + [regression_case(name) for name in sorted(REGRESSIONS)]
    parts = max(1, round(len(cases) / CHUNK))
    return [(Target(*g), cases[k::parts]) for g in GROUPED for k in range(parts)]


def build_chunk(target, cases):
    """The kernels of ``cases`` on ``target`` built as group modules (strict:
    a group that cannot be merged or built raises GroupBuildError)."""
    generated = []
    with use_config(strict_groups=True):
        for case in cases:
            generated += generated_kernels(case, target, items_for(target, N))
        with target.config() as config:
            get_backend(target.name).prebuild(generated, config)


@pytest.fixture
def fuzz_groups(backend):
    """On a Cython case, the kernels of every Cython case built as group
    modules (once per process, each xdist worker starting at its own chunk:
    :func:`conftest.worker_rotation`)."""
    if (backend.name, backend.openmp, backend.precision) not in GROUPED or _grouped_here:
        return
    _grouped_here.append(True)     # once, also when a build fails (its error
                                   # is this test's; later tests build alone)
    for target, cases in worker_rotation(group_chunks()):
        build_chunk(target, cases)


def test_random_kernels_match_python(backend, fuzz_groups):
    """Random valid kernels give the python backend's results on every backend
    (all of them in one test per backend case: an xdist worker then makes the
    tracked evaluation and python reference of a precision and size, ~2 CPU-s
    per kernel at the OpenMP cases' 2053 items, only for the cases it runs)."""
    assert_none([f for case in random_cases() for f in case_failures(case, backend)])


@pytest.mark.parametrize("name", sorted(REGRESSIONS))
def test_fuzz_regression(name, backend, request, fuzz_groups):
    entry = REGRESSIONS[name]
    reason = next((r for pattern, r in entry["xfail"].items()
                   if fnmatch.fnmatch(backend.id, pattern)), None)
    if reason:
        request.applymarker(pytest.mark.xfail(strict=True, reason=reason))
    assert_none(case_failures(regression_case(name), backend))


def test_known_bugs_have_regressions():
    """Every construct the generator steers around has an xfail regression."""
    reasons = " ".join(r for e in REGRESSIONS.values() for r in e["xfail"].values())
    words = {"opencl-float-ternary-condition": "?:",
             "python-trunc-numpy-scalar": "trunc",
             "int-argument-assigned-float": "int-typed argument"}
    for bug in KNOWN_BUGS:
        assert bug in words and words[bug] in reasons, bug


def test_generated_kernels_type_and_print():
    """Many more kernels than are compiled: each passes pcompute's front end and
    prints in every dialect, and its tracked evaluation stays in bounds."""
    from pcompute.codegen import printer_for
    from pcompute.frontend import type_kernel
    from pcompute.fuzz.runner import Inputs, Evaluation
    from pcompute.types import CType, LONG, dtype_to_ctype
    for seed in range(40):
        case = generate_case(RandomChooser(seed), label="s%d" % seed)
        funcs = make_functions(case)
        inputs = Inputs(case, "float64", 7)
        types = {a.name: CType(dtype_to_ctype(arr.dtype).base, True, "global")
                 for a, arr in zip(case.arrays, inputs.arrays)}
        for s, v in zip(case.scalars, inputs.scalars):
            types[s.name] = LONG if isinstance(v, int) else dtype_to_ctype(
                np.asarray(v).dtype)
        types.update(i=LONG, n=LONG)
        for name, extra in (("fz_kernel", {"out_f": CType("double", True, "global"),
                                           "out_i": CType("long", True, "global")}),
                            ("fz_map", {})):
            program = type_kernel(funcs[name], dict(types, **extra))
            for dialect in ("cython", "opencl", "cuda"):
                printer_for(program, dialect).print_program()
        ev = Evaluation(case, make_functions(case, tracked=True), 7, False, True)
        ev.run(inputs)
        assert not ev.invalid, (case.source, ev.invalid)


def test_error_model_basics():
    """The tracked evaluation: exact results stay exact, rounding is counted,
    discontinuities near their jump are fragile."""
    rec = tracked.set_mode(True)
    T = tracked.Tracked
    x = T(3.0) * 0.5 + T(0.25)
    assert x.v == 1.75 and x.e == 0.0            # dyadic: exact in float32
    y = T(1.0) / 3.0
    assert 0 < y.e <= 2 * tracked.U32             # one rounding
    rec.reset()
    tracked.t_int(y * 3.0)                         # 1 - tiny or 1 + tiny
    assert rec.fragile
    rec.reset()
    tracked.t_int(T(2.5) * 1.0)
    assert rec.fragile is None
    rec.reset()
    _ = (y * 3.0) < 1.0
    assert rec.fragile
    rec.reset()
    T(2 ** 31)
    assert rec.invalid


def test_error_model_float_literal_branch_may_be_float32():
    """``-0.75 if c else x`` for a float32 ``x`` is float32 in the kernel (the
    weak literal becomes 0.75f), so the model's tanh of it is a float32 value
    with a float32 error bound (seed s2612002: python backend vs model)."""
    tracked.set_mode(False)
    ns = tracked.namespace()
    source = "def f(c, x):\n    return tanh(-0.75 if c else x)\n"
    exec(tracked.compile_tracked(source, "<model>"), ns)
    v = ns["f"](True, tracked.Tracked(0.5, 0.0, True))
    assert v.f32 and v.e >= tracked.U32 * abs(v.v)
    exec(compile(source, "<model>", "exec"), ns)            # without the rewrite
    assert not ns["f"](True, tracked.Tracked(0.5, 0.0, True)).f32


def test_command_line(tmp_path, capsys):
    """`python -m pcompute.fuzz` runs a kernel and prints the counts."""
    from pcompute.backends.registry import get_backend
    from pcompute.fuzz.__main__ import main
    backend = "cython" if get_backend("cython").why_unavailable() is None else "opencl"
    rc = main(["--seconds", "120", "--max-kernels", "1", "--seed", "3", "--items", "9",
               "--backends", backend, "--precisions", "float64",
               "--out", str(tmp_path / "failures")])
    out = capsys.readouterr().out
    assert out.startswith("backends: %s-float64\n" % backend)
    assert "kernels generated:        1" in out
    assert "mismatches:               0" in out
    assert rc == 0, out


def test_command_line_without_a_backend(monkeypatch, capsys):
    """Each unavailable backend is named with its reason on stdout; none left
    is an error on stderr, exit status 2."""
    from pcompute.fuzz.__main__ import main
    from pcompute.fuzz.runner import Target
    monkeypatch.setattr(Target, "why_unavailable", lambda self: "not in this test")
    rc = main(["--backends", "cython,opencl", "--precisions", "float64"])
    captured = capsys.readouterr()
    assert rc == 2
    assert captured.out == ("skipping cython: not in this test\n"
                            "skipping opencl: not in this test\n")
    assert captured.err == "error: no selected backend is available\n"
