"""Subscripts of a parallelised nest checked against the arrays' shapes before
the launch (pcompute/autopar/bounds.py): an index plain Python takes out of
range (IndexError), or negative (Python counts from the end, a kernel does
not), is a located KernelIndexError on every backend, never memory outside
the array; an index in range is never refused; what cannot be decided runs
as before and explain() says so."""
import numpy as np
import pytest

import pcompute as pc
from pcompute import parallelize
from pcompute.autopar.bounds import check
from pcompute.autopar.nest import collect
from pcompute.backends.registry import get_backend
from pcompute.errors import KernelIndexError
from tests import autopar_cases


def backward(a, b, n):
    for i in range(n):
        b[i] = a[i - 1]


def guarded_backward(a, b, n):
    for i in range(n):
        if i > 0:
            b[i] = a[i - 1]


def not_last(a, b, n):
    for i in range(n):
        if i != n - 1:
            b[i] = a[i + 1]


def lower_triangle(a, n):
    for i in range(n):
        for j in range(i + 1):
            a[i, j + 1] = a[i, j] + 1.0


def data_guard(a, b, n):
    for i in range(n):
        if b[i] > 5.0:
            b[i] = a[i + 1]


def gather(a, b, idx, n):
    for i in range(n):
        b[i] = a[idx[i]]


def short_circuit(a, b, n):
    for i in range(n):
        if i < n - 1 and a[i + 1] > 0.0:
            b[i] = 1.0


def conditional_expression(a, b, n):
    for i in range(n):
        b[i] = a[i + 1] if i < n - 1 else 0.0


def stops_early(a, b, n):
    for i in range(n):
        if a[i] < 0.0:
            break
        b[i] = a[i + 1]


def _arrays(backend, *arrays):
    """The arrays as the backend's user passes them (NumPy on a host backend,
    device Arrays elsewhere, whose shape is the NumPy array's)."""
    arrays = [np.asarray(a, backend.dtype) for a in arrays]
    if get_backend(backend.name).on_host:
        return arrays
    out = pc.wrap(*arrays)
    return list(out) if len(arrays) > 1 else [out]


def _host(a):
    return a if isinstance(a, np.ndarray) else a.get()


def test_an_index_past_the_end_is_refused_before_the_launch(backend):
    a, b = np.arange(6.0), np.zeros(6)
    with pytest.raises(IndexError):             # what plain Python does
        autopar_cases.shift_copy(a.copy(), b.copy(), 6)
    da, db = _arrays(backend, a, b)
    with pytest.raises(KernelIndexError) as info:
        parallelize(autopar_cases.shift_copy)(da, db, 6)
    text = str(info.value)
    assert "index 6 is out of range for axis 0 of array 'a' (length 6)" in text
    assert "the subscript a[i + 1] takes the indices 1 to 6" in text
    assert "raises IndexError" in text and "end the loop where" in text
    loc = info.value.location
    assert (loc.filename, loc.lineno, loc.funcname) == (autopar_cases.__file__, 7,
                                                        "shift_copy")
    assert loc.line[loc.col:loc.end_col] == "a[i + 1]"
    assert not _host(db).any()                  # nothing ran
    # the same function within the array runs as plain Python does
    want = np.zeros(6)
    autopar_cases.shift_copy(a, want, 5)
    da, db = _arrays(backend, a, np.zeros(6))
    parallelize(autopar_cases.shift_copy)(da, db, 5)
    np.testing.assert_array_equal(_host(db), want)


def test_a_negative_index_is_refused_where_python_would_count_from_the_end(backend):
    a = np.arange(1.0, 7.0)
    want = np.zeros(6)
    backward(a, want, 6)                        # plain Python wraps a[-1]
    assert want[0] == 6.0
    da, db = _arrays(backend, a, np.zeros(6))
    with pytest.raises(KernelIndexError, match="index -1 is out of range") as info:
        parallelize(backward)(da, db, 6)
    assert "counts a negative index from the end" in str(info.value)
    assert info.value.location.line.strip() == "b[i] = a[i - 1]"


