<%page args="dialect, double=False"/>\
// The device dialect in macros (one text for OpenCL C and CUDA C): kernels,
// helper functions, memory spaces, barriers, work-item ids (as pc_idx, which
// the including template defines) and fixed-width integer names.
%if dialect == "cuda":
#define PC_KERNEL extern "C" __global__ void
#define PC_GROUP_KERNEL extern "C" __global__ void __launch_bounds__(PC_WG)
#define PC_INLINE static __device__ inline
#define PC_GLOBAL
#define PC_LOCAL(type, name, size) __shared__ type name[size]
#define PC_BARRIER() __syncthreads()
#define PC_LID ((pc_idx)threadIdx.x)
#define PC_GID ((pc_idx)blockIdx.x)
#define PC_NGROUPS ((pc_idx)gridDim.x)
#define PC_GLOBAL_ID ((pc_idx)blockIdx.x * blockDim.x + threadIdx.x)
#define PC_GLOBAL_SIZE ((pc_idx)gridDim.x * blockDim.x)
typedef unsigned char pc_u8;
typedef unsigned short pc_u16;
typedef int pc_i32;
typedef unsigned int pc_u32;
typedef long long pc_i64;
typedef unsigned long long pc_u64;
%else:
%if double:
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
%endif
#define PC_KERNEL __kernel void
#define PC_GROUP_KERNEL __kernel __attribute__((reqd_work_group_size(PC_WG, 1, 1))) void
#define PC_INLINE inline
#define PC_GLOBAL __global
#define PC_LOCAL(type, name, size) __local type name[size]
#define PC_BARRIER() barrier(CLK_LOCAL_MEM_FENCE)
#define PC_LID ((pc_idx)get_local_id(0))
#define PC_GID ((pc_idx)get_group_id(0))
#define PC_NGROUPS ((pc_idx)get_num_groups(0))
#define PC_GLOBAL_ID ((pc_idx)get_global_id(0))
#define PC_GLOBAL_SIZE ((pc_idx)get_global_size(0))
typedef uchar pc_u8;
typedef ushort pc_u16;
typedef int pc_i32;
typedef uint pc_u32;
typedef long pc_i64;
typedef ulong pc_u64;
%endif
