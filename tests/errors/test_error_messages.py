"""Every construct outside the kernel subset gives an error pointing at the user's code.

Each case runs the front end on one kernel of ``bad_kernels.py`` (nothing is
compiled) and checks the exception class (a pcompute error subclassing the
matching builtin), the file, the absolute line (found through the marker
comment ``# <- <name>`` on the offending line), the caret under the construct
and a hint saying what to write instead.
"""
import ast
import os
import re
import textwrap
import traceback
from dataclasses import dataclass

import numpy as np
import pytest

from pcompute import errors
from pcompute.codegen import PRINTERS
from pcompute.errors import (InternalError, KernelError, KernelSyntaxError,
                             KernelTypeError, KernelValueError)
from pcompute.frontend import checker as checker_mod
from pcompute.frontend.checker import REJECTED, Checker
from pcompute.frontend.source import read_function
from pcompute.frontend.typeinfer import FunctionTyper
from pcompute.generate import generate_source

from . import bad_kernels as bk

BAD_FILE = os.path.abspath(bk.__file__).replace(".pyc", ".py")
with open(BAD_FILE) as _f:
    BAD_LINES = _f.read().splitlines()

TYPES = {"x": "gdoublep", "y": "gdoublep", "n": "int", "a": "double", "b": "double",
         "pc_n": "int"}


def marker(name):
    """(absolute line number, line text) of the line marked ``# <- name``."""
    pattern = re.compile(r"#\s*<-\s*%s\s*$" % re.escape(name))
    found = [(k, line) for k, line in enumerate(BAD_LINES, 1) if pattern.search(line)]
    assert len(found) == 1, "marker %r found %d times in bad_kernels.py" % (name, len(found))
    return found[0]


@dataclass(frozen=True)
class Case:
    marker: str          # the marker comment on the offending line
    builtin: type        # SyntaxError, TypeError or ValueError
    caret_at: str        # the text the caret must start under (first occurrence)
    hint: str            # a word the hint must contain
    message: str         # a word the message must contain
    func: str = None     # kernel name, default 'k_' + marker
    backend: str = "cython"

    @property
    def kernel(self):
        return getattr(bk, self.func or "k_" + self.marker)


S, T, V = SyntaxError, TypeError, ValueError

