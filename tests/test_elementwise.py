"""Elementwise on every backend, against the python backend and numpy."""
import warnings

import numpy as np
import pytest

import pcompute as pc
from pcompute import Elementwise, elementwise, serial, use_config
from pcompute.errors import KernelTypeError, KernelValueError

import ew_kernels as K


def rand(n, dtype, seed=0):
    return np.random.default_rng(seed).random(n).astype(dtype)


def test_axpy_matches_numpy(backend):
    n = 1000
    x, y = rand(n, backend.dtype, 1), rand(n, backend.dtype, 2)
    kernel = K.axpy64 if backend.use_double else K.axpy32
    xa, ya = pc.wrap(x.copy()), pc.wrap(y.copy())
    Elementwise(kernel)(xa, ya, 2.5)
    ya.pull()
    np.testing.assert_allclose(ya.data, 2.5 * x + y, rtol=backend.rtol)


def test_unread_locals_build_and_run_without_warnings(backend):
    """A kernel with locals it never reads and an unsigned value compared
    with zero builds without a warning on every backend (pycuda turns any
    remark of nvcc into a UserWarning quoting the kernel text) and computes
    what NumPy does."""
    n = 129
    x = rand(n, backend.dtype, 11)
    u = np.arange(n, dtype=np.uint64) * 977
    out = pc.wrap(np.zeros(n, backend.dtype))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Elementwise(K.unread_locals)(pc.wrap(x), pc.wrap(u), out)
    out.pull()
    np.testing.assert_allclose(out.data, x + 1.0, rtol=backend.rtol)


def test_jit_inference_and_scalars_do_not_recompile(backend):
    n = 257
    x, y = rand(n, backend.dtype, 3), rand(n, backend.dtype, 4)
    e = Elementwise(K.axpy_jit)
    xa, ya = pc.wrap(x.copy()), pc.wrap(y.copy())
    e(xa, ya, 1.5)
    built = dict(e._built)
    e(xa, ya, -0.5)
    assert e._built == built, "a new scalar value must not recompile"
    ya.pull()
    np.testing.assert_allclose(ya.data, y + 1.0 * x, rtol=backend.rtol)


