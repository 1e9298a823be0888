"""One annotated function compiled for direct calls from Python (Compyle's
``Cython``).

``f = Cython(func)`` then ``f(*args)`` with numpy arrays and numbers returns
the function's value.  Loops written ``for i in prange(n):`` run in parallel
with OpenMP when ``use_openmp`` is set (``+=`` on a scalar in such a loop is a
reduction, as in Cython).  A backend that compiles such functions
(``Backend.compiles_functions``: the cython backend) prints and builds it
(``generate_function``/``build_function``).
"""
from ..backends.registry import backend_names, get_backend
from ..errors import KernelTypeError
from ..frontend import type_kernel
from .args import device_value, parameter_names
from .base import Primitive
from .kernel import low_level_types


def function_backends():
    """The names of the backends that compile functions for direct calls."""
    return [n for n in backend_names() if get_backend(n).compiles_functions]


class Cython(Primitive):
    """Compile one annotated function for direct use from Python (CPU).

    ``backend``: a backend that compiles functions; None: the configured
    backend if it does, else the first that does (cython), as Compyle's
    ``Cython`` always compiles with Cython whatever the backend.
    """

    def __init__(self, func, backend=None):
        Primitive.__init__(self, backend)
        self.func = func
        self.name = func.__name__
        self._params = parameter_names(func)

    def backend_object(self):
        be = get_backend(self._backend)
        if self._backend is None and not be.compiles_functions:
            be = get_backend(function_backends()[0])
        return be

    def _where(self):
        return "Cython(%s)" % self.name

    def _build(self, args, backend, config):
        types = low_level_types(self.func, self._params, args, backend, config,
                                self._where())
        program = type_kernel(self.func, types, use_double=config.use_double)
        return backend.build_function(program, self.name, config)

    def __call__(self, *args):
        if len(args) != len(self._params):
            raise KernelTypeError("%s takes %d argument(s), got %d"
                                  % (self._where(), len(self._params), len(args)))
        config, be = self._call_setup()
        built = self._kernel(args, be, config)
        values = [device_value(a, name, self._where(), be)
                  for name, a in zip(self._params, args)]
        return self._launch(built, be, config, None, values)


__all__ = ["Cython", "function_backends"]
