"""European call and put prices (Black-Scholes), both in one kernel."""
from math import exp, log, sqrt

from pcompute.dataparallel import dataparallel, map


def cnd(d):
    """The cumulative normal distribution (Abramowitz-Stegun polynomial)."""
    k = 1.0 / (1.0 + 0.2316419 * abs(d))
    poly = k * (0.31938153 + k * (-0.356563782 + k * (1.781477937 + k * (
        -1.821255978 + k * 1.330274429))))
    w = 1.0 - 0.3989422804014327 * exp(-0.5 * d * d) * poly
    return w if d >= 0 else 1.0 - w


@dataparallel
def black_scholes(S, X, T, r, v):
    def d1(s, x, t):
        return (log(s / x) + (r + 0.5 * v * v) * t) / (v * sqrt(t))

    def call(s, x, t):
        a = d1(s, x, t)
        return s * cnd(a) - x * exp(-r * t) * cnd(a - v * sqrt(t))

    def put(s, x, t):
        a = d1(s, x, t)
        return x * exp(-r * t) * cnd(v * sqrt(t) - a) - s * cnd(-a)
    return map(call, S, X, T), map(put, S, X, T)
