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
import inspect
import sys
import textwrap

from mako.template import Template as _MakoTemplate

from .errors import KernelValueError
from .types import KnownType, parse_type


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

    def _body(self):
        doc = self.template.__doc__
        if not doc or not doc.strip():
            raise KernelValueError(
                "%s.template has no docstring: the docstring is the mako template "
                "of the body" % type(self).__name__)
        text = _MakoTemplate(textwrap.dedent(doc), strict_undefined=True).render(obj=self)
        lines = [line for line in textwrap.dedent(text).splitlines()]
        while lines and not lines[0].strip():
            lines.pop(0)
        return "\n".join(lines).rstrip() or "pass"

    @property
    def source(self):
        """The Python source of the generated function."""
        if self._source is None:
            args, _ = self._arguments()
            body = textwrap.indent(self._body(), "    ")
            self._source = "def %s(%s):\n%s\n" % (self.name, ", ".join(args), body)
        return self._source

    @property
    def function(self):
        """The generated function (with ``source`` and annotations)."""
        if self._function is None:
            args, annotations = self._arguments()
            module = sys.modules.get(type(self).__module__)
            namespace = dict(vars(module)) if module is not None else {}
            filename = "<template %s.%s>" % (type(self).__name__, self.name)
            exec(compile(self.source, filename, "exec"), namespace)
            func = namespace[self.name]
            func.source = self.source
            ann = {}
            for name, value in annotations.items():
                if name not in args and name not in ("return", "return_"):
                    raise KernelValueError("annotation for %r, which is not an argument "
                                           "of %s" % (name, self.name))
                parse_type(value)
                key = "return" if name in ("return", "return_") else name
                ann[key] = value if isinstance(value, KnownType) else KnownType(str(value))
            func.__annotations__ = ann
            self._function = func
        return self._function

    def inject(self, func, indent=1):
        """The body of ``func`` (without its def line and docstring), indented by
        ``indent`` levels, to paste into a template."""
        lines, _ = inspect.getsourcelines(func)
        text = textwrap.dedent("".join(lines))
        import ast
        tree = ast.parse(text).body[0]
        body = tree.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            body = body[1:]
        if not body:
            return ""
        src_lines = text.splitlines()
        start = body[0].lineno - 1
        end = body[-1].end_lineno
        chunk = textwrap.dedent("\n".join(src_lines[start:end]))
        return textwrap.indent(chunk, "    " * indent)
