"""Front end: read a kernel's source, check the subset, infer types.

``source`` reads a function, ``checker`` rejects what is outside the subset,
``callgraph`` resolves names, ``typeinfer``/``calls`` type one function and
``program`` types a kernel with its helpers into the records of ``ir``.
"""
from .ir import TypedFunction, TypedProgram
from .program import type_kernel
from .source import read_function

__all__ = ["read_function", "type_kernel", "TypedFunction", "TypedProgram"]
