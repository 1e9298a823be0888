"""pcompute.numpy against NumPy itself, on every backend (the ``backend`` fixture).

Kernel compiles dominate the time of these tests, so each test uses few kernel
structures; values, shapes and scalars vary freely (they are kernel arguments).
A test's values are evaluated together (``pnp.evaluate(*values)``) or their
kernels built together first (:func:`built_together`): on the cython backend
that is one group module per test instead of one module per kernel
(pcompute.numpy.together).
"""
import numpy as np
import pytest

import pcompute.numpy as pnp
from pcompute.numpy import together
from pcompute.numpy.devices import backend_now


@pytest.fixture
def lazy(backend):
    """The backend case, with every region run as a kernel (no eager path) and
    any host fallback an error."""
    old = pnp.set_options(eager_below=0, fallback="error")
    pnp.reset_stats()
    yield backend
    pnp.set_options(**old)


def check(got, want, case):
    got = np.asarray(got)
    assert got.dtype == np.asarray(want).dtype, (got.dtype, np.asarray(want).dtype)
    assert got.shape == np.shape(want)
    want = np.asarray(want)
    finite = np.abs(want[np.isfinite(want)]) if want.dtype.kind == "f" else []
    scale = 1.0 + float(np.max(finite)) if len(finite) else 1.0
    np.testing.assert_allclose(got, want, rtol=case.rtol, atol=case.rtol * scale,
                               equal_nan=True)


def built_together(*arrays):
    """Build the kernels that evaluating the lazy ``arrays`` will compile as
    one group module, where the backend builds together (what forcing them
    with ``pnp.evaluate(*arrays)`` does first).  Evaluates nothing and moves
    no counter of ``pnp.stats()``: the test then runs and counts as before."""
    be = backend_now()
    if be.builds_together:
        together.build_ahead([a._node for a in arrays], be)


def chain(xp, x, y, k, flag):
    """Mixed dtypes, broadcasting, a Python scalar and a comparison."""
    return xp.where(flag, xp.sin(x) * 2.5 + y ** 2, xp.sqrt(xp.abs(x)) - k) / (y + 3)


def test_elementwise_chain_is_one_kernel(lazy):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((5, 7)).astype(lazy.dtype)
    y = rng.integers(-5, 5, 7).astype(np.int32)
    flag = rng.random((5, 1)) > 0.5
    got = chain(pnp, pnp.asarray(x), pnp.asarray(y), 3, pnp.asarray(flag))
    check(got, chain(np, x, y, 3, flag), lazy)
    assert pnp.stats()["kernels"] == 1
    assert pnp.stats()["fused_ops"] == 10


def test_new_values_and_shapes_reuse_the_kernel(lazy):
    rng = np.random.default_rng(2)
    for n, k in ((11, 0.5), (3, -2.0), (20, 7.25)):
        x = rng.standard_normal((2, n)).astype(lazy.dtype)
        got = pnp.asarray(x) * k + pnp.exp(pnp.asarray(x[0]))
        check(got, x * k + np.exp(x[0]), lazy)
    assert pnp.stats()["compiles"] <= 1