@pytest.mark.parametrize("func", [guarded_backward, not_last])
def test_an_affine_guard_keeps_its_access_in_range(backend, func):
    """The guard is part of the domain (isl): no false error."""
    a = np.arange(1.0, 7.0)
    want = np.zeros(6)
    func(a, want, 6)
    da, db = _arrays(backend, a, np.zeros(6))
    parallelize(func)(da, db, 6)
    np.testing.assert_array_equal(_host(db), want)


def test_a_triangular_nest_is_checked_over_its_triangle(backend):
    a = np.zeros((4, 5))
    want = a.copy()
    lower_triangle(want, 4)
    (da,) = _arrays(backend, a)
    parallelize(lower_triangle)(da, 4)
    np.testing.assert_array_equal(_host(da), want)
    (da,) = _arrays(backend, np.zeros((4, 4)))
    with pytest.raises(KernelIndexError, match="index 4 is out of range for axis 1"):
        parallelize(lower_triangle)(da, 4)


def test_a_replayed_call_with_a_smaller_array_is_checked_again(backend):
    f = parallelize(autopar_cases.shift_copy)
    a, want = np.arange(6.0), np.zeros(6)
    autopar_cases.shift_copy(a, want, 5)
    for _ in range(2):                          # the second call replays
        da, db = _arrays(backend, a, np.zeros(6))
        f(da, db, 5)
        np.testing.assert_array_equal(_host(db), want)
    da, db = _arrays(backend, a[:5], np.zeros(5))
    with pytest.raises(KernelIndexError, match="index 5 is out of range"):
        f(da, db, 5)


def test_what_cannot_be_decided_runs_as_before_and_explain_says_so(backend):
    a, b = np.arange(6.0), np.arange(6.0)
    want = b.copy()
    data_guard(a, want, 6)                      # no b[i] > 5: a[6] is never read
    da, db = _arrays(backend, a, b)
    parallelize(data_guard)(da, db, 6)
    np.testing.assert_array_equal(_host(db), want)
    text = parallelize(data_guard).explain(*_arrays(backend, np.arange(6.0), np.arange(6.0)),
                                           6)
    assert "indices not checked before the launch" in text
    assert "a[i + 1] (line 45): indices 1 to 6 on axis 0 (length 6) under a condition" in text
    text = parallelize(gather).explain(*_arrays(backend, np.arange(6.0), np.zeros(6)),
                                      np.arange(6), 6)
    assert "a[idx[i]] (line 50): a subscript that is not affine" in text


def _get_next(a, k):
    return a[k + 1]


def via_helper(a, b, n):
    for i in range(n):
        b[i] = _get_next(a, i)


def _get_prev(a, k):
    return a[k - 1]


def via_prev(a, b, n):
    for i in range(n):
        b[i] = _get_prev(a, i)


def _cell(a, r, c):
    return a[r, c + 1]


def via_cell(a, b, n, m):
    for i in range(n):
        for j in range(m):
            b[i, j] = _cell(a, i, 2 * j - 1)


def _maybe_prev(a, k):
    if k > 0:
        return a[k - 1]
    return 0.0


def via_maybe_prev(a, b, n):
    for i in range(n):
        b[i] = _maybe_prev(a, i)


def _square(a, k):
    return a[k * k]


def via_square(a, b, n):
    for i in range(n):
        b[i] = _square(a, i)


def _pass_on(a, k):
    return _get_next(a, k) + len(a)


def via_pass_on(a, b, n):
    for i in range(n):
        b[i] = _pass_on(a, i)


_K = 100


def _at(a, _K):
    return a[_K]                    # the parameter, not the module's _K


def via_at(a, b, idx, n):
    for i in range(n):
        b[i] = _at(a, idx[i])


def _explain(backend, func, *args):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pc.errors.SequentialLoopWarning)
        return parallelize(func).explain(*args)


def _run(backend, func, arrays, *ints):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pc.errors.SequentialLoopWarning)
        device = _arrays(backend, *arrays)
        parallelize(func)(*device, *ints)
    return [_host(d) for d in device]


