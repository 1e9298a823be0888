"""Kernels used by the code-generation examples of the documentation."""
from pcompute import annotate


@annotate(i='int', doublep='x, y', a='double')
def axpy(i, x, y, a):
    y[i] = a * x[i] + y[i]


def clip(v, lo, hi):
    return min(max(v, lo), hi)


def clip_all(i, x, lo, hi):
    x[i] = clip(x[i], lo, hi)
