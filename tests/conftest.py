"""The one parametrised ``backend`` fixture every cross-backend test uses.

Each test using ``backend`` runs on python, cython, cython with OpenMP, opencl
and cuda, each in float32 and float64 (ids like ``opencl-float64``).  The
fixture applies the configuration for the case (backend, OpenMP,
``use_double``) for the duration of the test.  A backend that cannot run here
is skipped with its reason; ``--require-backends`` (or
``PCOMPUTE_REQUIRE_BACKENDS=1``) turns those skips into failures, and
``PCOMPUTE_TEST_BACKENDS=cython,opencl`` restricts the cases.
"""
import os
from dataclasses import dataclass

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# A compile cache shared by all test processes (xdist workers) of a checkout.
os.environ.setdefault("PCOMPUTE_CACHE_DIR", os.path.join(ROOT, ".pcompute-cache"))
# PoCL's kernel cache (and pyopencl's) in the checkout too, through
# XDG_CACHE_HOME, which PoCL reads when POCL_CACHE_DIR is unset (MPI ranks
# get <it>/pocl/kcache-rank<N>: pcompute.build.opencl_ranks): the tests never
# write into the user's ~/.cache, and a fresh clone compiles its OpenCL
# programs as CI does.  PoCL compiles every kernel of a program (and every
# work-group size it runs with) to native code: test_scan.py -k opencl took
# 29 CPU-s with an empty PoCL cache and 6 CPU-s with a warm one (AMD EPYC
# 2-core VM), so a run on a warm ~/.cache/pocl under-reports CI's time.
os.environ.setdefault("XDG_CACHE_HOME", os.path.join(ROOT, ".pcompute-cache", "xdg"))
# The suite builds its ~2000 Cython modules at -O0 (Config.opt_level), which
# gcc compiles in far less time than -O3 (the modules are mostly Cython's
# boilerplate; a fresh-clone CI on the 2-core AMD EPYC VM: test step 1342 s at
# -O0, 1440 s at -O1); every level computes the same results.  Tests of the
# language's meaning, where an optimiser would exploit undefined behaviour, and
# of what only the optimiser does (vectorisation, FMA contraction) are marked
# ``optimised_build`` and build at the default -O3 (``_optimised_build``
# below).  PCOMPUTE_OPT_LEVEL=3 runs the whole suite at -O3.
os.environ.setdefault("PCOMPUTE_OPT_LEVEL", "0")

from pcompute.backends.registry import get_backend  # noqa: E402
from pcompute.config import use_config  # noqa: E402

BACKEND_CASES = [("python", False), ("cython", False), ("cython", True),
                 ("opencl", False), ("cuda", False)]
PRECISIONS = ("float32", "float64")


@dataclass(frozen=True)
class BackendCase:
    """One backend configuration of the test matrix."""
    name: str
    openmp: bool
    precision: str

    @property
    def id(self):
        return "%s%s-%s" % (self.name, "-openmp" if self.openmp else "", self.precision)

    @property
    def dtype(self):
        return np.dtype(self.precision)

    @property
    def use_double(self):
        return self.precision == "float64"

    @property
    def rtol(self):
        """Tolerance for comparing float results with the python reference."""
        return 1e-4 if self.precision == "float32" else 1e-10

    def config(self):
        return use_config(backend=self.name, use_openmp=self.openmp,
                          use_double=self.use_double)


def pytest_addoption(parser):
    parser.addoption("--require-backends", action="store_true", default=False,
                     help="fail instead of skipping when a backend is unavailable")
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite the golden files of generated code")


def _selected():
    wanted = os.environ.get("PCOMPUTE_TEST_BACKENDS")
    names = {w.strip() for w in wanted.split(",")} if wanted else None
    cases = []
    for name, openmp in BACKEND_CASES:
        label = name + ("-openmp" if openmp else "")
        if names is None or name in names or label in names:
            for precision in PRECISIONS:
                cases.append(BackendCase(name, openmp, precision))
    return cases


def require_backend(request, name):
    """Skip (or fail under --require-backends) when ``name`` cannot run here."""
    reason = get_backend(name).why_unavailable()
    if reason is None:
        return
    message = "%s backend unavailable: %s" % (name, reason)
    if request.config.getoption("--require-backends") or \
            os.environ.get("PCOMPUTE_REQUIRE_BACKENDS") == "1":
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(params=_selected(), ids=lambda c: c.id)
def backend(request):
    """A :class:`BackendCase`, with its configuration applied."""
    case = request.param
    require_backend(request, case.name)
    with case.config():
        yield case


