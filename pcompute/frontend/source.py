"""Read a kernel function's source and map AST nodes back to the user's file."""
import ast
import inspect
import linecache
import textwrap
import types

from ..errors import KernelSyntaxError, KernelTypeError, KernelValueError, SourceLocation


class FunctionSource:
    """The parsed source of one user function.

    ``tree`` is the ``ast.FunctionDef`` (decorators removed); ``first_line`` the
    absolute line in ``filename`` where the parsed text starts; ``indent`` the
    columns removed by dedenting.
    """

    def __init__(self, func, tree, filename, first_line, indent, lines):
        self.func = func
        self.name = tree.name
        self.tree = tree
        self.filename = filename
        self.first_line = first_line
        self.indent = indent
        self.lines = lines

    def location(self, node):
        """The :class:`SourceLocation` of ``node`` in the user's file.

        Columns are characters of the user's line (the AST counts UTF-8
        bytes of the dedented text).
        """
        lineno = getattr(node, "lineno", 1) or 1
        line = self.lines[lineno - 1] if 0 < lineno <= len(self.lines) else ""
        col = self._char_col(line, getattr(node, "col_offset", 0) or 0)
        end_col = getattr(node, "end_col_offset", None)
        if end_col is not None and getattr(node, "end_lineno", lineno) == lineno:
            end_col = self._char_col(line, end_col)
        else:
            end_col = None
        return SourceLocation(self.filename, self.first_line + lineno - 1, col,
                              end_col, self.name, line)

    def _char_col(self, line, byte_col):
        """The character column in ``line`` of a byte offset in its dedented text."""
        raw = line.encode("utf-8")
        prefix = raw[:byte_col + self.indent]
        return len(prefix.decode("utf-8", "replace"))

    def error(self, cls, node, message, hint=None):
        """Build an error of class ``cls`` pointing at ``node``."""
        return cls(message, self.location(node), hint)


_CACHE = {}


def _code_location(func, construct=None):
    """The location of ``func``'s definition from its code object alone."""
    code = getattr(func, "__code__", None)
    if code is None:
        return None
    filename, lineno = code.co_filename, code.co_firstlineno
    line = linecache.getline(filename, lineno) if filename else ""
    col = max(line.find(construct), 0) if (construct and line) else 0
    end = col + len(construct) if (construct and line and construct in line) else None
    if not construct and line:
        col = len(line) - len(line.lstrip())
    return SourceLocation(filename, lineno, col, end, getattr(func, "__name__", None),
                          line)


def _raw_source(func):
    """Return (text, filename, first_line) for ``func``."""
    code = getattr(func, "__code__", None)
    filename = code.co_filename if code is not None else "<unknown>"
    text = getattr(func, "source", None)
    if isinstance(text, str):
        return text, filename, 1
    if getattr(func, "__name__", "") == "<lambda>":
        raise KernelValueError(
            "a lambda cannot be a kernel: pcompute translates named functions",
            _code_location(func, "lambda"),
            hint="define it with `def name(i, ...):` at module level")
    try:
        lines, first = inspect.getsourcelines(func)
    except (OSError, TypeError) as exc:
        raise KernelValueError(
            "cannot read the source of %s() (%s): pcompute translates the "
            "function's source text" % (getattr(func, "__name__", func), exc),
            _code_location(func),
            hint="define the function in a .py file, or give it a `source` "
                 "attribute holding its text (e.g. for functions made by exec)")
    return "".join(lines), filename, max(first, 1)


def _describe(obj):
    """A short description of a non-function object for error messages."""
    if isinstance(obj, type):
        return "the class %s" % obj.__name__
    kind = type(obj).__name__
    module = type(obj).__module__ or ""
    if module.startswith("numpy"):
        kind = "numpy " + kind
    name = getattr(obj, "__name__", None)
    article = "an" if kind[:1] in "aeiou" else "a"
    return ("%s (%s %s)" % (name, article, kind)) if name else ("%s %s" % (article, kind))


def check_is_function(func):
    """Raise unless ``func`` is a Python function pcompute can translate."""
    if isinstance(func, (types.FunctionType, types.MethodType)):
        return
    raise KernelTypeError(
        "kernels are Python functions written in the kernel subset, but %s was "
        "given" % _describe(func),
        hint="pass a function defined with `def f(i, ...):` (numpy and math "
             "functions can be called inside it)")


def read_function(func):
    """Parse ``func``'s source into a :class:`FunctionSource` (memoised)."""
    key = (func, getattr(func, "source", None))
    try:
        cached = _CACHE.get(key)
    except TypeError:
        cached = None
    if cached is not None:
        return cached
    check_is_function(func)
    text, filename, first = _raw_source(func)
    dedented = textwrap.dedent(text)
    indent = 0
    for orig, new in zip(text.splitlines(), dedented.splitlines()):
        if new.strip():
            indent = len(orig) - len(new)
            break
    lines = text.splitlines()
    if filename and not lines:
        lines = linecache.getlines(filename)[first - 1:]
    try:
        module = ast.parse(dedented)
    except SyntaxError as exc:
        rel = exc.lineno or 1
        loc = SourceLocation(filename, first + rel - 1, (exc.offset or 1) - 1 + indent,
                             None, getattr(func, "__name__", None),
                             lines[rel - 1] if 0 < rel <= len(lines) else "")
        raise KernelSyntaxError(
            "the function's source does not parse on its own: %s" % exc.msg, loc,
            hint="define the kernel with a plain top-level `def`, or give it a "
                 "`source` attribute holding its complete text")
    defs = [n for n in module.body
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    wanted = getattr(func, "__name__", None)
    tree = next((d for d in defs if d.name == wanted), None)
    if tree is None and len(defs) == 1 and getattr(func, "source", None) is not None:
        tree = defs[0]  # a `source` attribute may spell the function's name differently
    if tree is None:
        found = ", ".join(d.name for d in defs) or "no function"
        raise KernelValueError(
            "the source text found for %s() defines %s, not %s(): it may be stale "
            "(the file changed after import) or belong to another function"
            % (wanted, found, wanted), _code_location(func),
            hint="reload the module, or give the function a `source` attribute "
                 "holding its `def` text")
    tree.decorator_list = []
    result = FunctionSource(func, tree, filename, first, indent, lines)
    try:
        _CACHE[key] = result
    except TypeError:
        pass
    return result
