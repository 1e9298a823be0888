"""The independent random-kernel generator (tests/indepgen/) on fixed seeds.

Each case is generated from the user documentation's rules, run on every
backend of the ``backend`` fixture and compared with the plain Python call of
the same functions (not with the python backend); a case with a rejected
construct must raise the located error on every backend.  The long run is
``make fuzz-indep`` (docs/testing.rst).
"""
import pytest

from pcompute.backends.registry import get_backend
from pcompute.build import cuda_builder
from pcompute.config import get_config

import indepgen

# (seed, kind, expected error): an Elementwise kernel with helpers and a loop,
# a Reduction, a Scan (the richest of the first seeds), and kernels with one
# construct the pages reject (these stop in the front end: nothing is built).
CASES = [(344, "elementwise", False), (41, "reduction", False), (125, "scan", False),
         (3, "elementwise", "power"), (1, "elementwise", "helperint"),
         (38, "elementwise", "u64compare"), (2, "elementwise", "declint")]


@pytest.fixture(scope="module")
def gen_dir(tmp_path_factory):
    return str(tmp_path_factory.mktemp("indepgen"))


def _cases(narrow, gen_dir):
    for seed, kind, bad in CASES:
        case = indepgen.make_case(seed, narrow, kind, bad)
        indepgen.load(case, gen_dir)
        yield case


def _explain(case, findings):
    return "%s\n%s\n%s" % (case.describe(), "\n".join(case.lines), "\n".join(findings))


def test_generated_kernels_match_plain_python(backend, gen_dir):
    narrow = get_backend(backend.name).demote_double(get_config())
    for case in _cases(narrow, gen_dir):
        want = None if case.bad_line is not None else indepgen.reference(case)
        findings, count = indepgen.check_current(case, want)
        assert not findings, _explain(case, findings)
        assert (count > 0) == (case.bad_line is None), case.describe()


@pytest.mark.parametrize("use_double", [True, False], ids=["float64", "float32"])
def test_generated_cuda_sources_compile(use_double, gen_dir):
    if cuda_builder.nvcc_path() is None:
        pytest.skip("nvcc not found: the CUDA sources cannot be compile-checked here")
    for case in _cases(not use_double, gen_dir):
        findings = indepgen.check_cuda(case, use_double)
        assert not findings, _explain(case, findings)
