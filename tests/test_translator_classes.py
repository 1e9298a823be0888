"""Methods of classes in the translator (Compyle's ``Class_method(Class* self,
...)``): the text, the compiled C and OpenCL computing what the Python
methods compute, CUDA compile-checked, and the located errors."""
import ctypes
import subprocess
from textwrap import dedent

import numpy as np
import pytest

from pcompute.build.cuda_builder import check_cuda_source, nvcc_path
from pcompute.build.toolchain import compiler_command
from pcompute.config import use_config
from pcompute.errors import KernelSyntaxError, KernelTypeError
from pcompute.translator import (CConverter, CStructHelper, CUDAConverter, KnownType,
                                 OpenCLConverter, py2c)


class Spring:
    """A particle on a spring; the kernels call its methods."""

    def __init__(self, mass=2.5, turns=3, k=-0.75):
        self.mass, self.turns, self.k = mass, turns, k
        self.label = "not a number: not a field"

    def energy(self, v=0.0):
        return 0.5 * self.mass * v * v + self.pull(v)

    def pull(self, x=0.0):
        s = 0.0
        for j in range(self.turns):
            s += self.k * x * (j + 1)
        return s

    def _private(self):
        pass

    def py_helper(self):
        return "never translated (py_ prefix, as Compyle)"


VALUES = [-1.5, 0.0, 0.3, 2.0]


def test_instance_gives_struct_and_methods_text():
    code = CConverter().parse_instance(Spring())
    assert code.startswith(CStructHelper(Spring()).get_code())
    assert "double Spring_energy(Spring* self, double v)" in code
    assert "double Spring_pull(Spring* self, double x)" in code
    assert "self->mass" in code and "Spring_pull(self, v)" in code
    assert "_private" not in code and "py_helper" not in code
    assert "Spring_pull" not in CConverter().parse_instance(
        Spring(), ignore_methods=["pull", "energy"])
    # Compyle's test_opencl_class and test_handles_parsing_functions, in meaning:
    # a class without an instance gives its methods (they read no field).
    text = OpenCLConverter().convert(dedent('''
        class Foo(object):
            def g(self, x=0.0):
                pass
        '''))
    assert "void Foo_g(__global Foo* self, double x)" in text

    class A(object):
        def f(self, x=1.0):
            return x + 1.0
    with use_config(use_double=False):
        assert "double A_f(A* self, double x)\n{\n    return x + 1.0;\n}" in \
            CConverter().parse_function(A)


def _c_library(code, tmp_path):
    src = tmp_path / "spring.c"
    src.write_text("#include <math.h>\n" + code)
    lib = tmp_path / "spring.so"
    subprocess.run([compiler_command()[0], "-shared", "-fPIC", "-O1", str(src), "-o",
                    str(lib), "-lm"], check=True, capture_output=True)
    return ctypes.CDLL(str(lib))


def test_c_methods_compute_what_python_does(tmp_path):
    spring = Spring(mass=1.75, turns=4, k=0.5)
    code = CConverter().parse_instance(spring)
    lib = _c_library(code + "double call_energy(Spring* s, double v)"
                     " { return Spring_energy(s, v); }\n", tmp_path)
    lib.call_energy.restype = ctypes.c_double
    lib.call_energy.argtypes = [ctypes.c_void_p, ctypes.c_double]
    record = CStructHelper(spring).get_array()
    for v in VALUES:
        assert lib.call_energy(record.ctypes.data, v) == pytest.approx(
            spring.energy(v), rel=1e-12)


