"""Where the generator's choices come from: hypothesis, or a seeded RNG.

The generator only asks for integers in a range; every other choice is made
from those.  Under hypothesis each answer is a draw (so examples shrink
towards the first option of every choice, which the generator makes the
simplest); the command line uses :class:`RandomChooser`, cheaper per kernel
and reproducible from one seed.
"""
import random


class Chooser:
    """Base class: ``integer`` must be provided, the rest is derived."""

    def integer(self, lo, hi):
        raise NotImplementedError

    def choice(self, options):
        options = list(options)
        return options[self.integer(0, len(options) - 1)]

    def weighted(self, pairs):
        """One value of ``[(weight, value), ...]`` (the first is the simplest)."""
        total = sum(w for w, _ in pairs if w > 0)
        k = self.integer(0, total - 1)
        for w, value in pairs:
            if w <= 0:
                continue
            if k < w:
                return value
            k -= w
        raise AssertionError("unreachable")

    def flag(self, percent):
        """True with about ``percent`` % probability (False is the simpler)."""
        return self.integer(0, 99) >= 100 - percent


class RandomChooser(Chooser):
    def __init__(self, seed):
        self.rng = random.Random(seed)

    def integer(self, lo, hi):
        return self.rng.randint(lo, hi)


class DataChooser(Chooser):
    """Choices drawn from hypothesis' ``st.data()``."""

    def __init__(self, data):
        from hypothesis import strategies as st
        self.data = data
        self.st = st
        self._cache = {}

    def integer(self, lo, hi):
        key = (lo, hi)
        strategy = self._cache.get(key)
        if strategy is None:
            strategy = self._cache[key] = self.st.integers(lo, hi)
        return self.data.draw(strategy)
