"""@dataparallel functions on every backend against the plain-Python oracle
(``f.py``, the prelude) and NumPy, with the number of kernels per call pinned
so fusion cannot silently regress."""
import operator

import numpy as np
import pytest

from pcompute.dataparallel import (dataparallel, exclusive_scan, gather, indices, len,
                                   map, max, min, permute, reduce, replicate, rotate,
                                   rscan, scan, scatter, shift, sort, sort_by_key, split, sum)
from pcompute.errors import KernelSyntaxError, KernelTypeError, KernelValueError
from examples.dataparallel.axpy import axpy
from examples.dataparallel.black_scholes import black_scholes
from examples.dataparallel.extrema import extrema, sum_of_squares
from examples.dataparallel.radix_sort import radix_pass, radix_sort
from examples.dataparallel.spmv import spmv_csr, spmv_ell

from conftest import AheadGroups


def kinds(f):
    return [kind for kind, _ in f.last_phases]


def host(x):
    return np.asarray(x.get() if hasattr(x, "get") else x)


def random_csr(rng, rows, cols, dtype):
    counts = rng.integers(0, 5, rows)
    counts[rows // 2] = 0                        # an empty row
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)
    nnz = int(offsets[-1])
    return (rng.random(nnz).astype(dtype), rng.integers(0, cols, nnz).astype(np.int32),
            offsets)


def test_axpy(backend):
    rng = np.random.default_rng(1)
    x, y = (rng.random(1000).astype(backend.dtype) for _ in range(2))
    out = axpy(2.5, x, y)
    assert kinds(axpy) == ["elementwise"]
    np.testing.assert_allclose(host(out), 2.5 * x + y, rtol=backend.rtol)
    np.testing.assert_allclose(host(out), axpy.py(2.5, x, y), rtol=backend.rtol)


def test_spmv_csr_one_kernel(backend):
    rng = np.random.default_rng(2)
    data, cols, offsets = random_csr(rng, 300, 40, backend.dtype)
    x = rng.random(40).astype(backend.dtype)
    dense = np.zeros((300, 40))
    for r in range(300):
        for k in range(offsets[r], offsets[r + 1]):
            dense[r, cols[k]] += data[k]
    y = spmv_csr(data, cols, offsets, x)
    assert kinds(spmv_csr) == ["elementwise"]
    np.testing.assert_allclose(host(y), dense @ x, rtol=backend.rtol * 10)
    np.testing.assert_allclose(host(y), spmv_csr.py(data, cols, offsets, x),
                               rtol=backend.rtol * 10)


def test_spmv_ell_one_kernel(backend):
    rng = np.random.default_rng(12)
    rows, width, ncols = 200, 4, 30
    cols = rng.integers(0, ncols, (rows, width)).astype(np.int32)
    data = rng.random((rows, width)).astype(backend.dtype)
    data[rng.random((rows, width)) < 0.3] = 0              # padding entries
    x = rng.random(ncols).astype(backend.dtype)
    want = (data.astype(float) * x.astype(float)[cols]).sum(axis=1)
    y = spmv_ell(data.ravel(), cols.ravel(), x, width)
    assert kinds(spmv_ell) == ["elementwise"]
    np.testing.assert_allclose(host(y), want, rtol=backend.rtol * 10)


def test_black_scholes_one_kernel(backend):
    rng = np.random.default_rng(3)
    S = rng.uniform(5, 60, 500).astype(backend.dtype)
    X = rng.uniform(10, 50, 500).astype(backend.dtype)
    T = rng.uniform(0.2, 2, 500).astype(backend.dtype)
    call, put = black_scholes(S, X, T, 0.02, 0.3)
    assert kinds(black_scholes) == ["elementwise"]
    ref_call, ref_put = black_scholes.py(S, X, T, 0.02, 0.3)
    np.testing.assert_allclose(host(call), ref_call, rtol=backend.rtol * 10, atol=1e-4)
    np.testing.assert_allclose(host(put), ref_put, rtol=backend.rtol * 10, atol=1e-4)
    # put-call parity, from NumPy: C - P = S - X exp(-rT)
    parity = S.astype(float) - X * np.exp(-0.02 * T.astype(float))
    np.testing.assert_allclose(host(call) - host(put), parity, atol=1e-3)


