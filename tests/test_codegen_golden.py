"""Golden files pin the generated Elementwise source of the corpus kernels.

``tests/golden/<dialect>/<kernel>.<ext>`` holds what
``generate_source(func, backend=dialect, kind='elementwise', config=...)``
gives for each corpus kernel (float64 argument types, a fixed explicit
configuration).  After an intended change of the code generators, rewrite
them with ``pytest tests/test_codegen_golden.py --update-golden`` and review
the diff.  The generated text must also be the same in every process, whatever
``PYTHONHASHSEED`` is.
"""
import hashlib
import json
import os
import subprocess
import sys

import pytest

from pcompute.backends.cython import CythonBackend
from pcompute.build import cuda_builder
from pcompute.config import Config
from pcompute.generate import generate_source

from kernels.corpus import CORPUS

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
GOLDEN = os.path.join(HERE, "golden")

EXTENSIONS = {"cython": "pyx", "opencl": "cl", "cuda": "cu"}


def golden_config(dialect):
    """The fixed configuration the golden files are generated with."""
    if dialect == "cython":
        return Config(read_environment=False, use_double=True, use_openmp=True)
    return Config(read_environment=False, use_double=True)


def generate(kernel, dialect):
    return generate_source(kernel.func, backend=dialect, types=kernel.types(),
                           kind="elementwise", config=golden_config(dialect),
                           index_dims=kernel.dims)


@pytest.fixture
def openmp_everywhere(monkeypatch):
    """Generate the OpenMP variant even where the C compiler lacks OpenMP, so
    the golden Cython files do not depend on this machine's toolchain."""
    monkeypatch.setattr(CythonBackend, "use_openmp",
                        lambda self, config: bool(config.use_openmp))


def golden_path(dialect, name):
    return os.path.join(GOLDEN, dialect, "%s.%s" % (name, EXTENSIONS[dialect]))


CASES = [(dialect, name) for dialect in EXTENSIONS for name in sorted(CORPUS)]


@pytest.mark.parametrize("dialect,name", CASES, ids=["%s-%s" % c for c in CASES])
def test_generated_source_matches_golden(dialect, name, update_golden,
                                         openmp_everywhere):
    kernel = CORPUS[name]
    if dialect == "opencl" and kernel.no_opencl:
        cls, pattern = kernel.opencl_error
        with pytest.raises(cls, match=pattern):
            generate(kernel, dialect)
        assert not os.path.exists(golden_path(dialect, name))
        return
    text = generate(kernel, dialect)
    path = golden_path(dialect, name)
    if update_golden:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        return
    if not os.path.exists(path):
        pytest.fail("no golden file %s; create it with `pytest %s --update-golden`"
                    % (os.path.relpath(path, ROOT), os.path.relpath(__file__, ROOT)))
    with open(path, encoding="utf-8", newline="") as f:
        expected = f.read()
    assert text == expected, (
        "the generated %s source of %s differs from %s; if the change is intended, "
        "rewrite the golden files with --update-golden and review the diff"
        % (dialect, name, os.path.relpath(path, ROOT)))


def test_golden_files_all_belong_to_corpus_kernels():
    stale = []
    for dialect, ext in EXTENSIONS.items():
        folder = os.path.join(GOLDEN, dialect)
        for entry in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
            name, dot, found_ext = entry.rpartition(".")
            kernel = CORPUS.get(name)
            if (found_ext != ext or kernel is None
                    or (dialect == "opencl" and kernel.no_opencl)):
                stale.append(os.path.join(dialect, entry))
    assert not stale, "golden files without a corpus kernel: %s" % ", ".join(stale)


def test_corpus_is_large_enough():
    assert len(CORPUS) >= 45
    for dialect in EXTENSIONS:
        assert sum(1 for name in CORPUS if os.path.exists(golden_path(dialect, name))) \
            >= 30, dialect


# A separate process prints a digest of every generated source.
_DIGEST_SCRIPT = r"""
import hashlib, json, sys
sys.path[:0] = [{root!r}, {tests!r}]
import pcompute.backends.cython as cy
cy.CythonBackend.use_openmp = lambda self, config: bool(config.use_openmp)
from test_codegen_golden import generate, EXTENSIONS
from kernels.corpus import CORPUS
out = {{}}
for dialect in EXTENSIONS:
    for name in sorted(CORPUS):
        if dialect == "opencl" and CORPUS[name].no_opencl:
            continue
        text = generate(CORPUS[name], dialect)
        out[dialect + "/" + name] = hashlib.sha256(text.encode()).hexdigest()
print(json.dumps(out, sort_keys=True))
"""


def _digests_in_subprocess(hashseed):
    env = dict(os.environ, PYTHONHASHSEED=str(hashseed))
    script = _DIGEST_SCRIPT.format(root=ROOT, tests=HERE)
    proc = subprocess.run([sys.executable, "-c", script], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_generated_source_is_identical_across_hash_seeds(openmp_everywhere):
    first = _digests_in_subprocess(1)
    second = _digests_in_subprocess(4242)
    assert first == second
    here = {}
    for key in first:
        dialect, name = key.split("/")
        here[key] = hashlib.sha256(generate(CORPUS[name], dialect).encode()).hexdigest()
    assert here == first


CUDA_GOLDEN = sorted(n for n in CORPUS if os.path.exists(golden_path("cuda", n)))


def _golden_cuda(name):
    with open(golden_path("cuda", name), encoding="utf-8") as f:
        return f.read()


@pytest.fixture(scope="module")
def nvcc_checked():
    """nvcc is here; the golden CUDA files went through one nvcc run."""
    if cuda_builder.nvcc_path() is None:
        pytest.skip("nvcc not found: the CUDA sources cannot be compile-checked here")
    from conftest import precheck_cuda
    precheck_cuda([_golden_cuda(name) for name in CUDA_GOLDEN])


@pytest.mark.parametrize("name", CUDA_GOLDEN)
def test_cuda_golden_file_compiles_with_nvcc(name, nvcc_checked):
    """The pinned CUDA text itself goes through ``nvcc --ptx`` (cached: the
    same text as test_codegen_compiles' float64 source), so a golden file
    accepted with --update-golden cannot hold CUDA that does not compile."""
    cuda_builder.check_cuda_source(_golden_cuda(name))