def test_helper_and_integer_semantics(backend):
    n = 300
    rng = np.random.default_rng(5)
    k = rng.integers(-1000, 1000, n).astype(np.int32)
    x, y = rand(n, backend.dtype, 6), rand(n, backend.dtype, 7)
    out_i = pc.wrap(np.zeros(n, np.int32))
    out_f = pc.wrap(np.zeros(n, backend.dtype))
    Elementwise(K.int_work)(pc.wrap(k), out_i)
    Elementwise(K.uses_helper)(pc.wrap(x), pc.wrap(y), out_f)
    out_i.pull()
    out_f.pull()
    np.testing.assert_array_equal(out_i.data, (k * 7 - 3) // 4 + k % 5)
    np.testing.assert_allclose(out_f.data, np.sqrt(x * x + y * y), rtol=backend.rtol)


def test_a_helpers_module_number_is_read_by_each_new_kernel(backend, monkeypatch):
    """A module-level number a helper reads is compiled into each kernel as
    its value at the build: an Elementwise made after it changed computes
    what plain Python computes now (the python backend kept the helper's
    copy of its first build, module values included: 0.5 of x[i] where plain
    Python takes x[i + 1]).  Going back to 0 finds the first build again."""
    x = rand(9, backend.dtype, 8)
    for offset in (0, 1, 0):
        monkeypatch.setattr(K, "OFFSET", offset)
        out = pc.wrap(np.zeros(8, backend.dtype))
        Elementwise(K.halve_at_offset)(out, pc.wrap(x))
        out.pull()
        want = np.zeros(8, backend.dtype)
        for i in range(8):
            K.halve_at_offset(i, want, x)
        np.testing.assert_array_equal(out.data, want)


def test_atomics_count_exactly(backend):
    n = 100000 if backend.name != "python" else 5000
    keys = np.random.default_rng(8).integers(0, 17, n).astype(np.int32)
    counts = pc.wrap(np.zeros(17, np.int32))
    Elementwise(K.count_atomic)(pc.wrap(keys), counts)
    counts.pull()
    np.testing.assert_array_equal(counts.data, np.bincount(keys, minlength=17))


def test_atomic_max(backend):
    """atomic_max(log[k], v) keeps the largest value and returns the old one."""
    n = 20000 if backend.name != "python" else 2000
    keys = np.random.default_rng(4).integers(0, 13, n).astype(np.int32)
    log, old = pc.wrap(np.zeros(13, np.int32)), pc.wrap(np.zeros(n, np.int32))
    Elementwise(K.max_atomic)(pc.wrap(keys), log, old)
    log.pull(), old.pull()
    want = np.zeros(13, np.int32)
    np.maximum.at(want, keys, np.arange(1, n + 1, dtype=np.int32))
    np.testing.assert_array_equal(log.data, want)
    # An old value, never its own: 0 or the value of another item of the same key
    # (with threads, a later item may have written first).
    mine = np.arange(1, n + 1)
    assert np.all(old.data != mine)
    seen = old.data > 0
    assert np.all(keys[old.data[seen] - 1] == keys[seen])
    # each key's first item in time saw 0; the largest values returned are older items'
    assert np.all(np.bincount(keys[old.data == 0], minlength=13) >= (want > 0))


def test_decorators(backend):
    @elementwise
    def double_it(i, x):
        x[i] = 2 * x[i]

    x = rand(64, backend.dtype, 9)
    xa = pc.wrap(x.copy())
    double_it(xa)
    xa.pull()
    np.testing.assert_allclose(xa.data, 2 * x, rtol=backend.rtol)


def prefix_serial(i, x):
    if i > 0:
        x[i] = x[i] + x[i - 1]


def test_serial_runs_in_order(backend):
    # As in Compyle, @serial only marks the function; Elementwise runs it.
    marked = serial(prefix_serial)
    assert marked is prefix_serial and marked.is_serial
    x = np.arange(1, 3001).astype(np.int32)
    xa = pc.wrap(x.copy())
    Elementwise(marked)(xa)
    xa.pull()
    np.testing.assert_array_equal(xa.data, np.cumsum(x))


def test_backend_switch_through_config():
    n = 50
    x, y = rand(n, np.float64, 10), rand(n, np.float64, 11)
    e = Elementwise(K.axpy64)
    results = []
    for name in ("python", "cython"):
        with use_config(backend=name, use_double=True):
            ya = pc.wrap(y.copy())
            e(pc.wrap(x.copy()), ya, 3.0)
            ya.pull()
            results.append(ya.data.copy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-14)


def test_source_is_exposed():
    e = Elementwise(K.axpy64, backend="cython")
    with pytest.raises(KernelValueError):
        e.source
    e(np.zeros(3), np.zeros(3), 1.0)
    assert "def run" in e.all_source and "axpy64" in e.source


@pytest.mark.parametrize("bad, exc, text", [
    (lambda x: (x, x), KernelTypeError, "takes 3 argument"),
    (lambda x: (x, x.astype(np.float32), 1.0), KernelTypeError, "annotated"),
    (lambda x: (x.reshape(2, -1), x.reshape(2, -1), 1.0), KernelValueError, "1-D"),
    (lambda x: (x[::2], x[::2], 1.0), KernelValueError, "contiguous"),
    (lambda x: (None, x, 1.0), KernelTypeError, "None"),
])
def test_bad_arguments_fail_before_running(bad, exc, text):
    x = np.zeros(8)
    with pytest.raises(exc, match=text):
        Elementwise(K.axpy64, backend="cython")(*bad(x))


def test_array_of_another_backend_is_rejected():
    pytest.importorskip("pyopencl")
    from pcompute.backends.registry import get_backend
    if get_backend("opencl").why_unavailable():
        pytest.skip("opencl unavailable: " + get_backend("opencl").why_unavailable())
    with use_config(use_double=True):
        xa = pc.wrap(np.zeros(4), backend="opencl")
        with pytest.raises(KernelValueError, match="opencl backend"):
            Elementwise(K.axpy64, backend="cython")(xa, xa, 1.0)


def test_key_changes_when_a_helper_changes(tmp_path, monkeypatch):
    import importlib
    import sys
    mod = tmp_path / "helper_mod.py"
    text = ("from math import sqrt\n"
            "def h(u):\n    return u + {k}\n"
            "def k(i, x):\n    x[i] = h(x[i])\n")
    mod.write_text(text.format(k=1))
    monkeypatch.syspath_prepend(str(tmp_path))
    m = importlib.import_module("helper_mod")
    x = np.zeros(4)
    Elementwise(m.k, backend="cython")(x)
    src1 = Elementwise(m.k, backend="cython")
    src1(x)
    first = src1.source
    mod.write_text(text.format(k=2))
    sys.modules.pop("helper_mod")
    import linecache
    linecache.checkcache(str(mod))
    m2 = importlib.import_module("helper_mod")
    e2 = Elementwise(m2.k, backend="cython")
    y = np.zeros(4)
    e2(y)
    assert e2.source != first
    np.testing.assert_array_equal(y, 2.0)


def count_true(i, mask, out):
    if mask[i]:
        out[i] = 1
    else:
        out[i] = 0


def test_bool_arrays_are_read_as_bytes(backend):
    mask = np.array([True, False, False, True, True, False, True, False] * 9)
    out = pc.zeros(len(mask), np.int32)
    Elementwise(count_true)(pc.wrap(mask.copy()), out)
    np.testing.assert_array_equal(out.get(), mask.astype(np.int32))


def mixed_signs(i, u, s, out, out2):
    out[i] = u[i] - s[i]
    out2[i] = u[i] + 1


def reuse_loop_var(i, x):
    t = 0
    for k in range(3):
        for k in range(2):
            t += k + 10 * i
    x[i] = t + k


def test_unsigned_and_signed_follow_numpy(backend):
    n = 40
    rng = np.random.default_rng(12)
    u = rng.integers(0, 1000, n).astype(np.uint32)
    s = rng.integers(-1000, 1000, n).astype(np.int32)
    out, out2 = pc.zeros(n, np.int64), pc.zeros(n, np.int64)
    Elementwise(mixed_signs)(pc.wrap(u), pc.wrap(s), out, out2)
    np.testing.assert_array_equal(out.get(), u.astype(np.int64) - s)
    np.testing.assert_array_equal(out2.get(), u.astype(np.int64) + 1)


def test_inner_loop_reusing_the_outer_variable(backend):
    x = pc.zeros(5, np.int64)
    Elementwise(reuse_loop_var)(x)
    expected = [sum(k + 10 * i for _ in range(3) for k in range(2)) + 1 for i in range(5)]
    np.testing.assert_array_equal(x.get(), expected)


def test_double_on_a_device_without_fp64_is_a_clear_error(request, monkeypatch):
    from conftest import require_backend
    require_backend(request, "opencl")
    from pcompute.backends.opencl import OpenCLBackend
    monkeypatch.setattr(OpenCLBackend, "supports_double", lambda self: False)
    with use_config(backend="opencl", use_double=True):
        x = pc.wrap(np.zeros(4))
        with pytest.raises(KernelTypeError, match="double precision") as info:
            Elementwise(K.axpy64)(x, x, 1.0)
    assert "use_double = False" in str(info.value)


def test_unavailable_backend_from_the_environment(monkeypatch):
    from pcompute.backends.registry import get_backend
    from pcompute.config import Config, set_config, get_config
    from pcompute.errors import BackendUnavailableError
    if get_backend("cuda").why_unavailable() is None:
        pytest.skip("cuda works here, so it cannot be the unavailable backend")
    old = get_config()
    monkeypatch.setenv("PCOMPUTE_BACKEND", "cuda")
    set_config(Config())
    try:
        with pytest.raises(BackendUnavailableError, match="cuda backend is not available"):
            Elementwise(K.axpy64)(np.zeros(4), np.zeros(4), 1.0)
    finally:
        set_config(old)