def test_a_helpers_subscripts_are_checked_before_the_launch(backend):
    """An array handed to a helper whose subscripts are affine in its integer
    parameters, called with arguments affine in the counters: its indices
    are checked like the nest's (on cython via_helper at n = len(a) read
    past the end where plain Python raises IndexError)."""
    a = np.arange(1.0, 7.0)
    with pytest.raises(IndexError):
        via_helper(a, np.zeros(6), 6)
    with pytest.raises(KernelIndexError) as info:
        _run(backend, via_helper, [a, np.zeros(6)], 6)
    text = str(info.value)
    assert "index 6 is out of range for axis 0 of array 'a' (length 6)" in text
    assert "the subscript a[i + 1] via _get_next(a, i) [a[k + 1] at %s:%d] takes the " \
           "indices 1 to 6" % (__file__, _get_next.__code__.co_firstlineno + 1) in text
    assert info.value.location.line.strip() == "b[i] = _get_next(a, i)"
    with pytest.raises(KernelIndexError, match="index -1 is out of range"):
        _run(backend, via_prev, [a, np.zeros(6)], 6)
    want = np.zeros(6)
    via_helper(a, want, 5)
    np.testing.assert_array_equal(_run(backend, via_helper, [a, np.zeros(6)], 5)[1], want)
    text = _explain(backend, via_helper, *_arrays(backend, a, np.zeros(6)), 5)
    assert "not checked" not in text


def test_a_helpers_subscripts_on_two_axes(backend):
    a = np.arange(12.0).reshape(3, 4)
    want = np.zeros((3, 2))
    via_cell(a, want, 3, 2)                     # c + 1 = 2j: 0 and 2
    np.testing.assert_array_equal(_run(backend, via_cell, [a, np.zeros((3, 2))], 3, 2)[1],
                                  want)
    with pytest.raises(IndexError):
        via_cell(a, np.zeros((3, 3)), 3, 3)
    with pytest.raises(KernelIndexError, match="index 4 is out of range for axis 1"):
        _run(backend, via_cell, [a, np.zeros((3, 3))], 3, 3)


def test_a_helper_whose_subscripts_cannot_be_checked_is_listed(backend):
    """Not affine in the helper's integer parameters: runs as plain Python
    does, and explain() lists it; under an affine condition of the
    helper's, or handed on to another helper: followed and checked."""
    a = np.arange(1.0, 10.0)
    for func, n in ((via_maybe_prev, 6), (via_square, 3), (via_pass_on, 6)):
        want = np.zeros(6)
        func(a, want, n)
        np.testing.assert_array_equal(_run(backend, func, [a, np.zeros(6)], n)[1], want)
    idx = np.array([5, 0, 3, 1, 2, 4], np.int32)       # no index from the module's _K
    want = np.zeros(6)
    via_at(a, want, idx, 6)
    np.testing.assert_array_equal(_run(backend, via_at, [a, np.zeros(6)], idx, 6)[1], want)
    line = via_maybe_prev.__code__.co_firstlineno + 2
    text = _explain(backend, via_maybe_prev, *_arrays(backend, a[:6], np.zeros(6)), 6)
    assert "    - line %d: reads a[i - 1] via _maybe_prev(a, i) [a[k - 1] at %s:%d] where " \
           "i > 0" % (line, __file__, _maybe_prev.__code__.co_firstlineno + 2) \
        in text.splitlines()
    assert "not checked" not in text                # i - 1 only where i > 0
    text = _explain(backend, via_square, *_arrays(backend, a, np.zeros(6)), 3)
    assert "a via _square(a, i) [anywhere: a[k * k] at %s:%d is not affine in the " \
           "integer parameters of _square()] (line %d): the indices a called function " \
           "takes of it are not checked" % (__file__, _square.__code__.co_firstlineno + 1,
                                             via_square.__code__.co_firstlineno + 2) in text
    assert text.count("the indices a called function") == 1    # one note per access
    text = _explain(backend, via_pass_on, *_arrays(backend, a, np.zeros(6)), 6)
    assert "    - line %d: reads a[i + 1] via _pass_on(a, i) -> _get_next(a, k) [a[k + 1] " \
           "at %s:%d]" % (via_pass_on.__code__.co_firstlineno + 2, __file__,
                          _get_next.__code__.co_firstlineno + 1) in text.splitlines()
    assert "not checked" not in text


