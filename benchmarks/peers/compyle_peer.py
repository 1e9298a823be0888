"""Compyle (the system pcompute replaces), when importable; else skipped.

Runs on Compyle's cython backend with OpenMP and double precision; each
helper returns a ``run()`` closure over Compyle Arrays wrapping the numpy
arrays (host backend: no copies, results land in the numpy arrays).
"""
try:
    import compyle.api as capi
    from compyle.config import get_config as compyle_config
    _ERROR = None
except Exception as exc:
    capi = None
    _ERROR = "compyle is not importable (%s); skipped" % type(exc).__name__


def why_missing():
    return _ERROR


def _setup():
    cfg = compyle_config()
    cfg.use_openmp = True
    cfg.use_double = True
    return "cython"


def elementwise(func, a, x, y):
    backend = _setup()
    knl = capi.Elementwise(func, backend=backend)
    xa, ya = capi.wrap(x, y, backend=backend)
    return lambda: knl(a, xa, ya)


def reduction(x):
    backend = _setup()
    knl = capi.Reduction("a+b", dtype_out=x.dtype, backend=backend)
    xa = capi.wrap(x, backend=backend)
    return lambda: knl(xa)
