"""The vendored Compyle tests and examples differ from Compyle's own files in
their import lines only (see tools/vendor_compyle.py)."""
import hashlib
import json
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tools"))
from vendor_compyle import rewrite  # noqa: E402

DIRS = ("compyle_suite", "compyle_examples")


def _files():
    for d in DIRS:
        with open(os.path.join(HERE, d, "VENDORED.json")) as f:
            record = json.load(f)
        for name, info in sorted(record["files"].items()):
            yield pytest.param(d, name, info, id="%s/%s" % (d, name))


@pytest.mark.parametrize("directory, name, info", list(_files()))
def test_vendored_file_is_the_original_with_imports_rewritten(directory, name, info):
    with open(os.path.join(HERE, directory, name), encoding="utf-8", newline="") as f:
        lines = f.read().splitlines(True)
    original = list(lines)
    for number, old in info["changed_lines"].items():
        k = int(number) - 1
        assert lines[k] == rewrite(old) != old, "line %s of %s" % (number, name)
        assert "import" in old and ("compyle" in old or "from .." in old)
        original[k] = old
    for k, line in enumerate(lines):
        if str(k + 1) not in info["changed_lines"]:
            assert rewrite(line) == line, "line %d of %s should have been rewritten" % (k + 1, name)
    digest = hashlib.sha256("".join(original).encode("utf-8")).hexdigest()
    assert digest == info["sha256"], "%s/%s is not Compyle's file" % (directory, name)


@pytest.mark.parametrize("directory", DIRS)
def test_licence_is_kept(directory):
    with open(os.path.join(HERE, directory, "LICENSE.txt")) as f:
        text = f.read()
    assert "Copyright (c) 2009-2018, the PySPH developers" in text
    assert "Redistribution and use in source and binary forms" in text


@pytest.mark.parametrize("line, expect", [
    ("from ..config import get_config\n", "from pcompute.config import get_config\n"),
    ("from .. import utils\n", "from pcompute import utils\n"),
    ("import compyle.array as carr\n", "import pcompute.array as carr\n"),
    ("    from compyle.utils import ArgumentParser\n",
     "    from pcompute.utils import ArgumentParser\n"),
    ("from .test_jit import g\n", "from .test_jit import g\n"),
    ("x = 'compyle'  # compyle\n", "x = 'compyle'  # compyle\n"),
    ("import compyle_extra\n", "import compyle_extra\n"),
])
def test_rewrite_rule(line, expect):
    assert rewrite(line) == expect