def test_radix_sort_scan_and_scatter_phases(backend):
    rng = np.random.default_rng(4)
    keys = rng.integers(0, 5000, 700).astype(np.int32)
    assert radix_sort(keys).tolist() == sorted(keys.tolist())
    assert kinds(radix_pass) == ["scan", "elementwise"]


def test_extrema_and_map_reduce(backend):
    x = np.random.default_rng(5).normal(size=777).astype(backend.dtype)
    lo, hi = extrema(x)
    assert kinds(extrema) == ["reduction", "reduction"]
    assert (lo, hi) == (x.min(), x.max())
    s = sum_of_squares(x)
    assert kinds(sum_of_squares) == ["reduction"]            # map fused into it
    # written so that the CPU backend sees a commuting operator (SIMD lanes)
    from pcompute.backends.cython import reduce_operator
    assert reduce_operator(sum_of_squares.last_launches[0][1].reduce_expr) == "+"
    assert reduce_operator(extrema.last_launches[0][1].reduce_expr) == "min"
    np.testing.assert_allclose(s, (x.astype(float) ** 2).sum(), rtol=backend.rtol * 10)


# -- every compiled primitive against the oracle ---------------------------------
@dataparallel
def chain(x, idx, k):
    m = map(lambda a: a * 2 + 1, x)
    g = gather(m, idx)
    return map(lambda a, b, c: min(a - b + c, 150), g, shift(g, k, 0), rotate(g, k))


@dataparallel
def scans(x):
    return (scan(operator.add, x), rscan(operator.add, x),
            exclusive_scan(operator.add, map(lambda v: v % 7, x), 5))


@dataparallel
def scatters(x, idx, out):
    return scatter(map(lambda v: v + 1, x), idx, out), permute(x, rotate(indices(x), 3))


@dataparallel
def scatter_repeats(x, idx, out):
    return scatter(map(lambda v: v * 3, x), idx, out)


def test_scatter_with_repeated_indices_keeps_the_last_write(backend):
    """As in the plain loop, the largest i writing a place wins, on every
    backend and run: the owners are claimed (atomic_max) before the writes."""
    rng = np.random.default_rng(11)
    for n, m in ((1, 1), (50, 7), (3000, 13)):
        x = rng.integers(-50, 50, n).astype(np.int64)
        idx = rng.integers(0, m, n).astype(np.int32)
        out = rng.integers(0, 9, m).astype(np.int64)
        got = host(scatter_repeats(x, idx, out))
        assert got.tolist() == scatter_repeats.py(x, idx, out).tolist()
        assert kinds(scatter_repeats) == ["elementwise"] * 3    # fill, claim, write


@dataparallel
def sorted_parts(keys, values):
    k, v = sort_by_key(map(lambda a: a % 13, keys), values)
    return sort(keys), k, map(lambda a, b: a * 100 + b, k, v)


@dataparallel
def host_scalars(x):
    n = len(x)
    total = reduce(operator.add, x, 10)
    centred = map(lambda v: v * n - total, x)
    return centred, total, sum(replicate(3, n)), max(centred)


@dataparallel
def calls_another(a, x, y):
    return sum(axpy(a, x, y))


def primitive_inputs(dtype):
    """``([(x, idx, perm_idx, out, vals) for 4 sizes], xf)``."""
    rng = np.random.default_rng(6)
    sizes = []
    for n in (1, 2, 37, 300):
        x = rng.integers(-50, 50, n).astype(np.int64)
        idx = rng.integers(0, n, n + 5).astype(np.int32)
        perm_idx = rng.permutation(n).astype(np.int32)
        out = rng.integers(0, 9, n).astype(np.int64)
        vals = rng.integers(0, 99, n).astype(np.int32)
        sizes.append((x, idx, perm_idx, out, vals))
    return sizes, rng.random(50).astype(dtype)


SHIFTS = (-3, 0, 2)


