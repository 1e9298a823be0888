"""Scan on the python backend: the serial reference, in the interpreter.

The user's functions run as the python backend runs kernels (their own source,
so breakpoints and print() work), following the C types of their typed
programs (:class:`~.pyexec.Typing`).  When
output() asks for ``last_item`` a first pass computes it (the scan value at the
last element, segments respected); the main pass then evaluates, for each i
in order, is_segment(i), input(i) and output(i).
"""
from ..records import BuiltKernel, GeneratedKernel
from .pyexec import python_callable, python_source
from .pyints import I64
from .pyvalues import kernel_values, typed_value


def _copy(function):
    """The python backend's copy of a ScanFunction (None: None)."""
    if function is None:
        return None
    return python_callable(function.func, function.program), function.params


def _caller(copy, user):
    """A function ``call(specials)`` calling the copy with its arguments."""
    if copy is None:
        return None
    fn, params = copy
    return lambda specials: fn(*[specials[p] if p in specials else user[p] for p in params])


def generate_scan(backend, spec, config):
    """The GeneratedKernel of the scan: the user's functions, run as they are."""
    funcs = [spec.scan_func] + [f.func for f in spec.functions]
    return GeneratedKernel("scan", spec.name, "python", python_source(*funcs),
                           tuple(f.__name__ for f in funcs),
                           tuple(zip(spec.arg_names, spec.arg_types)))


def build_scan(backend, spec, config):
    """The BuiltKernel performing the scan serially."""
    op = spec.scan_func
    dtype = spec.out_type.dtype
    cast = lambda value: typed_value(dtype, value)  # noqa: E731
    neutral = typed_value(dtype, spec.neutral)
    need_last = spec.needs("last_item")
    copies = [_copy(f) for f in (spec.input, spec.segment, spec.output)]

    def run(n, args):
        user = dict(zip(spec.arg_names, kernel_values(args)))
        map_fn, seg_fn, out_fn = (_caller(c, user) for c in copies)
        specials = {"N": I64(n)}
        mapped = None
        if need_last:
            acc = neutral
            mapped = [] if spec.complex_map else None
            for i in range(n):
                specials["i"] = I64(i)
                if seg_fn is not None and seg_fn(specials):
                    acc = neutral
                x = cast(map_fn(specials))
                if mapped is not None:
                    mapped.append(x)
                acc = cast(op(acc, x))
            specials["last_item"] = acc
        acc = neutral
        for i in range(n):
            specials["i"] = I64(i)
            if seg_fn is not None and seg_fn(specials):
                acc = neutral
            x = mapped[i] if mapped is not None else cast(map_fn(specials))
            specials["prev_item"] = acc
            acc = cast(op(acc, x))
            specials["item"] = acc
            out_fn(specials)
    return BuiltKernel(generate_scan(backend, spec, config), backend.name, run)
