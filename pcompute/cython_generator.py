"""Compyle's ``CythonGenerator`` over pcompute's pipeline.

::

    from pcompute.cython_generator import CythonGenerator

    cg = CythonGenerator(python_methods=True)
    cg.parse(my_function)
    pyx_text = cg.get_code()

``parse`` appends the Cython code of a function (a ``cdef inline ...
noexcept nogil`` function, with the helpers it calls and the C runtime
support it needs) to the generator's code; ``get_code`` returns all of it.
With ``python_methods=True`` each parsed function also gets a ``cpdef``
wrapper ``py_<name>`` callable from Python (pointer arguments become typed
memoryviews).  Argument types follow :mod:`pcompute.translator`: annotations,
then ``known_types``, then default values through :meth:`detect_type`.
The module text starts with the ``cimport`` lines it needs; compile it with
Cython as a module of its own.
"""
import types

from .codegen import print_programs
from .config import get_config
from .errors import KernelTypeError
from .frontend import type_kernel
from .translator import (CodeGenerationError, KnownType, Undefined, all_numeric,
                         detect_type, prepare)

__all__ = ["CythonGenerator", "CodeGenerationError", "KnownType", "Undefined",
           "all_numeric"]

_HEADER = ("# cython: language_level=3, boundscheck=False, wraparound=False, "
           "cdivision=True")


class CythonGenerator:
    """Generate Cython code from Python functions (Compyle's ``CythonGenerator``)."""

    def __init__(self, known_types=None, python_methods=False):
        self.code = ""
        self.python_methods = python_methods
        self.known_types = dict(known_types) if known_types is not None else {}
        self._config = get_config()
        self._programs = []
        self._wrappers = []

    def add_known(self, names):
        """For the translator's interface; nothing to do for Cython."""

    def ctype_to_python(self, type_str):
        """A Python-friendly (memoryview) spelling of a C type."""
        return type_str.replace("*", "[:]")

    def detect_type(self, name, value):
        """The C type of an unannotated argument from its default ``value``
        (Compyle's rules, without OpenCL address spaces)."""
        if isinstance(value, KnownType):
            return value.type.replace("GLOBAL_MEM ", "").replace("LOCAL_MEM ", "")
        return detect_type(name, value)

    def get_code(self):
        """The Cython module text of everything parsed so far."""
        return self.code

    def set_make_python_methods(self, value):
        """Turn the ``py_<name>`` wrappers on or off for later ``parse`` calls."""
        self.python_methods = value

    def parse(self, obj, declarations=None, is_serial=False):
        """Add the code of the function ``obj``.

        ``declarations`` (Compyle's extra local declarations) is not needed:
        pcompute infers the types of locals.  ``is_serial`` is accepted for
        Compyle's interface; the generated code does not depend on it
        (atomics are atomic in serial code as well).
        """
        if not isinstance(obj, types.FunctionType):
            raise KernelTypeError(
                "CythonGenerator can translate functions, not %s (Compyle's wrapping "
                "of classes is not supported)" % type(obj).__name__,
                hint="write the methods as functions taking the fields as arguments")
        func, arg_types = prepare(obj, self.known_types, self.detect_type)
        program = type_kernel(func, arg_types, use_double=True, demote_double=False)
        self._programs.append((program, None))
        if self.python_methods:
            self._wrappers.append(self._wrapper(program.entry))
        self.code = self._module()

    def get_func_signature(self, func):
        """((Python argument declarations, Python call arguments),
        (C argument declarations, C call arguments)) of ``func``, as in Compyle."""
        program = type_kernel(*prepare(func, self.known_types, self.detect_type))
        printer = print_programs([(program, None)], "cython")[2]
        py_args, py_call, c_args, c_call = [], [], [], []
        for name, t in program.entry.args:
            c_type = printer.type_name(t)
            c_args.append("%s %s" % (c_type, name))
            c_call.append(name)
            py_args.append("%s %s" % (self.ctype_to_python(c_type), name))
            py_call.append("&%s[0]" % name if t.pointer else name)
        return (py_args, py_call), (c_args, c_call)

    # -- private ------------------------------------------------------------
    def _wrapper(self, fn):
        printer = print_programs([(self._programs[-1][0], None)], "cython")[2]
        args, call = [], []
        for name, t in fn.args:
            c_type = printer.type_name(t)
            if t.pointer:
                args.append("%s %s" % (self.ctype_to_python(c_type), name))
                call.append("&%s[0]" % name)
            else:
                args.append("%s %s" % (c_type, name))
                call.append(name)
        ret = "" if fn.ret.is_void else printer.type_name(fn.ret) + " "
        return "cpdef %spy_%s(%s):\n    %s%s(%s)" % (
            ret, fn.c_name, ", ".join(args), "" if fn.ret.is_void else "return ",
            fn.c_name, ", ".join(call))

    def _module(self):
        runtime, text, printer = print_programs(self._programs, "cython")
        parts = [_HEADER, "\n".join(printer.cimports()), runtime, text] + self._wrappers
        return "\n\n\n".join(p.strip("\n") for p in parts if p.strip()) + "\n"
