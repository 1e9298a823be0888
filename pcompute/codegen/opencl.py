"""OpenCL C printer."""
import ast

from ..errors import KernelSyntaxError
from .cfamily import CPrinter

OPENCL_TYPES = {"bool": "int", "char": "char", "uchar": "uchar", "short": "short",
                "ushort": "ushort", "int": "int", "uint": "uint", "long": "long",
                "ulong": "ulong", "float": "float", "double": "double", "void": "void"}


class OpenCLPrinter(CPrinter):
    """Prints typed functions as OpenCL C (math names are overloaded)."""

    dialect = "opencl"
    type_names = OPENCL_TYPES
    helper_qualifier = "inline"
    function_qualifier = ""
    long_suffix = "L"

    def space_prefix(self, space):
        return {"global": "__global ", "local": "__local "}.get(space, "")

    def local_array_prefix(self, space):
        return "__local " if space == "local" else ""

    def c_math_name(self, name, base):
        return "fabs" if name == "abs" else name

    def atomic_text(self, kind, t, pointer):
        if t.base not in ("int", "uint"):
            raise self.fn.src.error(
                KernelSyntaxError, self.fn.tree,
                "OpenCL atomics work on int and uint arrays, not %s" % t.base,
                "count in an int32 or uint32 array")
        return "%s(%s)" % (kind, pointer), self.prec["atom"]

    def print_program(self):
        if self.program.recursive:
            name = sorted(self.program.recursive)[0]
            fn = next(f for f in self.program.functions if f.c_name == name)
            call = next(n for n in ast.walk(fn.tree) if isinstance(n, ast.Call)
                        and fn.calls.get(id(n), (None, None))[1] in self.program.recursive)
            raise fn.src.error(KernelSyntaxError, call,
                               "recursion is not supported on OpenCL (%s calls itself)"
                               % fn.name,
                               "rewrite it as a loop, or use the cython or cuda backend")
        return CPrinter.print_program(self)
