"""Host-CPU Cython kernels call glibc's exp and log without their errno
wrappers (pcompute/codegen/nowrap.py): the same functions, so the results
are bit for bit those of the C library's exp and log, special values
included."""
import ctypes
import platform
import shutil
import subprocess
from math import exp, log

import numpy as np
import pytest

from pcompute import Elementwise, get_backend, parallelize, use_config

SPECIAL = [709.0, 709.8, 710.0, 1e308, -708.0, -740.0, -745.2, -746.0, -1e308, 0.0, -0.0,
           5e-324, 1e-310, -1.0, np.inf, -np.inf, np.nan, 1.0, 0.5, 2.0 ** -30]


def exp_log_loop(x, y, z, n):
    for i in range(n):
        y[i] = exp(x[i])
        z[i] = log(x[i])


def exp_log_item(i, x, y, z):
    y[i] = exp(x[i])
    z[i] = log(x[i])


def _glibc_with_unwrapped():
    libc, version = platform.libc_ver()
    if libc != "glibc" or tuple(int(v) for v in version.split(".")[:2]) < (2, 34) \
            or platform.machine() != "x86_64":
        return False
    dlvsym = ctypes.CDLL(None).dlvsym
    dlvsym.restype = ctypes.c_void_p
    return all(dlvsym(None, name, b"GLIBC_2.15") for name in (b"__exp_finite",
                                                             b"__log_finite"))


def test_unwrapped_exp_and_log_give_the_library_values():
    cython = get_backend("cython")
    if cython.why_unavailable():
        pytest.skip(cython.why_unavailable())
    rng = np.random.default_rng(11)
    x = np.r_[SPECIAL, rng.uniform(-700, 700, 300), rng.uniform(0, 50, 300)]
    n = len(x)
    y, z = np.zeros(n), np.zeros(n)
    with use_config(backend="cython", use_openmp=False):
        f = parallelize(exp_log_loop)
        with np.errstate(all="ignore"):
            f(x, y, z, n)
        # the C library's exp and log, through their wrappers: a plain Elementwise
        plain_y, plain_z = np.zeros(n), np.zeros(n)
        e = Elementwise(exp_log_item)
        e(x, plain_y, plain_z)
    assert "pc_nw_exp" not in e.source and "pc_nw_exp" in f.last_plans[0].kernel[0].source
    np.testing.assert_array_equal(y.view(np.int64), plain_y.view(np.int64))
    np.testing.assert_array_equal(z.view(np.int64), plain_z.view(np.int64))
    finite = np.isfinite(x) & (x < 709) & (x > 0)
    assert all(y[k] == exp(x[k]) and z[k] == log(x[k]) for k in np.flatnonzero(finite))
    if _glibc_with_unwrapped() and shutil.which("readelf"):
        # the module looks the functions up (x86-64 glibc >= 2.34, found here)
        import pcompute.build.cython_builder as cb
        from pcompute.backends.cython import module_flags
        gen = f.last_plans[0].kernel[0].built.generated
        cflags, ldflags = module_flags(gen)
        key = cb.build_key(gen.source, False, extra_compile_args=cflags,
                           extra_link_args=ldflags)[0]
        text = subprocess.run(["readelf", "--dyn-syms", "-W", cb._memo[key].__file__],
                              capture_output=True, text=True, check=True).stdout
        assert any(" UND " in line and "dlvsym" in line for line in text.splitlines())
