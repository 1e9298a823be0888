"""The python backend: runs the user's functions directly, serially.

It is the reference every other backend is tested against, and the debugging
mode: the user's own source runs (a copy compiled with its file name and line
numbers, :mod:`.pyexec`), so breakpoints and print() work; its generated
"source" is the user's own Python text.  Arguments are seen
as Python numbers and arrays that store like C (:mod:`.pyvalues`), so a kernel
computes what Python computes.
"""
import itertools
from dataclasses import replace

from ..records import BuiltKernel, GeneratedKernel
from ..types import out_of_range
from . import scan_python, sort_python
from .base import Backend, is_serial
from .pychecks import checked_args
from .pyobjects import KernelObject
from .pyexec import python_callable, python_source
from .pyrace import Recorder, recorded_args
from .pyints import I64, MAKE

LONG = MAKE[I64]        # an item index as the long it is (in range: no wrapping)
from .pyvalues import kernel_values, typed_value


class PythonBackend(Backend):
    """Serial execution of the annotated functions in the interpreter."""

    name = "python"
    dialect = None

    def object_value(self, obj, record):
        """The object as kernels see it (:class:`.pyobjects.KernelObject`):
        the struct's field values, the methods run as helpers are."""
        return KernelObject(obj, record)

    def generate_elementwise(self, program, func, config):
        dims = program.index_dims
        return GeneratedKernel("elementwise", func.__name__, "python", python_source(func),
                               (func.__name__,), tuple(program.entry.args[dims:]),
                               (("index_dims", dims),))

    def build_elementwise(self, program, func, config):
        kernel = python_callable(func, program)

        def run(n, args):
            args = kernel_values(args)
            for i in map(LONG, range(n)):   # the index is a long
                kernel(i, *args)

        def run_nd(n, args):
            args = kernel_values(args)
            # In order, the last index fastest (as nested loops would).
            for index in itertools.product(*(range(d) for d in n)):
                kernel(*map(I64, index), *args)
        launch = run if program.index_dims == 1 else run_nd
        if config.debug and not is_serial(func):
            launch = _recorded_launch(kernel, program, func.__name__)
        if program.bounds_check:
            # The last value is the error record of the compiled backends; here
            # the array arguments check their indices themselves.
            names = [name for name, _ in program.entry.args[program.index_dims:-1]]

            def launch_checked(n, args, unchecked=launch):
                unchecked(n, checked_args(names, args[:-1], func.__name__))
            launch = launch_checked
        launch = _range_checked(launch, program.entry.args[program.index_dims:])
        return BuiltKernel(self.generate_elementwise(program, func, config), self.name,
                           launch)

    def generate_reduction(self, spec, config):
        funcs = (spec.map_func, spec.reduce_func) if spec.parts is None else \
            spec.parts.map_funcs + spec.parts.reduce_funcs
        return GeneratedKernel("reduction", spec.name, "python", python_source(*funcs),
                               tuple(f.__name__ for f in funcs),
                               tuple(spec.map_program.entry.args[1:]))

    def build_reduction(self, spec, config):
        if spec.parts is not None:
            return BuiltKernel(self.generate_reduction(spec, config), self.name,
                               _tuple_reduction(spec))
        map_fn = python_callable(spec.map_func, spec.map_program)
        reduce_fn = spec.reduce_func
        dtype = spec.out_type.dtype

        names = [name for name, _ in spec.map_program.entry.args[1:]]

        def run(n, args):
            if spec.map_program.bounds_check:   # see build_elementwise
                args = checked_args(names[:-1], args[:-1], spec.name)
            args = kernel_values(args)
            acc = typed_value(dtype, spec.neutral)
            for i in range(n):
                acc = typed_value(dtype, reduce_fn(acc, typed_value(dtype,
                                                                    map_fn(I64(i), *args))))
            return dtype.type(acc)
        return BuiltKernel(self.generate_reduction(spec, config), self.name,
                           _range_checked(run, spec.map_program.entry.args[1:]))

    # -- scan and sort: this backend's modules ---------------------------------------
    def generate_scan(self, spec, config):
        return scan_python.generate_scan(self, spec, config)

    def build_scan(self, spec, config):
        built = scan_python.build_scan(self, spec, config)
        return replace(built, launch=_range_checked(
            built.launch, tuple(zip(spec.arg_names, spec.arg_types))))

    def sort_by_keys(self, keys, values, key_bits, config, permutation=True):
        return sort_python.sort_by_keys(self, keys, values, key_bits, config,
                                        permutation=permutation)


def _tuple_reduction(spec):
    """The launch of a tuple Reduction: items combined in order, every
    component from the previous accumulator (all computed, then assigned)."""
    parts = spec.parts
    # each map function follows the C types of its own typed program
    maps = [python_callable(f, prog) for f, prog in zip(parts.map_funcs,
                                                        parts.map_programs)]
    dtypes = [t.dtype for t in parts.out_types]
    names = [name for name, _ in spec.map_program.entry.args[1:]]

    def run(n, args):
        if spec.map_program.bounds_check:   # see build_elementwise
            args = checked_args(names[:-1], args[:-1], spec.name)
        args = kernel_values(args)
        acc = None if parts.neutrals is None else \
            [typed_value(d, v) for d, v in zip(dtypes, parts.neutrals)]
        for i in range(n):
            item = [typed_value(d, f(I64(i), *args)) for d, f in zip(dtypes, maps)]
            if acc is None:
                acc = item
                continue
            acc = [typed_value(d, r(*acc, *item)) for d, r in zip(dtypes,
                                                                  parts.reduce_funcs)]
        return parts.empty() if acc is None else parts.finish(tuple(acc))
    return run


def _range_checked(launch, params):
    """``launch`` that first raises OverflowError, as the compiled calls do,
    for an integer argument that does not fit its parameter's type (``params``:
    ``(name, CType)`` per argument); the primitive turns it into the located
    error.  ``launch`` itself when no parameter is a scalar integer."""
    ints = [(k, t) for k, (_, t) in enumerate(params) if t.is_int and not t.is_pointer]
    if not ints:
        return launch

    def run(n, args):
        for k, t in ints:
            if k < len(args) and out_of_range(t, args[k]):
                raise OverflowError("argument %d does not fit %s" % (k, t.base))
        return launch(n, args)
    return run


def _recorded_launch(kernel, program, name):
    """The launch of a kernel under the dynamic race check (debug mode)."""
    dims = program.index_dims
    names = [arg for arg, _ in program.entry.args[dims:]]

    def launch(n, args):
        recorder = Recorder(name)
        values = kernel_values(recorded_args(names, args, recorder, name))
        space = [(i,) for i in range(n)] if dims == 1 else \
            itertools.product(*(range(d) for d in n))
        for index in space:
            recorder.item = tuple(index)
            kernel(*map(I64, index), *values)
        recorder.report()
    return launch
