"""Compyle (the system pcompute replaces), when importable; else skipped."""
try:
    import compyle.api as capi
    from compyle.config import get_config as compyle_config
    _ERROR = None
except Exception as exc:
    capi = None
    _ERROR = "compyle is not importable (%s); skipped" % type(exc).__name__


def why_missing():
    return _ERROR


def _configure(backend, openmp):
    cfg = compyle_config()
    cfg.use_openmp = openmp
    cfg.use_double = True
    return "cython" if backend == "cython" else backend


def elementwise(func, backend="cython", openmp=True):
    return capi.Elementwise(func, backend=_configure(backend, openmp))


def reduction(dtype, backend="cython", openmp=True):
    return capi.Reduction("a+b", dtype_out=dtype, backend=_configure(backend, openmp))
