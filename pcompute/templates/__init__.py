"""Mako templates of the generated kernels, one per primitive and backend."""
import os
from functools import lru_cache

from mako.lookup import TemplateLookup

_HERE = os.path.dirname(os.path.abspath(__file__))
# Templates may include others (``<%include file="device_preamble.mako"/>``).
_LOOKUP = TemplateLookup(directories=[_HERE], strict_undefined=True)


@lru_cache(maxsize=None)
def _load(name):
    return _LOOKUP.get_template(name + ".mako")


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
