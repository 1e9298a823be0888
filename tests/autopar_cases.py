"""Small functions for the behaviour tests of pcompute.parallelize (their
line numbers are checked by the tests)."""


def shift_copy(a, b, n):
    for i in range(n):
        b[i] = a[i + 1]


def recurrence(a, n):
    for i in range(1, n):
        a[i] = a[i - 1] * 0.5


def outside_subset(a, n):
    for i in range(n):
        a[i] = [1.0, 2.0][0]


def loop_under_if(a, n, flag):
    if flag:
        for i in range(n):
            a[i] = 1.0
    return a.sum()