def test_primitives_match_oracle(backend):
    sizes, xf = primitive_inputs(backend.dtype)
    for x, idx, perm_idx, out, vals in sizes:
        for k in SHIFTS:
            got = host(chain(x, idx, k))
            assert got.tolist() == chain.py(x, idx, k).tolist()
        assert kinds(chain) == ["elementwise"]
        for got, ref in zip(scans(x), scans.py(x)):
            assert host(got).tolist() == ref.tolist()
        assert kinds(scans) == ["scan", "scan", "scan"]
        for got, ref in zip(scatters(x, perm_idx, out), scatters.py(x, perm_idx, out)):
            assert host(got).tolist() == ref.tolist()
        for got, ref in zip(sorted_parts(x, vals), sorted_parts.py(x, vals)):
            assert host(got).tolist() == ref.tolist()
        assert kinds(sorted_parts) == ["elementwise", "sort", "sort", "elementwise"]
        got, ref = host_scalars(x), host_scalars.py(x)
        assert host(got[0]).tolist() == ref[0].tolist() and got[1:] == ref[1:]
        # centred is returned and reduced (max): that reduction stores it
        assert kinds(host_scalars) == ["reduction", "reduction", "reduction"]
    np.testing.assert_allclose(calls_another(2.0, xf, xf), calls_another.py(2.0, xf, xf),
                               rtol=backend.rtol * 10)
    assert kinds(calls_another) == ["reduction"]            # axpy fused into the sum


# -- errors ----------------------------------------------------------------------
@dataparallel
def has_loop(x):
    for v in x:
        pass
    return x


@dataparallel
def adds_sequences(x, y):
    return x + y


@dataparallel
def sorts(x):
    return sort(x)


@dataparallel
def bad_reduce(x):
    return reduce(lambda a, b: a - b, x, 0)


@dataparallel
def unknown_call(x):
    return map(lambda v: print(v), x)


def test_errors_point_at_the_users_code():
    x = np.arange(4.0)
    with pytest.raises(KernelSyntaxError) as info:
        has_loop(x)
    assert "test_dataparallel.py" in str(info.value) and "For is not supported" in \
        str(info.value) and "for v in x" in str(info.value)
    with pytest.raises(KernelTypeError, match="map\\(lambda a, b"):
        adds_sequences(x, x)
    with pytest.raises(KernelTypeError, match="sorts integer keys, got float64"):
        sorts(x)
    with pytest.raises(KernelTypeError, match="operator.add/mul.*, got <lambda>"):
        bad_reduce(x)
    with pytest.raises(KernelTypeError, match="cannot call 'print'"):
        unknown_call(x)
    with pytest.raises(KernelValueError, match="equal lengths, got 4, 3"):
        axpy(1.0, x, x[:3])


# -- CUDA: the phases' kernels compile with nvcc --ptx (no GPU needed) ----------------
def _types(func, values):
    from pcompute.types import dtype_to_ctype
    names = func.__code__.co_varnames[1:func.__code__.co_argcount]
    out = {}
    for name, v in zip(names, values):
        ctype = dtype_to_ctype(np.asarray(v).dtype)
        out[name] = ctype.pointer_to("global") if isinstance(v, np.ndarray) else ctype
    return out


@pytest.mark.parametrize("precision", ["float32", "float64"])
def test_phases_compile_as_cuda(precision):
    from pcompute import use_config
    from pcompute.build import cuda_builder
    from pcompute.generate import generate_source
    from examples.dataparallel.mandelbrot import mandelbrot
    from examples.dataparallel.md_forces import lj_forces_2d
    from tests.test_dataparallel_ops import histogram, segmented_scans
    from examples.dataparallel.pcg import laplacian_2d, product_and_curvature, update
    if cuda_builder.nvcc_path() is None:
        pytest.skip("nvcc not found: the CUDA sources cannot be compile-checked here")
    dtype = np.dtype(precision)
    rng = np.random.default_rng(7)
    x = rng.random(20).astype(dtype)
    data, cols, offsets = random_csr(rng, 6, 20, dtype)
    keys = rng.integers(0, 50, 20).astype(np.int32)
    md_args = jittered_particles(rng, 3, 1.1, dtype) + (9.0, 0.0)
    with use_config(backend="python", use_double=precision == "float64"):
        runs = [(axpy, (2.0, x, x)), (spmv_csr, (data, cols, offsets, x)),
                (black_scholes, (x + 1, x + 1, x + 1, 0.02, 0.3)), (radix_pass, (keys, 2)),
                (host_scalars, (keys.astype(np.int64),)), (scans, (keys,)),
                (scatters, (keys, rng.permutation(20).astype(np.int32), keys)),
                (mandelbrot, (x, x, 20)), (spmv_ell, (x, keys % 20, x, 4)),
                (branches, (keys.astype(np.int64), 3)), (lj_forces_2d, md_args),
                (histogram, (x, keys % 20, x)),
                (segmented_scans, (x, np.array([0, 3, 3, 20], np.int32), 4)),
                (product_and_curvature, laplacian_2d(3, dtype) + (x[:9],)),   # stores q
                (update, (x, x + 1, x + 2, x + 3, 0.5, x + 4))]     # stores r
        checked = set()
        for f, args in runs:
            f(*args)
            for kind, prim, launch_args in f.last_launches:
                if kind == "sort":                     # pcompute's own sort kernels
                    continue
                values = [np.asarray(a.get()) if hasattr(a, "get") else a
                          for a in launch_args]
                if kind == "elementwise":
                    source = generate_source(prim.func, "cuda",
                                             types=_types(prim.func, values))
                elif kind == "scan":
                    source = prim.generate("cuda", *values)
                elif isinstance(prim.map_func, tuple):     # a tuple: the whole reduction
                    source = prim.generate("cuda", *values)
                else:
                    from pcompute.types import LONG
                    types = dict(_types(prim.map_func, values), i=LONG)
                    source = generate_source(prim.map_func, "cuda", kind="function",
                                             types=types)
                checked.add(source)
    assert len(checked) >= 16
    cuda_builder.check_cuda_sources(sorted(checked))    # one nvcc run for all


