"""n-D arrays in kernels: ``a[i, j]``, ``a.shape[d]``, n-D index spaces, and the
errors for misuse.  Cross-backend cases run through the ``backend`` fixture and
compare with NumPy; the corpus (tests/kernels/nd_corpus.py) adds the stencils,
gemm, transpose and 3-D kernels compared with the python backend."""
import inspect

import numpy as np
import pytest

import pcompute as pc
from pcompute import Elementwise, annotate, declare
from pcompute.errors import KernelSyntaxError, KernelTypeError, KernelValueError
from pcompute.generate import generate_source


def grid(shape, dtype, seed=0):
    return np.random.default_rng(seed).random(shape).astype(dtype)


def on_device(*arrays):
    out = [pc.wrap(a) for a in arrays]
    return out[0] if len(out) == 1 else out


def host(a):
    return a.pull().data


def laplace(i, j, u, out):
    if i > 0 and j > 0 and i < u.shape[0] - 1 and j < u.shape[1] - 1:
        out[i, j] = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j]


def laplace_numpy(u):
    out = np.zeros_like(u)
    out[1:-1, 1:-1] = (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:]
                       - 4 * u[1:-1, 1:-1])
    return out


def test_laplace_matches_numpy_and_a_new_shape_does_not_recompile(backend):
    e = Elementwise(laplace)
    for shape in [(13, 21), (30, 9)]:
        u = grid(shape, backend.dtype)
        ua, oa = on_device(u, np.zeros_like(u))
        e(ua, oa)
        np.testing.assert_allclose(host(oa), laplace_numpy(u), rtol=backend.rtol,
                                   atol=backend.rtol)
    assert len(e._built) == 1, "a new shape must not recompile"


def gemm(i, j, c, a, b):
    """The index space is the shape of c, the first 2-D array argument."""
    acc = 0.0
    for k in range(a.shape[1]):
        acc += a[i, k] * b[k, j]
    c[i, j] = acc


def test_gemm_matches_numpy(backend):
    a, b = grid((9, 5), backend.dtype, 1), grid((5, 7), backend.dtype, 2)
    aa, ba, ca = on_device(a, b, np.zeros((9, 7), backend.dtype))
    Elementwise(gemm)(ca, aa, ba)
    np.testing.assert_allclose(host(ca), a @ b, rtol=backend.rtol)


def fill3(i, j, k, a, scale):
    a[i, j, k] = scale * (i * 100 + j * 10 + k)


def test_3d_index_space_and_rank_8(backend):
    a = on_device(np.zeros((4, 3, 5), backend.dtype))
    Elementwise(fill3)(a, 2)
    i, j, k = np.indices((4, 3, 5))
    np.testing.assert_array_equal(host(a), 2 * (i * 100 + j * 10 + k))


def rank8(i, a, out):
    out[i] = a[i, 1, 0, 1, 0, 1, 0, 1] + a.ndim


def test_rank_8_array(backend):
    a = grid((3, 2, 1, 2, 1, 2, 1, 2), backend.dtype)
    aa, oa = on_device(a, np.zeros(3, backend.dtype))
    Elementwise(rank8)(aa, oa)
    np.testing.assert_allclose(host(oa), a[:, 1, 0, 1, 0, 1, 0, 1] + 8, rtol=backend.rtol)


def flat_fill(i, j, a, ncols):
    a[i * ncols + j] = i * 10 + j