def test_opencl_methods_compute_what_python_does(request):
    from conftest import require_backend
    require_backend(request, "opencl")
    import pyopencl as cl
    import pyopencl.array as cl_array
    from pcompute.opencl import get_queue
    queue = get_queue()
    if not queue.device.double_fp_config:
        pytest.skip("the OpenCL device has no double precision")
    spring = Spring(mass=0.5, turns=2, k=3.0)
    code = OpenCLConverter().parse_instance(spring)
    assert "double Spring_energy(__global Spring* self, double v)" in code
    program = cl.Program(queue.context, code + """
__kernel void run(__global Spring* s, __global double* v, __global double* out)
{
    int i = get_global_id(0);
    out[i] = Spring_energy(s, v[i]);
}
""").build()
    record = CStructHelper(spring).get_array()
    s = cl.Buffer(queue.context, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR,
                  hostbuf=record)
    v = cl_array.to_device(queue, np.array(VALUES))
    out = cl_array.zeros(queue, len(VALUES), np.float64)
    program.run(queue, (len(VALUES),), None, s, v.data, out.data)
    np.testing.assert_allclose(out.get(), [spring.energy(x) for x in VALUES], rtol=1e-12)


def test_cuda_methods_compile():
    if nvcc_path() is None:
        pytest.skip("nvcc is not installed: CUDA code cannot be compile-checked here")
    code = CUDAConverter().parse_instance(Spring())
    assert "__device__ double Spring_energy(Spring* self, double v)" in code
    check_cuda_source(code + "\n__global__ void run(Spring* s, double* v, double* out)"
                      "\n{\n    out[threadIdx.x] = Spring_energy(s, v[threadIdx.x]);\n}\n")


class Derived(Spring):
    def extra(self):
        return self.mass


class Static:
    @staticmethod
    def g(x=0.0):
        return x


class Writer:
    def __init__(self):
        self.x = 1.0

    def set(self, v=0.0):
        self.x = v


class Reader:
    def __init__(self):
        self.x = 1.0

    def get(self):
        return self.y

    def alias(self):
        o = self
        return 1.0

    def call(self):
        return self.missing(1)


def _line_of(cls, text):
    import inspect
    lines, first = inspect.getsourcelines(cls)
    return first + next(k for k, line in enumerate(lines) if text in line)


def test_unsupported_class_constructs_are_located_errors():
    with pytest.raises(KernelTypeError, match=r"test_translator_classes.py:%d: class "
                       r"Derived\(Spring\): kernels cannot use classes that inherit"
                       % _line_of(Derived, "class Derived")):
        CConverter().parse_instance(Derived())
    with pytest.raises(KernelTypeError, match="Static.g is a staticmethod"):
        CConverter().parse(Static)
    with pytest.raises(KernelSyntaxError, match="cannot assign to self.x: the fields "
                       "of an object are read-only") as info:
        CConverter().parse_instance(Writer())
    assert info.value.location.lineno == _line_of(Writer, "self.x = v")
    with pytest.raises(KernelTypeError, match=r"self.y: an object of class Reader has "
                       r"no number attribute 'y' in kernels \(its fields: x\)") as info:
        CConverter().parse_instance(Reader(), ignore_methods=["alias", "call"])
    assert info.value.location.lineno == _line_of(Reader, "return self.y")
    with pytest.raises(KernelTypeError, match="an object cannot be assigned to a local"):
        CConverter().parse_instance(Reader(), ignore_methods=["get", "call"])
    with pytest.raises(KernelTypeError, match="class Reader has no method 'missing'"):
        CConverter().parse_instance(Reader(), ignore_methods=["get", "alias"])
    with pytest.raises(KernelTypeError, match="the fields of class Reader are not known"):
        CConverter().parse(Reader)
    # Compyle's test_calling_method_of_known_type_in_method: a class it cannot see
    with pytest.raises(KernelTypeError, match=r"argument 'obj': KnownType\(\"SomeClass\*\", "
                       r"\"SomeClass\"\) is not a type pcompute can translate"):
        py2c("class Foo:\n    def f(self, obj):\n        obj.method(1, 2)\n",
             known_types={"obj": KnownType("SomeClass*", base_type="SomeClass")})
    with pytest.raises(KernelTypeError, match=r"line 3: class B\(A\): kernels cannot"):
        py2c("class A:\n    pass\nclass B(A):\n    def f(self):\n        pass\n")