def test_pcg_on_2d_laplacian(backend):
    from examples.dataparallel.pcg import laplacian_2d, pcg, product_and_curvature, update
    m = 8
    data, cols, offsets = laplacian_2d(m, backend.dtype)
    dense = np.zeros((m * m, m * m))
    for r in range(m * m):
        dense[r, cols[offsets[r]:offsets[r + 1]]] += data[offsets[r]:offsets[r + 1]]
    b = np.random.default_rng(8).random(m * m).astype(backend.dtype)
    tol = 1e-4 if backend.dtype == np.float32 else 1e-10
    x, iterations = pcg(data, cols, offsets, b, tol=tol, maxiter=200)
    assert iterations < 60
    np.testing.assert_allclose(host(x), np.linalg.solve(dense, b.astype(float)),
                               rtol=0, atol=30 * tol)
    # q (a loop per row) is returned and reduced: the reduction p.q stores it
    assert kinds(product_and_curvature) == ["reduction"]
    # r.z and r.r: one reduction, which also stores r (returned); then x alone
    assert kinds(update) == ["reduction", "elementwise"]
    assert [src.count("[i] = ") for _, src in update.last_phases] == [1, 1]


@dataparallel
def kept_values(x, k):
    y = map(lambda v: v * k, x)
    z = shift(y, 1, 0)
    s = sum(map(lambda a, b: a * b, y, z))      # y at i and i + 1, z at i
    return y, z, s + sum(z)


def test_returned_values_are_stored_by_the_first_reduction(backend):
    x = np.random.default_rng(9).integers(-9, 9, 300).astype(backend.dtype)
    for k in (2, -3):                           # walked, then replayed
        y, z, s = kept_values(x, k)
        want = kept_values.py(x, k)
        assert host(y).tolist() == list(want[0]) and host(z).tolist() == list(want[1])
        assert s == pytest.approx(want[2], rel=backend.rtol)
        # the first sum computes item i of y and of z: it stores both, the
        # second reads z's array
        assert kinds(kept_values) == ["reduction", "reduction"]
        assert [src.count("[i] = ") for _, src in kept_values.last_phases] == [2, 0]


def test_mandelbrot_tail_recursion_is_a_loop(backend):
    from examples.dataparallel.mandelbrot import mandelbrot
    re_, im_ = np.meshgrid(np.linspace(-2, 0.5, 24), np.linspace(-1.2, 1.2, 16))
    cx, cy = re_.ravel().astype(backend.dtype), im_.ravel().astype(backend.dtype)
    got = host(mandelbrot(cx, cy, 40))
    assert kinds(mandelbrot) == ["elementwise"]
    assert "while" in mandelbrot.last_phases[0][1]
    # NumPy: iterate every point, counting until |z| > 2 (or 40 steps)
    x, y = np.zeros(cx.size), np.zeros(cx.size)
    count = np.zeros(cx.size, dtype=np.int64)
    for _ in range(40):
        alive = x * x + y * y <= 4.0
        count += alive
        x, y = np.where(alive, x * x - y * y + cx, x), np.where(alive, 2 * x * y + cy, y)
    # float32 may flip a point on the boundary after many steps
    assert np.mean(got == count) > (0.99 if backend.dtype == np.float32 else 1 - 1e-12)
    assert got.tolist() == mandelbrot.py(cx, cy, 40).tolist() or \
        backend.dtype == np.float32


