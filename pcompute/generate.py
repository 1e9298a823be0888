"""pcompute as a code generator: generated source without compiling anything.

``generate_source(func, backend='cuda', types={'x': 'gdoublep'})`` returns the
text pcompute would compile, for any backend, on any machine: producing CUDA C
needs neither pycuda nor a GPU.
"""
import re
from dataclasses import replace

from .backends.registry import get_backend
from .bounds import checked
from .codegen import functions_module
from .config import Config, get_config
from .errors import KernelValueError
from .frontend import type_kernel
from .frontend.source import check_is_function
from .types import LONG, parse_type

KINDS = ("elementwise", "function")

def _parse_types(types):
    if types is None:
        return {}
    if isinstance(types, str):
        out = {}
        # Commas inside brackets belong to a type: u=double[:, :],n=int.
        for item in re.split(r",(?![^\[]*\])", types):
            if not item.strip():
                continue
            if "=" not in item:
                raise KernelValueError("bad type item %r" % item,
                                       hint="write name=type, e.g. x=gdoublep,n=int")
            name, spec = item.split("=", 1)
            out[name.strip()] = spec.strip()
        types = out
    return {k: parse_type(v) for k, v in types.items()}


def _generate(func, backend, types, kind, config, index_dims):
    check_is_function(func)
    if kind not in KINDS:
        raise KernelValueError("unknown kind %r" % kind, hint="choose one of: " +
                               ", ".join(KINDS))
    config = config or get_config()
    if isinstance(config, dict):
        config = Config(read_environment=False, **config)
    be = get_backend(backend)
    if not be.generates_source:
        raise KernelValueError("the %s backend runs Python directly and generates no "
                               "source" % be.name, hint="choose cython, opencl or cuda")
    arg_types = _parse_types(types)
    params = func.__code__.co_varnames[:func.__code__.co_argcount]
    if index_dims not in (1, 2, 3):
        raise KernelValueError("index_dims must be 1, 2 or 3, not %r" % (index_dims,))
    if kind == "elementwise":
        for index in params[:index_dims]:
            arg_types.setdefault(index, LONG)
    program = type_kernel(func, arg_types, use_double=config.use_double,
                          demote_double=be.demote_double(config))
    program = replace(program, index_dims=index_dims)
    if kind == "elementwise" and config.bounds_check:
        program = checked(program)
    if kind == "function":
        return functions_module(program, be.dialect)
    return be.generate_elementwise(program, func, config)


def generate_source(func, backend="cython", types=None, kind="elementwise",
                    config=None, index_dims=1):
    """The generated source of ``func`` for ``backend``.

    ``types`` gives the types of arguments that are not annotated (a dict or
    ``"x=gdoublep,n=int"``); ``kind='elementwise'`` gives the complete
    Elementwise kernel module, ``kind='function'`` only the translated
    functions (helpers first) for embedding elsewhere.  ``config`` defaults to
    the current configuration (``use_double``, ``use_openmp``, ...).
    ``index_dims`` (2 or 3) gives an Elementwise over a 2-D or 3-D index space:
    the first ``index_dims`` parameters are the indices.
    """
    out = _generate(func, backend, types, kind, config, index_dims)
    return out if isinstance(out, str) else out.source


def generate_record(func, backend="cython", types=None, config=None, index_dims=1):
    """The :class:`~pcompute.records.GeneratedKernel` of the Elementwise of
    ``func`` for ``backend`` (source, entry points, argument layout, build
    options, cache key); arguments as for :func:`generate_source`."""
    return _generate(func, backend, types, "elementwise", config, index_dims)
