"""Printers of typed kernels: Cython (+OpenMP), OpenCL C, CUDA C and plain C.

Each printer class names its own dialect (``dialect``) and answers what a
module of several programs needs in it (``function_separator``,
``module_header``, ``check_recursion``, ``forward_declarations``,
``module_runtime``, ``module_prelude``), so nothing here depends on which
dialect it prints."""
from collections import namedtuple

from .cfamily import CPrinter
from .cuda import CUDAPrinter
from .cython import CythonPrinter
from .opencl import OpenCLPrinter

PRINTERS = {cls.dialect: cls for cls in (CythonPrinter, OpenCLPrinter, CUDAPrinter,
                                         CPrinter)}

DevicePreamble = namedtuple("DevicePreamble", "extensions macros typedefs")


def printer_for(program, dialect):
    """A fresh printer of ``program`` in ``dialect`` ('cython', 'opencl', 'cuda')."""
    try:
        cls = PRINTERS[dialect]
    except KeyError:
        raise ValueError("no code generator for %r; choose one of %s"
                         % (dialect, ", ".join(sorted(PRINTERS))))
    return cls(program)


def device_preamble(dialect, double=False):
    """The argument ``device`` of templates/device_preamble.mako: the lines
    before the macros, the macros ((name, definition) pairs) and typedefs
    ((C type, name) pairs) of the device dialect ``dialect`` ('opencl',
    'cuda'), as its printer class defines them (``double``: the source
    computes in double precision)."""
    cls = PRINTERS.get(dialect)
    if cls is None or cls.device_macros is None:
        raise ValueError("no device templates for %r; choose one of %s" % (
            dialect, ", ".join(sorted(k for k, c in PRINTERS.items()
                                      if c.device_macros is not None))))
    return DevicePreamble(tuple(cls.device_extensions(double)), cls.device_macros,
                          cls.device_typedefs)


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
            printer.check_recursion()
            texts.extend(printer.forward_declarations())
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
    return printer.module_runtime(), printer.function_separator.join(texts), printer


def functions_module(program, dialect):
    """The translated functions of ``program`` (helpers first) in ``dialect``,
    as a module for embedding elsewhere: header, fp64 pragma (OpenCL),
    cimports (Cython), runtime helpers, then the functions."""
    printer = printer_for(program, dialect)
    runtime, functions = printer.print_program()
    parts = [printer.module_header]
    parts.extend(printer.module_prelude(runtime, functions))
    parts += [runtime, "\n\n" if runtime else "", functions, "\n"]
    return "".join(parts).lstrip("\n")
