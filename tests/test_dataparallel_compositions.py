"""Property test: random compositions of the primitives, written out as a
@dataparallel function (a module in a temporary directory: the compiler
reads source), compiled on every backend and compared with the same
function run by the prelude (the oracle).  Integers keep the comparison
exact.  A few seeded compositions per backend (each one compiles its
kernels); tests/test_dataparallel_prelude.py has the hypothesis test of
the prelude itself."""
import importlib.util
import itertools

import numpy as np
import pytest

HEADER = """import operator
from pcompute.dataparallel import (dataparallel, exclusive_scan, gather, map, max, min,
                                   permute, reduce, rotate, rscan, scan, shift, sum)
"""
SEEDS = (1, 2, 3, 4, 5)
_counter = itertools.count()


def sequence(rng, depth):
    """The source of a sequence expression over x, y (length n), idx, perm."""
    if depth == 0 or rng.integers(0, 5) == 0:
        return str(rng.choice(["x", "y"]))
    inner = sequence(rng, depth - 1)
    k, c = int(rng.integers(-3, 4)), int(rng.integers(-9, 10))
    forms = ["map(lambda v: v * %d + %d, {0})" % (k, c),
             "map(lambda a, b: a - b if a > b else b - 2 * a, {0}, %s)"
             % sequence(rng, depth - 1),
             "gather({0}, idx)", "shift({0}, %d, %d)" % (k, c), "rotate({0}, %d)" % k,
             "scan(operator.add, {0})", "scan(max, {0})", "rscan(min, {0})",
             "exclusive_scan(operator.add, {0}, %d)" % c, "permute({0}, perm)"]
    return str(rng.choice(forms)).format(inner)


def write_function(tmp_path, rng):
    seq, other = sequence(rng, 3), sequence(rng, 2)
    reduction = str(rng.choice(["sum({0})", "reduce(max, {0}, -10**6)",
                                "reduce(operator.add, {0}, 7)", "min({0})"]))
    name = "composed_%d" % next(_counter)
    path = tmp_path / (name + ".py")
    path.write_text(HEADER + "\n\n@dataparallel\ndef f(x, y, idx, perm):\n"
                    "    return %s, %s\n" % (seq, reduction.format(other)))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.f, (seq, reduction.format(other))


@pytest.mark.integer_data
def test_random_compositions_match_the_oracle(backend, tmp_path):
    for seed in SEEDS:
        rng = np.random.default_rng(seed)
        f, text = write_function(tmp_path, rng)
        n = int(rng.integers(1, 41))
        x, y = (rng.integers(-20, 20, n).astype(np.int64) for _ in range(2))
        idx = rng.integers(0, n, n).astype(np.int32)
        perm = rng.permutation(n).astype(np.int32)
        got_seq, got_red = f(x, y, idx, perm)
        want_seq, want_red = f.py(x, y, idx, perm)
        assert np.asarray(got_seq.get()).tolist() == np.asarray(want_seq).tolist(), text
        assert got_red == want_red, text
        assert 1 <= len(f.last_phases) <= 12, text
