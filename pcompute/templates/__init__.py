"""Mako templates of the generated kernels, one per primitive and backend.

:func:`render` keeps what it renders in the cache (kind ``rendered``), keyed
on the template's name, the texts of every template here (a template may
include another), mako's version and the values it is given, which are
plain data (strings, numbers, booleans, None, and lists, tuples and dicts of
them: templates paste names only, see tests/test_architecture.py).  A later
process renders the same text without importing mako (with the pygments it
imports) or compiling the template: most of the first call of a kernel
loaded from the cache.
"""
import os
from functools import lru_cache

_HERE = os.path.dirname(os.path.abspath(__file__))
KIND = "rendered"
_memo = {}          # key -> text rendered or read in this process


@lru_cache(maxsize=None)
def _lookup():
    # mako (and the pygments it imports) loads on the first render, not at
    # ``import pcompute``: about half of the import time otherwise.
    from mako.lookup import TemplateLookup
    # Templates may include others (``<%include file="device_preamble.mako"/>``).
    return TemplateLookup(directories=[_HERE], strict_undefined=True)


@lru_cache(maxsize=None)
def _load(name):
    return _lookup().get_template(name + ".mako")


@lru_cache(maxsize=None)
def _templates_digest():
    """A digest of the text of every template of this directory, and of
    mako's version (``import mako`` alone loads none of its modules)."""
    import hashlib
    import mako
    digest = hashlib.sha256(mako.__version__.encode())
    for name in sorted(os.listdir(_HERE)):
        if name.endswith(".mako"):
            with open(os.path.join(_HERE, name), "rb") as f:
                digest.update(name.encode() + b"\0" + f.read() + b"\0")
    return digest.hexdigest()


def _plain(value, template_name):
    """``value`` as a key part of :func:`~pcompute.diskcache.make_key`
    that tells its type (a list prints unlike a tuple, True unlike 1)."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return (type(value).__name__, value)
    item = getattr(value, "item", None)
    if item is not None and type(value).__module__ == "numpy" and not getattr(
            value, "shape", ()):     # a NumPy scalar: its type and value
        return (type(value).__name__, item())
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [_plain(v, template_name) for v in value])
    if isinstance(value, dict):
        return ("dict", [(_plain(k, template_name), _plain(v, template_name))
                         for k, v in value.items()])
    from ..errors import InternalError
    raise InternalError("template %s was given a %s (%r): templates take plain data"
                        % (template_name, type(value).__name__, value))


def render(template_name, **context):
    """Render the template ``template_name`` (without ``.mako``) with
    ``context`` (plain data), or read what it rendered to before from the
    cache (see the module docstring)."""
    from .. import diskcache       # json, tempfile, ...: not at ``import pcompute``
    key = diskcache.make_key(KIND, _templates_digest(), template_name,
                         [(name, _plain(context[name], template_name))
                          for name in sorted(context)])
    text = _memo.get(key)
    if text is not None:
        return text
    store = diskcache.Entries()
    text = store.read_text(KIND, key)
    if text is None:
        text = _render(template_name, context)
        store.write_text(KIND, key, text)
    _memo[key] = text
    return text


def _render(template_name, context):
    text = _load(template_name).render(**context)
    lines = [line.rstrip() for line in text.splitlines()]
    out = []
    for line in lines:
        if not line and out and not out[-1]:
            continue
        out.append(line)
    return "\n".join(out).strip() + "\n"
