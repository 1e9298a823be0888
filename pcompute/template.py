"""Kernels generated from mako templates (Compyle-compatible ``Template``).

A subclass defines ``template(self, i, ...)`` whose docstring is a mako
template of the function body (rendered with ``obj=self``), and optionally
``extra_args()`` returning ``(names, annotations)`` of arguments added after
the template's own.  ``.function`` is then a real Python function, with a
``source`` attribute, usable in every primitive and on every backend::

    class Align(Template):
        def __init__(self, name, n):
            super().__init__(name)
            self.n = n

        def extra_args(self):
            names = ['a%d' % k for k in range(self.n)]
            names += ['b%d' % k for k in range(self.n)]
            return names, {}

        def template(self, i, order):
            '''
            % for k in range(obj.n):
            b${k}[i] = a${k}[order[i]]
            % endfor
            '''
"""
import ast
import inspect
import sys
import textwrap

from .errors import KernelValueError
from .types import KNOWN_TYPES, annotations_from


def _string_statements(func):
    """The string-constant statements at the start of ``func``'s body, read
    from its source (None when the source cannot be read)."""
    try:
        lines, _ = inspect.getsourcelines(func)
    except (OSError, TypeError):
        return None
    tree = ast.parse(textwrap.dedent("".join(lines)))
    body = tree.body[0].body
    strings = []
    for stmt in body:
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) \
                and isinstance(stmt.value.value, str):
            strings.append(stmt.value.value)
        else:
            break
    return strings


def _docstring_lines(doc):
    """``doc`` (dedented) as the docstring lines of the generated function."""
    if '"""' in doc or doc.endswith("\\"):
        return ["    " + repr(doc)]
    lines = doc.splitlines() or [""]
    return (['    """' + lines[0]] + [("    " + line).rstrip() for line in lines[1:]]
            + ['    """'])


class Template:
    """Base class of mako-templated kernels; see the module docstring."""

    def __init__(self, name):
        self.name = name
        self._function = None
        self._source = None

    def template(self, *args):
        raise KernelValueError(
            "%s must define template(self, ...) whose docstring is a mako template "
            "of the function body" % type(self).__name__)

    def extra_args(self):
        """(extra argument names, {name: type}) added after the template's own."""
        return [], {}

    def _arguments(self):
        params = list(inspect.signature(self.template).parameters)
        names, annotations = self.extra_args()
        return params + [n for n in names if n not in params], dict(annotations)

    def _texts(self):
        """(docstring or '', mako template text) of ``template``.

        As in Compyle, the template is the last string statement of the body;
        when there are two, the first is the docstring of the generated
        function."""
        strings = _string_statements(self.template)
        if strings is None:
            doc = self.template.__doc__
            strings = [doc] if doc else []
        if not strings or not strings[-1].strip():
            raise KernelValueError(
                "%s.template has no docstring: the docstring is the mako template "
                "of the body" % type(self).__name__)
        return (strings[0] if len(strings) > 1 else ""), strings[-1]

    def render(self, text):
        """The mako template ``text`` rendered with ``obj`` = this object."""
        from mako.template import Template      # on first use, not at import pcompute
        return Template(textwrap.dedent(text), strict_undefined=True).render(obj=self)

    def _body(self, template):
        lines = textwrap.dedent(self.render(template)).splitlines()
        while lines and not lines[0].strip():
            lines.pop(0)
        return "\n".join(lines).rstrip() or "pass"

    @property
    def source(self):
        """The Python source of the generated function (its docstring kept)."""
        if self._source is None:
            args, _ = self._arguments()
            doc, template = self._texts()
            head = ["def %s(%s):" % (self.name, ", ".join(args))]
            if doc.strip():
                head += _docstring_lines(textwrap.dedent(doc).strip("\n"))
            body = textwrap.indent(self._body(template), "    ")
            self._source = "\n".join(head) + "\n" + body + "\n"
        return self._source

    @property
    def function(self):
        """The generated function (with ``source``, annotations and ``is_jit``).

        Its annotations are those of ``template`` (``@annotate`` on it) and
        of :meth:`extra_args`; ``is_jit`` is True when there are none (types
        from the first call), as in Compyle."""
        if self._function is None:
            args, extra = self._arguments()
            module = sys.modules.get(type(self).__module__)
            namespace = dict(vars(module)) if module is not None else {}
            filename = "<template %s.%s>" % (type(self).__name__, self.name)
            exec(compile(self.source, filename, "exec"), namespace)
            func = namespace[self.name]
            func.source = self.source
            func.__module__ = type(self).__module__
            annotations = dict(getattr(self.template, "__annotations__", None) or {})
            for name in extra:
                if name not in args and name not in ("return", "return_") \
                        and name not in KNOWN_TYPES:
                    raise KernelValueError("annotation for %r, which is not an argument "
                                           "of %s" % (name, self.name))
            annotations.update(annotations_from(extra, self.name, args))
            func.__annotations__ = annotations
            func.is_jit = not annotations
            self._function = func
        return self._function

    def inject(self, func, indent=1):
        """The body of ``func`` (without its def line and docstring), each line
        ending in a newline, indented by ``indent`` levels of four spaces, to
        paste into a template (as Compyle's ``inject``)."""
        lines, _ = inspect.getsourcelines(func)
        tree = ast.parse(textwrap.dedent("".join(lines))).body[0]
        body = tree.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            body = body[1:]
        if not body:
            return ""
        chunk = textwrap.dedent("".join(lines[body[0].lineno - 1:body[-1].end_lineno]))
        return "".join((" " * 4 * indent + line) if line.strip() else "\n"
                       for line in chunk.splitlines(True))
