"""Kernels for tests/test_low_level.py and tests/test_template.py."""
from pcompute.low_level import (GDIM_0, GID_0, LDIM_0, LID_0, Extern,  # noqa: F401
                                local_barrier, prange)
from pcompute.template import Template
from pcompute.types import annotate


@annotate(x='gdoublep', out='gdoublep', tmp='ldoublep', n='int')
def block_sum(x, out, tmp, n):
    lid = LID_0
    gid = GID_0 * LDIM_0 + LID_0
    if gid < n:
        tmp[lid] = x[gid]
    else:
        tmp[lid] = 0.0
    local_barrier()
    s = LDIM_0 // 2
    while s > 0:
        if lid < s:
            tmp[lid] += tmp[lid + s]
        local_barrier()
        s = s // 2
    if lid == 0:
        out[GID_0] = tmp[0]


@annotate(x='gdoublep', n='int', return_='double')
def parallel_total(x, n):
    s = 0.0
    for i in prange(n):
        s += x[i]
    return s


@annotate(a='gintp', n='int', return_='long')
def serial_weighted(a, n):
    s = 0
    for i in range(n):
        s += (i % 3) * a[i]
    return s


def uses_lid(i, x):
    x[i] = LID_0


class _Twice(Extern):
    return_type = "double"

    def code(self, backend):
        if backend == "cython":
            return "cdef inline double twice(double x) noexcept nogil:\n    return 2.0 * x"
        prefix = "__device__ " if backend == "cuda" else ""
        return prefix + "double twice(double x) { return 2.0 * x; }"

    def __call__(self, x):
        return 2.0 * x


twice = _Twice()


def apply_twice(i, x, y):
    y[i] = twice(x[i])


class AlignTemplate(Template):
    """One template producing an align kernel for any number of arrays."""

    def __init__(self, name, num):
        super().__init__(name)
        self.num = num

    def extra_args(self):
        names = ["src%d" % k for k in range(self.num)]
        names += ["dst%d" % k for k in range(self.num)]
        return names, {}

    def template(self, i, order):
        '''
        j = order[i]
        % for k in range(obj.num):
        dst${k}[i] = src${k}[j]
        % endfor
        '''


def add_one_body(i, x):
    """A function whose body is injected into a template."""
    x[i] = x[i] + 1


class InjectTemplate(Template):
    def template(self, i, x):
        '''
        ${obj.inject(obj.helper_func, indent=0)}
        x[i] = 2 * x[i]
        '''

    helper_func = staticmethod(add_one_body)


class TypedTemplate(Template):
    def extra_args(self):
        return ["x"], {"x": "gdoublep", "i": "int"}

    def template(self, i):
        '''
        x[i] = x[i] * 3.0
        '''


from pcompute.low_level import nogil, parallel  # noqa: E402


@annotate(x='gdoublep', n='int', return_='double')
def compyle_style_total(x, n):
    s = 0.0
    with nogil, parallel():
        for i in prange(n):
            s += x[i]
    return s


class _CubeRoot(Extern):
    """An Extern whose cython code uses libm's cbrt; ``libs`` is what link()
    asks for (tests change it)."""
    return_type = "double"
    libs = ["-lm"]

    def code(self, backend):
        if backend == "cython":
            return ('cdef extern from "math.h":\n    double cbrt(double x) nogil\n\n\n'
                    "cdef inline double cube_root(double x) noexcept nogil:\n"
                    "    return cbrt(x)")
        prefix = "__device__ " if backend == "cuda" else ""
        return prefix + "double cube_root(double x) { return cbrt(x); }"

    def link(self, backend):
        return list(self.libs) if backend == "cython" else []

    def __call__(self, x):
        return x ** (1.0 / 3.0)


cube_root = _CubeRoot()


def apply_cube_root(i, x, y):
    y[i] = cube_root(x[i])
