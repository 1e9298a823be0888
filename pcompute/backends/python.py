"""The python backend: runs the user's functions directly, serially.

It is the reference every other backend is tested against, and the debugging
mode: the original function runs, so breakpoints and print() work.
"""
from .base import Backend


class PythonBackend(Backend):
    """Serial execution of the annotated functions in the interpreter."""

    name = "python"
    dialect = None

    def build_elementwise(self, program, func, config):
        def run(n, args):
            for i in range(n):
                func(i, *args)
        return run
