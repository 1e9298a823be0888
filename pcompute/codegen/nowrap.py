"""glibc's ``exp`` and ``log`` without their ``errno`` wrappers.

glibc's ``exp`` and ``log`` (``exp@@GLIBC_2.29``, ``w_exp_template.c``) are
wrappers: each calls the function itself (``__ieee754_exp``, the FMA variant
on CPUs that have FMA) and then tests the result to set ``errno`` on
overflow, underflow or a domain error.  Kernels never read ``errno``, yet the
wrapper costs about as much again as the function: in black-scholes (3
``exp`` and 1 ``log`` per item) the ``exp`` wrapper alone was 19.5 % of the
kernel's instructions (callgrind, 2^18 items, one thread), and a loop of
2^20 ``exp`` calls took 9.4 ms through the wrapper and 4.7 ms (median of 21
alternated rounds; best 6.0 / 4.0 ms) calling the function itself, results
bit for bit equal (AMD EPYC 2-core VM, load ~7, GCC 12, glibc 2.36).

glibc keeps the wrapper-less functions under their old names
``__exp_finite`` and ``__log_finite`` (versioned symbols GLIBC_2.15, kept for
binaries linked before glibc 2.31; the same functions as the wrapper calls).
A module that calls :data:`UNWRAPPED` functions gets a pointer per function,
initialised to the C library's ``exp`` and set, when the module is loaded
(x86-64 glibc >= 2.34, where ``dlvsym`` is in libc), to that function
through ``dlvsym``.  Every call receives the same argument and runs the same
code, so the results are the scalar functions' bit for bit; elsewhere (other
C libraries, an older glibc, a symbol not found) the pointer stays the
library's ``exp`` or ``log``: the same values, with the wrapper's cost.
Used by the Cython kernels built for the host CPU that call these functions
in loops of their own (:mod:`.blockmath`).
"""

#: C function -> glibc's symbol of the function without the errno wrapper.
UNWRAPPED = {"exp": "__exp_finite", "log": "__log_finite"}

_HEAD = """#include <math.h>
#if defined(__GLIBC__) && defined(__x86_64__) && defined(__GNUC__) && \\
    (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
#include <dlfcn.h>
#define PC_UNWRAPPED 1
#endif"""


def pointer_name(cname):
    """The name of the module's pointer to ``cname`` without its wrapper."""
    return "pc_nw_" + cname


def unwrapped_source():
    """The C text of the pointers (every function of :data:`UNWRAPPED`, so
    that the modules merged into one group module carry the same block,
    emitted once: :mod:`pcompute.build.cython_merge`) and of the constructor
    that sets them."""
    out = [_HEAD]
    for cname in sorted(UNWRAPPED):
        out.append("static double (*%s)(double) = %s;" % (pointer_name(cname), cname))
    out.append("#ifdef PC_UNWRAPPED")
    out.append("__attribute__((constructor)) static void pc_nw_init(void)\n{")
    out.append("    void *f;")
    for cname in sorted(UNWRAPPED):
        out.append('    f = dlvsym(RTLD_DEFAULT, "%s", "GLIBC_2.15");' % UNWRAPPED[cname])
        out.append("    if (f) %s = (double (*)(double))f;" % pointer_name(cname))
    out.append("}\n#endif")
    return "\n".join(out)


def unwrapped_declarations():
    """The Cython declarations of the pointers, as functions (C calls a
    pointer as it calls a function)."""
    return ["double %s(double a) nogil" % pointer_name(c) for c in sorted(UNWRAPPED)]
