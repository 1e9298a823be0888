"""pcompute.templates.render keeps what it rendered in the cache: a later
process gets the same text without mako; the key holds every template's text
and each value with its type; a damaged entry is a miss."""
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from pcompute import templates
from pcompute.errors import InternalError

from conftest import ROOT


@pytest.fixture
def one_template(tmp_path, monkeypatch):
    """templates.render over a directory holding t.mako (and a cache of its
    own); returns the directory."""
    folder = tmp_path / "templates"
    folder.mkdir()
    (folder / "t.mako").write_text("x is ${x}\n%for v in values:\nv ${v}\n%endfor\n")
    monkeypatch.setattr(templates, "_HERE", str(folder))
    monkeypatch.setattr(templates, "_memo", {})
    monkeypatch.setenv("PCOMPUTE_CACHE_DIR", str(tmp_path / "cache"))
    for cached in (templates._lookup, templates._load, templates._templates_digest):
        cached.cache_clear()
    yield folder
    for cached in (templates._lookup, templates._load, templates._templates_digest):
        cached.cache_clear()


def _forget(monkeypatch):
    """As a new process: nothing rendered in this one, mako not at hand."""
    monkeypatch.setattr(templates, "_memo", {})

    def no_mako(name, context):
        raise AssertionError("rendered with mako: %s" % name)
    monkeypatch.setattr(templates, "_render", no_mako)


def test_a_rendered_text_is_read_back_without_mako(one_template, monkeypatch):
    text = templates.render("t", x=1, values=[2, 3])
    assert text == "x is 1\nv 2\nv 3\n"
    _forget(monkeypatch)
    assert templates.render("t", x=1, values=[2, 3]) == text
    with pytest.raises(AssertionError, match="rendered with mako"):
        templates.render("t", x=2, values=[2, 3])       # another value: not kept


def test_the_key_holds_each_value_with_its_type(one_template, monkeypatch):
    assert templates.render("t", x=[1], values=()) == "x is [1]\n"
    assert templates.render("t", x=(1,), values=()) == "x is (1,)\n"
    assert templates.render("t", x=True, values=()) == "x is True\n"
    assert templates.render("t", x=1, values=()) == "x is 1\n"
    assert templates.render("t", x={"a": 1, "b": 2}, values=()) == "x is {'a': 1, 'b': 2}\n"
    assert templates.render("t", x={"b": 2, "a": 1}, values=()) == "x is {'b': 2, 'a': 1}\n"
    assert templates.render("t", x=np.int64(3), values=()) == "x is 3\n"
    assert templates.render("t", x=np.float32(0.5), values=()) == "x is 0.5\n"
    assert templates._plain(np.int64(3), "t") != templates._plain(3, "t")
    with pytest.raises(InternalError, match="templates take plain data"):
        templates.render("t", x=object(), values=())
    with pytest.raises(InternalError, match="templates take plain data"):
        templates.render("t", x=np.arange(2), values=())


def test_a_changed_template_is_rendered_again(one_template, monkeypatch):
    assert templates.render("t", x=1, values=[]) == "x is 1\n"
    (one_template / "t.mako").write_text("now ${x}\n")
    monkeypatch.setattr(templates, "_memo", {})
    for cached in (templates._lookup, templates._load, templates._templates_digest):
        cached.cache_clear()            # a new process
    assert templates.render("t", x=1, values=[]) == "now 1\n"


def test_a_damaged_entry_is_rendered_again(one_template, monkeypatch):
    from pcompute.build import cache
    text = templates.render("t", x=5, values=[])
    [entry] = cache.Cache().list_entries(templates.KIND)
    entry["path"].write_text("x is 6\n")               # same size, other bytes
    monkeypatch.setattr(templates, "_memo", {})
    assert templates.render("t", x=5, values=[]) == text
    assert entry["path"].read_text() == text            # and written again


def test_a_kernel_loaded_from_the_cache_imports_no_template_engine():
    """The first call of an Elementwise whose module and texts are cached
    loads neither mako's template modules nor pygments (a new process)."""
    code = textwrap.dedent("""
        import sys
        import numpy as np
        import pcompute
        from tests.ew_kernels import axpy64
        x, y = np.ones(5), np.ones(5)
        with pcompute.use_config(backend="cython"):
            pcompute.Elementwise(axpy64)(x, y, 2.0)
        print(sorted(m for m in sys.modules if m.startswith(("mako.", "pygments"))))
        print(y.tolist())
        """)
    runs = [subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                           text=True, check=True, timeout=300).stdout.splitlines()
            for _ in range(2)]
    assert runs[1][0] == "[]", runs[1][0]
    assert runs[0][1] == runs[1][1]
