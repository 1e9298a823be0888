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


def test_no_branching_on_backend_names_outside_backends():
    """The code generator included: each printer class answers for its
    dialect (codegen/__init__.py asks the printer, never the name)."""
    found = []
    for rel, path in _modules():
        if rel.startswith("pcompute/backends/"):
            continue
        found += ["%s:%d" % (rel, line) for line in _name_branches(_tree(path))]
    assert not found, ("code outside pcompute/backends/ branches on a backend name; "
                       "ask the Backend object instead: " + ", ".join(found))


def _template_name_branches(text):
    """Lines of a Mako template whose control line (``%if``, ``%elif``, ...)
    names a backend in quotes."""
    return [k for k, line in enumerate(text.splitlines(), 1)
            if line.lstrip().startswith("%") and any(
                q + n + q in line for n in NAMES for q in "\"'")]


def test_templates_do_not_branch_on_backend_names():
    """A template prints what its backend or printer hands it (the device
    preamble's macros come from the dialect's printer class through
    ``codegen.device_preamble``), never a choice made on a name."""
    found = []
    folder = os.path.join(PACKAGE, "templates")
    for name in sorted(os.listdir(folder)):
        if name.endswith(".mako"):
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                found += ["%s:%d" % (name, k) for k in _template_name_branches(f.read())]
    assert not found, "templates branch on a backend name: " + ", ".join(found)
    assert _template_name_branches('x\n%if dialect == "cuda":\ny\n%endif') == [2]
    assert _template_name_branches("// the cuda backend\n%if tiled:") == []


#: Templates whose ``${...}`` substitutions still compute text (the templates rule in
#: ARCHITECTURE.md: no logic beyond %if/%for); every other template pastes names only.
NOT_YET_PLAIN = ()

_DEF_ARGUMENT = r'\s*("[^"]*"|\'[^\']*\'|\w+)\s*'     # a literal or a name


def _template_expression_logic(text):
    """Lines of a Mako template with a ``${...}`` that computes (a call, an
    operator or string formatting rather than a name; a ``| filter`` and a
    call of one of the template's own ``<%def>`` blocks with literals or
    names as arguments are allowed) or with a Python block ``<% ... %>``."""
    defs = re.findall(r'<%def\s+name="(\w+)\(', text)
    plain = r"\s*\w+\s*(\|\s*\w+\s*)?"
    if defs:
        plain = r"(%s|\s*(%s)\((%s(,%s)*)?\)\s*)" % (plain, "|".join(defs), _DEF_ARGUMENT,
                                                     _DEF_ARGUMENT)
    found = []
    for k, line in enumerate(text.splitlines(), 1):
        if re.search(r"<%(\s|!|$)", line) or any(
                not re.fullmatch(plain, expr) for expr in re.findall(r"\$\{([^}]*)\}", line)):
            found.append(k)
    return found


def test_templates_format_no_text_of_their_own():
    """The templates (but those of NOT_YET_PLAIN) paste text made in Python (the
    Reduction's lanes in backends/reduction_lanes.py, an index space's loops
    in backends/index_text.py, ...) by name."""
    found, names = [], sorted(n for n in os.listdir(os.path.join(PACKAGE, "templates"))
                              if n.endswith(".mako"))
    assert set(NOT_YET_PLAIN) <= set(names)
    for name in names:
        with open(os.path.join(PACKAGE, "templates", name), encoding="utf-8") as f:
            lines = _template_expression_logic(f.read())
        if name in NOT_YET_PLAIN:
            assert lines, "%s pastes names only now: take it off NOT_YET_PLAIN" % name
        found += ["%s:%d" % (name, k) for k in lines if name not in NOT_YET_PLAIN]
    assert not found, "templates compute text inside ${}: " + ", ".join(found)
    assert _template_expression_logic("a ${x} ${expr | repr}\n${x + 1}") == [2]
    assert _template_expression_logic('${"".join(a)}') == [1]
    assert _template_expression_logic("<%\n  pad = ' ' * d\n%>") == [1]
    assert _template_expression_logic('<%include file="p.mako"/>\n${x}') == []
    own = '<%def name="body(kw)">\n${kw}\n</%def>\n'
    assert _template_expression_logic(own + '${body("None")} ${body(\'a\', 2)}') == []
    assert _template_expression_logic(own + '${body(x)}\n${other("a")}') == [5]
    assert _template_expression_logic(own + '${body(x + "a")}\n${body(f(x))}') == [4, 5]


def test_device_preamble_is_only_for_device_dialects():
    from pcompute.codegen import device_preamble
    assert dict(device_preamble("opencl", double=True).macros)["PC_INLINE"] == "inline"
    assert device_preamble("opencl", double=True).extensions
    assert not device_preamble("opencl").extensions
    with pytest.raises(ValueError, match="no device templates for 'cython'; choose one "
                                         "of cuda, opencl"):
        device_preamble("cython")


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


def _dynamic_imports(node):
    """Modules named in ``__import__("m")`` / ``importlib.import_module("m")``
    calls directly under ``node`` (imports made at run time by name)."""
    found = []
    if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant) \
            and isinstance(node.args[0].value, str):
        f = node.func
        name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) \
            else None
        if name in ("__import__", "import_module"):
            found.append(node.args[0].value)
    return found


