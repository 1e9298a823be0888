"""Identifier rules: names the generated code reserves, and how user
names that collide with them are printed."""

from .callgraph import MATH_FUNCS

# Work-item names of low-level kernels (OpenCL/CUDA only): LID_0, GID_1, ...
WORK_ITEM_NAMES = frozenset("%s_%d" % (kind, d) for kind in ("LID", "GID", "LDIM", "GDIM")
                            for d in range(3))


# Names the generated code may not use for user identifiers (C, OpenCL, CUDA,
# Cython keywords and library names); such user names get a 'pc_u_' prefix.
RESERVED = frozenset("""
auto break case char const continue default do double else enum extern float for
goto if inline int long register restrict return short signed sizeof static struct
switch typedef union unsigned void volatile while bool kernel global local constant
private __kernel __global __local __constant __private read_only write_only half
float2 float4 double2 double4 int2 int4 uint uchar ushort ulong size_t ptrdiff_t
cdef cpdef cimport ctypedef nogil gil noexcept include DEF IF ELIF ELSE NULL
new delete this class template typename namespace using operator friend virtual
printf abs fabs min max sin cos tan asin acos atan atan2 sinh cosh tanh exp log
log10 log2 log1p expm1 sqrt pow floor ceil trunc fmod hypot copysign erf erfc
isnan isinf INFINITY NAN M_PI memset malloc free main get_global_id barrier
threadIdx blockIdx blockDim gridDim warpSize __syncthreads atomicAdd atomic_inc
atomic_dec atomic_add prange parallel range object True False None and or not is
in lambda def pass print exec assert del except finally raise try with yield
async await nonlocal from import as elif
""".split())


def _words(text):
    return set(text.split())


# More names no user identifier may be printed as: C++ (CUDA) keywords and
# alternative operator tokens, OpenCL C and CUDA types (vector types too),
# macros of the C headers and OpenCL, Cython keywords and type names, the
# names the generated modules define (Cython's ``run``), and the C math names
# with the float suffix (CUDA and Cython call sinf, powf, ... in user code).
_KEYWORDS_TYPES_MACROS = _words("""
_Bool _Complex _Imaginary _Noreturn _Static_assert _Thread_local _Alignas _Alignof
true false asm nullptr public protected export mutable explicit typeid throw catch
constexpr consteval constinit decltype alignas alignof static_assert thread_local
char8_t char16_t char32_t wchar_t static_cast const_cast reinterpret_cast
dynamic_cast concept requires co_await co_return co_yield
bitand bitor compl and_eq or_eq xor xor_eq not_eq
__device__ __host__ __global__ __shared__ __constant__ __managed__
__attribute__ read_write uniform pipe image1d_t image2d_t image3d_t sampler_t
event_t quad complex imaginary vec_step dim3 cudaError_t
cython run bint Py_ssize_t ssize_t Py_hash_t Py_UCS4 Py_UNICODE object list dict
tuple str bytes unicode type readonly api fused packed cppclass by
errno EOF BUFSIZ RAND_MAX EXIT_SUCCESS EXIT_FAILURE HUGE_VAL HUGE_VALF MAXFLOAT
CHAR_BIT CHAR_MAX CHAR_MIN SCHAR_MAX SCHAR_MIN UCHAR_MAX SHRT_MAX SHRT_MIN
USHRT_MAX INT_MAX INT_MIN UINT_MAX LONG_MAX LONG_MIN ULONG_MAX LLONG_MAX LLONG_MIN
FLT_MAX FLT_MIN FLT_EPSILON FLT_DIG DBL_MAX DBL_MIN DBL_EPSILON DBL_DIG
M_E M_LOG2E M_LOG10E M_LN2 M_LN10 M_PI_2 M_PI_4 M_1_PI M_2_PI M_2_SQRTPI
M_SQRT2 M_SQRT1_2 CLK_LOCAL_MEM_FENCE CLK_GLOBAL_MEM_FENCE
""")
for _base in ("char", "uchar", "short", "ushort", "int", "uint", "long", "ulong",
              "float", "double", "half", "bool", "longlong", "ulonglong"):
    _KEYWORDS_TYPES_MACROS.update("%s%d" % (_base, _n) for _n in (1, 2, 3, 4, 8, 16))
