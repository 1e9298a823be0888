"""Printing low-level kernels (``pcompute.low_level.Kernel``): the entry
becomes an OpenCL ``__kernel`` or a CUDA ``__global__`` function, and the
work-item names are macros with Compyle's (and PyOpenCL CLUDA's) meaning:
``LID_k`` the index in the work-group, ``GID_k`` the work-group's index,
``LDIM_k`` the work-group size and ``GDIM_k`` the number of work-groups, so
the global index is ``GID_0 * LDIM_0 + LID_0``."""
from ..templates import render
from .cuda import CUDAPrinter
from .opencl import OpenCLPrinter


class OpenCLKernelPrinter(OpenCLPrinter):
    """The entry becomes a __kernel function."""

    #: the work-item names as macros
    work_item_macros = """#define LID_0 get_local_id(0)
#define LID_1 get_local_id(1)
#define LID_2 get_local_id(2)
#define GID_0 get_group_id(0)
#define GID_1 get_group_id(1)
#define GID_2 get_group_id(2)
#define LDIM_0 get_local_size(0)
#define LDIM_1 get_local_size(1)
#define LDIM_2 get_local_size(2)
#define GDIM_0 get_num_groups(0)
#define GDIM_1 get_num_groups(1)
#define GDIM_2 get_num_groups(2)
#define local_barrier() barrier(CLK_LOCAL_MEM_FENCE)"""

    def function_prefix(self, fn):
        return "__kernel" if fn is self.program.entry else OpenCLPrinter.function_prefix(
            self, fn)


class CUDAKernelPrinter(CUDAPrinter):
    """The entry becomes a __global__ function; local pointers come from the
    dynamic shared-memory buffer at byte offsets passed as arguments."""

    work_item_macros = """#define LID_0 threadIdx.x
#define LID_1 threadIdx.y
#define LID_2 threadIdx.z
#define GID_0 blockIdx.x
#define GID_1 blockIdx.y
#define GID_2 blockIdx.z
#define LDIM_0 blockDim.x
#define LDIM_1 blockDim.y
#define LDIM_2 blockDim.z
#define GDIM_0 gridDim.x
#define GDIM_1 gridDim.y
#define GDIM_2 gridDim.z
#define local_barrier() __syncthreads()"""

    def function_prefix(self, fn):
        if fn is self.program.entry:
            return 'extern "C" __global__'
        return CUDAPrinter.function_prefix(self, fn)

    def signature(self, fn):
        if fn is not self.program.entry:
            return CUDAPrinter.signature(self, fn)
        params = []
        for n, t in fn.args:
            if t.is_pointer and t.space == "local":
                params.append("long long pc_lm_%s" % n)
            else:
                params.append("%s %s" % (self.type_name(t), fn.cname(n)))
        return "void %s(%s)" % (fn.c_name, ", ".join(params) or "void")

    def declarations(self, fn):
        out = CUDAPrinter.declarations(self, fn)
        if fn is not self.program.entry:
            return out
        local = [(n, t) for n, t in fn.args if t.is_pointer and t.space == "local"]
        if local:
            out.insert(0, "extern __shared__ char pc_shared[];")
            for n, t in local:
                out.insert(1, "%s* %s = (%s*)(pc_shared + pc_lm_%s);"
                           % (self.type_name_of(t.base), fn.cname(n),
                              self.type_name_of(t.base), n))
        return out


KERNEL_PRINTERS = {cls.dialect: cls
                   for cls in (OpenCLKernelPrinter, CUDAKernelPrinter)}


def kernel_source(program, dialect, name):
    """The complete source of low-level kernel ``program`` in ``dialect``
    (template ``kernel_<dialect>``)."""
    printer = KERNEL_PRINTERS[dialect](program)
    runtime, functions = printer.print_program()
    double = any("double" in text for text in (runtime, functions))
    return render("kernel_" + printer.dialect, name=name, double=double,
                  macros=printer.work_item_macros, runtime=runtime, functions=functions)
