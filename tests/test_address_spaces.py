"""Pointers without an address space (``doublep``, ``'double*'``) in helpers.

As in Compyle, such a helper parameter points into whatever the caller
passes: a global array or a local ``declare('matrix(n)')``.  A helper called
with both gets one version per address space, so the OpenCL C compiles (PoCL
refuses a private pointer where a ``__global`` one is declared).  Checked on
every backend against numpy; the unannotated form is the corpus kernel
``pointer_spaces``.
"""
import numpy as np
import pytest

from pcompute.array import wrap
from pcompute.errors import KernelTypeError
from pcompute.frontend.program import type_kernel
from pcompute.primitives.elementwise import Elementwise
from pcompute.types import annotate, declare, dtype_to_ctype, names_address_space


@annotate(v="double", result="doublep", k="long")
def put2(v, result, k):
    result[k] = 2.0 * v
    result[k + 1] = v - 1.0


def both_spaces(i, x, y, z):
    r = declare('matrix(2)')
    put2(x[i], r, 0)
    z[i] = r[0] + r[1]
    put2(x[i], y, 2 * i)


@annotate(v="float", result="floatp", k="long")
def put2f(v, result, k):
    result[k] = 2.0 * v
    result[k + 1] = v - 1.0


def both_spaces_float(i, x, y, z):
    r = declare('matrix(2, "float")')
    put2f(x[i], r, 0)
    z[i] = r[0] + r[1]
    put2f(x[i], y, 2 * i)


KERNELS = {"double": both_spaces, "float": both_spaces_float}


def test_doublep_helper_with_global_and_local_arrays(backend):
    base = dtype_to_ctype(np.dtype(backend.dtype)).base
    x = np.linspace(-3.0, 3.0, 101).astype(backend.dtype)
    xa, ya, za = wrap(x.copy(), np.zeros(2 * len(x), backend.dtype),
                      np.zeros_like(x), backend=backend.name)
    Elementwise(KERNELS[base], backend=backend.name)(xa, ya, za)
    ya.pull()
    za.pull()
    expected_y = np.empty(2 * len(x))
    expected_y[0::2], expected_y[1::2] = 2.0 * x, x - 1.0
    np.testing.assert_allclose(ya.data, expected_y, rtol=backend.rtol)
    np.testing.assert_allclose(za.data, 3.0 * x - 1.0, rtol=backend.rtol, atol=1e-6)


def test_one_version_per_address_space():
    program = type_kernel(both_spaces, {"i": "long", "x": "gdoublep",
                                                  "y": "gdoublep", "z": "gdoublep"})
    helpers = {f.c_name: dict(f.args)["result"] for f in program.functions
               if f.name == "put2"}
    # the first call typed keeps the name; the other version says its space
    assert sorted(helpers) == ["put2", "put2_global"]
    assert helpers["put2"].space == "private"
    assert helpers["put2_global"].space == "global"


def test_pointer_of_another_type_is_an_error_at_the_call():
    with pytest.raises(KernelTypeError) as info:
        type_kernel(both_spaces, {"i": "long", "x": "gdoublep",
                                            "y": "gfloatp", "z": "gdoublep"})
    message = str(info.value)
    assert "argument 'result' of put2() is annotated doublep" in message
    assert "an array of float is passed" in message
    assert "put2(x[i], y, 2 * i)" in message


@pytest.mark.parametrize("spec, named", [
    ("doublep", False), ("double*", False), ("const float *", False),
    ("gdoublep", True), ("ldoublep", True), ("GLOBAL_MEM double*", True),
    ("LOCAL_MEM float*", True), ("double", True), ("gdoublep2", True)])
def test_names_address_space(spec, named):
    assert names_address_space(spec) is named