@pytest.fixture(autouse=True)
def _optimised_build(request):
    """Tests marked ``optimised_build`` build their Cython modules at the
    default optimisation level (-O3), also in the processes they start."""
    if request.node.get_closest_marker("optimised_build") is None:
        yield
        return
    from pcompute.config import DEFAULT_OPT_LEVEL
    request.getfixturevalue("monkeypatch").setenv("PCOMPUTE_OPT_LEVEL",
                                                  str(DEFAULT_OPT_LEVEL))
    with use_config(opt_level=DEFAULT_OPT_LEVEL):
        yield


@pytest.fixture
def update_golden(request):
    return request.config.getoption("--update-golden")


def pytest_collection_modifyitems(config, items):
    """Mark every cuda case of the backend fixture with ``cuda`` (and opencl
    cases with ``opencl``) so `-m cuda` selects them on a GPU machine, and
    deselect the float32 case of tests marked ``integer_data`` (their data
    has no float: both precisions would build and check the same kernels;
    pytest's summary counts them as deselected)."""
    kept, dropped = [], []
    for item in items:
        case = getattr(getattr(item, "callspec", None), "params", {}).get("backend")
        if isinstance(case, BackendCase) and case.name in ("cuda", "opencl"):
            item.add_marker(getattr(pytest.mark, case.name))
        if isinstance(case, BackendCase) and case.precision != "float64" and \
                item.get_closest_marker("integer_data") is not None:
            dropped.append(item)
        else:
            kept.append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


def worker_rotation(items):
    """``items`` rotated so that each pytest-xdist worker starts at its own
    place (worker k of m at ``k * len(items) // m``): workers building the
    same list of group modules build different ones at the same time and
    then find each other's in the compile cache (one being built by the
    other waits on the cache's lock)."""
    worker = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0")[2:] or 0)
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    start = (worker % workers) * len(items) // workers
    return items[start:] + items[:start]


class AheadGroups:
    """The kernels a test file's tests build on the Cython cases, built as
    group modules ahead of the first such test in each process (several
    kernels in one module: :mod:`pcompute.build.cython_group`; strict, so a
    group that cannot be merged or built raises GroupBuildError there).

    ``kernels(case, name)`` gives the generated kernels (records for
    ``Backend.prebuild``, such as ``kernels_ahead`` of a parallelize or
    dataparallel function gives them) that part ``name`` of the file (a
    test, a nest) builds on ``case``, called under ``case.config()``.  The
    parts of every Cython case are built in chunks of about ``chunk`` parts
    (one group module each, per set of build flags), each xdist worker
    starting at its own chunk (:func:`worker_rotation`).  Each test then
    finds its kernels built; one not listed is built at its first call, as
    without the groups."""

    CASES = [BackendCase(name, openmp, p) for name, openmp in BACKEND_CASES
             if name == "cython" for p in PRECISIONS]

    def __init__(self, names, kernels, chunk):
        self.names = sorted(names)
        self.kernels = kernels
        self.chunk = chunk
        self.done = False

    def chunks(self):
        """``(case, part names)`` of every group module."""
        parts = max(1, round(len(self.names) / self.chunk))
        return [(case, self.names[k::parts]) for case in self.CASES for k in range(parts)]

    def ensure(self, backend):
        """Build every chunk, once per process, if ``backend`` is a Cython case."""
        if self.done or (backend.name, backend.openmp, backend.precision) not in {
                (c.name, c.openmp, c.precision) for c in self.CASES}:
            return
        self.done = True        # once, also when a build fails (its error is
                                # this test's; later tests build alone)
        cython = get_backend("cython")
        for case, names in worker_rotation(self.chunks()):
            with case.config(), use_config(strict_groups=True) as config:
                generated = [g for name in names for g in self.kernels(case, name)]
                cython.prebuild(generated, config)


def precheck_cuda(sources):
    """Compile-check CUDA ``sources`` with one nvcc run (``check_cuda_sources``)
    so that the tests checking them one by one afterwards find them checked.
    A failure is left to those tests: each then compiles its own source
    alone and reports its own error."""
    from pcompute.build import cuda_builder
    from pcompute.errors import BuildError
    try:
        cuda_builder.check_cuda_sources(sources)
    except BuildError:
        pass
