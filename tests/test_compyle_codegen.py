"""Compyle's code-generator classes (pcompute.translator, .cython_generator,
.jit): the code they print compiles and computes what Python computes."""
import ctypes
import subprocess
from math import floor

import numpy as np
import pytest

import pcompute as pc
from pcompute.build.cuda_builder import check_cuda_source, nvcc_path
from pcompute.build.cython_builder import build_cython
from pcompute.build.toolchain import compiler_command
from pcompute.cython_generator import CythonGenerator
from pcompute.errors import KernelTypeError, KernelValueError
from pcompute.jit import (AnnotationHelper, ElementwiseJIT, get_binop_return_type,
                          get_ctype_from_arg)
from pcompute.translator import (CConverter, CodeGenerationError, CStructHelper,
                                 CUDAConverter, OpenCLConverter, detect_type, py2c)
from pcompute.types import KnownType, annotate, declare


@annotate(double='a, b, return_')
def pymod(a, b):
    return a % b - a // b


def weighted(x=1.0, y=[0.0], n=1, s_idx=0):
    s = declare('double')
    s = 0.0
    for i in range(n):
        s += pymod(y[i] * x, 0.75) + s_idx
    return s


def python_weighted(x, y, n, s_idx):
    return sum((y[i] * x) % 0.75 - (y[i] * x) // 0.75 + s_idx for i in range(n))


Y = np.linspace(-3.0, 3.0, 13)


def test_cython_generator_code_builds_and_matches_python():
    cg = CythonGenerator(python_methods=True)
    cg.parse(pymod)
    cg.parse(weighted)
    code = cg.get_code()
    assert "cdef inline double weighted(double x, double* y, long long n, long long s_idx)" \
        in code
    assert "cpdef double py_weighted(double x, double[:] y, long long n" in code
    module = build_cython(code, "compyle_codegen", openmp=False)
    got = module.py_weighted(1.3, Y, len(Y), 2)
    assert got == pytest.approx(python_weighted(1.3, Y, len(Y), 2), rel=1e-12)
    assert module.py_pymod(-7.5, 2.0) == pytest.approx(-7.5 % 2.0 - (-7.5 // 2.0))
    (py_args, py_call), (c_args, c_call) = cg.get_func_signature(weighted)
    assert py_args[1] == "double[:] y" and py_call[1] == "&y[0]"
    assert c_args[1] == "double* y" and c_call == ["x", "y", "n", "s_idx"]


def _c_library(code, tmp_path):
    src = tmp_path / "gen.c"
    src.write_text("#include <math.h>\n" + code)
    lib = tmp_path / "gen.so"
    cc = compiler_command()[0]
    subprocess.run([cc, "-shared", "-fPIC", "-O1", str(src), "-o", str(lib), "-lm"],
                   check=True, capture_output=True)
    return ctypes.CDLL(str(lib))


def test_c_converter_code_compiles_and_matches_python(tmp_path):
    code = CConverter().parse(weighted).replace("static double weighted", "double weighted")
    lib = _c_library(code, tmp_path)
    lib.weighted.restype = ctypes.c_double
    lib.weighted.argtypes = [ctypes.c_double, ctypes.POINTER(ctypes.c_double),
                             ctypes.c_longlong, ctypes.c_longlong]
    y = np.ascontiguousarray(Y)
    got = lib.weighted(1.3, y.ctypes.data_as(ctypes.POINTER(ctypes.c_double)), len(y), 2)
    assert got == pytest.approx(python_weighted(1.3, Y, len(Y), 2), rel=1e-12)


def test_opencl_converter_code_builds_and_matches_python(request):
    from conftest import require_backend
    require_backend(request, "opencl")
    import pyopencl as cl
    import pyopencl.array as cl_array
    from pcompute.opencl import get_queue
    queue = get_queue()
    if not queue.device.double_fp_config:
        pytest.skip("the OpenCL device has no double precision")
    code = OpenCLConverter().parse(weighted)
    assert "__global double* y" in code
    kernel = code + """
__kernel void run(__global double* y, __global double* out, long n)
{
    out[0] = weighted(1.3, y, n, 2);
}
"""
    program = cl.Program(queue.context, kernel).build()
    y = cl_array.to_device(queue, Y)
    out = cl_array.zeros(queue, 1, np.float64)
    program.run(queue, (1,), None, y.data, out.data, np.int64(len(Y)))
    assert out.get()[0] == pytest.approx(python_weighted(1.3, Y, len(Y), 2), rel=1e-12)


def test_cuda_converter_code_compiles():
    if nvcc_path() is None:
        pytest.skip("nvcc is not installed: CUDA code cannot be compile-checked here")
    code = CUDAConverter().parse(weighted)
    assert "__device__ double weighted(double x, double* y" in code
    check_cuda_source(code + "\n__global__ void run(double* y, double* out, long long n)"
                      "\n{\n    out[0] = weighted(1.3, y, n, 2);\n}\n")


def test_convert_translates_every_function_of_a_text():
    code = py2c("""
def twice(x=0.0):
    return 2.0 * x

def use(a=0.0, n=1):
    return twice(a) + n
""")
    assert code.count("twice(double x)") == 1     # the shared helper is printed once
    assert "double use(double a, long long n)" in code


def test_detect_type_follows_compyle():
    assert detect_type("s_idx", None) == "long"
    assert detect_type("d_x", None) == "double*"
    assert detect_type("x", 1) == "long" and detect_type("x", 1.0) == "double"
    assert detect_type("x", True) == "int" and detect_type("x", [0.0]) == "double*"
    assert detect_type("x", KnownType("float")) == "float"
    with pytest.raises(CodeGenerationError, match="Unknown type, for x"):
        CConverter().parse(lambda_free_untyped)


def lambda_free_untyped(x):
    return x


def test_known_types_and_unsupported_input():
    code = CConverter(known_types={"x": KnownType("float")}).parse(lambda_free_untyped)
    assert "float lambda_free_untyped(float x)" in code

    with pytest.raises(KernelValueError, match="only function definitions"):
        CConverter().convert("x = 1\n")


def test_c_struct_helper_matches_its_numpy_record():
    """Compyle's CStructHelper: public number attributes, in name order; the
    record has the struct's layout (both double, unlike Compyle's float32
    record without use_double)."""
    class Fruit:
        def __init__(self):
            self.pear, self.apple, self.banana = 1.5, 1, 2.0
            self.name, self._private = "fig", 3

    h = CStructHelper(Fruit())
    assert h.get_code() == ("typedef struct Fruit {\n    int apple;\n    double banana;\n"
                            "    double pear;\n} Fruit;\n")
    record = h.get_array()
    assert record.dtype == np.dtype([("apple", np.int32), ("banana", np.float64),
                                     ("pear", np.float64)], align=True)
    assert record.dtype.fields["banana"][1] == 8      # C's padding after the int
    assert record.tolist() == [(1, 2.0, 1.5)]
    class Empty:
        pass
    empty = CStructHelper(Empty())
    assert empty.get_array() is None and empty.get_code() == "typedef struct Empty {\n} Empty;\n"
    with pytest.raises(KernelTypeError, match="needs an object with attributes"):
        CStructHelper(3)


def test_struct_from_instance_compiles_with_its_record_layout(tmp_path):
    """get_struct_from_instance (Compyle's name) gives CStructHelper's struct;
    compiled with the C compiler, it reads the bytes of the NumPy record as
    the instance's values."""
    class Body:
        def __init__(self):
            self.mass, self.n, self.x = 2.5, 7, -1.25
            self.label = "b"
    body = Body()
    code = CConverter().get_struct_from_instance(body)
    assert code == CStructHelper(body).get_code() + "\n"
    lib = _c_library(code + "double weigh(Body* self) { self->n += 1;"
                     " return self->mass * self->n + self->x; }\n"
                     "long size_of_body(void) { return (long)sizeof(Body); }\n", tmp_path)
    lib.weigh.restype = ctypes.c_double
    lib.weigh.argtypes = [ctypes.c_void_p]
    lib.size_of_body.restype = ctypes.c_long
    record = CStructHelper(body).get_array()
    assert lib.size_of_body() == record.dtype.itemsize
    assert lib.weigh(record.ctypes.data) == body.mass * (body.n + 1) + body.x
    assert record["n"][0] == body.n + 1


@annotate
def jit_helper(x):
    return x * 2


@annotate
def jit_user(a, n):
    t = jit_helper(a)
    for k in range(n):
        t += k
    return t


def test_annotation_helper_reports_inferred_types():
    helper = AnnotationHelper(jit_user, {"a": "double", "n": "int"})
    missing = helper.annotate()
    assert helper.arg_types["return_"] == "double"
    assert helper.undecl_var_types["t"] == "double"
    assert helper.external_funcs["jit_helper"].arg_types == {"x": "double",
                                                             "return_": "double"}
    assert "t" in missing["jit_user"]
    assert jit_user.__annotations__ == {}         # the function is not rewritten


def test_binop_types_and_argument_types():
    assert get_binop_return_type("int", "double") == "double"
    assert get_binop_return_type("long", "int") == "long"
    assert get_binop_return_type("gintp", "int") == "gintp"
    assert get_binop_return_type(None, "int") is None
    assert get_ctype_from_arg(1.5) == "double" and get_ctype_from_arg(3) == "int"
    assert get_ctype_from_arg(2 ** 40) == "long"
    assert get_ctype_from_arg(np.zeros(2, np.float32)) == "float*"


def test_elementwise_jit_runs_like_elementwise(backend):
    @annotate
    def scale(i, x, y, a):
        y[i] = a * x[i] + floor(x[i])

    x = np.linspace(-2, 2, 17).astype(backend.dtype)
    y = np.zeros_like(x)
    xa, ya = pc.wrap(x, y)
    ElementwiseJIT(scale)(xa, ya, 1.5)
    ya.pull()
    np.testing.assert_allclose(ya.data, 1.5 * x + np.floor(x), rtol=backend.rtol)