CASES = [
    # literals and comprehensions
    Case("list_literal", S, "[1.0", "declare", "list literal"),
    Case("dict_literal", S, "{1:", "declare", "dict literal"),
    Case("set_literal", S, "{1.0", "declare", "set literal"),
    Case("list_comp", S, "[k *", "range", "list comprehension"),
    Case("dict_comp", S, "{k:", "range", "dict comprehension"),
    Case("set_comp", S, "{k for", "range", "set comprehension"),
    Case("generator", S, "(k for", "range", "generator expression"),
    Case("lambda_in_kernel", S, "lambda", "def", "lambda"),
    # statements
    Case("with", S, "with", "body", "with"),
    Case("try", S, "try", "if", "try"),
    Case("raise", S, "raise", "flag", "raise"),
    Case("assert", S, "assert", "if", "assert"),
    Case("class", S, "class", "module-level", "class"),
    Case("nested_def", S, "def", "module level", "functions cannot be defined"),
    Case("for_over_array", S, "x:", "range", "range"),
    Case("for_else", S, "else", "flag", "for ... else"),
    Case("while_else", S, "else", "flag", "while ... else"),
    Case("global", S, "global", "argument", "global"),
    Case("nonlocal", S, "nonlocal", "argument", "nonlocal"),
    Case("import", S, "import", "module level", "import"),
    Case("import_from", S, "from", "module level", "import"),
    Case("del", S, "del", "remove", "del"),
    Case("match", S, "match", "if/elif/else", "match"),
    Case("annassign", S, "a: float", "declare", "annotated"),
    Case("assign_loop_var", S, "k = 2", "while", "loop variable"),
    Case("chained_assign", S, "a = b", "one assignment per line", "chained"),
    Case("yield", S, "yield", "array", "yield"),
    Case("yield_value", S, "yield", "array", "yield"),
    Case("async", S, "async", "def", "async"),
    Case("await_in_async", S, "async", "def", "async", func="k_await"),
    Case("expression_statement", S, "x[i] +", "assign", "no effect"),
    Case("starred_assign", S, "*b", "separately", "starred"),
    Case("nested_unpack", S, "(a, b)", "separately", "nested unpacking"),
    Case("return_tuple", S, "i, x", "array", "several values"),
    # expressions
    Case("slice", S, "1:3", "x[k]", "slicing"),
    Case("keyword_arg", S, "b=2.0", "position", "keyword argument"),
    Case("double_star_arg", S, "**x", "position", "**kwargs"),
    Case("starred_arg", S, "*x", "explicitly", "starred"),
    Case("default_arg", S, "None", "declares", "default value"),
    Case("varargs", S, "args)", "explicitly", "*args"),
    Case("kwargs", S, "kwargs)", "explicitly", "**kwargs"),
    Case("kwonly", S, "n)", "position", "keyword-only"),
    Case("posonly", S, "x, /", "remove", "positional-only"),
    Case("string_value", S, "'abc'", "number", "strings"),
    Case("string_concat", S, "'a'", "number", "strings"),
    Case("fstring", S, 'f"', "printf", "f-string"),
    Case("print", S, "print", "printf", "print"),
    Case("attribute_arg", S, "x.shape", "shape[0]", "tuple"),
    Case("attribute_local", S, "a.real", "argument", "attribute"),
    Case("attribute_object", S, "HOLDER", "module-level number", "only allowed on modules"),
    Case("method_call", S, "x.sum", "loop", "methods"),
    Case("unknown_function", S, "no_such_function", "define", "unknown function"),
    Case("unknown_name", S, "no_such_name", "argument", "unknown name"),
    Case("len", T, "len", "length", "len(x): x is a 1-D pointer"),
    Case("range_value", S, "range", "for k in range", "range()"),
    Case("multi_subscript", T, "x[i, 0]", "x[i*n + j]", "1-D pointer"),
    Case("negative_index", S, "-1", "x[n - 1]", "negative indices"),
    Case("and_value", T, "a and b", "compare", "and"),
    Case("or_value", T, "a or b", "compare", "or"),
    Case("is", S, "a is b", "==", "`is`"),
    Case("in", S, "i in x", "loop", "`in`"),
    Case("walrus", S, "n := i", "separate statement", "walrus"),
    Case("none", S, "None", "number", "None"),
    Case("complex", S, "1j", "real and imaginary", "complex"),
    Case("matmul", S, "a @ b", "loops", "@"),
    Case("reserved_name", S, "pc_tmp", "p_tmp", "reserved"),
    Case("reserved_arg", S, "pc_n", "p_n", "reserved"),
    Case("chained_attribute_call", S, "np.linalg", "import", "only functions of modules"),
    Case("subscript_call", S, "x[0](", "by name", "named functions"),
    Case("range_keyword", S, "step=1", "positional", "keyword"),
    Case("range_no_args", S, "range()", "range(n)", "1 to 3"),
    Case("tuple_loop_var", S, "a, b", "for k in range", "single name"),
    Case("assign_attribute", S, "x.value", "x[i]", "attribute"),
    # types, names and calls
    Case("pointer_and_number", T, "a = 1.0", "two different names", "both"),
    Case("bad_declare_type", T, "'dubble'", "double", "unknown type"),
    Case("declare_not_whole", S, "declare(", "x = declare", "whole right-hand side"),
    Case("helper_inconsistent", T, "helper_first(2.0", "annotate", "called with"),
    Case("int_pow_negative", T, "i ** -1", "float(", "negative power"),
    Case("float_range", T, "2.5", "int(", "integer"),
    Case("numpy_function", T, "np.cumsum", "math functions", "numpy.cumsum"),
    Case("call_class", T, "Holder()", "arrays", "class"),
    Case("module_list", T, "GLOBAL_LIST", "array argument", "GLOBAL_LIST is a list"),
    Case("math_missing", S, "math.no_such", "math functions", "has no function"),
    Case("math_arity", T, "math.atan2", "atan2(x, y)", "argument"),
    Case("helper_arity", T, "helper_add(", "helper_add(a, b)", "argument"),
    Case("function_as_value", T, "printf", "call it", "function"),
    Case("recursion_opencl", S, "fact(n - 1)", "loop", "recursion", func="k_recursion",
         backend="opencl"),
    Case("helper_default", T, "helper_with_default(", "declare", "takes 2",
         func="k_helper_default"),
    Case("pointer_arithmetic", S, "(x + 1)[0]", "x[k + 1]", "subscripted"),
    Case("return_array", T, "x", "array argument", "return numbers"),
    Case("index_float", T, "1.5", "int(", "integers"),
    Case("augassign_unbound", S, "total", "assign it first", "never assigned"),
    Case("numpy_scalar_call", T, "np.float32", "cast(v, 'float')", "numpy scalar"),
    Case("builtin_call", S, "sum(", "loop", "builtin sum()"),
    Case("builtin_as_value", T, "abs", "abs(...)", "not a value"),
    Case("unicode_column", S, "[2.0]", "declare", "list literal"),
    Case("pointer_condition", T, "x:", "if", "condition"),
    # kernels without readable source
    Case("lambda_kernel", V, "lambda", "def", "lambda"),
]


