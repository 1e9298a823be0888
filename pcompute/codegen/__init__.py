"""Printers of typed kernels: Cython (+OpenMP), OpenCL C, CUDA C and plain C."""
from .cfamily import CPrinter
from .cuda import CUDAPrinter
from .cython import CythonPrinter
from .opencl import OpenCLPrinter

PRINTERS = {"cython": CythonPrinter, "opencl": OpenCLPrinter, "cuda": CUDAPrinter,
            "c": CPrinter}


def printer_for(program, dialect):
    """A fresh printer of ``program`` in ``dialect`` ('cython', 'opencl', 'cuda')."""
    try:
        cls = PRINTERS[dialect]
    except KeyError:
        raise ValueError("no code generator for %r; choose one of %s"
                         % (dialect, ", ".join(sorted(PRINTERS))))
    return cls(program)


def print_programs(programs, dialect, structs=True):
    """Print several typed programs into one module.

    ``programs`` is a list of (TypedProgram, entry c_name or None).  Returns
    (runtime text, functions text, printer); functions shared by several
    programs (the same helper) are printed once.
    """
    from dataclasses import replace
    from ..errors import KernelTypeError
    printer = printer_for(programs[0][0], dialect)
    printer.define_structs = structs
    texts, seen = [], {}
    for program, entry_name in programs:
        if entry_name:
            entry = replace(program.entry, c_name=entry_name)
            program = replace(program, entry=entry,
                              functions=program.functions[:-1] + (entry,))
        printer.program = program
        if program.recursive:
            if dialect == "opencl":
                printer.print_program()  # raises the recursion error
            if dialect != "cython":
                texts.extend(printer.prototypes())
        for fn in program.functions:
            text = printer.print_function(fn)
            if fn.c_name in seen:
                if seen[fn.c_name] != text:
                    raise KernelTypeError(
                        "%s() is used with different argument types by the functions "
                        "of one primitive" % fn.name,
                        hint="annotate it with @annotate so both uses agree")
                continue
            seen[fn.c_name] = text
            texts.append(text)
    from .runtime import runtime_source
    if dialect == "cython":
        runtime = printer.with_externs(printer.runtime_block())
    else:
        runtime = printer.with_externs(runtime_source(printer.needed, printer))
    sep = "\n\n\n" if dialect == "cython" else "\n\n"
    return runtime, sep.join(texts), printer


#: What a module of translated functions starts with, per dialect.
_FUNCTION_HEADERS = {
    "cython": "# cython: language_level=3, boundscheck=False, wraparound=False, "
              "cdivision=True\n",
    "opencl": "",
    "cuda": "",
    "c": "",
}


def functions_module(program, dialect):
    """The translated functions of ``program`` (helpers first) in ``dialect``,
    as a module for embedding elsewhere: header, fp64 pragma (OpenCL),
    cimports (Cython), runtime helpers, then the functions."""
    printer = printer_for(program, dialect)
    runtime, functions = printer.print_program()
    parts = [_FUNCTION_HEADERS[dialect]]
    if dialect == "opencl" and "double" in functions + runtime:
        parts.append("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n")
    if dialect == "cython":
        parts.extend(line + "\n" for line in printer.cimports())
    parts += [runtime, "\n\n" if runtime else "", functions, "\n"]
    return "".join(parts).lstrip("\n")
