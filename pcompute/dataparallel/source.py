"""Reading the user's functions: their AST, where each node is, and closures.

A :class:`Closure` is a function the compiler inlines (a lambda, a nested or
a module-level ``def``) with the environment it was defined in; names it does
not bind are looked up in that environment, then in the Python function's
closure cells and globals, so closures over outer values work.
"""
import ast
import builtins
import inspect
import textwrap

from ..errors import KernelSyntaxError, SourceLocation


def located(cls, message, where, hint=None):
    """An error of ``cls`` at ``where`` (a SourceLocation or None)."""
    return cls(message, where, hint or None)


class Closure:
    """A function node with its defining environment."""

    def __init__(self, node, env, globals_, filename, firstline, lines=None):
        self.node, self.env, self.globals = node, env, globals_
        self.filename, self.firstline = filename, firstline
        self.lines = lines if lines is not None else env.get("__lines__", [])
        self.name = getattr(node, "name", "<lambda>")

    def where(self, node):
        """The SourceLocation of ``node`` in the user's file."""
        lineno = getattr(node, "lineno", 1)
        text = self.lines[lineno - 1] if 0 < lineno <= len(self.lines) else ""
        return SourceLocation(self.filename, self.firstline + lineno - 1,
                              getattr(node, "col_offset", 0),
                              getattr(node, "end_col_offset", None), self.name, text)

    def lookup(self, name, where):
        """The value of a free name: closure cells, then globals, then builtins."""
        if name in self.globals:
            return self.globals[name]
        if hasattr(builtins, name):
            return getattr(builtins, name)
        raise located(KernelSyntaxError, "name %r is not defined" % name, where,
                      "pass it as an argument or define it before the call")


def closure_of(func):
    """A :class:`Closure` of the Python function ``func`` (from its source)."""
    try:
        lines, first = inspect.getsourcelines(func)
    except (OSError, TypeError) as exc:
        raise KernelSyntaxError("cannot read the source of %s: %s"
                                % (getattr(func, "__qualname__", func), exc)) from None
    text = textwrap.dedent("".join(lines))
    tree = ast.parse(text)
    node = tree.body[0]
    if isinstance(node, ast.FunctionDef):
        node.decorator_list = []
    elif not isinstance(node, ast.Lambda):
        node = next((n for n in ast.walk(tree) if isinstance(n, ast.Lambda)), None)
        if node is None:
            raise KernelSyntaxError("cannot find the function %s in its source"
                                    % func.__qualname__)
    scope = dict(func.__globals__)
    if func.__closure__:
        scope.update(zip(func.__code__.co_freevars,
                         (c.cell_contents for c in func.__closure__)))
    filename = inspect.getsourcefile(func) or "<unknown>"
    return Closure(node, {}, scope, filename, first, text.splitlines())
