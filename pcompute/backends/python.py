"""The python backend: runs the user's functions directly, serially.

It is the reference every other backend is tested against, and the debugging
mode: the original function runs, so breakpoints and print() work.
"""
import itertools

from .base import Backend
from .pyexec import python_callable


class PythonBackend(Backend):
    """Serial execution of the annotated functions in the interpreter."""

    name = "python"
    dialect = None

    def build_elementwise(self, program, func, config):
        kernel = python_callable(func)

        def run(n, args):
            for i in range(n):
                kernel(i, *args)

        def run_nd(n, args):
            # In order, the last index fastest (as nested loops would).
            for index in itertools.product(*(range(d) for d in n)):
                kernel(*index, *args)
        return run if program.index_dims == 1 else run_nd

    def build_reduction(self, spec, config):
        map_fn = python_callable(spec.map_func)
        reduce_fn = spec.reduce_func
        dtype = spec.out_type.dtype

        def run(n, args):
            acc = spec.neutral
            for i in range(n):
                acc = reduce_fn(acc, map_fn(i, *args))
            return dtype.type(acc)
        return run
