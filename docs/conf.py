"""Sphinx configuration of the pcompute documentation.

Build the site with ``make docs`` (``python -m sphinx -W -b html docs
docs/_build/html``: warnings are errors).  Every code snippet is a doctest
(``testcode``/``testoutput`` or ``>>>`` blocks) run by ``tests/test_docs.py``
through ``python -m sphinx -b doctest``.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(HERE, "_ext"))

import pcompute  # noqa: E402

project = "pcompute"
author = "the pcompute developers"
copyright = "pcompute developers"
version = release = pcompute.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.doctest",
    "pcompute_docs",
]

master_doc = root_doc = "index"
exclude_patterns = ["_build"]
templates_path = []
html_static_path = ["_static"]
html_theme = "alabaster"
html_theme_options = {"description": "Python kernels for Cython+OpenMP, OpenCL and CUDA",
                      "page_width": "1100px"}
pygments_style = "sphinx"
highlight_language = "python3"
nitpicky = False

autodoc_member_order = "bysource"
autodoc_default_options = {"members": True, "show-inheritance": False}
autodoc_typehints = "none"

# -- doctest -------------------------------------------------------------------
# Each document starts from a fresh configuration read from the environment
# (tests/test_docs.py clears the PCOMPUTE_* variables that change behaviour).
doctest_global_setup = """
DOCS_DIR = %r
import os
import warnings
import numpy as np
import pcompute
from pcompute.config import set_config
from pcompute.backends.registry import get_backend as _get_backend
set_config(None)
np.set_printoptions(legacy=False)
HAVE_OPENCL = _get_backend('opencl').available()
HAVE_CUDA = _get_backend('cuda').available()
""" % HERE
doctest_global_cleanup = """
set_config(None)
"""
doctest_default_flags = (__import__("doctest").ELLIPSIS
                         | __import__("doctest").NORMALIZE_WHITESPACE
                         | __import__("doctest").DONT_ACCEPT_TRUE_FOR_1)
# Only the explicit doctest/testcode blocks are tests; plain ``>>>`` in
# literal blocks (none are used) would not be.
doctest_test_doctest_blocks = ""


# -- docstrings that are plain text rather than reStructuredText --------------
def _indent_unindented_literal_blocks(lines):
    """After a line ending in '::', indent the following paragraph if it is not
    indented (inspect.cleandoc removes the indentation of a code block that
    follows a first-line '::').  Other docstrings pass unchanged."""
    out = []
    k = 0
    while k < len(lines):
        line = lines[k]
        out.append(line)
        k += 1
        if line.rstrip().endswith("::") and k < len(lines) and not lines[k].strip():
            out.append(lines[k])
            k += 1
            if k < len(lines) and lines[k].strip() and not lines[k].startswith(" "):
                while k < len(lines) and lines[k].strip():
                    out.append("    " + lines[k])
                    k += 1
    lines[:] = out


def _attribute_table(lines):
    """``Array``'s attribute list ('``name``   text' lines) as a definition list."""
    out = []
    for line in lines:
        stripped = line.strip()
        if line.startswith("``") and "``  " in line:
            name, _, text = line.partition("``  ")
            out += [name + "``", "    " + text.strip()]
        elif line.startswith("             ") and out and out[-1].startswith("    "):
            out[-1] += " " + stripped
        else:
            out.append(line.replace("Attributes:", "Attributes:\n"))
    lines[:] = "\n".join(out).split("\n")


def _fix_docstring(app, what, name, obj, options, lines):
    if name == "pcompute.array.Array":
        _attribute_table(lines)
    _indent_unindented_literal_blocks(lines)


def setup(app):
    app.connect("autodoc-process-docstring", _fix_docstring)
