"""CUDA C printer."""
from .cfamily import CPrinter
from .runtime import helper_name


class CUDAPrinter(CPrinter):
    """Prints typed functions as CUDA C device functions."""

    dialect = "cuda"
    helper_qualifier = "static __device__ inline"
    function_qualifier = "__device__"

    def local_array_prefix(self, space):
        return "__shared__ " if space == "local" else ""

    def atomic_helper(self, kind, base):
        T = self.type_name_of(base)
        call = "atomicAdd(p, 1)" if kind == "atomic_inc" else "atomicSub(p, 1)"
        if base in ("long", "ulong"):
            delta = "1ULL" if kind == "atomic_inc" else "(unsigned long long)-1LL"
            call = "atomicAdd((unsigned long long *)p, %s)" % delta
        return ("%s %s %s(%s *p)\n{\n    return (%s)%s;\n}"
                % (self.helper_qualifier, T, helper_name(kind, base), T, T, call))

    def atomic_max_helper(self, base):
        T = self.type_name_of(base)
        cast = {"int": "int", "uint": "unsigned int", "long": "long long",
                "ulong": "unsigned long long"}[base]
        return ("%s %s %s(%s *p, %s v)\n{\n    __threadfence();\n"
                "    %s old = (%s)atomicMax((%s *)p, (%s)v);\n    __threadfence();\n"
                "    return old;\n}"
                % (self.helper_qualifier, T, helper_name("atomic_max", base), T, T, T, T,
                   cast, cast))
