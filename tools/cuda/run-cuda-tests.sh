#!/usr/bin/env bash
# Run pcompute's CUDA tests on a GPU machine without internet access.
#
# On the development machine, from the project root:   bash tools/cuda/collect-wheels.sh
# Copy the tree (with .whl/) to the GPU machine, then from the project root:
#                                                       bash tools/cuda/run-cuda-tests.sh [pytest args]
# Needs the CUDA toolkit, Python 3.12, numpy, Cython and pytest there.  Every
# test case of the `backend` fixture on cuda carries the `cuda` marker (see
# tests/conftest.py); --require-backends makes an unavailable backend fail
# instead of skipping, so nothing passes by skipping.
set -euo pipefail
export CUDA_ROOT=${CUDA_ROOT:-/usr/local/cuda}
export PATH="$CUDA_ROOT/bin:$PATH"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD${PYTHONPATH:+:$PYTHONPATH}
python3 -m pip install -q --no-index --no-deps --no-build-isolation --target /tmp/site .whl/pycuda-*.tar.gz
nvidia-smi -L || true
python3 -c "import pycuda.autoinit, pycuda.driver as d; print('pycuda sees', d.Device(0).name())"
export PCOMPUTE_CACHE_DIR=${PCOMPUTE_CACHE_DIR:-/tmp/pcompute-cache}
PCOMPUTE_TEST_BACKENDS=cuda python3 -m pytest -q -p no:cacheprovider -m cuda --require-backends "$@"
