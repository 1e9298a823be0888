"""Profiling: per-kernel counts and times, compile time apart, zero cost when off."""
import csv
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from pcompute.array import wrap
from pcompute.backends.registry import get_backend
from pcompute.config import use_config
from pcompute.primitives.elementwise import Elementwise
from pcompute.primitives.reduction import Reduction
from pcompute.profile import (ProfileContext, compile_timer, format_profile,
                              get_profile_info, kernel_timer, named_profile,
                              print_profile, profile, profile2csv, profile_ctx,
                              profile_kernel, record, reset_profile)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def axpy(i, x, y, a):
    y[i] = a * x[i] + y[i]


@pytest.fixture(autouse=True)
def clean_profile():
    reset_profile()
    yield
    reset_profile()


def runnable(name):
    reason = get_backend(name).why_unavailable()
    if reason is not None:
        pytest.skip("%s backend unavailable: %s" % (name, reason))


def run_axpy(times, n=1000):
    x = wrap(np.linspace(0, 1, n).astype(np.float32))
    y = wrap(np.zeros(n, dtype=np.float32))
    k = Elementwise(axpy)
    for _ in range(times):
        k(x, y, np.float32(2.0))
    return y


@pytest.mark.parametrize("name", ["python", "cython", "opencl"])
def test_elementwise_counts_and_compile_apart(name):
    runnable(name)
    with use_config(backend=name, profile=True):
        y = run_axpy(3)
    info = get_profile_info()[0]
    assert info["axpy"]["calls"] == 3
    assert info["axpy"]["kind"] == "run"
    assert info["axpy"]["total"] > 0
    assert info["axpy"]["time"] == info["axpy"]["total"]
    assert info["axpy"]["min"] <= info["axpy"]["mean"] <= info["axpy"]["max"]
    assert info["axpy"]["total"] == pytest.approx(3 * info["axpy"]["mean"])
    assert info["compile:axpy"]["calls"] == 1
    assert info["compile:axpy"]["kind"] == "compile"
    assert info["compile:axpy"]["total"] > 0
    np.testing.assert_allclose(y.get(),
                               6 * np.linspace(0, 1, 1000).astype(np.float32),
                               rtol=1e-5)


def test_off_records_no_kernels():
    with use_config(backend="cython", profile=False):
        run_axpy(3)
        r = Reduction("a+b")
        r(wrap(np.ones(10)))
    assert get_profile_info() == {}


def test_user_timers_record_when_off_as_in_compyle():
    with use_config(backend="cython", profile=False):
        with profile_ctx("block"):
            run_axpy(1)

        @profile
        def f():
            return 1
        assert f() == 1
        ProfileContext("pc").stop()
    info = get_profile_info()
    assert sorted(info) == [0]          # the kernel inside the block is not timed
    assert sorted(info[0]) == ["block", "pc",
                               "test_user_timers_record_when_off_as_in_compyle.<locals>.f"]
    assert all(d["calls"] == 1 for d in info[0].values())


def test_timers_are_shared_noops_when_off():
    with use_config(profile=False):
        assert kernel_timer("k", "cython") is kernel_timer("j", "opencl")
        assert compile_timer("k") is kernel_timer("k")
        with kernel_timer("k"):
            pass
        raw = object()
        assert profile_kernel(raw, "raw") is raw
    assert get_profile_info() == {}


def test_reduction_named_by_expression():
    with use_config(backend="cython", profile=True):
        r = Reduction("a+b")
        x = wrap(np.arange(10.0))
        assert r(x) == 45.0
        assert r(x) == 45.0
        m = Reduction("a+b", map_func=axpy_map)
        assert m(x) == 90.0
    info = get_profile_info()[0]
    assert info["reduce[a+b]"]["calls"] == 2
    assert info["compile:reduce[a+b]"]["calls"] == 1
    assert info["axpy_map[a+b]"]["calls"] == 1


def axpy_map(i, x):
    return 2 * x[i]


def test_kernel_timer_records_and_skips_failures():
    with use_config(profile=True):
        with kernel_timer("ok", "cython"):
            pass
        with pytest.raises(RuntimeError):
            with kernel_timer("bad", "cython"):
                raise RuntimeError("boom")
        with compile_timer("thing"):
            pass
    info = get_profile_info()[0]
    assert info["ok"]["calls"] == 1 and "bad" not in info
    assert info["compile:thing"]["kind"] == "compile"


def test_profile_decorator_ctx_and_levels():
    class Stage:
        name = "stage-one"

        @profile
        def run(self):
            with use_config(backend="cython"):
                run_axpy(2)

    @profile
    def outer():
        with profile_ctx("inner"):
            pass
        return 7

    @profile(name="custom")
    def named():
        pass

    with use_config(profile=True):
        assert outer() == 7
        named()
        Stage().run()
        p = ProfileContext("manual")
        p.stop()
        p.stop()            # a second stop does nothing
    info = get_profile_info()
    assert sorted(info) == [0, 1]
    assert info[0]["test_profile_decorator_ctx_and_levels.<locals>.outer"]["level"] == 0
    assert info[1]["inner"]["level"] == 1
    assert info[0]["custom"]["calls"] == 1
    assert info[0]["stage-one"]["calls"] == 1 and info[0]["stage-one"]["level"] == 0
    assert info[1]["axpy"]["calls"] == 2 and info[1]["axpy"]["level"] == 1
    assert info[0]["manual"]["calls"] == 1
    text = format_profile()
    # nested entries are indented; level-0 sum is the total run time
    assert "\n  axpy" in text
    assert "total profiled run time" in text


