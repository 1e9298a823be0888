"""Kernels for the race check: racy ones (with the element two items share)
and race-free ones that a careless check would flag."""
from pcompute.types import atomic_inc


def shift_right(i, y, x):
    x[i + 1] = x[i] * 2.0 + y[i]


def neighbour_write(i, f, n):
    for j in range(n):
        f[j] -= 1.0


def shared_slot(i, x, total):
    total[0] += x[i]


def both_halves(i, x, n):
    x[2 * i] = 1.0
    x[2 * i + 4] = 2.0


def grid_up(i, j, u):
    u[i, j] = u[i + 1, j]


def own_element(i, x, y):
    y[i] = x[i] + x[i + 1]


def three_components(i, pos, f):
    for d in range(3):
        f[3 * i + d] = pos[3 * i + d] * 2.0


def guarded_first(i, x, out):
    if i == 0:
        out[0] = x[0]


def counted(i, keys, counts):
    atomic_inc(counts[keys[i]])


def even_odd(i, x):
    x[2 * i] = x[2 * i + 1]


def scatter(i, idx, x):
    x[idx[i]] = 1.0


def _put(v, k, value):
    v[k] = value


def _put_next(v, k, value):
    _put(v, k + 1, value)           # a helper calling a helper: writes v[k + 1]


def _tally(c):
    atomic_inc(c[0])                # every item: exempt as an atomic


def shift_via_helper(i, x):
    _put_next(x, i, x[i] * 2.0)


def own_via_helper(i, x, y):
    _put(y, i, x[i] + x[i + 1])


def counted_via_helper(i, keys, counts):
    if keys[i] > 0:
        _tally(counts)


RACY = {shift_right: "x[1]", neighbour_write: "f[0]", shared_slot: "total[0]",
        both_halves: "x[4]", grid_up: "u[1, 0]", shift_via_helper: "x[1]"}
RACE_FREE = [own_element, three_components, guarded_first, counted, even_odd, scatter,
             own_via_helper, counted_via_helper]


def shift_by(i, x, y, k):
    # races exactly when 0 < |k| < the number of items (ALPyNA's listing 1)
    y[i + k] = y[i] * 0.5 + x[i]
