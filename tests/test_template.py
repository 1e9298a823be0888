"""Mako templates generating kernels used by Elementwise and Scan."""
import numpy as np
import pytest

import pcompute as pc

import ll_kernels as K


def test_align_template_for_any_number_of_arrays(backend):
    for num in (1, 3):
        t = K.AlignTemplate("align%d" % num, num)
        assert t.function.source.startswith("def align%d(i, order, src0" % num)
        n = 50
        order = np.random.default_rng(num).permutation(n).astype(np.int32)
        srcs = [np.random.default_rng(k).random(n).astype(backend.dtype) for k in range(num)]
        dsts = [pc.zeros(n, backend.dtype) for _ in range(num)]
        pc.Elementwise(t.function)(pc.wrap(order), *[pc.wrap(s) for s in srcs], *dsts)
        for s, d in zip(srcs, dsts):
            np.testing.assert_array_equal(d.get(), s[order])


def test_inject_pastes_a_body(backend):
    t = K.InjectTemplate("twice_plus")
    assert "x[i] = x[i] + 1" in t.source
    x = np.arange(10).astype(backend.dtype)
    xa = pc.wrap(x.copy())
    pc.Elementwise(t.function)(xa)
    np.testing.assert_array_equal(xa.get(), 2 * (x + 1))


def test_annotations_from_extra_args():
    f = K.TypedTemplate("triple").function
    assert f.__annotations__["x"] == pc.types.KnownType("GLOBAL_MEM double*", "double")
    assert f.__annotations__["x"] == pc.types.gdoublep
    assert f.is_jit is False
    x = np.ones(5)
    pc.Elementwise(f, backend="cython")(x)
    np.testing.assert_array_equal(x, 3.0)


def test_template_used_by_scan():
    scan_mod = pytest.importorskip("pcompute.primitives.scan")

    class Input(pc.template.Template):
        def template(self, i, x):
            '''
            return x[i] * ${obj.factor}
            '''

    t = Input("scaled_input")
    t.factor = 2
    x = np.arange(1, 11, dtype=np.int32)
    out = np.zeros(10, np.int32)

    def output(i, item, out):
        out[i] = item

    scan = scan_mod.Scan(t.function, output, "a+b", dtype=np.int32, backend="cython")
    scan(x=x, out=out)
    np.testing.assert_array_equal(out, np.cumsum(2 * x))