def _graph():
    """{module: (module-level imports, function-level imports)} over pcompute's
    own modules ('pcompute.x.y'); an import of a package's submodule counts
    as an import of that submodule, and ``__import__``/``import_module`` of a
    literal name counts as a function-level import."""
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
                targets = resolve(module, child) if isinstance(
                    child, (ast.Import, ast.ImportFrom)) else _dynamic_imports(child)
                for target in targets:
                    while target and target not in mods:
                        target = target.rsplit(".", 1)[0] if "." in target else ""
                    if target and target != module:
                        (nested if deeper or not isinstance(
                            child, (ast.Import, ast.ImportFrom)) else top).add(target)
                visit(child, deeper)
        visit(_tree(path), False)
        graph[module] = (top, nested)
    return graph


def _cycles(edges):
    """The import cycles of ``{module: set of imported modules}``."""
    state, cycles = {}, []

    def visit(m, stack):
        state[m] = "open"
        for t in sorted(edges[m]):
            if state.get(t) == "open":
                cycles.append(" -> ".join(stack[stack.index(t):] + [t]))
            elif t not in state:
                visit(t, stack + [t])
        state[m] = "done"
    for m in sorted(edges):
        if m not in state:
            visit(m, [m])
    return cycles


def test_no_import_cycle():
    """Imports flow one way, counting the imports inside functions too: no
    function-level import (or import by name) may close a cycle."""
    graph = _graph()
    cycles = _cycles({m: top | nested for m, (top, nested) in graph.items()})
    assert not cycles, "import cycles: " + "; ".join(cycles)


def test_no_module_getattr_importing_pcompute():
    """A module ``__getattr__`` that imports pcompute modules on first use
    would hide a cycle from the graph."""
    found = []
    for rel, path in _modules():
        for node in _tree(path).body:
            if isinstance(node, ast.FunctionDef) and node.name == "__getattr__" and any(
                    isinstance(n, (ast.Import, ast.ImportFrom)) or _dynamic_imports(n)
                    for n in ast.walk(node)):
                found.append(rel)
    assert not found, "module __getattr__ importing on first use: " + ", ".join(found)


@pytest.mark.parametrize("code, cyclic", [
    ("a: b\nb: a", True), ("a: b\nb: c\nc: a", True), ("a: b\nb: c\nc:", False)])
def test_the_cycle_finder(code, cyclic):
    edges = {}
    for line in code.splitlines():
        m, _, rest = line.partition(":")
        edges[m] = set(rest.split())
    assert bool(_cycles(edges)) is cyclic


def test_dynamic_imports_are_seen():
    tree = ast.parse("def f():\n    __import__('pcompute.x', fromlist=['y'])\n"
                     "    importlib.import_module('pcompute.z')\n")
    assert [m for n in ast.walk(tree) for m in _dynamic_imports(n)] == \
        ["pcompute.x", "pcompute.z"]


# Stages and what they must not import (ARCHITECTURE: imports flow one way).
LOWER = {
    "pcompute.records": ("pcompute.",),
    "pcompute.arraybase": ("pcompute.",),
    "pcompute.backends.names": ("pcompute.",),
    "pcompute.frontend": ("pcompute.codegen", "pcompute.build", "pcompute.backends",
                          "pcompute.primitives", "pcompute.array", "pcompute.api"),
    "pcompute.diskcache": ("pcompute.frontend", "pcompute.codegen", "pcompute.templates",
                           "pcompute.build", "pcompute.backends", "pcompute.primitives",
                           "pcompute.array", "pcompute.api", "pcompute.numpy",
                           "pcompute.autopar", "pcompute.dataparallel", "pcompute.distributed"),
    "pcompute.templates": ("pcompute.build", "pcompute.backends", "pcompute.primitives",
                           "pcompute.array", "pcompute.api"),
    "pcompute.codegen": ("pcompute.build", "pcompute.backends", "pcompute.primitives",
                         "pcompute.array", "pcompute.api"),
    "pcompute.build": ("pcompute.backends", "pcompute.primitives", "pcompute.array",
                       "pcompute.api"),
    "pcompute.backends": ("pcompute.primitives", "pcompute.array", "pcompute.api",
                          "pcompute.low_level"),
    "pcompute.primitives": ("pcompute.array", "pcompute.api", "pcompute.low_level"),
    "pcompute.timing": ("pcompute.primitives", "pcompute.array", "pcompute.api",
                        "pcompute.profile"),
    "pcompute.views": ("pcompute.array", "pcompute.api", "pcompute.low_level"),
    "pcompute.array": ("pcompute.api", "pcompute.low_level", "pcompute.numpy",
                       "pcompute.autopar", "pcompute.dataparallel", "pcompute.distributed"),
}


def test_stages_import_only_upward():
    bad = []
    for module, (top, nested) in _graph().items():
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


def test_import_pcompute_loads_no_heavy_package():
    """``import pcompute`` stays cheap: the template engine, isl and the
    compilers' Python packages load when first used, not at import."""
    import subprocess
    import sys
    heavy = ("mako", "pygments", "islpy", "pyopencl", "pycuda", "Cython", "mpi4py", "scipy")
    code = ("import sys, pcompute; print(' '.join(sorted({m.split('.')[0] for m in "
            "sys.modules} & set(%r))))" % (heavy,))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT)
    assert out.stdout.split() == [], "import pcompute loaded " + out.stdout
