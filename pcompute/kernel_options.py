"""Build options one kernel asks for itself (on top of the configuration).

``@build_options(vector_math=True)`` marks a kernel function; every
primitive built from it (Elementwise, or a Reduction's map function) hands
the options to its backend, which applies those it has a meaning for and
records them in the :class:`~pcompute.records.GeneratedKernel` (so they are
part of the cache key).  Options:

``vector_math``
    Math functions may run in vectorised form: the cython backend compiles
    with ``-fno-math-errno`` and, on x86-64 with glibc, lets the C compiler
    call glibc's vector math library (libmvec, through its SIMD
    declarations in ``<math.h>``) for ``sin``, ``exp``, ``log``, ... in loops it vectorises.
    Results may differ from the scalar functions by a few units in the last
    place (libmvec's stated bound is 4 ulp); ``errno`` is never set.  OpenCL
    and CUDA compilers vectorise their math functions anyway: the option
    changes nothing there.

``host_cpu``
    The kernel is built for the CPU that builds it, as a JIT compiler does,
    even when ``Config.march`` asks for generic code (every Cython module is
    built for the host CPU by default anyway): the cython backend compiles
    with ``-march=native`` (vector instructions such as AVX2), with
    ``-ffp-contract=off`` as always, so no multiply and add is fused and
    every result stays the one of the generic build (and of plain Python).
    The host CPU's identity joins the cache key.  Used by
    :func:`pcompute.parallelize` for the kernels it writes.  OpenCL and CUDA
    compile for their device anyway: the option changes nothing there.

``parallel_items``
    Each item is a long piece of work (a chunk of a loop, as the speculated
    loops of :func:`pcompute.parallelize` run on a CPU): a launch runs its
    items in parallel however few they are, each on one thread (the cython
    backend starts its OpenMP threads for any number of items, the opencl
    backend puts each item in a work-group of its own, so a CPU device
    spreads them over its cores).

``balance``
    The kernel's items do unequal work (inner loops whose length depends on
    the item, early exits): the cython backend's OpenMP loop hands the items
    out dynamically, in 64 chunks, instead of one equal block per thread,
    unless the configuration sets an ``omp_schedule`` other than the default
    ``static``.  Used by :func:`pcompute.parallelize` for triangular nests
    and loops with ``break``.  OpenCL and CUDA schedule work groups
    themselves: the option changes nothing there.

``unroll``
    The cython backend compiles with ``-funroll-loops``.  For scalar loops
    that cannot be vectorised and carry floating-point values from one pass
    to the next (an early exit, ``break``, as in Mandelbrot's iteration):
    GCC's AVX code copies such a value between registers with a one-cycle
    ``vmovsd`` on the loop's critical path, which unrolling removes.  Used
    by :func:`pcompute.parallelize` for nests with a ``break``.  OpenCL and
    CUDA: no effect.

``fma``
    Multiplies and adds may be fused into one instruction (FMA, which rounds
    once instead of twice) where the target CPU has it: the cython backend
    compiles with ``-ffp-contract=fast`` instead of ``-ffp-contract=off``,
    so results may differ from plain Python's (and from the generic build's)
    in the last bit of a fused operation, as those of a C compiler with its
    default contraction do.  A kernel built for generic x86-64 (no FMA
    instruction) is unchanged.  OpenCL C (``FP_CONTRACT`` on by default) and
    CUDA (``nvcc --fmad=true`` by default) contract anyway: the option
    changes nothing there.  MSVC: no effect (it contracts nothing by default).

``serial_below``
    An OpenMP loop of fewer items than this runs serially on the cython
    backend (default: 2048, or 256 when items run inner loops; starting the
    threads costs a few microseconds).  :func:`pcompute.parallelize` sets 16
    for nests whose items run loops of non-constant length, as the items are
    then heavy (Numba's ``prange`` starts its threads at any size).

``align_rows``
    ``(name, row_start, column_start)``: in a 2-D Elementwise whose item
    ``(i0, i1)`` stores to ``name[row_start + i0, column_start + i1]`` (a
    C-ordered 2-D array argument), the cython backend splits each row's loop
    where that store's address is a multiple of 64 bytes: the few items
    before it run first, then the vectorised rest with aligned stores (a
    store stream 8 bytes off alignment splits every other 32-byte store
    across two cache lines).  The items run as before, each once and in
    order per row; other backends ignore it.  :func:`pcompute.parallelize`
    sets it for nests storing ``a[i, j]`` of their two launched loops whose
    items run no inner loop.

This module imports nothing from pcompute: every stage may use it.
"""

#: option name -> (type, default, one line of help)
KNOWN = {
    "vector_math": (bool, False, "vectorised math functions (a few ulp, no errno)"),
    "host_cpu": (bool, False, "built for the host CPU (-march=native), no FMA contraction"),
    "parallel_items": (bool, False, "few long items, each run by a thread of its own"),
    "balance": (bool, False, "items of unequal work: dynamic OpenMP schedule"),
    "unroll": (bool, False, "loops unrolled (-funroll-loops)"),
    "fma": (bool, False, "multiply and add may be fused (FMA): last-bit differences"),
    "serial_below": (int, None, "fewer items than this run serially (cython OpenMP)"),
    "align_rows": (tuple, None, "2-D rows split at the first 64-byte-aligned store "
                   "(array, row start, column start)"),
}


def build_options(func=None, **options):
    """Decorator: ``func`` is built with ``options`` (see the module
    docstring).  ``@build_options(vector_math=True)`` or
    ``build_options(f, vector_math=True)``; returns ``func`` itself, marked.
    An unknown option or a value of the wrong type is a ``TypeError``."""
    for name, value in options.items():
        if name not in KNOWN:
            raise TypeError("unknown build option %r; known: %s" % (
                name, ", ".join("%s (%s)" % (k, v[2]) for k, v in sorted(KNOWN.items()))))
        kind = KNOWN[name][0]
        if kind is tuple and not (isinstance(value, tuple) and len(value) == 3
                                  and isinstance(value[0], str)
                                  and all(type(v) is int for v in value[1:])):
            raise TypeError("build option %s takes (array name, row start, column start), "
                            "not %r" % (name, value))
        if not isinstance(value, kind) or (kind is int and (isinstance(value, bool)
                                                           or value < 1)):
            raise TypeError("build option %s takes a %s, not %r" % (
                name, "positive int" if kind is int else kind.__name__, value))

    def mark(f):
        merged = dict(options_of(f))
        merged.update(options)
        f.pcompute_build_options = tuple(sorted(merged.items()))
        return f
    return mark if func is None else mark(func)


def options_of(func):
    """The build options ``func`` was marked with, as a dict (empty if none)."""
    return dict(getattr(func, "pcompute_build_options", ()))