def _checked(func, shapes, **ints):
    """(findings, notes) of the first nest of ``func``, helpers followed."""
    import ast
    import inspect
    import textwrap
    nest = ast.parse(textwrap.dedent(inspect.getsource(func))).body[0].body[0]
    _, accesses = collect(nest, ints, lambda name: name in shapes)
    return check(accesses, shapes, globals().get)


def _findings(func, shapes, **ints):
    return _checked(func, shapes, **ints)[0]


def _positive_prev(a, k):
    if a[k] > 0.0:
        return a[k - 1]
    return 0.0


def via_positive_prev(a, b, n):
    for i in range(n):
        b[i] = _positive_prev(a, i)


def test_a_helpers_affine_condition_guards_its_access():
    """An affine ``if`` of the helper's (``k > 0``) guards its access: the
    index is checked where the condition holds, and refused when it leaves
    the array there; under a condition on data it is a note (plain Python
    may never reach it)."""
    assert _checked(via_maybe_prev, {"a": (6,), "b": (7,)}, n=7) == ([], [])
    (found,), _ = _checked(via_maybe_prev, {"a": (4,), "b": (6,)}, n=6)
    assert (found.low, found.high, found.length) == (0, 4, 4)
    with pytest.raises(IndexError):
        via_maybe_prev(np.ones(4), np.zeros(6), 6)
    found, notes = _checked(via_positive_prev, {"a": (6,), "b": (6,)}, n=6)
    assert found == [] and len(notes) == 1
    assert notes[0].startswith("a[i - 1] via _positive_prev(a, i) [a[k - 1] at %s:%d]" % (
        __file__, _positive_prev.__code__.co_firstlineno + 2))
    assert notes[0].endswith("indices -1 to 4 on axis 0 (length 6) under a condition or a "
                             "break the analysis cannot follow: not checked before the launch")


def strided(a, b, lo, hi, step, k):
    for i in range(lo, hi, step):
        b[0] = a[2 * i + k]


@pytest.mark.parametrize("lo,hi,step,k", [(0, 5, 1, 0), (0, 5, 1, 1), (0, 5, 2, 1),
                                          (4, -1, -1, 1), (4, -1, -1, 2), (1, 4, 1, -2),
                                          (1, 4, 1, -3), (3, 3, 1, 50), (5, 0, 2, 9),
                                          (4, 0, -3, -8), (4, 0, -3, -9)])
def test_a_finding_exactly_when_plain_python_leaves_the_array(lo, hi, step, k):
    """The box bound is exact: an error exactly when some iteration's index
    is negative or past the end (length 10)."""
    indices = [2 * i + k for i in range(lo, hi, step)]
    outside = any(x < 0 or x >= 10 for x in indices)
    found = _findings(strided, {"a": (10,), "b": (1,)}, lo=lo, hi=hi, step=step, k=k)
    assert bool(found) == outside
    if found:
        assert (found[0].low, found[0].high) == (min(indices), max(indices))


@pytest.mark.parametrize("func", [short_circuit, conditional_expression, stops_early])
def test_an_access_python_may_never_reach_is_not_refused(backend, func):
    """a[n] is read only after an ``and``, in a conditional expression or
    after a ``break`` the data takes: plain Python never reads it here, so
    neither error nor a different result (and explain() says it is not
    checked)."""
    import warnings
    a = np.array([1.0, 2.0, -1.0, 3.0, 4.0, 5.0])
    if func is not stops_early:
        a[2] = 0.0
    want = np.zeros(6)
    func(a, want, 6)
    da, db = _arrays(backend, a, np.zeros(6))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pc.errors.SequentialLoopWarning)
        parallelize(func)(da, db, 6)
        text = parallelize(func).explain(*_arrays(backend, a, np.zeros(6)), 6)
    np.testing.assert_array_equal(_host(db), want)
    assert "a[i + 1] (line" in text and "not checked before the launch" in text