def _types_for(func):
    params = func.__code__.co_varnames[:func.__code__.co_argcount]
    return {k: v for k, v in TYPES.items() if k in params}


def _raise(case):
    func = case.kernel
    with pytest.raises(KernelError) as info:
        generate_source(func, backend=case.backend, types=_types_for(func))
    return info.value


def test_markers_are_unique_and_all_used():
    used = {c.marker for c in CASES}
    assert len(used) == len(CASES), "two cases share a marker"
    found = set(re.findall(r"#\s*<-\s*(\w+)\s*$", "\n".join(BAD_LINES), re.M))
    assert found == used, "markers without a case: %s; cases without a marker: %s" % (
        sorted(found - used), sorted(used - found))


@pytest.mark.parametrize("case", CASES, ids=[c.marker for c in CASES])
def test_rejected_construct(case):
    exc = _raise(case)
    # the class: a pcompute error that is also the matching builtin
    assert isinstance(exc, case.builtin), type(exc).__mro__
    assert type(exc).__module__ == "pcompute.errors"
    assert not isinstance(exc, InternalError)
    # the file and the absolute line
    loc = exc.location
    assert loc is not None, str(exc)
    assert loc.filename.endswith("bad_kernels.py")
    assert os.path.samefile(loc.filename, BAD_FILE)
    lineno, line = marker(case.marker)
    assert loc.lineno == lineno, str(exc)
    # the column of the construct
    code_part = line.split("#")[0]
    col = code_part.find(case.caret_at)
    assert col >= 0, "caret text %r not on the marker line" % case.caret_at
    assert loc.col == col, str(exc)
    # the printed source line with the caret under the construct
    text = str(exc)
    out = text.splitlines()
    assert out[0].startswith('File "%s", line %d' % (loc.filename, lineno))
    assert out[1] == "    " + line.strip()
    indent = len(line) - len(line.lstrip())
    caret = out[2]
    assert set(caret.strip()) == {"^"}, text
    assert caret.index("^") - 4 == col - indent, text
    # the message and the hint
    assert case.message.lower() in exc.message.lower(), exc.message
    assert exc.hint, "no hint for %s" % case.marker
    assert case.hint.lower() in exc.hint.lower(), exc.hint
    assert "hint: " + exc.hint in text
    assert "Traceback" not in text


def test_messages_differ_between_constructs():
    """Different constructs get their own message, not one generic text."""
    shared = [("import", "import_from"), ("async", "await_in_async"),
              ("yield", "yield_value"), ("string_value", "string_concat"),
              ("reserved_name", "reserved_arg"),
              ("and_value", "or_value"), ("list_literal", "unicode_column")]
    same = {frozenset(p) for p in shared}
    messages = {}
    for case in CASES:
        messages.setdefault(_raise(case).message, []).append(case.marker)
    for message, markers in messages.items():
        if len(markers) > 1:
            assert frozenset(markers) in same, (message, markers)


