"""Run a kernel on the configured backend and compare it with its plain Python
call (:mod:`plain_python`): the helpers of the tests of what kernels mean
(tests/test_python_meaning.py, tests/test_indep_findings.py)."""
import numpy as np

import pcompute as pc
from pcompute import Elementwise

from plain_python import plain_call


def run(func, args):
    """Run ``func`` as an Elementwise kernel; return the arrays afterwards."""
    device = [pc.wrap(a.copy()) if isinstance(a, np.ndarray) else a for a in args]
    Elementwise(func)(*device)
    out = []
    for d in device:
        if hasattr(d, "pull"):
            d.pull()
            out.append(d.data)
        else:
            out.append(d)
    return out


def check(func, args, backend, exact=True):
    """``func`` on ``backend`` gives what the plain Python call gives (the
    same dtype, equal values; floats within ``backend.rtol`` unless
    ``exact``); returns the arrays the kernel left."""
    n = len(args[0])
    want = plain_call(func, n, args)
    got = run(func, args)
    for k, (g, w) in enumerate(zip(got, want)):
        if not isinstance(w, np.ndarray):
            continue
        message = "%s: argument %d on %s" % (func.__name__, k, backend.id)
        assert g.dtype == w.dtype, message
        if exact or w.dtype.kind in "iub":
            np.testing.assert_array_equal(g, w, err_msg=message)
        else:
            np.testing.assert_allclose(g, w, rtol=backend.rtol, err_msg=message)
    return got
