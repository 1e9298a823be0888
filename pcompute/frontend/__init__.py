"""Front end: read a kernel's source, check the subset, infer types."""
from .source import read_function
from .typeinfer import TypedFunction, TypedProgram, type_kernel

__all__ = ["read_function", "type_kernel", "TypedFunction", "TypedProgram"]
