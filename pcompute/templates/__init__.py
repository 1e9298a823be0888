"""Mako templates of the generated kernels, one per primitive and backend."""
import os
from functools import lru_cache

from mako.template import Template as _MakoTemplate

_HERE = os.path.dirname(os.path.abspath(__file__))


@lru_cache(maxsize=None)
def _load(name):
    with open(os.path.join(_HERE, name + ".mako")) as f:
        return _MakoTemplate(f.read(), strict_undefined=True)


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
