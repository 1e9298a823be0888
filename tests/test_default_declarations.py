"""Default argument values as type declarations (Compyle's JIT spelling).

``def map(i=0, x=[0.0], y=[0.0])`` declares i as long and x, y as double
arrays; the defaults are never used as values.  Checked on every backend
against numpy, and at the typing stage for the declared types.
"""
from math import cos, sin

import numpy as np
import pytest

from pcompute.array import wrap
from pcompute.errors import KernelSyntaxError, KernelTypeError
from pcompute.frontend.program import type_kernel
from pcompute.primitives.elementwise import Elementwise
from pcompute.primitives.reduction import Reduction
from pcompute.types import annotate


def cos_sin(i=0, x=[0.0], y=[0.0]):
    return cos(x[i]) * sin(y[i])


def halve(v=0.0, k=1):
    return v * k / 2


def scaled(i, x=[0.0], y=[0.0], k=0):
    y[i] = halve(x[i], k) + k


@annotate(n="int")
def annotated_wins(i, x, n=0.0):
    x[i] = n


def test_types_declared_by_defaults():
    entry = type_kernel(cos_sin).entry
    assert {name: str(t) for name, t in entry.args} == {
        "i": "long", "x": "gdoublep", "y": "gdoublep"}


def test_annotation_wins_over_default():
    entry = type_kernel(annotated_wins, {"x": "gdoublep", "i": "int"}).entry
    assert dict((name, str(t)) for name, t in entry.args)["n"] == "int"


def test_reduction_map_with_default_declarations(backend):
    rng = np.random.default_rng(3)
    x = rng.random(1000).astype(backend.dtype)
    y = rng.random(1000).astype(backend.dtype)
    got = Reduction("a+b", map_func=cos_sin, backend=backend.name)(
        *wrap(x.copy(), y.copy(), backend=backend.name))
    expected = np.sum(np.cos(x.astype(np.float64)) * np.sin(y.astype(np.float64)))
    np.testing.assert_allclose(got, expected, rtol=backend.rtol)


def test_elementwise_and_helper_with_default_declarations(backend):
    x = np.linspace(-2.0, 2.0, 257).astype(backend.dtype)
    xa, ya = wrap(x.copy(), np.zeros_like(x), backend=backend.name)
    Elementwise(scaled, backend=backend.name)(xa, ya, 3)
    ya.pull()
    np.testing.assert_allclose(ya.data, x * 3 / 2 + 3, rtol=backend.rtol)


def bad_default(i, x, n="three"):
    x[i] = 1.0


def calls_without_default(i, x):
    x[i] = halve(x[i])


def test_bad_default_is_a_syntax_error_at_the_default():
    with pytest.raises(KernelSyntaxError) as info:
        type_kernel(bad_default, {"i": "int", "x": "gdoublep"})
    assert "default value of argument 'n'" in str(info.value)
    assert '"three"' in str(info.value)


def test_omitted_argument_is_not_filled_from_its_default():
    with pytest.raises(KernelTypeError) as info:
        type_kernel(calls_without_default, {"i": "int", "x": "gdoublep"})
    assert "halve() takes 2 argument(s) but 1 were given" in str(info.value)
    assert "only declare types" in str(info.value)


def fill(i, x, v=0):
    x[i] = v


def test_passed_value_wins_over_its_default(backend):
    # As in Python: v=0 declares a long only when nothing else types v; the
    # call passes a float, so the kernel stores 2.5, not 2.
    xa = wrap(np.zeros(33, dtype=backend.dtype), backend=backend.name)
    Elementwise(fill, backend=backend.name)(xa, 2.5)
    xa.pull()
    np.testing.assert_array_equal(xa.data, np.full(33, 2.5, dtype=backend.dtype))
