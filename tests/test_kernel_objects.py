"""Objects of user classes passed to kernels: ``obj.field`` reads and
``obj.method(...)`` calls (``Class_method(Class* self, ...)`` in the
generated code) on every backend, against the plain Python methods."""
import numpy as np
import pytest

import pcompute as pc
from pcompute import Elementwise, Reduction
from pcompute.build.cuda_builder import check_cuda_source, nvcc_path
from pcompute.config import use_config
from pcompute.errors import KernelSyntaxError, KernelTypeError, KernelValueError


class Spring:
    """Parameters of a spring force, with the methods kernels call."""

    def __init__(self, mass=2.5, turns=3, k=-0.75):
        self.mass, self.turns, self.k = mass, turns, k
        self.name = "not a number: not a field"

    def energy(self, v):
        return 0.5 * self.mass * v * v + self.pull(v)

    def pull(self, x):
        s = 0.0
        for j in range(self.turns):
            s += self.k * x * (j + 1)
        return s


def spring_kernel(i, x, y, s):
    y[i] = s.energy(x[i]) + s.turns * s.mass


def spring_energy(i, x, s):
    return s.energy(x[i])


def reference(x, s):
    return np.array([s.energy(float(v)) + s.turns * s.mass for v in x])


def test_object_methods_and_fields(backend):
    x = pc.wrap(np.linspace(-1.5, 2.0, 9).astype(backend.dtype))
    y = pc.zeros(9, backend.dtype)
    spring = Spring(mass=1.25, turns=4, k=-0.5)
    e = Elementwise(spring_kernel)
    e(x, y, spring)
    y.pull()
    np.testing.assert_allclose(y.data, reference(x.data, spring), rtol=backend.rtol)
    # A new value of a field is passed at the next call; a field of another
    # type (k now a float, before an int) gives a kernel of its own.
    spring.mass, spring.turns = 3.0, 2
    other = Spring(mass=0.5, turns=3, k=2)
    for obj in (spring, other, spring):
        e(x, y, obj)
        y.pull()
        np.testing.assert_allclose(y.data, reference(x.data, obj), rtol=backend.rtol)
    if backend.precision == "float64":   # float32 objects: Elementwise above
        total = Reduction("a + b", map_func=spring_energy)(x, other)
        assert total == pytest.approx(sum(other.energy(float(v)) for v in x.data),
                                      rel=1e-12)


class Grid:
    def __init__(self, n):
        self.n = n

    def cells(self):
        return self.n * self.n          # int fields are int32: wraps as C's


def grid_kernel(i, y, g):
    y[i] = g.cells() + i


@pytest.mark.integer_data
def test_object_int_fields_wrap_as_c_ints(backend):
    """An int field is a C int on every backend: the python backend's methods
    see the struct's values (a plain Python method would give 10**10)."""
    y = pc.zeros(3, np.int64)
    Elementwise(grid_kernel)(y, Grid(100000))
    with np.errstate(over="ignore"):
        cells = np.int32(100000) * np.int32(100000)
    np.testing.assert_array_equal(y.get(), [cells, cells + 1, cells + 2])


def test_object_kernel_cuda_source_compiles():
    if nvcc_path() is None:
        pytest.skip("nvcc is not installed: CUDA code cannot be compile-checked here")
    x = np.linspace(0.0, 1.0, 4)
    with use_config(use_double=True):
        source = Elementwise(spring_kernel).generate("cuda", x, x.copy(), Spring())
    assert "__device__ double Spring_energy(Spring* self, double v)" in source
    assert "typedef struct Spring {" in source
    check_cuda_source(source)


class Counter:
    def __init__(self):
        self.count = 0

    def bump(self):
        self.count += 1
        return self.count


class Base:
    def __init__(self):
        self.x = 1.0


class Child(Base):
    def get(self):
        return self.x


def bump_kernel(i, y, c):
    y[i] = c.bump()


def missing_field(i, y, s):
    y[i] = s.stiffness


def assign_object(i, y, s):
    t = s
    y[i] = 1.0


def child_kernel(i, y, c):
    y[i] = c.get()


def test_object_mistakes_are_located_errors():
    y = np.zeros(3)
    with use_config(backend="python"):
        with pytest.raises(KernelSyntaxError, match="cannot assign to self.count: the "
                           "fields of an object are read-only in kernels") as info:
            Elementwise(bump_kernel)(y, Counter())
        assert info.value.location.line.strip() == "self.count += 1"
        with pytest.raises(KernelTypeError, match=r"s.stiffness: an object of class Spring "
                           r"has no number attribute 'stiffness' in kernels \(its "
                           r"fields: k, mass, turns\)"):
            Elementwise(missing_field)(y, Spring())
        with pytest.raises(KernelTypeError, match="an object cannot be assigned to a "
                           "local name"):
            Elementwise(assign_object)(y, Spring())
        with pytest.raises(KernelTypeError, match=r"argument 'c' of child_kernel\(\): .*"
                           r"test_kernel_objects.py:\d+: class Child\(Base\): kernels "
                           r"cannot use classes that inherit"):
            Elementwise(child_kernel)(y, Child())
        with pytest.raises(KernelValueError, match="Grid.n is 1099511627776, which does "
                           "not fit the C int field of the struct of class Grid"):
            Elementwise(grid_kernel)(np.zeros(3, np.int64), Grid(2 ** 40))
