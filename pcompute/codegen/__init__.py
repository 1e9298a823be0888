"""Printers of typed kernels: Cython (+OpenMP), OpenCL C and CUDA C."""
from .cuda import CUDAPrinter
from .cython import CythonPrinter
from .opencl import OpenCLPrinter

PRINTERS = {"cython": CythonPrinter, "opencl": OpenCLPrinter, "cuda": CUDAPrinter}


def printer_for(program, dialect):
    """A fresh printer of ``program`` in ``dialect`` ('cython', 'opencl', 'cuda')."""
    try:
        cls = PRINTERS[dialect]
    except KeyError:
        raise ValueError("no code generator for %r; choose one of %s"
                         % (dialect, ", ".join(sorted(PRINTERS))))
    return cls(program)