def clamp_or_fold(v, lo):
    if v < lo:
        return lo
    elif v > 10 * lo:
        w = v - 10 * lo
        return w % 7
    return v


@dataparallel
def branches(x, lo):
    return map(lambda v: clamp_or_fold(v, lo) * 2, x)


@dataparallel
def not_tail(x):
    def fact(n):
        return 1 if n <= 1 else n * fact(n - 1)
    return map(fact, x)


def test_if_else_in_element_functions(backend):
    x = np.random.default_rng(9).integers(-20, 200, 300).astype(np.int64)
    assert host(branches(x, 3)).tolist() == branches.py(x, 3).tolist()
    assert kinds(branches) == ["elementwise"]


def test_recursion_that_is_not_a_tail_call_is_an_error():
    with pytest.raises(KernelSyntaxError, match="calls itself other than as its last"):
        not_tail(np.arange(4))


@dataparallel
def gathers(x, idx):
    return map(lambda v: v + 1, gather(x, idx))


@dataparallel
def gather_sum(x, idx):
    return sum(gather(x, idx))


def test_bounds_check_catches_a_bad_gather(backend):
    from pcompute import get_config, use_config
    x = np.arange(4).astype(backend.dtype)
    with use_config(bounds_check=True, use_double=get_config().use_double):
        with pytest.raises(IndexError, match="out of range|a2\\[t1\\]") as info:
            gathers(x, np.array([0, 7], dtype=np.int32))
        assert "<pcompute.dataparallel phase kernel>" in str(info.value)
        assert host(gathers(x, np.array([3, 0], dtype=np.int32))).tolist() == [4, 1]
        with pytest.raises(IndexError, match="out of range|a1\\[t1\\]") as info:
            gather_sum(x, np.array([0, 7], dtype=np.int32))            # a reduction phase
        assert "<pcompute.dataparallel phase kernel>" in str(info.value)
        assert gather_sum(x, np.array([3, 3], dtype=np.int32)) == 6


def jittered_particles(rng, side, spacing, dtype):
    """A jittered square lattice (no two particles closer than ~0.8) and its
    full CSR neighbour list within 3.3 (a skin beyond the cut-off 3)."""
    g = np.arange(side) * spacing
    gx, gy = np.meshgrid(g, g)
    n = side * side
    x = (gx.ravel() + rng.uniform(-0.1, 0.1, n)).astype(dtype)
    y = (gy.ravel() + rng.uniform(-0.1, 0.1, n)).astype(dtype)
    d2 = (x[:, None] - x[None]) ** 2 + (y[:, None] - y[None]) ** 2
    rows = [np.nonzero((d2[i] < 3.3 ** 2) & (np.arange(n) != i))[0] for i in range(n)]
    offsets = np.concatenate([[0], np.cumsum([len(r) for r in rows])]).astype(np.int32)
    return x, y, offsets, np.concatenate(rows).astype(np.int32)


def test_md_forces_over_a_csr_neighbour_list(backend):
    from examples.dataparallel.md_forces import lj_forces_2d
    rng = np.random.default_rng(13)
    x, y, offsets, nbrs = jittered_particles(rng, 7, 1.1, backend.dtype)
    ax, ay, pe = lj_forces_2d(x, y, offsets, nbrs, 9.0, 0.004)
    assert kinds(lj_forces_2d) == ["elementwise"]        # three loops, one kernel
    assert host(ax).dtype == backend.dtype           # 0.0 beside float32 stays float32
    # NumPy: every listed pair within the cut-off, r = x_i - x_j
    i = np.repeat(np.arange(len(x)), np.diff(offsets))
    dx, dy = x[i].astype(float) - x[nbrs], y[i].astype(float) - y[nbrs]
    r2 = dx * dx + dy * dy
    inside = r2 < 9.0
    assert 0 < inside.sum() < len(r2)                    # the skin is excluded
    inv6 = np.where(inside, r2, 1.0) ** -3
    f = np.where(inside, 24 / r2 * inv6 * (2 * inv6 - 1), 0.0)
    e = np.where(inside, 2 * inv6 * (inv6 - 1) - 0.004, 0.0)
    scale = np.abs(f * dx).max()
    for got, want in ((ax, f * dx), (ay, f * dy), (pe, e)):
        want = np.bincount(i, want, minlength=len(x))
        np.testing.assert_allclose(host(got), want, rtol=backend.rtol * 10,
                                   atol=scale * backend.rtol * 10)
    # Newton's third law: the pair forces cancel in total
    assert abs(host(ax).sum()) < scale * backend.rtol * 100


