"""numexpr (``pip install numexpr``), when importable: expressions over numpy
arrays evaluated in cache-sized blocks on ``numexpr.nthreads`` threads (set
to the cores here).  A peer of the compute-heavy map."""
import os

try:
    import numexpr
    _ERROR = None
except Exception as exc:  # not installed, or a broken install
    numexpr = None
    _ERROR = "numexpr is not importable (%s: %s); pip install numexpr to compare" % (
        type(exc).__name__, exc)


def why_missing():
    return _ERROR


def version():
    return numexpr.__version__ if numexpr else None


def threads():
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:
        cores = os.cpu_count() or 1
    numexpr.set_num_threads(cores)
    return cores


def evaluator(expr, out, **arrays):
    """``run()``: ``out[:] = expr`` over ``arrays`` (numexpr keeps the
    compiled expression in its cache)."""
    threads()
    return lambda: numexpr.evaluate(expr, local_dict=arrays, out=out)
