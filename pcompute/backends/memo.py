"""Memoising per configuration generation.

Code that builds (or loads) a module on every call, such as a sort that
renders its template, hashes the source into a cache key and looks the
module up, can memoise the result by its arguments while
:data:`pcompute.config.GENERATION` is unchanged: any configuration change,
backend (un)registration or OpenCL ``set_context``/``set_queue`` empties the
memo, so it never serves a module built for another configuration or
device.
"""
import functools

from ..config import GENERATION


def per_generation(fn):
    """``fn(*args)`` (hashable arguments) memoised until the configuration
    generation changes; ``wrapper.cache_clear()`` empties it, ``wrapper.misses``
    counts the calls that ran ``fn``."""
    memo = {}
    stamp = [None]

    @functools.wraps(fn)
    def wrapper(*args):
        if GENERATION[0] != stamp[0]:
            memo.clear()
            stamp[0] = GENERATION[0]
        try:
            return memo[args]
        except KeyError:
            pass
        wrapper.misses += 1
        value = memo[args] = fn(*args)
        return value
    wrapper.misses = 0
    wrapper.cache_clear = memo.clear
    return wrapper