def test_syntax_error_attributes():
    case = next(c for c in CASES if c.marker == "list_literal")
    exc = _raise(case)
    lineno, line = marker("list_literal")
    col = line.index("[1.0")
    assert isinstance(exc, KernelSyntaxError)
    assert exc.filename == exc.location.filename
    assert os.path.samefile(exc.filename, BAD_FILE)
    assert exc.lineno == lineno
    assert exc.offset == col + 1
    assert exc.text.rstrip("\n") == line
    assert exc.end_lineno == lineno
    assert exc.end_offset == line.index("]") + 2
    # Python's own rendering of a SyntaxError shows the location once, then the
    # message and the hint.
    shown = "".join(traceback.format_exception_only(type(exc), exc))
    assert shown.count('File "') == 1
    assert "line %d" % lineno in shown
    assert "list literals are not supported" in shown
    assert "hint:" in shown
    assert shown.splitlines()[2].strip().startswith("^")


def test_errors_pickle():
    import pickle
    exc = _raise(CASES[0])
    again = pickle.loads(pickle.dumps(exc))
    assert type(again) is type(exc)
    assert str(again) == str(exc)
    assert again.location.lineno == exc.location.lineno


def test_kernel_without_source_exec():
    with pytest.raises(KernelValueError) as info:
        generate_source(bk.k_exec, types={"x": "gdoublep"})
    exc = info.value
    assert exc.location is not None
    assert exc.location.filename == "<string>"
    assert exc.location.lineno == 1
    assert "source" in exc.hint
    assert "k_exec" in exc.message


def test_kernel_from_exec_with_source_attribute():
    namespace = {}
    exec(bk._EXEC_TEXT, namespace)
    func = namespace["k_exec"]
    func.source = bk._EXEC_TEXT
    text = generate_source(func, types={"x": "gdoublep"})
    assert "k_exec" in text


def test_source_attribute_errors_point_into_the_source_text():
    namespace = {}
    text = "def k_src(i, x):\n    x[i] = 1.0\n    a = [1]\n"
    exec(text, namespace)
    func = namespace["k_src"]
    func.source = text
    with pytest.raises(KernelSyntaxError) as info:
        generate_source(func, types={"x": "gdoublep"})
    assert info.value.location.lineno == 3
    assert info.value.location.col == 8


@pytest.mark.parametrize("obj", [np.sin, bk.Holder, 3, bk.HOLDER],
                         ids=["ufunc", "class", "int", "object"])
def test_non_function_is_not_a_kernel(obj):
    with pytest.raises(KernelTypeError) as info:
        read_function(obj)
    assert "Python function" in info.value.message
    assert info.value.hint


# -- the allow-list ----------------------------------------------------------

# The node types the kernel language accepts.  Adding one is a decision: it
# must also be typed and printed (see the test below).
ALLOWED = {
    "Expr", "Assign", "AugAssign", "If", "While", "For", "Break", "Continue",
    "Pass", "Return",
    "With",  # only `with nogil:` / `with parallel():`, other context managers raise
    "BinOp", "UnaryOp", "BoolOp", "Compare", "IfExp", "Constant", "Name",
    "Attribute", "Subscript", "Call",
    "Tuple",  # only checked as the two sides of `a, b = b, a`; a value raises
}


def _node_classes():
    out = {}
    for base in (ast.stmt, ast.expr):
        for cls in base.__subclasses__():
            out[cls.__name__] = cls
    return out


def test_allow_list_is_explicit():
    accepted = {name[len("check_"):] for name in dir(Checker)
                if name.startswith("check_") and name[len("check_"):] in _node_classes()}
    assert accepted == ALLOWED


