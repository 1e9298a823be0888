"""Compyle's code-generator classes (``compyle.translator``) over pcompute's pipeline.

People who use Compyle as a code generator write::

    from pcompute.translator import OpenCLConverter

    conv = OpenCLConverter()
    code = conv.parse(my_function)       # OpenCL C text of my_function
    code = conv.convert(source_text)     # every function defined in a text

``CConverter``, ``OpenCLConverter`` and ``CUDAConverter`` keep Compyle's
interface (``parse``, ``convert``, ``detect_type``, ``known_types``,
``add_known``, ``get_declarations``).  The text they return is pcompute's:
the function is checked and typed by :mod:`pcompute.frontend` and printed by
:mod:`pcompute.codegen`, with the helpers it calls and the runtime support it
needs, so every result compiles on its own.  Its meaning is Compyle's (and
Python's): local variables get the types pcompute infers (Compyle declares
undeclared locals ``double``), ``//`` and ``%`` follow Python's rules, and
annotated types are printed as given whatever ``use_double`` says.  Float
literals that meet no float value are typed as on the backends of the
dialect: double in C (Compyle's CPU code computed them in double), and on
OpenCL/CUDA double with ``use_double``, else float (as in Compyle).

Argument types come from, in order: the function's annotations
(``@annotate``), then ``known_types``, then default values
(``def f(x=0.0, y=[0.0])``) through ``detect_type`` (Compyle's rules:
``s_*``/``d_*`` names are ``double*``, ``s_idx``/``d_idx`` are ``long``).
Not supported (a clear error each): statements outside functions in
``convert``, and the methods of classes and instances (Compyle's
``Class_method(Class* self, ...)``); :class:`CStructHelper` and
``get_struct_from_instance`` give the C struct of an object's number
attributes, and ``CStructHelper.get_array`` a NumPy record matching it.
"""
import ast
import inspect
import logging
import textwrap
import types

from .codegen import print_programs
from .cstruct import CStructHelper
from .config import get_config
from .errors import KernelTypeError, KernelValueError
from .frontend import type_kernel
from .types import KnownType, parse_type

__all__ = ["CConverter", "OpenCLConverter", "CUDAConverter", "CodeGenerationError",
           "CStructHelper",
           "KnownType", "Undefined", "detect_type", "literal_to_float", "py2c",
           "all_numeric"]

logger = logging.getLogger("pcompute.translator")


class CodeGenerationError(KernelValueError):
    """An argument whose type cannot be told (Compyle's exception name)."""


class Undefined:
    """Marks an argument without a default value (Compyle's name)."""


def all_numeric(seq):
    """True when every item of ``seq`` is an int or a float."""
    return all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in seq)


def literal_to_float(value, use_double=False):
    """A float literal in C: ``1.0f`` in single precision, ``1.0`` in double."""
    if isinstance(value, float) and not use_double:
        return str(value) + "f"
    return str(value)


def detect_type(name, value):
    """Compyle's rule for the C type of an unannotated argument.

    ``value`` is its default value (a KnownType, a number, a list of numbers)
    or :class:`Undefined`; ``s_*``/``d_*`` names (other than ``s_idx``,
    ``d_idx``) are ``double*`` and ``s_idx``/``d_idx`` are ``long``.
    """
    if isinstance(value, KnownType):
        return value.type
    if name.startswith(("s_", "d_")) and name not in ("s_idx", "d_idx"):
        return "double*"
    if name in ("s_idx", "d_idx"):
        return "long"
    if value is Undefined or isinstance(value, Undefined):
        raise CodeGenerationError(
            "Unknown type, for %s" % name,
            hint="annotate the function (@annotate(%s='double')), give the argument a "
                 "default value of its type, or pass known_types={'%s': KnownType(...)}"
                 % (name, name))
    if isinstance(value, bool):
        return "int"
    if isinstance(value, int):
        return "long"
    if isinstance(value, float):
        return "double"
    if isinstance(value, (list, tuple)) and value and all_numeric(value):
        return "double*" if any(isinstance(x, float) for x in value) else "long*"
    raise CodeGenerationError("Unknown type, for %s with value %r" % (name, value))


