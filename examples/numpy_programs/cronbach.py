"""Cronbach's alpha of item scores (variances along both axes)."""
import numpy as np


def cronbach(scores):
    nitems = scores.shape[0]
    item_vars = np.var(scores, axis=1, ddof=1)
    total = np.sum(scores, axis=0)
    return nitems / (nitems - 1.0) * (1 - np.sum(item_vars) / np.var(total, ddof=1))


def inputs(n, seed=0):
    rng = np.random.default_rng(seed)
    return [np.asarray(rng.random((8, max(n // 8, 2))))]


MAIN = cronbach