_KEYWORDS_TYPES_MACROS.update(_f + "f" for _f in MATH_FUNCS)

RESERVED = RESERVED | frozenset(_KEYWORDS_TYPES_MACROS)

# Built-in and library functions of OpenCL C and CUDA that generated code does
# not call: a user *function* with one of these names clashes with it (OpenCL C
# cannot overload them), so functions are renamed; locals may keep the name.
_LIBRARY_FUNCTIONS = _words("""
acospi asinpi atanpi atan2pi cospi sinpi tanpi cbrt exp2 exp10 fdim fma fmax fmin
fract frexp ilogb ldexp lgamma lgamma_r logb mad maxmag minmag modf nan nextafter
pown powr remainder remquo rint rootn round rsqrt sincos tgamma nearbyint lrint
llrint lround llround scalbn scalbln signbit isfinite isnormal isordered
isunordered isequal isnotequal isgreater isgreaterequal isless islessequal
islessgreater any all bitselect select shuffle shuffle2
abs_diff add_sat hadd rhadd clamp clz ctz mad_hi mad_sat mul_hi rotate sub_sat
upsample popcount mad24 mul24 degrees radians mix step smoothstep sign
cross dot distance length normalize fast_distance fast_length fast_normalize
mem_fence read_mem_fence write_mem_fence async_work_group_copy
async_work_group_strided_copy wait_group_events prefetch get_work_dim
get_global_size get_local_size get_local_id get_num_groups get_group_id
get_global_offset vload_half vstore_half vloada_half vstorea_half
rcbrt sincospi normcdf normcdfinv erfinv erfcinv norm norm3d norm4d rnorm rnorm3d
rnorm4d rhypot j0 j1 jn y0 y1 yn cyl_bessel_i0 cyl_bessel_i1 labs llabs
atomicSub atomicExch atomicMin atomicMax atomicInc atomicDec atomicCAS atomicAnd
atomicOr atomicXor clock clock64 memcpy memmove calloc realloc div ldiv lldiv
make_float2 make_float3 make_float4 make_int2 make_int3 make_int4 make_double2
make_double3 make_double4
""")
for _op in ("add", "sub", "xchg", "inc", "dec", "cmpxchg", "min", "max", "and", "or",
            "xor"):
    _LIBRARY_FUNCTIONS.update(("atomic_" + _op, "atom_" + _op))
for _fn in ("cos", "divide", "exp", "exp2", "exp10", "log", "log2", "log10", "powr",
            "recip", "rsqrt", "sin", "sqrt", "tan"):
    _LIBRARY_FUNCTIONS.update(("half_" + _fn, "native_" + _fn))
for _base in ("char", "uchar", "short", "ushort", "int", "uint", "long", "ulong",
              "float", "double", "half"):
    _LIBRARY_FUNCTIONS.update(("convert_" + _base, "as_" + _base))
for _n in (2, 3, 4, 8, 16):
    _LIBRARY_FUNCTIONS.update(("vload%d" % _n, "vstore%d" % _n, "vload_half%d" % _n,
                               "vstore_half%d" % _n))
_LIBRARY_FUNCTIONS.update(_f + _s for _f in _words("""
fabs fmin fmax fma cbrt exp2 round rint lgamma tgamma ldexp frexp modf rsqrt
nearbyint remainder fdim logb sincos sinpi cospi exp10 nan norm
""") | set(MATH_FUNCS) for _s in ("f", "l"))
RESERVED_FUNCTIONS = RESERVED | frozenset(_LIBRARY_FUNCTIONS)
del _base, _n, _op, _fn


def _printed_name(name, reserved=RESERVED):
    return "pc_u_" + name if name in reserved else name
