"""Math calls that let a loop vectorise and keep the scalar functions' results.

GCC vectorises no loop that calls ``exp``, ``log``, ``sin``, ...: the C
library's functions take one value, and only ``-ffast-math`` makes glibc
declare its vector versions (libmvec, whose results differ by a few ulp:
the ``vector_math`` build option).  A Cython kernel built for the host CPU
(the ``host_cpu`` build option) calls these functions through wrappers
declared ``__attribute__((simd("notinbranch"), const))``, and the module
defines the wrappers' vector versions itself (the names of the x86-64
vector function ABI, ``_ZGVdN4v_<name>``: SSE, AVX, AVX2 and AVX-512 forms),
each calling the scalar C library function once per lane.  GCC then
vectorises the loop around the calls: the arithmetic, divisions and square
roots between them run on all lanes at once.  This is what Numba does (LLVM
keeps the scalar math calls of a vector loop, one per lane).  Every lane
calls the same C library function a scalar loop calls, with the same
argument, so results are bit-identical to the scalar build.

The vector versions are written here rather than left to GCC's own
``simd`` clones, whose code stores the four results one by one and reloads
them as a vector (a failed store-to-load forwarding: a stall per call that
costs more than the vectorised arithmetic saves).  Here each result is kept
as a scalar (in a register the C library's function preserves, or a stack
slot) and the vector is built once, after the last call.  Inserting each
result into a vector that is spilled and reloaded across the next call
instead cost 9 % more CPU time in the black-scholes loop (3 exp and 1 log per
item: 27.9 vs 25.5 ms for 2^20 items, one thread, best of 30, AMD EPYC with
GCC 12; a C copy of the generated loop).

Other compilers (clang, MSVC) or machines get plain inline wrappers: the
code is the one without them.

A 1-D kernel whose item is straight-line code calls no wrapper: it runs its
items in blocks, phase by phase, calling the scalar functions in loops of
their own (:mod:`.blockmath`, 0.84x the wrapper loop's CPU time on
black-scholes).  The wrappers serve the items with branches or loops, and
the 2-D and 3-D kernels.
"""

#: The math functions (kernel-language names) called through a lane wrapper,
#: with their number of arguments: those the C library computes in a
#: function call.  ``sqrt``, ``fabs``, ``floor``, ``ceil``, ``trunc`` and
#: ``copysign`` are single instructions and vectorise without help.
LANE_FUNCS = dict.fromkeys((
    "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh",
    "acosh", "atanh", "exp", "expm1", "log", "log10", "log1p", "log2", "erf", "erfc"), 1)
LANE_FUNCS.update(dict.fromkeys(("atan2", "pow", "fmod", "hypot"), 2))

#: The x86-64 vector function ABI's forms: (ISA letter, vector bytes, the
#: target attribute enabling it, or '' for SSE2, which every x86-64 has).
VARIANTS = (("b", 16, ""), ("c", 32, "avx"), ("d", 32, "avx2"), ("e", 64, "avx512f"))

_SIZES = {"double": 8, "float": 4}

_PRELUDE = """#include <math.h>
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define PC_LANES 1
#define PC_HIDDEN __attribute__((visibility("hidden")))
%s
#endif"""


def lane_name(cname):
    """The wrapper's name of C math function ``cname`` (``exp``, ``expf``)."""
    return "pc_lane_" + cname


def _vector_type(ctype, nbytes):
    return "pc_lane_%s%d" % (ctype[0], nbytes // _SIZES[ctype])


def _typedefs():
    return "\n".join("typedef %s %s __attribute__((vector_size(%d)));" % (
        ctype, _vector_type(ctype, nbytes), nbytes)
        for ctype in ("double", "float") for nbytes in (16, 32, 64))


def _wrapper(cname, ctype, arity):
    name = lane_name(cname)
    label = name + "_s"            # the assembler name: the vector forms derive from it
    params = ", ".join("%s %s" % (ctype, v) for v in "ab"[:arity])
    args = ", ".join("ab"[:arity])
    out = ["#ifdef PC_LANES",
           "__attribute__((simd(\"notinbranch\"), const, nothrow)) PC_HIDDEN %s %s(%s) "
           "__asm__(\"%s\");" % (ctype, name, ", ".join([ctype] * arity), label),
           "PC_HIDDEN %s %s_scalar(%s) __asm__(\"%s\");" % (ctype, name, params, label),
           "%s %s_scalar(%s) { return %s(%s); }" % (ctype, name, params, cname, args)]
    for isa, nbytes, target in VARIANTS:
        lanes, vtype = nbytes // _SIZES[ctype], _vector_type(ctype, nbytes)
        attr = "PC_HIDDEN" + (" __attribute__((target(\"%s\")))" % target if target else "")
        vparams = ", ".join("%s %s" % (vtype, v) for v in "ab"[:arity])
        body = " ".join("%s r%d = %s(%s);" % (ctype, k, cname, ", ".join(
            "%s[%d]" % (v, k) for v in "ab"[:arity])) for k in range(lanes))
        result = ", ".join("r%d" % k for k in range(lanes))
        out.append("%s %s _ZGV%sN%d%s_%s(%s) { %s return (%s){%s}; }" % (
            attr, vtype, isa, lanes, "v" * arity, label, vparams, body, vtype, result))
    out += ["#else",
            "static inline %s %s(%s) { return %s(%s); }" % (ctype, name, params, cname, args),
            "#endif"]
    return "\n".join(out)


def lane_source(lanes):
    """The C text of the wrappers ``lanes``: ``(cname, C type, arity)`` each."""
    return "\n".join([_PRELUDE % _typedefs()] + [_wrapper(*lane) for lane in sorted(lanes)])


def lane_declarations(lanes):
    """The Cython declarations of the wrappers ``lanes`` (see :func:`lane_source`)."""
    return ["%s %s(%s) nogil" % (ctype, lane_name(cname), ", ".join([ctype] * arity))
            for cname, ctype, arity in sorted(lanes)]
