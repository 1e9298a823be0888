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
The methods of a class become Compyle's ``Class_method(Class* self, ...)``
functions (``__global Class* self`` in OpenCL): ``self.x`` reads the field
``x`` of the struct (``self->x``), ``self.g(y)`` calls ``Class_g(self, y)``.
``parse_instance(obj)`` gives the struct of ``obj``'s number attributes
(:class:`CStructHelper`, whose ``get_array()`` is a NumPy record with the
same bytes) followed by the public methods; ``parse(cls)`` and ``convert``
of a text defining a class give the methods only, which then cannot read
fields (their types come from an instance).  Fields are read-only, as in
kernels (every work-item shares the object).  Not supported (a clear error
each): statements outside functions and classes in ``convert``, classes
with base classes, static and class methods, and assigning to a field.
"""
import ast
import inspect
import logging
import textwrap
import types

from .codegen import print_programs
from .cstruct import CStructHelper, class_location, struct_info
from .config import get_config
from .errors import KernelTypeError, KernelValueError
from .frontend import type_kernel
from .types import KnownType, parse_type, struct_pointer

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


def _class_methods(cls, ignore_methods=()):
    """(name, function) of the methods of ``cls`` to translate, in the order
    of the class body: public ones (no ``_``/``py_`` prefix, as Compyle), not
    in ``ignore_methods``."""
    out = []
    for name, raw in vars(cls).items():
        if name.startswith(("_", "py_")) or name in (ignore_methods or ()):
            continue
        if isinstance(raw, (staticmethod, classmethod)):
            raise KernelTypeError(
                "%s%s.%s is a %s: the translator turns plain methods into "
                "%s_%s(%s* self, ...)" % (class_location(cls), cls.__name__, name,
                                          type(raw).__name__, cls.__name__, name,
                                          cls.__name__),
                hint="make it a plain method or a module-level function, or pass "
                     "ignore_methods=[%r]" % name)
        if isinstance(raw, types.FunctionType):
            out.append((name, raw))
    return out


def method_copy(func, info, space, known_types, detect):
    """A copy of the method ``func`` of the struct ``info``'s class whose
    annotations give every argument its type: ``self`` the struct pointer
    (in address space ``space``), the others as for a function (annotations,
    ``known_types``, default values)."""
    node = _function_def(func, _source_of(func))
    params = [a.arg for a in node.args.args]
    if not params:
        raise KernelTypeError("%s.%s takes no argument: a method's first argument is "
                              "the object (self)" % (info.name, func.__name__),
                              hint="write def %s(self, ...)" % func.__name__)
    defaults = getattr(func, "_pc_defaults", None)
    if defaults is None:
        defaults = _defaults(node)
    annotations = dict(getattr(func, "__annotations__", None) or {})
    declared = {params[0]: struct_pointer(info, space)}
    for p in params[1:]:
        if p not in annotations:
            value = known_types.get(p, defaults.get(p, Undefined))
            declared[p] = declared_type(p, value, detect)
    clone = types.FunctionType(func.__code__, func.__globals__, func.__name__, None,
                               func.__closure__)
    clone.__annotations__ = {**annotations, **declared}
    if isinstance(getattr(func, "source", None), str):
        clone.source = func.source
    return clone


def declared_type(name, value, detect):
    """The CType of an unannotated argument ``name`` whose default value (or
    known type) is ``value``, through ``detect`` (see :func:`detect_type`)."""
    try:
        return parse_type(detect(name, value))
    except KernelTypeError as exc:
        if not isinstance(value, KnownType):
            raise
        raise KernelTypeError(
            "argument %r: %s is not a type pcompute can translate (%s)"
            % (name, value, exc.message),
            hint="the translator calls the methods of the class it translates "
                 "(self.m()), whose struct comes from an instance (parse_instance); "
                 "pass the other object's fields as numbers") from None


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
            arg_types[arg.arg] = declared_type(arg.arg, value, detect)
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
        """The code of a function (with the helpers it calls), of the methods
        of a class, or of an instance's struct and methods (see
        :meth:`parse_instance`).

        ``declarations`` (Compyle's list of extra local declarations) is not
        needed: pcompute infers the types of locals."""
        if isinstance(obj, types.FunctionType):
            return self.parse_function(obj, declarations)
        if isinstance(obj, type):
            return self._translate_class(obj, ())
        return self.parse_instance(obj)

    def parse_function(self, obj, declarations=None):
        """The code of the function ``obj`` (of the methods of a class, as
        Compyle's, which read the class's source)."""
        if not isinstance(obj, types.FunctionType):
            return self.parse(obj, declarations)
        return self._translate([obj])

    def parse_instance(self, obj, ignore_methods=None):
        """The ``typedef struct`` of ``obj``'s public number attributes, then
        its class's public methods as ``Class_method(Class* self, ...)``
        (except ``ignore_methods``).  The fields' types are the values' (int:
        ``int``, float: ``double``); ``CStructHelper(obj).get_array()`` gives
        a NumPy record whose bytes are the struct's."""
        if isinstance(obj, type):
            return self._translate_class(obj, ignore_methods)
        return self._with_struct(self.get_struct_from_instance(obj),
                                 self._translate_class(obj, ignore_methods))

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
                names.append(node.name)
            else:
                raise KernelValueError(
                    "line %d: only function definitions can be converted, not a %s "
                    "outside a function" % (node.lineno, type(node).__name__),
                    hint="put the statements in a def whose arguments have "
                         "default values of their types")
        # Default values only declare types: taken here, removed from the
        # text that is run and translated (also from helpers defined in it).
        defaults, methods = {}, {}
        for node in tree.body:
            if isinstance(node, ast.FunctionDef):
                defaults[node.name] = _defaults(node)
                node.args.defaults = []
            elif isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, ast.FunctionDef):
                        methods[(node.name, item.name)] = _defaults(item)
                        item.args.defaults = []
        text = ast.unparse(tree)
        namespace = {}
        exec("from pcompute.types import *\nfrom math import *\n", namespace)
        exec(compile(text, "<convert>", "exec"), namespace)
        parts, funcs = [], []
        for node in tree.body:
            if node.__class__ is ast.FunctionDef:
                func = namespace[node.name]
                func.source = text
                func._pc_defaults = defaults[node.name]
                funcs.append(func)
            elif isinstance(node, ast.ClassDef):
                cls = namespace[node.name]
                for item in node.body:
                    raw = vars(cls).get(getattr(item, "name", None))
                    if isinstance(raw, types.FunctionType):
                        raw.source = ast.unparse(item)
                        raw._pc_defaults = methods[(node.name, item.name)]
                if funcs:
                    parts.append(self._translate(funcs))
                    funcs = []
                parts.append(self._translate_class(cls, ignore_methods,
                                                   line=node.lineno))
        if funcs:
            parts.append(self._translate(funcs))
        return "\n".join(parts)

    # -- pcompute's pipeline ----------------------------------------------
    def _translate(self, funcs, method_names=None, methods=None):
        programs = []
        for func in funcs:
            func, arg_types = prepare(func, self._known_types, self._detect_type)
            program = type_kernel(func, arg_types, use_double=self._use_double,
                                  demote_double=False,
                                  single_literals=self.on_device and not self._use_double,
                                  method_names=method_names, methods=methods)
            programs.append((program, None))
        runtime, text, printer = print_programs(programs, self.dialect, structs=False)
        return self._assemble(runtime, text, printer)

    def _translate_class(self, obj, ignore_methods, line=None):
        """The methods of the class of ``obj`` (an instance or a class)."""
        cls = obj if isinstance(obj, type) else type(obj)
        try:
            info = struct_info(obj)
        except KernelTypeError as exc:
            if line is None:
                raise
            # a class of a text has no file: name its line there
            raise KernelTypeError("line %d: %s" % (line, exc.message), hint=exc.hint)
        space = "global" if self.on_device else ""
        methods, names = {}, {}
        for name, func in _class_methods(cls, ignore_methods):
            copy = method_copy(func, info, space, self._known_types, self._detect_type)
            methods[(info.name, name)] = copy
            names[copy] = "%s_%s" % (info.name, name)
        if not methods:
            return ""
        programs = []
        for copy in methods.values():
            program = type_kernel(copy, {}, use_double=self._use_double,
                                  demote_double=False,
                                  single_literals=self.on_device and not self._use_double,
                                  method_names=names, methods=methods)
            programs.append((program, None))
        # the struct comes from parse_instance (CStructHelper's text)
        runtime, text, printer = print_programs(programs, self.dialect, structs=False)
        return self._assemble(runtime, text, printer)

    def _assemble(self, runtime, text, printer):
        parts = [runtime, text]
        return "\n\n".join(p.strip("\n") for p in parts if p.strip()) + "\n"

    def _with_struct(self, struct, methods):
        return struct + "\n" + methods


class OpenCLConverter(CConverter):
    """Translate Python functions to OpenCL C (Compyle's ``OpenCLConverter``)."""

    dialect = "opencl"
    on_device = True

    def _assemble(self, runtime, text, printer):
        code = CConverter._assemble(self, runtime, text, printer)
        if "double" in code:
            code = _FP64 + code
        return code

    def _with_struct(self, struct, methods):
        # the pragma first: the struct may hold doubles
        if methods.startswith(_FP64):
            methods = methods[len(_FP64):]
        elif "double" not in struct:
            return struct + "\n" + methods
        return _FP64 + struct + "\n" + methods


_FP64 = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"


class CUDAConverter(CConverter):
    """Translate Python functions to CUDA C (Compyle's ``CUDAConverter``)."""

    dialect = "cuda"
    on_device = True