# -- the kernels of this file's tests, built as group modules on the Cython cases
# ahead of the first test of one in each process (conftest.AheadGroups): each
# test's calls with inputs of its dtypes, static values and aliasing (the
# kernels depend on those, not on the data: an array passed twice is another
# kernel); a kernel missed here is built at its launch.
def _kernels(case, name):
    from pcompute import get_config, use_config
    from examples.dataparallel.mandelbrot import mandelbrot
    from examples.dataparallel.md_forces import lj_forces_2d
    from examples.dataparallel.pcg import (diagonal_inverse, direction, laplacian_2d,
                                           norms, product_and_curvature, update)
    dt = case.dtype
    rng = np.random.default_rng(0)
    x, y = rng.random(40).astype(dt), rng.random(40).astype(dt)
    ints = rng.integers(0, 40, 40)
    if name == "primitives":
        sizes, xf = primitive_inputs(dt)
        out = []
        for x, idx, perm_idx, values, vals in sizes:
            out += [g for k in SHIFTS for g in chain.kernels_ahead(x, idx, k)]
            out += scans.kernels_ahead(x) + scatters.kernels_ahead(x, perm_idx, values)
            out += sorted_parts.kernels_ahead(x, vals) + host_scalars.kernels_ahead(x)
        return out + calls_another.kernels_ahead(2.0, xf, xf)
    if name == "examples":
        data, cols, offsets = random_csr(rng, 30, 40, dt)
        particles = jittered_particles(rng, 3, 1.1, dt) + (9.0, 0.004)
        return (axpy.kernels_ahead(2.5, x, y) + spmv_csr.kernels_ahead(data, cols, offsets, x)
                + spmv_ell.kernels_ahead(x, ints.astype(np.int32) % 10, x[:10], 4)
                + black_scholes.kernels_ahead(x + 5, x + 10, x + 0.2, 0.02, 0.3)
                + radix_pass.kernels_ahead(ints.astype(np.int32), 0)
                + extrema.kernels_ahead(x) + sum_of_squares.kernels_ahead(x)
                + scatter_repeats.kernels_ahead(ints, ints.astype(np.int32) % 7, ints[:7] + 1)
                + mandelbrot.kernels_ahead(x, y, 40) + branches.kernels_ahead(ints, 3)
                + lj_forces_2d.kernels_ahead(*particles)
                + [g for k in (2, -3) for g in kept_values.kernels_ahead(x, k)])
    if name == "checked":
        idx = ints.astype(np.int32) % 4
        with use_config(bounds_check=True, use_double=get_config().use_double):
            return gathers.kernels_ahead(x[:4], idx) + gather_sum.kernels_ahead(x[:4], idx)
    data, cols, offsets = laplacian_2d(3, dt)           # pcg's steps
    b, p, q, r = (v.copy() for v in (x[:9], x[9:18], x[18:27], y[:9]))
    dinv = np.asarray(diagonal_inverse.py(data, cols, offsets, b), dt)
    return (diagonal_inverse.kernels_ahead(data, cols, offsets, b)
            + direction.kernels_ahead(b, dinv, b, 0.0) + norms.kernels_ahead(b, dinv)
            + product_and_curvature.kernels_ahead(data, cols, offsets, p)
            + update.kernels_ahead(np.zeros_like(b), b, p, q, 0.5, dinv)
            + update.kernels_ahead(b, r, p, q, 0.5, dinv)
            + direction.kernels_ahead(r, dinv, p, 0.5))


GROUPS = AheadGroups(["primitives", "examples", "checked", "pcg"], _kernels, chunk=4)


@pytest.fixture(autouse=True)
def _groups(request):
    if "backend" in request.fixturenames:
        GROUPS.ensure(request.getfixturevalue("backend"))