def test_every_other_node_type_is_rejected_with_a_message_and_hint():
    for name in _node_classes():
        if name in ALLOWED:
            continue
        assert name in REJECTED, "ast.%s has no message of its own" % name
    for name, (message, hint) in REJECTED.items():
        assert message and hint, name


def test_allowed_nodes_are_typed_and_printed():
    normalised = {"Attribute"}    # replaced by constants before typing
    only_in_assign = {"Tuple"}    # handled by stmt_Assign
    for name in ALLOWED:
        cls = _node_classes()[name]
        if issubclass(cls, ast.stmt):
            assert hasattr(FunctionTyper, "stmt_" + name), name
            for dialect, printer in PRINTERS.items():
                assert hasattr(printer, "stmt_" + name), (dialect, name)
        elif name not in normalised | only_in_assign:
            assert hasattr(FunctionTyper, "expr_" + name), name
            for dialect, printer in PRINTERS.items():
                assert hasattr(printer, "expr_" + name), (dialect, name)


# One function per rejected node type; the checker is run on the first node of
# that type (so constructs that only parse inside `async def` are covered too).
SNIPPETS = {
    "List": "x = [1]", "ListComp": "x = [k for k in range(3)]",
    "Dict": "x = {1: 2}", "DictComp": "x = {k: k for k in range(3)}",
    "Set": "x = {1}", "SetComp": "x = {k for k in range(3)}",
    "GeneratorExp": "x = max(k for k in range(3))", "Lambda": "x = lambda: 1",
    "JoinedStr": "x = f'{i}'", "FormattedValue": "x = f'{i}'",
    "With": "with i:\n    pass", "AsyncWith": "async with i:\n    pass",
    "Try": "try:\n    pass\nexcept Exception:\n    pass",
    "TryStar": "try:\n    pass\nexcept* Exception:\n    pass",
    "Raise": "raise ValueError", "Assert": "assert i",
    "ClassDef": "class A:\n    pass", "FunctionDef": "def g():\n    pass",
    "AsyncFunctionDef": "async def g():\n    pass", "Global": "global i2",
    "Nonlocal": "def g():\n    nonlocal i", "Delete": "del i", "Import": "import os",
    "ImportFrom": "from os import path", "Yield": "yield 1",
    "YieldFrom": "yield from i", "Await": "await i",
    "AsyncFor": "async for k in i:\n    pass", "NamedExpr": "x = (y := 1)",
    "Starred": "f(*i)", "Slice": "x = i[1:2]",
    "Match": "match i:\n    case 1:\n        pass", "AnnAssign": "x: int = 1",
    "TypeAlias": "type T = int",
}


@pytest.mark.parametrize("name", sorted(REJECTED))
def test_rejected_node_type(name):
    cls = getattr(ast, name, None)
    if cls is None:
        pytest.skip("ast.%s does not exist in this Python" % name)
    body = textwrap.indent(SNIPPETS[name], "    ")
    text = "async def f(i):\n%s\n" % body
    try:
        ast.parse(text)
    except SyntaxError:
        pytest.skip("%s does not parse in this Python" % name)

    def f(i):
        pass
    f.source = text
    src = read_function(f)
    node = next(n for n in ast.walk(src.tree) if type(n) is cls and n is not src.tree)
    with pytest.raises(KernelSyntaxError) as info:
        Checker(src).visit(node)
    message, hint = REJECTED[name]
    assert info.value.message == message
    assert info.value.hint == hint
    assert info.value.location.lineno >= 2


def test_unknown_node_type_raises():
    class Mystery(ast.expr):
        _fields = ()

    def f(i):
        pass
    f.source = "def f(i):\n    pass\n"
    src = read_function(f)
    node = Mystery()
    node.lineno, node.col_offset = 2, 4
    with pytest.raises(KernelSyntaxError) as info:
        Checker(src).visit(node)
    assert "Mystery" in info.value.message
    assert info.value.hint


