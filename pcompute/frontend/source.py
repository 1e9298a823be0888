"""Read a kernel function's source and map AST nodes back to the user's file."""
import ast
import inspect
import linecache
import textwrap

from ..errors import KernelSyntaxError, KernelValueError, SourceLocation


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
        """The :class:`SourceLocation` of ``node`` in the user's file."""
        lineno = getattr(node, "lineno", 1)
        line = self.lines[lineno - 1] if 0 < lineno <= len(self.lines) else ""
        col = getattr(node, "col_offset", 0) + self.indent
        end_col = getattr(node, "end_col_offset", None)
        if end_col is not None and getattr(node, "end_lineno", lineno) == lineno:
            end_col += self.indent
        else:
            end_col = None
        return SourceLocation(self.filename, self.first_line + lineno - 1, col,
                              end_col, self.name, line)

    def error(self, cls, node, message, hint=None):
        """Build an error of class ``cls`` pointing at ``node``."""
        return cls(message, self.location(node), hint)


_CACHE = {}


def _raw_source(func):
    """Return (text, filename, first_line) for ``func``."""
    code = getattr(func, "__code__", None)
    filename = code.co_filename if code is not None else "<unknown>"
    text = getattr(func, "source", None)
    if isinstance(text, str):
        return text, filename, 1
    if getattr(func, "__name__", "") == "<lambda>":
        raise KernelValueError(
            "a lambda cannot be a kernel: pcompute needs a named function",
            hint="define it with `def name(i, ...):` in a file")
    try:
        lines, first = inspect.getsourcelines(func)
    except (OSError, TypeError) as exc:
        raise KernelValueError(
            "cannot read the source of %s() (%s); pcompute translates the "
            "function's source text" % (getattr(func, "__name__", func), exc),
            hint="define the function in a .py file, or give it a `source` "
                 "attribute holding its text (e.g. for functions made by exec)")
    return "".join(lines), filename, max(first, 1)


def read_function(func):
    """Parse ``func``'s source into a :class:`FunctionSource` (memoised)."""
    key = (func, getattr(func, "source", None))
    try:
        cached = _CACHE.get(key)
    except TypeError:
        cached = None
    if cached is not None:
        return cached
    if not callable(func):
        raise KernelValueError("expected a Python function, got %r" % (func,))
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
        loc = SourceLocation(filename, first + (exc.lineno or 1) - 1,
                             (exc.offset or 1) - 1 + indent, None,
                             getattr(func, "__name__", None),
                             lines[(exc.lineno or 1) - 1] if lines else "")
        raise KernelSyntaxError("the function's source does not parse: %s" % exc.msg, loc)
    defs = [n for n in module.body if isinstance(n, ast.FunctionDef)]
    wanted = getattr(func, "__name__", None)
    tree = next((d for d in defs if d.name == wanted), defs[0] if defs else None)
    if tree is None:
        raise KernelValueError("no function definition found in the source of %r" % (func,))
    tree.decorator_list = []
    result = FunctionSource(func, tree, filename, first, indent, lines)
    try:
        _CACHE[key] = result
    except TypeError:
        pass
    return result
