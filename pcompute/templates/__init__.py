"""Mako templates of the generated kernels, one per primitive and backend."""
import os
from functools import lru_cache

_HERE = os.path.dirname(os.path.abspath(__file__))


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


def render(template_name, **context):
    """Render the template ``template_name`` (without ``.mako``) with ``context``."""
    text = _load(template_name).render(**context)
    lines = [line.rstrip() for line in text.splitlines()]
    out = []
    for line in lines:
        if not line and out and not out[-1]:
            continue
        out.append(line)
    return "\n".join(out).strip() + "\n"