def test_disallowed_operators_raise():
    binops = {cls for cls in ast.operator.__subclasses__()}
    rejected = binops - set(checker_mod.ALLOWED_BINOPS)
    assert {c.__name__ for c in rejected} == {"MatMult"}
    cmpops = {cls for cls in ast.cmpop.__subclasses__()}
    rejected = {c.__name__ for c in cmpops - set(checker_mod.ALLOWED_CMPOPS)}
    assert rejected == {"Is", "IsNot", "In", "NotIn"}


# -- call-time argument checks through Elementwise (cython backend) ----------

@pytest.fixture
def no_build(monkeypatch):
    """The cython backend, with building turned into a test failure."""
    from pcompute.backends.registry import get_backend
    backend = get_backend("cython")
    if not backend.available():
        pytest.skip("cython backend unavailable: %s" % backend.why_unavailable())

    def refuse(*args, **kwargs):
        raise AssertionError("a kernel was built before the arguments were checked")
    monkeypatch.setattr(type(backend), "build_elementwise", refuse)
    return backend


def _x(n=8, dtype=np.float64):
    return np.zeros(n, dtype=dtype)


def _readonly():
    a = _x()
    a.setflags(write=False)
    return a


CALL_CASES = [
    # id, kernel, args, exception, words in the message, word in the hint
    ("wrong_count", "k_copy", lambda: (_x(),), KernelTypeError, ["2 argument"], "2-D"),
    ("wrong_dtype", "k_copy_float", lambda: (_x(), _x(dtype=np.float32)), KernelTypeError,
     ["'x'", "annotated"], "float32"),
    # A 2-D array where the kernel indexes x[i]: a located typing error (n-D
    # arrays are indexed with one index per axis).
    ("two_d", "k_copy", lambda: (np.zeros((2, 4)), _x()), KernelTypeError,
     ["x is a 2-D array", "2 indices"], "x[i, j]"),
    # Strided views are passed with their strides (tests/test_ndarray.py); strides
    # that are not whole elements cannot be.
    ("odd_strides", "k_copy", lambda: (np.lib.stride_tricks.as_strided(
        _x(16), shape=(4,), strides=(12,)), _x(4)), KernelValueError,
     ["'x'", "strides"], "ascontiguousarray"),
    ("rank_zero", "k_copy", lambda: (np.zeros(()), _x()), KernelValueError,
     ["'x'", "0-D"], "scalar"),
    ("read_only", "k_copy", lambda: (_x(), _readonly()), KernelValueError,
     ["'y'", "read-only"], "copy"),
    ("none", "k_copy", lambda: (_x(), None), KernelTypeError, ["'y'", "None"], "array"),
    ("string", "k_copy", lambda: ("abc", _x()), KernelTypeError, ["'x'", "string"],
     "number"),
    ("list", "k_copy", lambda: ([1.0, 2.0], _x()), KernelTypeError, ["'x'", "list"],
     "asarray"),
    ("complex_dtype", "k_copy", lambda: (_x(dtype=np.complex128), _x()), KernelTypeError,
     ["'x'", "complex128"], "float64"),
]


@pytest.mark.parametrize("case", CALL_CASES, ids=[c[0] for c in CALL_CASES])
def test_call_time_argument_errors(no_build, case):
    from pcompute import Elementwise
    _, kernel, make_args, exc_class, words, hint = case
    e = Elementwise(getattr(bk, kernel), backend="cython")
    with pytest.raises(exc_class) as info:
        e(*make_args())
    exc = info.value
    assert isinstance(exc, KernelError)
    assert type(exc).__module__ == "pcompute.errors"
    for word in words:
        assert word in exc.message, exc.message
    if hint is not None:
        assert exc.hint and hint in exc.hint, exc.hint
    assert "Traceback" not in str(exc)


def test_error_classes():
    assert issubclass(KernelSyntaxError, SyntaxError)
    assert issubclass(KernelTypeError, TypeError)
    assert issubclass(KernelValueError, ValueError)
    for cls in (KernelSyntaxError, KernelTypeError, KernelValueError):
        assert issubclass(cls, KernelError)
    assert not issubclass(InternalError, KernelError)
    assert "bug" in str(errors.InternalError("x"))
