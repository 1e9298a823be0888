"""Float32 literals in generated C-family code mean the float32 that Python
(numpy) rounds them to, whatever compiler reads them: the printer writes the
rounded value itself, never a tie between two float32 values (nvcc 13 reads
``16777217.0f`` as 16777218, C and numpy give 16777216)."""
import os
import re
import subprocess
import tempfile
from fractions import Fraction

import numpy as np
import pytest

from pcompute.build.cuda_builder import nvcc_path
from pcompute.codegen.cfamily import float32_text

TRICKY = [16777217, 16777219, -16777217, 2 ** 40 + 1, 0.1, 1 / 3, 123456789, 3.0, 0.5,
          1e-46, -1e-46, 1e-30 / 3, 1e20 / 3, 2.0 ** -149 * 1.5, 33554433, 1e39]


@pytest.mark.parametrize("value", TRICKY)
def test_text_reads_back_as_numpys_float32(value):
    want = np.float32(value) if abs(value) < 3.5e38 else np.float32(np.inf)
    text = float32_text(value)
    if not np.isfinite(want):
        assert float(text) == value          # left to the compiler: it overflows
        return
    q = Fraction(text)
    # the float32 nearest to the text is numpy's, and the text is no tie
    assert np.float32(float(q)) == want
    for other in (np.nextafter(want, np.float32(-np.inf)), np.nextafter(want, np.float32(np.inf))):
        assert abs(q - Fraction(float(want))) < abs(q - Fraction(float(other)))


def test_nvcc_reads_the_literals_as_numpy_does():
    nvcc = nvcc_path()
    if nvcc is None:
        pytest.skip("nvcc not found: the CUDA toolkit is not installed")
    finite = [v for v in TRICKY if abs(v) < 3.5e38]
    body = "".join("    x[%d] = %sf;\n" % (k, float32_text(v)) for k, v in enumerate(finite))
    src = 'extern "C" __global__ void k(float* x)\n{\n%s}\n' % body
    with tempfile.TemporaryDirectory() as work:
        cu, ptx = os.path.join(work, "k.cu"), os.path.join(work, "k.ptx")
        with open(cu, "w") as f:
            f.write(src)
        subprocess.run([nvcc, "--ptx", "-o", ptx, cu], check=True, capture_output=True)
        text = open(ptx).read()
    # each constant is moved into a register as its bits (mov.u32 %r1, 1266679808;)
    got = [int(v) & 0xFFFFFFFF for v in re.findall(r"mov\.[ub]32\s+%r\d+,\s*(-?\d+);", text)]
    got += [int(h, 16) for h in re.findall(r"\b0f([0-9A-F]{8})\b", text)]
    want = [int(np.float32(v).view(np.uint32)) for v in finite]
    assert sorted(got) == sorted(want)