def py2c(src, detect_type=detect_type, known_types=None):
    """C code of the functions defined in ``src`` (Compyle's helper; it does
    not print the code)."""
    converter = CConverter(detect_type=detect_type, known_types=known_types)
    result = converter.convert(src)
    return converter.get_declarations() + result


# ------------------------------------------------------------------ helpers

def _source_of(func):
    text = getattr(func, "source", None)
    if isinstance(text, str):
        return textwrap.dedent(text)
    return textwrap.dedent(inspect.getsource(func))


def _function_def(func, text):
    tree = ast.parse(text)
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == func.__name__:
            return node
    raise KernelValueError("cannot find def %s in its source" % func.__name__)


def _defaults(node):
    """{argument: default value} of a def (in Compyle, type declarations)."""
    params = [a.arg for a in node.args.args]
    first = len(params) - len(node.args.defaults)
    return dict(zip(params[first:], [ast.literal_eval(d) for d in node.args.defaults]))


def _without_defaults(func, node):
    """``func`` with a ``source`` that has no default values: in Compyle they
    only declare the types, which the caller has taken from them."""
    if not node.args.defaults:
        return func
    node.args.defaults = []
    clone = types.FunctionType(func.__code__, func.__globals__, func.__name__, None,
                               func.__closure__)
    clone.__annotations__ = dict(getattr(func, "__annotations__", {}) or {})
    clone.source = ast.unparse(ast.fix_missing_locations(ast.Module([node], [])))
    return clone


def _where(cls):
    """``file:line: `` of a class's definition, or ``""`` when unknown."""
    try:
        return "%s:%d: " % (inspect.getsourcefile(cls), inspect.getsourcelines(cls)[1])
    except (OSError, TypeError):
        return ""


def prepare(func, known_types, detect):
    """(function to type, types of its unannotated arguments) for ``func``.

    The types come from ``known_types`` first, then from the default values,
    through ``detect`` (Compyle's rule, see :func:`detect_type`)."""
    node = _function_def(func, _source_of(func))
    defaults = getattr(func, "_pc_defaults", None)
    if defaults is None:
        defaults = _defaults(node)
    annotations = getattr(func, "__annotations__", None) or {}
    arg_types = {}
    for arg in node.args.args:
        if arg.arg not in annotations:
            value = known_types.get(arg.arg, defaults.get(arg.arg, Undefined))
            arg_types[arg.arg] = parse_type(detect(arg.arg, value))
    return _without_defaults(func, node), arg_types