def test_explicit_shape(backend):
    a = on_device(np.zeros(12, np.int64))
    Elementwise(flat_fill)(a, 4, shape=(3, 4))
    np.testing.assert_array_equal(host(a), [10 * (k // 4) + k % 4 for k in range(12)])
    with pytest.raises(KernelValueError, match="shape="):
        Elementwise(flat_fill)(a, 4, shape=(3, 4, 1))


def row_info(i, a, total, n):
    s = 0.0
    for j in range(a.shape[1]):
        s += a[i, j]
    total[i] = s
    n[i] = len(total) * 1000 + a.size + a.ndim


def test_shape_size_ndim_len(backend):
    a = grid((6, 4), backend.dtype)
    aa, ta, na = on_device(a, np.zeros(6, backend.dtype), np.zeros(6, np.int64))
    Elementwise(row_info)(aa, ta, na)
    np.testing.assert_allclose(host(ta), a.sum(axis=1), rtol=backend.rtol)
    np.testing.assert_array_equal(host(na), np.full(6, 6 * 1000 + 24 + 2))


@annotate(i="int", j="int", a="gdoublep2", b="double[:, :]")
def annotated_copy(i, j, a, b):
    b[i, j] = a[i, j] + 1.0


def py3_copy(i: "long", j: "long", a: "double[:, ::1]", b: "gdoublep2"):
    b[i, j] = 2.0 * a[i, j]


def test_annotations_spell_ranks(backend):
    if not backend.use_double:
        pytest.skip("the kernels are annotated double; float64 data is used")
    a = grid((5, 6), np.float64)
    aa, ba = on_device(a, np.zeros_like(a))
    Elementwise(annotated_copy)(aa, ba)
    np.testing.assert_allclose(host(ba), a + 1.0)
    Elementwise(py3_copy)(aa, ba)
    np.testing.assert_allclose(host(ba), 2.0 * a)


def corner_sum(a, i, j):
    return a[i, j] + a[i + 1, j + 1]


def with_helper(i, j, a, out):
    if i < a.shape[0] - 1 and j < a.shape[1] - 1:
        out[i, j] = corner_sum(a, i, j)


def test_helper_takes_an_nd_array(backend):
    a = grid((7, 8), backend.dtype)
    aa, oa = on_device(a, np.zeros_like(a))
    Elementwise(with_helper)(aa, oa)
    want = np.zeros_like(a)
    want[:-1, :-1] = a[:-1, :-1] + a[1:, 1:]
    np.testing.assert_allclose(host(oa), want, rtol=backend.rtol)


def matrix_local(i, x):
    m = declare("matrix((2, 2))")
    m[0, 1] = x[i]
    m[1][0] = 2.0
    x[i] = m[0, 1] + m[1, 0]


def test_local_matrix_takes_a_tuple_index(backend):
    x = grid(10, backend.dtype)
    xa = on_device(x.copy())
    Elementwise(matrix_local)(xa)
    np.testing.assert_allclose(host(xa), x + 2.0, rtol=backend.rtol)


# -- the generated code ------------------------------------------------------------

def test_generated_code_passes_shapes_and_64_bit_strides():
    src = generate_source(laplace, backend="cython", types={"u": "gdoublep2",
                                                            "out": "double[:, :]"},
                          index_dims=2)
    assert "long long pc_s0_u" in src and "long long pc_n1_out" in src
    assert "u[(i - 1) * pc_s0_u + j]" in src          # last axis contiguous: stride 1
    assert "out[i * pc_s0_out + j * pc_s1_out]" in src  # any strides
    for dialect in ("opencl", "cuda"):
        text = generate_source(laplace, backend=dialect, types={"u": "gdoublep2",
                                                                "out": "gdoublep2"},
                               index_dims=2)
        assert "pc_elementwise(" in text and "pc_n1_u" in text


# -- errors --------------------------------------------------------------------------

def chained(i, j, a):
    a[i][j] = 0.0


def too_few(i, a):
    a[i] = 0.0


def too_many(i, j, a):
    a[i, j, 0] = 0.0


def bad_axis(i, j, a):
    a[i, j] = a.shape[2]


def var_axis(i, j, a):
    a[i, j] = a.shape[i]


def bare_shape(i, j, a):
    s = a.shape
    a[i, j] = 0.0


def local_alias(i, j, a):
    b = a
    b[i, j] = 0.0


def negative(i, j, a):
    a[i, j] = a[i, -1]


def raw_shape(i, x):
    x[i] = x.shape[0]


ERRORS = [
    (chained, KernelTypeError, "a is a 2-D array: it takes 2 indices at once",
     "a[i, j] (not a[i][j])"),
    (too_few, KernelTypeError, "takes 2 indices, got 1", "a[i, j]"),
    (too_many, KernelTypeError, "takes 2 indices, got 3", "a[i, j]"),
    (bad_axis, KernelTypeError, "no axis 2", "0 to 1"),
    (var_axis, KernelSyntaxError, "integer literal", "a.shape[0]"),
    (bare_shape, KernelSyntaxError, "tuple", "a.shape[0]"),
    (local_alias, KernelTypeError, "cannot be assigned to a local", "argument itself"),
    (negative, KernelSyntaxError, "negative indices", "x.shape[1] - 1"),
]


@pytest.mark.parametrize("func, cls, message, hint", ERRORS,
                         ids=[e[0].__name__ for e in ERRORS])
def test_misuse_is_a_located_error(func, cls, message, hint):
    nparams = len(inspect.signature(func).parameters)
    with pytest.raises(cls) as info:
        generate_source(func, backend="cython", types={"a": "gdoublep2"},
                        index_dims=nparams - 1)
    exc = info.value
    assert message in exc.message and hint in exc.hint, str(exc)
    assert exc.location.filename == __file__
    line = inspect.getsourcelines(func)[1]
    assert line < exc.location.lineno <= line + 3, str(exc)


def test_shape_of_a_raw_pointer_says_what_to_pass():
    with pytest.raises(KernelTypeError) as info:
        generate_source(raw_shape, backend="cython", types={"x": "gdoublep"})
    assert "1-D pointer" in info.value.message and "gdoublep2" in info.value.hint


def test_call_errors():
    a2 = np.zeros((4, 5))
    with pytest.raises(KernelTypeError, match="takes 3 argument"):
        Elementwise(laplace, backend="cython")(a2)       # (i, j, u) and no 3-D array
    with pytest.raises(KernelValueError, match="last axis is strided"):
        Elementwise(py3_copy, backend="cython")(a2[:, ::2], a2[:, :2].copy())
    with pytest.raises(KernelValueError, match="3-D array was passed"):
        Elementwise(annotated_copy, backend="cython")(a2, np.zeros((4, 5, 1)))
    with pytest.raises(KernelValueError, match="2-D array was passed"):
        @annotate(x="gdoublep")
        def flat(i, x):
            x[i] = 1.0
        Elementwise(flat, backend="cython")(a2)


# -- Array views ------------------------------------------------------------------

def add_ij(i, j, a):
    a[i, j] = a[i, j] + i * 10 + j


def double_it(i, x):
    x[i] = 2 * x[i]


def test_views_share_memory_on_every_backend(backend):
    x = np.arange(48).reshape(6, 8).astype(backend.dtype)
    a = pc.wrap(x.copy())
    ref = x.copy()
    v = a[1:-1, ::2]                               # no copy: a view of a's memory
    assert v.shape == (4, 4) and v.ndim == 2 and v.strides == (8 * x.itemsize,
                                                               2 * x.itemsize)
    Elementwise(add_ij)(v)
    ii, jj = np.indices((4, 4))
    ref[1:-1, ::2] += ii * 10 + jj
    np.testing.assert_array_equal(a.get(), ref)
    np.testing.assert_array_equal(v.get(), ref[1:-1, ::2])
    t = a.T[::-1]                                  # transposed and reversed
    Elementwise(add_ij)(t)
    ii, jj = np.indices((8, 6))
    ref.T[::-1] += ii * 10 + jj
    np.testing.assert_array_equal(a.get(), ref)
    col = a[:, 3]                                  # a strided 1-D view
    Elementwise(double_it)(col)
    ref[:, 3] *= 2
    np.testing.assert_array_equal(a.get(), ref)
    Elementwise(double_it)(a[::3, 1])
    ref[::3, 1] *= 2
    np.testing.assert_array_equal(a.get(), ref)


def test_view_get_push_copy_setitem(backend):
    x = np.arange(24).reshape(4, 6).astype(backend.dtype)
    a = pc.wrap(x.copy())
    ref = x.copy()
    v = a[:, 1::2]
    assert v.get().shape == (4, 3) and v.pull().data.shape == (4, 3)
    v.data[...] = -1
    v.push()
    ref[:, 1::2] = -1
    np.testing.assert_array_equal(a.get(), ref)
    c = v.copy()
    assert c.shape == (4, 3)
    c.fill(9)
    np.testing.assert_array_equal(a.get(), ref)    # a copy does not share memory
    a[1:3, 0] = 7
    a[0, 0] = 5
    a[3, ::2] = np.array([1, 2, 3], backend.dtype)
    ref[1:3, 0], ref[0, 0], ref[3, ::2] = 7, 5, [1, 2, 3]
    np.testing.assert_array_equal(a.get(), ref)
    assert a[2, 4] == ref[2, 4] and a[-1, -1] == ref[-1, -1]
    v.fill(0)
    ref[:, 1::2] = 0
    np.testing.assert_array_equal(a.get(), ref)
    with pytest.raises(IndexError):
        a[4, 0]
    with pytest.raises(KernelValueError, match="shape"):
        a[0, :] = np.zeros(5)


def test_reshape_and_transpose(backend):
    x = np.arange(24).astype(backend.dtype)
    a = pc.wrap(x.copy())
    r = a.reshape(2, 3, 4)
    assert r.shape == (2, 3, 4)
    np.testing.assert_array_equal(r.get(), x.reshape(2, 3, 4))
    np.testing.assert_array_equal(r.transpose(2, 0, 1).get(), x.reshape(2, 3, 4)
                                  .transpose(2, 0, 1))
    np.testing.assert_array_equal(r.reshape(-1, 6).T.get(), x.reshape(4, 6).T)
    Elementwise(fill3)(r, 1)                       # writes through the reshaped view
    i, j, k = np.indices((2, 3, 4))
    np.testing.assert_array_equal(a.get(), (i * 100 + j * 10 + k).ravel())
    with pytest.raises(KernelValueError, match="strided"):
        r.T.reshape(24)
    with pytest.raises(KernelValueError, match="permutation"):
        r.transpose(0, 0, 1)
    with pytest.raises(KernelValueError, match="contiguous 1-D"):
        r.append(1.0)


def test_rank_4_view_get(backend):
    x = np.arange(2 * 3 * 4 * 5).reshape(2, 3, 4, 5).astype(backend.dtype)
    a = pc.wrap(x)
    np.testing.assert_array_equal(a[:, ::2, 1:, ::-2].get(), x[:, ::2, 1:, ::-2])


# -- bounds checks ---------------------------------------------------------------------

def shift_down(i, j, u, out):
    out[i, j] = u[i + 1, j]                          # <- out of range at the last row


def shift_left(i, x, y):
    y[i] = x[i - 1]                                  # <- negative at i = 0


def test_bounds_checks_raise_an_index_error(backend):
    u, out = on_device(grid((4, 5), backend.dtype), np.zeros((4, 5), backend.dtype))
    x, y = on_device(grid(6, backend.dtype), np.zeros(6, backend.dtype))
    with pc.use_config(bounds_check=True):
        with pytest.raises(IndexError) as info:
            Elementwise(shift_down)(u, out)
        exc = info.value
        assert "index 4 is out of range for axis 0 of array 'u' (length 4)" in str(exc)
        assert "shift_down()" in str(exc)
        assert exc.location.filename == __file__
        assert exc.location.lineno == inspect.getsourcelines(shift_down)[1] + 1
        with pytest.raises(IndexError, match=r"index -1 is out of range .* array 'x'"):
            Elementwise(shift_left)(x, y)
        fresh = on_device(np.zeros((4, 5), backend.dtype))
        Elementwise(laplace)(u, fresh)               # in range: runs, same answer
    np.testing.assert_allclose(host(fresh), laplace_numpy(host(u)), rtol=backend.rtol,
                               atol=backend.rtol)


def test_debug_turns_bounds_checks_on_and_they_are_off_by_default():
    types = {"u": "gdoublep2", "out": "gdoublep2"}
    plain = generate_source(shift_down, backend="opencl", types=types, index_dims=2)
    assert "pc_bound" not in plain and "pc_err" not in plain
    # OpenCL and CUDA compute signed + in unsigned (wrap-around, issue 24)
    plus = {"cython": "i + 1", "opencl": "(long)((ulong)i + 1UL)",
            "cuda": "(long long)((unsigned long long)i + 1ULL)"}
    for dialect in ("cython", "opencl", "cuda"):
        text = generate_source(shift_down, backend=dialect, types=types, index_dims=2,
                               config={"debug": True})
        assert "pc_bound_long(%s, pc_n0_u, 2, 0, pc_err)" % plus[dialect] in text, dialect


def test_checked_cuda_source_compiles():
    from pcompute.build import cuda_builder
    if cuda_builder.nvcc_path() is None:
        pytest.skip("nvcc not found: the CUDA source cannot be compile-checked here")
    cuda_builder.check_cuda_source(generate_source(
        with_helper, backend="cuda", types={"a": "gdoublep2", "out": "double[:, :]"},
        index_dims=2, config={"bounds_check": True, "use_double": True}))


def test_pcompute_source_prints_nd_kernels(capsys):
    from pcompute.cli import main
    target = "%s:laplace" % __file__
    assert main(["source", target, "-b", "cuda", "--index-dims", "2",
                 "--types", "u=double[:, :],out=gdoublep2"]) == 0
    text = capsys.readouterr().out
    assert "pc_elementwise(long long pc_n0, long long pc_n1" in text
    assert "u[(long long)((unsigned long long)i - 1ULL) * pc_s0_u + j * pc_s1_u]" in text


# -- reductions over n-D index spaces ----------------------------------------------------

def weighted_square(i, j, a, w):
    return a[i, j] * a[i, j] * w


def diagonal_planes(i, j, k, a):
    return a[i, j, k] if i == j else 0.0


def test_reductions_reduce_the_whole_nd_domain(backend):
    x = grid((37, 23), backend.dtype, 4)
    y = grid((5, 5, 4), backend.dtype, 5)
    a, b = on_device(x, y)
    got = pc.Reduction("a+b", map_func=weighted_square, dtype_out=backend.dtype)(a, 2.0)
    np.testing.assert_allclose(got, (x * x * 2).sum(), rtol=backend.rtol)
    got = pc.Reduction("a+b", map_func=diagonal_planes, dtype_out=backend.dtype)(b)
    np.testing.assert_allclose(got, sum(y[i, i].sum() for i in range(5)), rtol=backend.rtol)
    total = pc.Reduction("a+b", dtype_out=backend.dtype)
    np.testing.assert_allclose(total(a[1:, ::2]), x[1:, ::2].sum(), rtol=backend.rtol)
    np.testing.assert_allclose(total(b), y.sum(), rtol=backend.rtol)
    biggest = pc.Reduction("max(a, b)", neutral="-INFINITY", dtype_out=backend.dtype)
    assert biggest(a.T) == x.max()
    got = pc.Reduction("a+b", map_func=weighted_square, dtype_out=backend.dtype)(
        a, 1.0, shape=(3, 4))
    np.testing.assert_allclose(got, (x[:3, :4] ** 2).sum(), rtol=backend.rtol)


def test_nd_reduction_cuda_source_compiles():
    from pcompute.backends.registry import get_backend
    from pcompute.build import cuda_builder
    from pcompute.config import Config
    if cuda_builder.nvcc_path() is None:
        pytest.skip("nvcc not found: the CUDA source cannot be compile-checked here")
    r = pc.Reduction("a+b", map_func=weighted_square)._nd(2)
    config = Config(read_environment=False, use_double=True)
    cuda = get_backend("cuda")
    spec = r._spec((7, np.zeros((3, 7)), 2.0), cuda, config)
    cuda_builder.check_cuda_source(cuda.generate_reduction(spec, config).source)


def stamp(i, j, a):
    a[i, j] = i * 10000 + j


def stamp3(i, j, k, a):
    a[i, j, k] = i * 1000000 + j * 1000 + k


@pytest.mark.parametrize("shape", [(3, 1000), (700, 4), (2, 3, 500), (300, 2, 5)])
def test_parallel_loops_short_and_long_outer_axes(backend, shape):
    """Above the serial threshold the OpenMP module runs the outer index in
    parallel, or the whole space collapsed when the outer axis is short."""
    a = on_device(np.zeros(shape, np.int64))
    Elementwise(stamp if len(shape) == 2 else stamp3)(a)
    idx = np.indices(shape)
    want = idx[0] * 10000 + idx[1] if len(shape) == 2 else \
        idx[0] * 1000000 + idx[1] * 1000 + idx[2]
    np.testing.assert_array_equal(host(a), want)


def last_of(x):
    return x[len(x) - 1]


def uses_helper_len(i, x, y):
    y[i] = x[i] + last_of(x)


def test_a_helper_reading_the_length_gets_a_shaped_array(backend):
    x = grid(9, backend.dtype)
    xa, ya = on_device(x, np.zeros(9, backend.dtype))
    Elementwise(uses_helper_len)(xa, ya)
    np.testing.assert_allclose(host(ya), x + x[-1], rtol=backend.rtol)


def one_row_down(i, j, a):
    return a[i + 1, j]                               # <- out of range at the last row


def next_item(i, x):
    return x[i + 1]


def test_reduction_maps_are_bounds_checked(backend):
    a, x = on_device(np.ones((4, 5), backend.dtype), np.ones(5, backend.dtype))
    with pc.use_config(bounds_check=True):
        with pytest.raises(IndexError, match="index 4 is out of range for axis 0") as info:
            pc.Reduction("a+b", map_func=one_row_down, dtype_out=backend.dtype)(a)
        assert info.value.location.lineno == inspect.getsourcelines(one_row_down)[1] + 1
        with pytest.raises(IndexError, match="index 5 .* array 'x'"):
            pc.Reduction("a+b", map_func=next_item, dtype_out=backend.dtype)(x)
        assert pc.Reduction("a+b", dtype_out=backend.dtype)(a) == 20
