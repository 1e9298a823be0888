#!/usr/bin/env bash
# One call on a GPU machine without internet: install the carried wheels, run
# the CUDA tests, then the GPU benchmarks (python -m benchmarks.gpu).
#
# Here (the development machine), from the project root:  bash tools/cuda/collect-wheels.sh
# There, from the project root:                           bash tools/cuda/run-on-gpu.sh [pytest args]
# Results go to $OUT (default /tmp/pcompute-gpu): env.txt, tests.log, junit.xml,
# gpu-bench.txt, gpu-bench.json.  TESTS_S and BENCH_S bound the two parts
# (seconds); NPROC sets the pytest-xdist workers; SKIP_BENCH=1 runs the tests only;
# PCOMPUTE_COMMIT names the commit sent: write it into the command where the
# tree is sent from (the copy there may carry a stale .git, whose HEAD is not it).
# Needs the CUDA toolkit, Python 3.12, numpy, Cython, pytest and pytest-xdist there.
# Every cuda case of the `backend` fixture carries the `cuda` marker
# (tests/conftest.py); --require-backends makes an unavailable backend fail
# instead of skipping, so nothing passes by skipping.
set -uo pipefail
OUT=${OUT:-/tmp/pcompute-gpu}
mkdir -p "$OUT"
export CUDA_ROOT=${CUDA_ROOT:-/usr/local/cuda}
export PATH="$CUDA_ROOT/bin:$PATH" PYTHONUNBUFFERED=1
export PCOMPUTE_CACHE_DIR=${PCOMPUTE_CACHE_DIR:-/tmp/pcompute-cache}
# The GPU machine runs commands as root and its mpiexec is Open MPI's, which
# refuses root unless told (MPICH ignores these).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl || exit 3
export PYTHONPATH=/tmp/site:$PWD${PYTHONPATH:+:$PYTHONPATH}
{
  nvidia-smi -L; echo "cores: $(nproc)"; grep -m1 "model name" /proc/cpuinfo
  python3 -c "import sys, numpy, Cython; print(sys.version.split()[0], 'numpy', numpy.__version__, 'Cython', Cython.__version__)"
  python3 -c "import pycuda.autoinit, pycuda.driver as d; print('pycuda sees', d.Device(0).name(), 'driver API', d.get_driver_version())"
} 2>&1 | tee "$OUT/env.txt"
start=$(date +%s)
PCOMPUTE_TEST_BACKENDS=cuda timeout -k 10 "${TESTS_S:-330}" python3 -m pytest -q \
    -p no:cacheprovider -m cuda --require-backends -n "${NPROC:-16}" --timeout=120 \
    --junitxml="$OUT/junit.xml" -rfE "$@" > "$OUT/tests.log" 2>&1
rc=$?
echo "tests rc $rc in $(( $(date +%s) - start )) s" | tee -a "$OUT/tests.log"
grep -E "^(FAILED|ERROR) " "$OUT/tests.log" | cut -c1-220 | head -60
tail -3 "$OUT/tests.log"
if [ -z "${SKIP_BENCH:-}" ]; then
  timeout -k 10 "${BENCH_S:-150}" python3 -m benchmarks.gpu --out "$OUT/gpu-bench.json" \
      ${BENCH_ARGS:-} 2>&1 | tee "$OUT/gpu-bench.txt" | grep -v "^md .* failed" | cut -c1-200
fi
exit $rc
