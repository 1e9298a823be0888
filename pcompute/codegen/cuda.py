"""CUDA C printer."""
from .cfamily import CPrinter
from .runtime import helper_name


class CUDAPrinter(CPrinter):
    """Prints typed functions as CUDA C device functions."""

    dialect = "cuda"
    helper_qualifier = "static __device__ inline"
    function_qualifier = "__device__"
    device_macros = (
        ("PC_KERNEL", 'extern "C" __global__ void'),
        ("PC_GROUP_KERNEL", 'extern "C" __global__ void __launch_bounds__(PC_WG)'),
        ("PC_INLINE", helper_qualifier),
        ("PC_GLOBAL", ""),
        ("PC_LOCAL(type, name, size)", "__shared__ type name[size]"),
        ("PC_BARRIER()", "__syncthreads()"),
        ("PC_LID", "((pc_idx)threadIdx.x)"),
        ("PC_GID", "((pc_idx)blockIdx.x)"),
        ("PC_NGROUPS", "((pc_idx)gridDim.x)"),
        ("PC_GLOBAL_ID", "((pc_idx)blockIdx.x * blockDim.x + threadIdx.x)"),
        ("PC_GLOBAL_SIZE", "((pc_idx)gridDim.x * blockDim.x)"))
    device_typedefs = (("unsigned char", "pc_u8"), ("unsigned short", "pc_u16"),
                       ("int", "pc_i32"), ("unsigned int", "pc_u32"),
                       ("long long", "pc_i64"), ("unsigned long long", "pc_u64"))

    def local_array_prefix(self, space):
        return "__shared__ " if space == "local" else ""

    def prefetch_helper(self, base):
        # CUDA has no prefetch to global memory worth a hint: nothing
        T = self.type_name_of(base)
        return ("%s void %s(const %s *p)\n{\n    (void)p;\n}"
                % (self.helper_qualifier, helper_name("prefetch", base), T))

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