def test_profile_kernel_and_named_profile_host():
    calls = []

    def raw(a, b=0):
        calls.append((a, b))
        return a + b

    with use_config(backend="cython", profile=True):
        wrapped = profile_kernel(raw, "raw")
        assert wrapped is not raw
        assert wrapped(1, b=2) == 3

        @named_profile("made")
        def make():
            return raw
        assert make()(5) == 5

        @named_profile(None)
        def factory():
            return raw
        factory()(1)
    info = get_profile_info()[0]
    assert info["raw"]["calls"] == 1
    assert info["made"]["calls"] == 1
    assert info["factory"]["calls"] == 1
    assert calls == [(1, 2), (5, 0), (1, 0)]


def test_profile_kernel_opencl_device_events():
    runnable("opencl")
    import pyopencl as cl
    from pcompute.build import opencl_builder
    queue = opencl_builder.get_queue(profiling=True)
    prg = cl.Program(queue.context, """
        __kernel void twice(__global float *a) { a[get_global_id(0)] *= 2.0f; }
    """).build()
    a = np.ones(4096, dtype=np.float32)
    buf = cl.Buffer(queue.context, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR,
                    hostbuf=a)
    with use_config(profile=True):
        knl = profile_kernel(prg.twice, "twice", backend="opencl")
        for _ in range(2):
            event = knl(queue, a.shape, None, buf)
            assert event.profile.end >= event.profile.start
    info = get_profile_info()[0]["twice"]
    assert info["calls"] == 2 and info["total"] > 0
    cl.enqueue_copy(queue, a, buf)
    assert (a == 4).all()


def test_print_profile_table(capsys):
    record("alpha", 0.5)
    record("alpha", 1.5)
    record("beta", 0.25)
    record("compile:alpha", 2.0)
    print_profile()
    out = capsys.readouterr().out
    lines = out.splitlines()
    header = next(line for line in lines if line.startswith("name"))
    assert header.split() == ["name", "calls", "total", "min", "mean", "max"]
    alpha = next(line for line in lines if line.startswith("alpha"))
    assert alpha.split() == ["alpha", "2", "2.000000", "0.500000", "1.000000", "1.500000"]
    # compile time is reported in its own section, after the run times
    assert out.index("compile time") > out.index("beta")
    assert out.index("compile:alpha") > out.index("compile time")
    assert "total profiled run time: 2.250000 s" in out
    assert "total compile time: 2.000000 s" in out


def test_print_profile_empty(capsys):
    print_profile()
    assert "no profiling information" in capsys.readouterr().out


def test_profile2csv(tmp_path):
    record("alpha", 0.5)
    record("alpha", 1.5)
    record("compile:alpha", 2.0)
    fname = tmp_path / "profile.csv"
    profile2csv(str(fname))
    rows = list(csv.DictReader(open(fname)))
    assert list(rows[0]) == ["rank", "level", "function", "calls", "time", "min",
                             "mean", "max", "kind"]
    by_name = {r["function"]: r for r in rows}
    assert by_name["alpha"]["calls"] == "2"
    assert float(by_name["alpha"]["time"]) == 2.0
    assert float(by_name["alpha"]["min"]) == 0.5
    assert float(by_name["alpha"]["mean"]) == 1.0
    assert float(by_name["alpha"]["max"]) == 1.5
    assert by_name["alpha"]["kind"] == "run"
    assert by_name["compile:alpha"]["kind"] == "compile"
    assert {r["rank"] for r in rows} == {"0"}
    # several ranks
    profile2csv(str(fname), info=[get_profile_info(), {}, get_profile_info()])
    rows = list(csv.DictReader(open(fname)))
    assert sorted({r["rank"] for r in rows}) == ["0", "2"]


def test_env_prints_table_at_exit(tmp_path):
    script = tmp_path / "run.py"
    script.write_text(textwrap.dedent("""
        import numpy as np
        from pcompute.array import wrap
        from pcompute.config import use_config
        from pcompute.primitives.elementwise import Elementwise

        def scale(i, x):
            x[i] = 2 * x[i]

        with use_config(backend="python"):
            k = Elementwise(scale)
            x = wrap(np.ones(8))
            k(x)
            k(x)
        print("done")
    """))
    env = dict(os.environ, PCOMPUTE_PROFILE="1",
               PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "done"          # the table goes to stderr
    line = next(l for l in out.stderr.splitlines() if l.startswith("scale"))
    assert line.split()[1] == "2"
    assert "compile:scale" in out.stderr


def test_same_name_at_two_levels_has_an_entry_at_each():
    @profile(name="work")
    def work():
        pass

    work()
    with profile_ctx("outer"):
        work()
        work()
    info = get_profile_info()
    assert info[0]["work"]["calls"] == 1 and info[1]["work"]["calls"] == 2
    assert info[0]["outer"]["calls"] == 1
    text = format_profile()
    assert "\n  work " in text and "\nwork " in text