class CConverter:
    """Translate Python functions to C (Compyle's ``CConverter``)."""

    dialect = "c"
    on_device = False       # the dialect's code runs on an OpenCL/CUDA device

    def __init__(self, detect_type=detect_type, known_types=None):
        self._detect_type = detect_type
        self._known_types = dict(known_types) if known_types is not None else {}
        self._known = set()
        self._use_double = get_config().use_double

    # -- Compyle's public protocol ----------------------------------------
    def add_known(self, names):
        """Names of global constants not to declare.  pcompute never declares
        globals (it reads constants from the function's module), so these
        only get recorded."""
        self._known.update(names)

    def get_declarations(self):
        """Declarations of global names: none, pcompute declares every
        variable inside its function."""
        return ""

    def get_struct_from_instance(self, obj):
        """The C ``typedef struct`` of ``obj``'s public number attributes
        (Compyle's method; the text of :meth:`CStructHelper.get_code`, whose
        ``get_array()`` gives a NumPy record with the same layout)."""
        return CStructHelper(obj).get_code() + "\n"

    def parse(self, obj, declarations=None):
        """The code of a function (with the helpers it calls).

        ``declarations`` (Compyle's list of extra local declarations) is not
        needed: pcompute infers the types of locals."""
        if isinstance(obj, types.FunctionType):
            return self.parse_function(obj, declarations)
        cls = obj if isinstance(obj, type) else type(obj)
        raise KernelTypeError(
            "%s%s can translate functions, not %s %s: methods (Compyle's "
            "Class_method(self, ...) functions on a struct) are not translated" % (
                _where(cls), type(self).__name__,
                "class" if isinstance(obj, type) else "an instance of", cls.__name__),
            hint="write the methods as functions taking the fields (or the arrays "
                 "they live in) as arguments; CStructHelper(obj) still gives the "
                 "struct's C declaration and a NumPy record with its values")

    def parse_function(self, obj, declarations=None):
        """The code of the function ``obj`` (see :meth:`parse`)."""
        if not isinstance(obj, types.FunctionType):
            return self.parse(obj, declarations)
        return self._translate([obj])

    def parse_instance(self, obj, ignore_methods=None):
        """Compyle's struct plus ``Class_method`` functions of an instance:
        not translated (a KernelTypeError naming the class's file and line);
        :meth:`get_struct_from_instance` gives the struct."""
        return self.parse(obj)

    def convert(self, src, ignore_methods=None):
        """The code of every function defined in the Python text ``src``."""
        src = textwrap.dedent(src)
        tree = ast.parse(src)
        names = []
        for node in tree.body:
            if isinstance(node, ast.FunctionDef):
                names.append(node.name)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
                continue
            elif isinstance(node, ast.ClassDef):
                raise KernelTypeError(
                    "line %d: class %s: methods of classes are not translated "
                    "(Compyle's Class_method(self, ...) on a struct)"
                    % (node.lineno, node.name),
                    hint="write the methods as functions taking the fields as "
                         "arguments; CStructHelper(obj) gives the struct's C "
                         "declaration and a NumPy record of an instance")
            else:
                raise KernelValueError(
                    "line %d: only function definitions can be converted, not a %s "
                    "outside a function" % (node.lineno, type(node).__name__),
                    hint="put the statements in a def whose arguments have "
                         "default values of their types")
        # Default values only declare types: taken here, removed from the
        # text that is run and translated (also from helpers defined in it).
        defaults = {}
        for node in tree.body:
            if isinstance(node, ast.FunctionDef):
                defaults[node.name] = _defaults(node)
                node.args.defaults = []
        text = ast.unparse(tree)
        namespace = {}
        exec("from pcompute.types import *\nfrom math import *\n", namespace)
        exec(compile(text, "<convert>", "exec"), namespace)
        funcs = []
        for name in names:
            func = namespace[name]
            func.source = text
            func._pc_defaults = defaults[name]
            funcs.append(func)
        return self._translate(funcs)

    # -- pcompute's pipeline ----------------------------------------------
    def _translate(self, funcs):
        programs = []
        for func in funcs:
            func, arg_types = prepare(func, self._known_types, self._detect_type)
            program = type_kernel(func, arg_types, use_double=self._use_double,
                                  demote_double=False,
                                  single_literals=self.on_device and not self._use_double)
            programs.append((program, None))
        runtime, text, printer = print_programs(programs, self.dialect)
        return self._assemble(runtime, text, printer)

    def _assemble(self, runtime, text, printer):
        parts = [runtime, text]
        return "\n\n".join(p.strip("\n") for p in parts if p.strip()) + "\n"


class OpenCLConverter(CConverter):
    """Translate Python functions to OpenCL C (Compyle's ``OpenCLConverter``)."""

    dialect = "opencl"
    on_device = True

    def _assemble(self, runtime, text, printer):
        code = CConverter._assemble(self, runtime, text, printer)
        if "double" in code:
            code = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n" + code
        return code


class CUDAConverter(CConverter):
    """Translate Python functions to CUDA C (Compyle's ``CUDAConverter``)."""

    dialect = "cuda"
    on_device = True
