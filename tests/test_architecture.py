"""The shape of the package (docs/design.rst): one list of backend names, no
branching on them outside ``pcompute/backends/``, and imports that flow one
way (frontend and codegen never touch a compiler's Python package)."""
import ast
import os
import re

import pytest

from pcompute.backends.names import backend_names

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = os.path.join(ROOT, "pcompute")
NAMES = backend_names()


def _modules():
    for base, _, files in os.walk(PACKAGE):
        for f in sorted(files):
            if f.endswith(".py"):
                path = os.path.join(base, f)
                yield os.path.relpath(path, ROOT).replace(os.sep, "/"), path


def _tree(path):
    with open(path, encoding="utf-8") as f:
        return ast.parse(f.read(), path)


def _is_name(node):
    return isinstance(node, ast.Constant) and node.value in NAMES


def _name_branches(tree):
    """Lines comparing with a backend name, testing membership in literal
    collections of them, or keying a dict by several of them (a table per
    backend)."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            operands = [node.left] + node.comparators
            literals = []
            for o in operands:
                if isinstance(o, ast.Constant):
                    literals.append(o)
                elif isinstance(o, (ast.Tuple, ast.List, ast.Set)) and all(
                        isinstance(e, ast.Constant) for e in o.elts):
                    literals.extend(o.elts)     # a literal collection of names
            if any(_is_name(x) for x in literals):
                lines.append(node.lineno)
        elif isinstance(node, ast.Dict) and sum(_is_name(k) for k in node.keys if k) > 1:
            lines.append(node.lineno)
    return lines


# The code generator prints one dialect at a time: it may name its dialects.
DIALECT_MODULES = ("pcompute/backends/", "pcompute/codegen/")


def test_no_branching_on_backend_names_outside_backends():
    found = []
    for rel, path in _modules():
        if rel.startswith(DIALECT_MODULES):
            continue
        found += ["%s:%d" % (rel, line) for line in _name_branches(_tree(path))]
    assert not found, ("code outside pcompute/backends/ branches on a backend name; "
                       "ask the Backend object instead: " + ", ".join(found))


def test_the_backend_names_are_listed_once():
    pattern = re.compile(r"[\(\[]\s*" + r",\s*".join(
        "[\"']%s[\"']" % n for n in NAMES[:3]))
    found = []
    for rel, path in _modules():
        with open(path, encoding="utf-8") as f:
            if pattern.search(f.read()):
                found.append(rel)
    assert found == [], "the backend list is repeated in " + ", ".join(found)


def _imports(tree):
    """(module-level imports, imports inside functions) as absolute names
    relative to the package ('' for pcompute itself)."""
    top, nested = set(), set()

    def visit(node, inside):
        for child in ast.iter_child_nodes(node):
            deeper = inside or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))
            target = nested if deeper else top
            if isinstance(child, ast.Import):
                target.update(a.name for a in child.names)
            elif isinstance(child, ast.ImportFrom):
                target.add(("." * child.level) + (child.module or ""))
            visit(child, deeper)
    visit(tree, False)
    return top, nested


COMPILERS = ("Cython", "cython", "pyopencl", "pycuda")


@pytest.mark.parametrize("stage", ["frontend", "codegen"])
def test_frontend_and_codegen_never_import_a_compiler(stage):
    for rel, path in _modules():
        if not rel.startswith("pcompute/%s/" % stage):
            continue
        top, nested = _imports(_tree(path))
        bad = [m for m in top | nested if m.split(".")[0] in COMPILERS]
        assert not bad, "%s imports %s" % (rel, ", ".join(bad))


def _graph():
    """{module: (module-level imports, function-level imports)} over pcompute's
    own modules ('pcompute.x.y'); an import of a package's submodule counts
    as an import of that submodule."""
    mods = {}
    for rel, path in _modules():
        name = rel[:-3].replace("/", ".")
        if name.endswith(".__init__"):
            name = name[:-len(".__init__")]
        mods[name] = path

    def resolve(module, node):
        if isinstance(node, ast.Import):
            return [a.name for a in node.names]
        package = module if mods[module].endswith("__init__.py") else \
            module.rsplit(".", 1)[0]
        base = ".".join(package.split(".")[:len(package.split(".")) - node.level + 1]) \
            if node.level else ""
        target = ".".join(p for p in (base, node.module) if p)
        subs = [target + "." + a.name for a in node.names if target + "." + a.name in mods]
        return subs + ([target] if len(subs) < len(node.names) else [])

    graph = {}
    for module, path in mods.items():
        top, nested = set(), set()

        def visit(node, inside):
            for child in ast.iter_child_nodes(node):
                deeper = inside or isinstance(child, (ast.FunctionDef,
                                                      ast.AsyncFunctionDef))
                if isinstance(child, (ast.Import, ast.ImportFrom)):
                    for target in resolve(module, child):
                        while target and target not in mods:
                            target = target.rsplit(".", 1)[0] if "." in target else ""
                        if target and target != module:
                            (nested if deeper else top).add(target)
                visit(child, deeper)
        visit(_tree(path), False)
        graph[module] = (top, nested)
    return graph


def test_no_import_cycle_at_module_level():
    graph = _graph()
    state, cycles = {}, []

    def visit(m, stack):
        state[m] = "open"
        for t in sorted(graph[m][0]):
            if state.get(t) == "open":
                cycles.append(" -> ".join(stack[stack.index(t):] + [t]))
            elif t not in state:
                visit(t, stack + [t])
        state[m] = "done"
    for m in sorted(graph):
        if m not in state:
            visit(m, [m])
    assert not cycles, "import cycles: " + "; ".join(cycles)


# Stages and what they must not import (ARCHITECTURE: imports flow one way).
LOWER = {
    "pcompute.records": ("pcompute.",),
    "pcompute.arraybase": ("pcompute.",),
    "pcompute.backends.names": ("pcompute.",),
    "pcompute.frontend": ("pcompute.codegen", "pcompute.build", "pcompute.backends",
                          "pcompute.primitives", "pcompute.array", "pcompute.api"),
    "pcompute.codegen": ("pcompute.build", "pcompute.backends", "pcompute.primitives",
                         "pcompute.array", "pcompute.api"),
    "pcompute.build": ("pcompute.backends", "pcompute.primitives", "pcompute.array",
                       "pcompute.api"),
    "pcompute.backends": ("pcompute.primitives", "pcompute.array", "pcompute.api",
                          "pcompute.low_level"),
    "pcompute.primitives": ("pcompute.array", "pcompute.api", "pcompute.low_level"),
}
# Array-level functions that still live in primitives/ (they take and return
# Arrays); see docs/design.rst.
ARRAY_LEVEL = ("pcompute.primitives.sort", "pcompute.primitives.algorithms")


def test_stages_import_only_upward():
    bad = []
    for module, (top, nested) in _graph().items():
        if module in ARRAY_LEVEL:
            continue
        for stage, forbidden in LOWER.items():
            if module == stage or module.startswith(stage + "."):
                bad += ["%s imports %s" % (module, t) for t in sorted(top | nested)
                        if t.startswith(forbidden) and not t.startswith(stage)
                        and t != "pcompute.records" and t != "pcompute.arraybase"]
    assert not bad, "; ".join(bad)


@pytest.mark.parametrize("code, branches", [
    ('if b == "opencl": pass', True), ('if b in ("opencl", "cuda"): pass', True),
    ('if name != "cuda": pass', True), ('d = {"opencl": 1, "cuda": 2}', True),
    ('if (i, "python") in seen: pass', False), ('d = {"python": "3.11"}', False)])
def test_the_branch_detector(code, branches):
    assert bool(_name_branches(ast.parse(code))) is branches
