"""OpenCL C printer."""
import ast

from ..errors import InternalError, KernelSyntaxError
from .cfamily import CPrinter
from .runtime import helper_name

OPENCL_TYPES = {"bool": "int", "char": "char", "uchar": "uchar", "short": "short",
                "ushort": "ushort", "int": "int", "uint": "uint", "long": "long",
                "ulong": "ulong", "float": "float", "double": "double", "void": "void"}

FP64_PRAGMA = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable"


class OpenCLPrinter(CPrinter):
    """Prints typed functions as OpenCL C (math names are overloaded)."""

    dialect = "opencl"
    type_names = OPENCL_TYPES
    helper_qualifier = "inline"
    function_qualifier = ""
    long_suffix = "L"
    device_macros = (
        ("PC_KERNEL", "__kernel void"),
        ("PC_GROUP_KERNEL", "__kernel __attribute__((reqd_work_group_size(PC_WG, 1, 1))) void"),
        ("PC_INLINE", helper_qualifier),
        ("PC_GLOBAL", "__global"),
        ("PC_LOCAL(type, name, size)", "__local type name[size]"),
        ("PC_BARRIER()", "barrier(CLK_LOCAL_MEM_FENCE)"),
        ("PC_LID", "((pc_idx)get_local_id(0))"),
        ("PC_GID", "((pc_idx)get_group_id(0))"),
        ("PC_NGROUPS", "((pc_idx)get_num_groups(0))"),
        ("PC_GLOBAL_ID", "((pc_idx)get_global_id(0))"),
        ("PC_GLOBAL_SIZE", "((pc_idx)get_global_size(0))"))
    device_typedefs = (("uchar", "pc_u8"), ("ushort", "pc_u16"), ("int", "pc_i32"),
                       ("uint", "pc_u32"), ("long", "pc_i64"), ("ulong", "pc_u64"))

    @classmethod
    def device_extensions(cls, double):
        return (FP64_PRAGMA,) if double else ()

    def space_prefix(self, space):
        return {"global": "__global ", "local": "__local "}.get(space, "")

    def local_array_prefix(self, space):
        return "__local " if space == "local" else ""

    param_array_prefix = local_array_prefix

    def c_math_name(self, name, base):
        return "fabs" if name == "abs" else name

    def atomic_text(self, kind, t, pointer):
        if t.base not in ("int", "uint"):
            raise self.fn.src.error(
                KernelSyntaxError, self.fn.tree,
                "OpenCL atomics work on int and uint arrays, not %s" % t.base,
                "count in an int32 or uint32 array")
        return "%s(%s)" % (kind, pointer), self.prec["atom"]

    def call_atomic_max(self, node):
        array = node.args[0].value
        space = self.fn.types.get(id(array))
        if space is not None and space.space == "local":
            raise self.fn.src.error(
                KernelSyntaxError, node, "atomic_max() works on global arrays on OpenCL",
                "pass the array as a kernel argument")
        return CPrinter.call_atomic_max(self, node)

    def call_prefetch(self, node):
        # OpenCL's prefetch() takes global memory only: nothing for local arrays
        space = self.fn.types.get(id(node.args[0].value))
        if space is not None and space.space == "local":
            return "(void)0", self.prec["atom"]
        return CPrinter.call_prefetch(self, node)

    def prefetch_helper(self, base):
        T = self.type_name_of(base)
        return ("%s void %s(const __global %s *p)\n{\n    prefetch(p, 1);\n}"
                % (self.helper_qualifier, helper_name("prefetch", base), T))

    def atomic_max_text(self, t, pointer, value):
        if t.base not in ("int", "uint"):
            raise self.fn.src.error(
                KernelSyntaxError, self.fn.tree,
                "OpenCL atomics work on int and uint arrays, not %s" % t.base,
                "keep the values in an int32 or uint32 array")
        return CPrinter.atomic_max_text(self, t, pointer, value)

    def atomic_max_helper(self, base):
        T = self.type_name_of(base)
        return ("%s %s %s(volatile __global %s *p, %s v)\n{\n"
                "    mem_fence(CLK_GLOBAL_MEM_FENCE);\n    %s old = atomic_max(p, v);\n"
                "    mem_fence(CLK_GLOBAL_MEM_FENCE);\n    return old;\n}"
                % (self.helper_qualifier, T, helper_name("atomic_max", base), T, T, T))

    def module_prelude(self, runtime, functions):
        if "double" in functions + runtime:
            return [FP64_PRAGMA + "\n"]
        return []

    def print_program(self):
        self.check_recursion()
        return CPrinter.print_program(self)

    def check_recursion(self):
        if self.program.recursive:
            cycle = self.recursion_cycle()
            fn, callee = cycle[0], cycle[1]
            call = next(n for n in ast.walk(fn.tree) if isinstance(n, ast.Call)
                        and fn.calls.get(id(n)) in (("helper", callee.c_name),
                                                ("method", callee.c_name)))
            if len(cycle) == 2:
                what = "%s calls itself" % fn.name
            else:
                what = ", which calls ".join(f.name for f in cycle)
                what = what.replace(", which calls ", " calls ", 1)
            raise fn.src.error(KernelSyntaxError, call,
                               "recursion is not supported on OpenCL (%s)" % what,
                               "rewrite it as a loop, or use the cython or cuda backend")

    def recursion_cycle(self):
        """The functions of one call cycle, the first repeated at the end."""
        by_name = {f.c_name: f for f in self.program.functions}
        for start in sorted(self.program.recursive):
            paths = [[by_name[start]]]
            seen = set()
            while paths:
                path = paths.pop(0)
                for callee in path[-1].callees:
                    if callee == start:
                        return path + [by_name[start]]
                    if callee not in seen and callee in by_name:
                        seen.add(callee)
                        paths.append(path + [by_name[callee]])
        raise InternalError("no call cycle found among %s"
                            % ", ".join(sorted(self.program.recursive)))
