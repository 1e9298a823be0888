"""Kernels used by tests/test_elementwise.py (module-level, so sources are found)."""
from math import sqrt

from pcompute.types import annotate, declare


@annotate(i='int', x='gfloatp', y='gfloatp', a='float')
def axpy32(i, x, y, a):
    y[i] = a * x[i] + y[i]


@annotate(i='int', x='gdoublep', y='gdoublep', a='double')
def axpy64(i, x, y, a):
    y[i] = a * x[i] + y[i]


def axpy_jit(i, x, y, a):
    y[i] = a * x[i] + y[i]


def norm_helper(u, v):
    return sqrt(u * u + v * v)


def uses_helper(i, x, y, out):
    out[i] = norm_helper(x[i], y[i])


def int_work(i, k, out):
    out[i] = (k[i] * 7 - 3) // 4 + k[i] % 5


def count_atomic(i, keys, counts):
    # prefetch changes nothing, even past the end (tests/test_prefetch.py)
    prefetch(counts[keys[i]])
    prefetch(keys[i + 1000000])
    atomic_inc(counts[keys[i]])


def max_atomic(i, keys, log, old):
    old[i] = atomic_max(log[keys[i]], i + 1)


from pcompute.types import atomic_inc, atomic_max, prefetch  # noqa: E402


def unread_locals(i, x, u, out):
    # Locals set and never read, and an unsigned value compared with zero:
    # nvcc remarks on all three (#550, #186), which must not reach the user.
    spare = declare('int')
    twice = 2.0 * x[i]
    out[i] = x[i] + (1.0 if u[i] >= 0 else 0.0)


OFFSET = 0     # test_a_helpers_module_number_is_read_by_each_new_kernel changes it


def _at_offset(v, k):
    return v[k + OFFSET] * 0.5


def halve_at_offset(i, out, x):
    out[i] = _at_offset(x, i)
