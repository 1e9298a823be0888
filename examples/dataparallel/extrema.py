"""Extrema and the sum of squares of a sequence (reductions of maps)."""
from pcompute.dataparallel import dataparallel, map, max, min, sum


@dataparallel
def extrema(x):
    return min(x), max(x)


@dataparallel
def sum_of_squares(x):
    return sum(map(lambda v: v * v, x))
