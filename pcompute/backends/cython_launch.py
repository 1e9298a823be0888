"""Calling compiled Cython kernels: argument conversion shared by the
cython backend's Elementwise, Reduction and Scan."""
import os

from ..build import toolchain
from ..codegen.arrays import meta_values
from ..codegen.work import has_inner_loops
from ..kernel_options import options_of

# Below this many items an OpenMP loop runs serially: starting threads costs
# more than the work.
SERIAL_BELOW = 2048
#: The same for an Elementwise whose items run inner loops
#: (:func:`~pcompute.codegen.work.has_inner_loops`): a few hundred such
#: items (an MD force or neighbour-list kernel at N = 1000) gain from threads.
SERIAL_BELOW_LOOPS = 256


def serial_below(program, func=None):
    """Below how many items an OpenMP Elementwise of ``program`` (or a
    Reduction whose map is ``program``) runs serially: the ``serial_below``
    build option of ``func`` when it has one."""
    given = options_of(func).get("serial_below") if func is not None else None
    if given is not None:
        return given
    return SERIAL_BELOW_LOOPS if has_inner_loops(program) else SERIAL_BELOW


def openmp_threads():
    """The threads an OpenMP launch starts: ``OMP_NUM_THREADS`` (its first
    value) when set, else the CPUs this process may run on (as libgomp)."""
    first = os.environ.get("OMP_NUM_THREADS", "").split(",")[0].strip()
    if first.isdigit() and int(first) > 0:
        return int(first)
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:          # not on Linux
        return os.cpu_count() or 1


def array_address(a):
    """The address of a contiguous numpy array's data."""
    return a.__array_interface__["data"][0]


def launch_converter(types):
    """A function turning argument values into the values of a compiled
    module's ``run``: addresses for arrays, then an n-D array's shape and
    strides; None when every value is passed as it is.  ``types`` are the
    arguments' CTypes."""
    kinds = list(types)
    if not any(t.is_pointer for t in kinds):
        return None
    if not any(t.is_ndarray for t in kinds):
        slots = [k for k, t in enumerate(kinds) if t.is_pointer]

        def convert(args):
            args = list(args)
            for k in slots:
                args[k] = array_address(args[k])
            return args
        return convert

    def convert_nd(args):
        out = []
        for t, a in zip(kinds, args):
            if t.is_pointer:
                out.append(array_address(a))
                out.extend(meta_values(t, a))
            else:
                out.append(a)
        return out
    return convert_nd


def pointer_launcher(kernel, generated, index_dims=1):
    """``launch(n, args)`` calling a compiled ``run(n, *args)`` (``run(*n,
    *args)`` over an n-D index space) with the arguments of ``generated``
    converted by :func:`launch_converter`."""
    convert = launch_converter(t for _, t in generated.args)
    if index_dims > 1:
        if convert is None:
            return lambda n, args: kernel(*n, *args)
        return lambda n, args: kernel(*n, *convert(args))
    if convert is None:
        return lambda n, args: kernel(n, *args)
    return lambda n, args: kernel(n, *convert(args))


def extern_link_args(printer):
    """The linker arguments the Extern functions printed by ``printer`` ask
    for (``Extern.link('cython')``), in order, each once; then ``-lm`` when
    the printed code calls C math functions (but with MSVC): named at link
    time, libm's functions bind to the library's current versions (glibc:
    ``exp@GLIBC_2.29``), where a module linked without it, its references
    unversioned, gets the oldest (``exp@GLIBC_2.2.5``, a compatibility
    wrapper around the same function: ~2 % of black-scholes' time)."""
    args = []
    for ext in printer.externs.values():
        for arg in ext.link("cython") or ():
            if str(arg) not in args:
                args.append(str(arg))
    if getattr(printer, "math", None) and "-lm" not in args and not toolchain.is_msvc():
        args.append("-lm")
    return tuple(args)
