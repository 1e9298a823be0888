"""The golden Cython texts merged into one group module, compiled, and each
kernel run from the group against plain Python.

pcompute/build/cython_merge.py renames names in generated text with regular
expressions; a name it misses or renames wrongly makes the group fail to
compile (two members define it) or, worse, makes a kernel read another
member's value (a stale module variable, a helper of the same name).  This
test merges every corpus kernel whose generated text is a golden file
(tests/golden/cython, the same configuration: float64, OpenMP) into one
group module (one build, cached in its own directory under the suite's
cache), loads every kernel from the group and compares its outputs with the
kernel run as plain Python (the python backend).  A group that fails to
merge or build is an error here (``strict_groups``), never a silent fallback
to kernels built one by one.
"""
import os
import re
from pathlib import Path

import numpy as np
import pytest

import pcompute as pc
from pcompute import Elementwise, use_config
from pcompute.backends.cython import module_flags
from pcompute.backends.registry import get_backend
from pcompute.build import cython_builder, cython_group

from kernels.corpus import CORPUS
from kernels.nd_corpus import View

GOLDEN = Path(__file__).parents[1] / "golden" / "cython"
N = 37
SEED = 20261126


@pytest.fixture
def golden_group_cache(monkeypatch):
    """The group's own cache directory (a kernel of the same key built alone
    elsewhere in the suite is then never found instead of the group's
    member), and a process memo without this test's modules."""
    root = os.environ.get("PCOMPUTE_CACHE_DIR") or str(Path(__file__).parents[2]
                                                        / ".pcompute-cache")
    monkeypatch.setenv("PCOMPUTE_CACHE_DIR", os.path.join(root, "golden-group"))
    monkeypatch.setattr(cython_builder, "_memo", {})


def device_args(args):
    """The corpus arguments on the configured backend: arrays wrapped (a copy
    each), views made on a wrapped copy of their base array."""
    return [a.make() if isinstance(a, View) else pc.wrap(a.copy())
            if isinstance(a, np.ndarray) else a for a in args]


def outputs(kernel, args, run=None):
    """The outputs of ``kernel`` (or of its Elementwise ``run``) run on the
    configured backend with fresh copies of ``args``."""
    device = device_args(args)
    (run or Elementwise(kernel.func))(*device)
    return [device[k].get() for k in kernel.output_positions()]


def compare(kernel, path, got, want):
    for name, g, w in zip(kernel.outputs, got, want):
        message = "%s: output %r of its group member (%s) differs from plain Python" % (
            kernel.name, name, path)
        assert g.dtype == w.dtype and g.shape == w.shape, message
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12, equal_nan=True,
                                   err_msg=message)


def golden_kernels():
    """The corpus kernels with a golden Cython text (every one of them is
    grouped: no golden text is left out)."""
    names = sorted(p.stem for p in GOLDEN.glob("*.pyx"))
    assert len(names) >= 45 and all(name in CORPUS for name in names)
    return [CORPUS[name] for name in names]


def test_golden_texts_built_as_one_group_run_as_plain_python(golden_group_cache):
    backend = get_backend("cython")
    with use_config(backend="cython", use_double=True, use_openmp=True,
                    strict_groups=True) as config:
        if not backend.use_openmp(config):
            pytest.skip("no OpenMP compiler: the golden texts are the OpenMP ones")
        kernels, items, generated = golden_kernels(), [], {}
        rng = np.random.default_rng(SEED)
        args = {k.name: k.args(N, np.float64, rng) for k in kernels}
        for kernel in kernels:
            item = Elementwise(kernel.func).program_for(backend, config,
                                                        device_args(args[kernel.name]))
            gen = backend.generate_elementwise(*item, config)
            assert gen.source == (GOLDEN / (kernel.name + ".pyx")).read_text(), (
                "%s: not its golden text (run tests/test_codegen_golden.py)" % kernel.name)
            items.append(item)
            generated[kernel.name] = gen
        # one group per set of compile flags and link flags but libraries
        # (all of them: one module)
        flags = {(tuple(cf), tuple(cython_group.split_libraries(lf)[0]))
                 for cf, lf in map(module_flags, generated.values())}
        groups = cython_group.stats["groups"]
        backend.prebuild_elementwise(items, config)     # raises if not merged or built
        compiled = cython_builder.stats["compiled"]
        for kernel in kernels:
            gen = generated[kernel.name]
            cflags, ldflags = module_flags(gen)
            module = cython_builder.build_cython(gen.source, kernel.name, gen.option("openmp"),
                                                 extra_compile_args=cflags,
                                                 extra_link_args=ldflags)
            assert isinstance(module, cython_builder.MemberView), kernel.name
            # every Python-visible function the module has alone (run, the
            # fast calls) is the member's own in the group
            for name in re.findall(r"^(?:cpdef|def)\s+(\w+)", gen.source, re.M):
                assert callable(getattr(module, name)), (kernel.name, name)
            if kernel.skip_reason("cython"):
                continue            # printf: generated and compiled, not run
            with use_config(backend="python"):
                want = outputs(kernel, args[kernel.name])      # plain Python
            run = Elementwise(kernel.func)
            compare(kernel, "run", outputs(kernel, args[kernel.name], run), want)
            if "\ndef pc_fast(" in gen.source:            # a second call: the fast call
                assert run._fast is not None, kernel.name
                compare(kernel, "pc_fast", outputs(kernel, args[kernel.name], run), want)
        # nothing built alone: every kernel ran from the group module (made
        # now or found in the cache)
        assert cython_builder.stats["compiled"] == compiled
        assert cython_group.stats["groups"] - groups in (0, len(flags))