def test_the_same_chain_on_new_data_is_not_lowered_again(lazy):
    """A region's lowering is kept per graph shape (pcompute.numpy.plans): the
    same chain on new data, new sizes, new strides or new scalars takes its
    kernel text and arguments from the plan; a constant that changes the
    text (x ** 2 is x * x) is a new lowering."""
    from pcompute.numpy import plans
    plans.clear()                   # plans are shared by every backend (same text)
    rng = np.random.default_rng(13)

    def chain(xp, a, b, k):
        return ((a[:, ::2] * b + k) / 3.0 - a[:, 1::2]) * (b - b.mean()) + \
            a.max(axis=1)[:, None]

    for rows, cols, k in ((4, 12, 1.5), (3, 20, -2.0), (6, 8, 0.25)):
        a = rng.standard_normal((rows, cols)).astype(lazy.dtype)
        b = rng.standard_normal(cols // 2).astype(lazy.dtype)
        pnp.reset_stats()
        check(chain(pnp, pnp.asarray(a), pnp.asarray(b), k), chain(np, a, b, k), lazy)
        if rows != 4:
            assert pnp.stats()["lowerings"] == 0, pnp.stats()
    u, pu = a.copy(), pnp.asarray(a.copy())       # stores into views (a time loop)
    for step in range(3):
        if step == 1:
            pnp.reset_stats()
        u[1:-1, ::2] = u[:-2, ::2] + 0.5 * step * u[2:, 1::2]
        pu[1:-1, ::2] = pu[:-2, ::2] + 0.5 * step * pu[2:, 1::2]
    check(pu, u, lazy)
    assert pnp.stats()["lowerings"] == 0, pnp.stats()
    pnp.reset_stats()
    a = rng.standard_normal(30).astype(lazy.dtype)
    squared, cubed = pnp.evaluate(pnp.asarray(a) ** 2 + 1, pnp.asarray(a) ** 3 + 1)
    check(squared, a ** 2 + 1, lazy)
    check(cubed, a ** 3 + 1, lazy)
    assert pnp.stats()["lowerings"] == 2

def test_chains_hashed_as_built_follow_inputs_and_computed_parts(lazy):
    """Same-shape chains are fingerprinted as they are built (plans keys
    made from Map.sig): which input each use reads is part of the key (x * x
    + y and x * y + x are other kernels), and a part computed after the chain
    was built is read by the chain, not computed again."""
    rng = np.random.default_rng(21)
    a = rng.standard_normal(40).astype(lazy.dtype)
    b = rng.standard_normal(40).astype(lazy.dtype)
    x, y = pnp.asarray(a), pnp.asarray(b)
    for expr in (lambda u, v: u * u + v, lambda u, v: u * v + u,
                 lambda u, v: v * v + u, lambda u, v: v * u + v):
        check(expr(x, y), expr(a, b), lazy)     # each built after the last evaluation
    part = x * y
    whole = part + x
    pnp.evaluate(part)
    pnp.reset_stats()
    check(whole, a * b + a, lazy)
    assert pnp.stats()["fused_ops"] == 1, pnp.stats()


def test_integer_division_and_modulo_signs(lazy):
    a = np.array([7, -7, 7, -7, 0, 5, -128], dtype=np.int32)
    b = np.array([2, 2, -2, -2, 3, 0, -1], dtype=np.int32)
    with np.errstate(all="ignore"):
        want = [a // b, a % b]
    pa, pb = pnp.asarray(a), pnp.asarray(b)
    for got, w in zip(pnp.evaluate(pa // pb, pa % pb), want):
        np.testing.assert_array_equal(np.asarray(got), w)


def test_float_floor_division_modulo_and_nan(lazy):
    a = np.array([7.5, -7.5, 1.0, -1.0, 0.0, np.nan, np.inf, 3.0], dtype=lazy.dtype)
    b = np.array([2.0, 2.0, 0.0, 0.0, 0.0, 1.0, 2.0, -np.inf], dtype=lazy.dtype)
    with np.errstate(all="ignore"):
        want = (a // b, a % b, np.maximum(a, b), np.minimum(b, a), np.fmax(a, b))
    pa, pb = pnp.asarray(a), pnp.asarray(b)
    got = pnp.evaluate(pa // pb, pa % pb, pnp.maximum(pa, pb), pnp.minimum(pb, pa),
                       pnp.fmax(pa, pb))
    for g, w in zip(got, want):
        np.testing.assert_array_equal(np.asarray(g), w)


def test_scalar_divisors_and_scalar_history(lazy):
    """Division by a constant (0 or not) keeps NumPy's meaning; a 0-d value
    computed from earlier steps (nn's ``w``) is a kernel argument, so a time
    loop compiles its kernels once (DelayRepay recompiled nn every step)."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal(50).astype(lazy.dtype)
    x[3] = 0.0
    got, want = [], []
    with np.errstate(all="ignore"):
        for k in (2.5, 0.0, -0.0):
            got += [pnp.asarray(x) / k, pnp.asarray(x) // k, pnp.asarray(x) % k]
            want += [x / k, x // k, x % k]
    for g, w in zip(pnp.evaluate(*got), want):
        np.testing.assert_array_equal(np.asarray(g), w)

    def steps(xp, x, count):
        w, hidden = 0.3, None
        for step in range(count):
            hidden = xp.tanh(x * w)
            w = w - 0.5 / (step + 1) * xp.mean((hidden - 0.25) * x)
        return w + hidden
    check(steps(pnp, pnp.asarray(x), 2), steps(np, x, 2), lazy)
    pnp.reset_stats()
    check(steps(pnp, pnp.asarray(x), 5), steps(np, x, 5), lazy)
    assert pnp.stats()["compiles"] == 0, pnp.stats()


REDUCTIONS = ("sum", "prod", "min", "max", "argmin", "argmax", "mean", "any", "all")


def test_reductions_match_numpy(lazy):
    """Each reduction over all axes, the first and the last axis of a (4, 6)
    array (a NaN in it for min, max, argmin and argmax).  The 27 values are
    evaluated together: on the cython backend their ~30 kernels are one
    module (sum and prod along these short axes add the 4 lines, or the 6
    items of a row, numpy/reduce.py FEW_ROWS; the others index the reduced
    axis in their loop).  Every mismatch is listed."""
    rng = np.random.default_rng(3)
    cases, got = [], []
    for op in REDUCTIONS:
        x = (rng.standard_normal((4, 6)) * 2).astype(lazy.dtype)
        x[1, 2] = np.nan if op in ("min", "max", "argmin", "argmax") else x[1, 2]
        px = pnp.asarray(x)
        for axis in (None, 0, -1):
            with np.errstate(all="ignore"):
                cases.append((op, axis, getattr(np, op)(x * 0.5 - 1, axis=axis)))
            got.append(getattr(pnp, op)(px * 0.5 - 1, axis=axis))
    failures = []
    for (op, axis, want), g in zip(cases, pnp.evaluate(*got)):
        try:
            check(g, want, lazy)
        except AssertionError as exc:
            failures.append("%s(axis=%s): %s" % (op, axis, exc))
    assert not failures, "\n".join(failures)


def test_sums_along_an_axis_with_few_lines(lazy):
    """A sum along a long axis with few items kept is one map+reduce kernel
    launched per item; along a short axis (x.sum(axis=0) of a (3, N) array)
    it is one elementwise kernel adding the lines in NumPy's order."""
    from pcompute.numpy import reduce as reduce_mod
    rng = np.random.default_rng(12)
    long = reduce_mod.LONG_AXIS + 3
    x = rng.standard_normal((3, long)).astype(lazy.dtype)
    i = rng.integers(-50, 50, (5, 7, 3)).astype(np.int32)
    px, pi = pnp.asarray(x), pnp.asarray(i)
    got = [(px * 0.5 - 1).sum(axis=1), (px * 0.5 - 1).mean(axis=-1, keepdims=True),
           pnp.prod(1 + 1e-4 * px[:2], axis=1), (px * 0.5 - 1).sum(axis=0),
           pi.sum(axis=1), (pi > 0).sum(axis=2), pnp.asarray(i[:, :1]).prod(axis=1)]
    built_together(*got)
    pnp.reset_stats()
    check(got[0], (x * 0.5 - 1).sum(axis=1), lazy)
    assert pnp.stats()["kernels"] == 3 and pnp.stats()["compiles"] <= 1
    check(got[1], (x * 0.5 - 1).mean(axis=-1, keepdims=True), lazy)
    check(got[2], np.prod(1 + 1e-4 * x[:2], axis=1), lazy)
    pnp.reset_stats()
    check(got[3], (x * 0.5 - 1).sum(axis=0), lazy)
    assert pnp.stats()["kernels"] == 1
    check(got[4], i.sum(axis=1), lazy)
    check(got[5], (i > 0).sum(axis=2), lazy)
    check(got[6], i[:, :1].prod(axis=1), lazy)

def test_float_max_min_with_infinities_and_nan(lazy):
    """max/min over all axes treat NaN as the extreme's infinity in the kernel
    and tell the two apart in a second pass: NaN wins, as in NumPy."""
    cases, got = [], []
    for values in ([1.0, 5.0, -3.0], [1.0, np.nan, 3.0], [np.inf, 1.0], [-np.inf, 2.0],
                   [np.inf, np.nan], [np.nan, -np.inf], [-np.inf, -np.inf]):
        x = np.array(values * 7, dtype=lazy.dtype)
        for op in ("max", "min", "argmax", "argmin"):
            cases.append((op, values, getattr(np, op)(x)))
            got.append(getattr(pnp, op)(pnp.asarray(x) * 1))
    for (op, values, want), g in zip(cases, pnp.evaluate(*got)):
        np.testing.assert_array_equal(np.asarray(g), want, err_msg="%s%s" % (op, values))


def test_reduction_inside_an_expression(lazy):
    rng = np.random.default_rng(4)
    x = rng.standard_normal(50).astype(lazy.dtype)
    px = pnp.asarray(x)
    got = (px - px.mean()) / pnp.sqrt(((px - px.mean()) ** 2).sum() / 50)
    check(got, (x - x.mean()) / np.sqrt(((x - x.mean()) ** 2).sum() / 50), lazy)
    from pcompute.numpy.lower import SCALAR_FIRST
    assert pnp.stats()["boundaries"].get(SCALAR_FIRST) == 3, \
        pnp.stats()                 # the mean and the norm: computed first, counted


def test_views_slicing_transpose_reshape(lazy):
    x = np.arange(24, dtype=lazy.dtype).reshape(4, 6)
    px = pnp.asarray(x)
    got = pnp.evaluate(px[1:, ::2] * 2, px.T + 1, (px + 1).reshape(3, 8)[:, 1],
                       px[None, 2, :] - px[:, None, 0], px[..., ::-1].sum(axis=0))
    want = (x[1:, ::2] * 2, x.T + 1, (x + 1).reshape(3, 8)[:, 1],
            x[None, 2, :] - x[:, None, 0], x[..., ::-1].sum(axis=0))
    for g, w in zip(got, want):
        check(g, w, lazy)



def test_views_of_pending_expressions_fuse(lazy):
    """Slices, transposes and new axes of a pending cheap expression are the
    expression over views of its inputs: a stencil over shifted slices of a
    lazy value is one kernel (no temporary), with broadcasting and a
    reduction inside; a dear expression is computed once, then viewed."""
    rng = np.random.default_rng(11)
    a = rng.standard_normal((9, 8)).astype(lazy.dtype)
    b = rng.standard_normal(8).astype(lazy.dtype)
    pa, pb = pnp.asarray(a), pnp.asarray(b)
    rows = pa[:-2] + 2 * pa[1:-1] + pb
    got = rows[:, :-2] - rows[:, 2:] + 0.5 * rows[::-1, 1:-1]
    want_rows = a[:-2] + 2 * a[1:-1] + b
    check(got, want_rows[:, :-2] - want_rows[:, 2:] + 0.5 * want_rows[::-1, 1:-1], lazy)
    assert pnp.stats()["kernels"] == 1
    centred = pa - pa.mean()
    check((centred.T[1:, None, 2] * pb[None, :])[::2],
          ((a - a.mean()).T[1:, None, 2] * b[None, :])[::2], lazy)
    assert pnp.stats()["kernels"] == 3          # the mean, then one fused kernel
    dear = pnp.exp(pa) * pnp.sin(pa)
    check(dear[1:] - dear[:-1], (np.exp(a) * np.sin(a))[1:] - (np.exp(a) * np.sin(a))[:-1],
          lazy)
    assert pnp.stats()["kernels"] == 5          # computed once, then the difference
    with pytest.raises(IndexError):
        rows[1, 2, 3]

# -- random graphs ------------------------------------------------------------------
import os  # noqa: E402

from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

from numpy_graphs import programs  # noqa: E402

EXAMPLES = int(os.environ.get("PCOMPUTE_LAZY_EXAMPLES", "4"))


def _values(spec, rng):
    shape, dtype = spec
    if dtype == "bool":
        return rng.random(shape) > 0.5
    if dtype == "int32":
        return rng.integers(-9, 10, shape).astype(np.int32)
    return (rng.standard_normal(shape) * 2).astype(dtype)


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_random_graphs_match_numpy(lazy, data):
    """Random expression graphs (dtypes, broadcasting, reductions anywhere)
    give NumPy's dtype, shape and values (PCOMPUTE_LAZY_EXAMPLES graphs)."""
    program, specs, _ = data.draw(programs(lazy.precision))
    pnp.set_options(fallback="count")      # float16 (sin of a bool) runs in NumPy
    pnp.reset_stats()
    rng = np.random.default_rng(len(specs))
    host = [_values(s, rng) for s in specs]
    with np.errstate(all="ignore"):
        try:
            want = program.run(np, host)
        except (TypeError, ValueError) as exc:   # NumPy refuses: so must we
            with pytest.raises(type(exc)):
                np.asarray(program.run(pnp, [pnp.asarray(h) for h in host]))
            return
    got = program.run(pnp, [pnp.asarray(h) for h in host])
    check(got, want, lazy)
    assert all("float16" in reason for reason in pnp.stats()["fallbacks"]), \
        pnp.stats()["fallbacks"]


def test_setitem_with_slices_runs_on_the_device(lazy):
    rng = np.random.default_rng(7)
    u = rng.standard_normal((5, 6)).astype(lazy.dtype)
    pu = pnp.asarray(u.copy())
    before = pu[1:3]                           # a view taken before the write
    want = u.copy()
    want[1:-1, 1:-1] = u[:-2, 1:-1] + u[2:, 1:-1] - 2 * u[1:-1, 1:-1]
    pu[1:-1, 1:-1] = pu[:-2, 1:-1] + pu[2:, 1:-1] - 2 * pu[1:-1, 1:-1]
    want[0] = 7
    pu[0] = 7
    want[:, ::3] = np.arange(5, dtype=lazy.dtype)[:, None]
    pu[:, ::3] = np.arange(5, dtype=lazy.dtype)[:, None]
    check(pu, want, lazy)
    check(before, u[1:3], lazy)                # copy-on-write: the old values
    assert pnp.stats()["kernels"] >= 6 and not pnp.stats()["fallbacks"]
    with pytest.raises(ValueError, match="broadcast"):
        pu[1:3] = pnp.asarray(np.zeros(4, dtype=lazy.dtype))


def test_concatenate_on_the_device(lazy):
    rng = np.random.default_rng(8)
    a = rng.standard_normal((3, 4)).astype(lazy.dtype)
    b = rng.standard_normal((2, 4)).astype(lazy.dtype)
    pa = pnp.asarray(a)
    got = pnp.concatenate([pa * 2, b, pa[:1] + 1])
    check(got, np.concatenate([a * 2, b, a[:1] + 1]), lazy)
    got = np.concatenate([pa.T, pnp.asarray(b).T - 1], axis=1)   # __array_function__
    check(got, np.concatenate([a.T, b.T - 1], axis=1), lazy)
    assert not pnp.stats()["fallbacks"]
    with pytest.raises(ValueError):
        pnp.concatenate([pa, pnp.asarray(np.zeros((2, 5), dtype=lazy.dtype))])


def test_division_by_zero_gives_numpys_infinities(lazy):
    a = np.array([1.0, -1.0, 0.0, np.nan, 2.0, -3.0], dtype=lazy.dtype)
    b = np.array([0.0, 0.0, 0.0, 0.0, -0.0, -0.0], dtype=lazy.dtype)
    with np.errstate(all="ignore"):
        want = [a / b, np.reciprocal(b), a // b, a % b, np.fmod(a, b)]
    pa, pb = pnp.asarray(a), pnp.asarray(b)
    got = pnp.evaluate(pa / pb, pnp.reciprocal(pb), pa // pb, pa % pb, pnp.fmod(pa, pb))
    for g, w in zip(got, want):
        np.testing.assert_array_equal(np.asarray(g), w)


def shifts(xp, x, n, b, m):
    return (x << n) + (x >> n), (b << m) + (b >> m)


def test_shifts_by_any_count_are_numpy_shifts(lazy):
    """Counts of the width or more and negative counts give NumPy's values
    (int32 and int8 loops: the kernel language's rule, and NumPy's 8-bit one)."""
    x = np.array([3, -7, 1, -1, 2 ** 30 + 1, -2 ** 31, 5, -6], np.int32)
    n = np.array([0, 5, 31, 32, 33, 64, -1, -40], np.int32)
    b = np.array([3, -7, 1, -1, 100, -128, 5, -6], np.int8)
    m = np.array([0, 5, 7, 8, 9, 64, -1, -40], np.int8)
    got = pnp.evaluate(*shifts(pnp, pnp.asarray(x), pnp.asarray(n), pnp.asarray(b),
                               pnp.asarray(m)))
    with np.errstate(over="ignore"):
        want = shifts(np, x, n, b, m)
    for g, w in zip(got, want):
        check(g, w, lazy)
