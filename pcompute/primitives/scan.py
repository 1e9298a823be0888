"""Scan: prefix sums (inclusive, exclusive, segmented) with user functions.

The Compyle-compatible interface::

    Scan(input=None, output=None, scan_expr='a+b', is_segment=None,
         dtype=np.float64, neutral='0', complex_map=False, backend=None)

``input(i, ...)`` gives the value to scan at ``i`` (default: an array argument
named ``input``, value ``input[i]``).  ``scan_expr`` is an associative
expression over ``a`` and ``b`` with neutral element ``neutral``.
``output(i, item, prev_item, last_item, N, ...)`` is called once per ``i`` in
``[0, N)``; it may declare any subset of the special parameters (recognised by
name, in any position):

``i``          the index
``item``       the inclusive scan at ``i``
``prev_item``  the exclusive scan at ``i`` (``neutral`` at ``i = 0`` and at the
               start of every segment)
``last_item``  the value of the scan at the last element ``N - 1`` (with
               segments: the scan of the last segment), as in Compyle
``N``          the number of items

Only the values the output function asks for are computed.  The default
output (no ``output`` function) writes the inclusive scan into an array
argument named ``output``.  ``is_segment(i, ...)`` starts a new segment where
it is non-zero.  ``input`` and ``is_segment`` may take ``i`` and ``N``.

The other parameters of the three functions are the arguments of the call,
given by keyword (Compyle's way) or positionally in the order their names
first appear in input, is_segment, output.  ``N`` is the length of the first
array argument.  Generated code names its own variables with the reserved
``pc_`` prefix, so user names never collide with them.

Guarantees: once ``output(i)`` has run, neither ``input(i)`` nor
``is_segment(i)`` is evaluated again, so in-place scans (``output`` writes
``ary[i]`` that ``input`` reads) are safe.  ``input(j)`` may be evaluated more
than once (once to reduce blocks, once to rescan them).  ``complex_map=True``
(Compyle: "the input function is expensive") stores the values of ``input``
in a temporary array of N elements on the first evaluation and reads them
back instead of calling ``input`` again; it costs that memory.
"""
from dataclasses import dataclass

import numpy as np

from ..backends.registry import get_backend
from ..config import get_config
from ..errors import KernelTypeError, KernelValueError
from ..frontend import type_kernel
from ..frontend.source import read_function
from ..frontend.program import annotation_types
from ..types import LONG, dtype_to_ctype
from .args import argument_types, device_values, parameter_names
from .base import Primitive
from .exprfunc import _NAMESPACE, make_function, neutral_value
from .scan_check import check_functions, generated_checks

# Parameters of output() filled by the scan itself, and those of input/is_segment.
OUTPUT_SPECIALS = ("i", "item", "prev_item", "last_item", "N")
INPUT_SPECIALS = ("i", "N")


def make_statement_function(name, params, body, what):
    """A Python function ``name(*params)`` whose body is ``body`` (one statement)."""
    source = "def %s(%s):\n    %s\n" % (name, ", ".join(params), body)
    namespace = dict(_NAMESPACE)
    exec(compile(source, "<%s>" % what, "exec"), namespace)
    func = namespace[name]
    func.source = source
    return func


@dataclass(frozen=True, eq=False)
class ScanFunction:
    """One of input / is_segment / output: its program and how to call it."""
    role: str            # 'input', 'segment' or 'output'
    func: object         # the Python function (python backend)
    program: object      # TypedProgram (the python backend follows its C types too)
    params: tuple        # parameter names in the function's order

    def call_args(self, specials, user):
        """Argument texts: ``specials`` maps i/item/... to texts, ``user`` the rest."""
        return [specials[p] if p in specials else user[p] for p in self.params]


@dataclass(frozen=True, eq=False)
class ScanSpec:
    """What a backend needs to build a scan."""
    input: ScanFunction
    segment: object      # ScanFunction or None
    output: ScanFunction
    scan_program: object  # TypedProgram of scan_op(a, b)
    scan_func: object    # the Python scan_op(a, b)
    arg_names: tuple     # user argument names, in call order
    arg_types: tuple     # their CTypes
    out_type: object     # CType of the scanned values
    neutral: object      # numpy scalar of out_type's dtype
    complex_map: bool
    name: str

    @property
    def functions(self):
        return [f for f in (self.input, self.segment, self.output) if f is not None]

    def needs(self, special):
        """True if output() takes ``special`` ('prev_item', 'last_item', ...)."""
        return special in self.output.params

    def programs(self):
        """(program, entry name) pairs to print into one module."""
        out = [(self.scan_program, "pc_scan_op"), (self.input.program, "pc_input")]
        if self.segment is not None:
            out.append((self.segment.program, "pc_segment"))
        out.append((self.output.program, "pc_output"))
        return out

    def arg_cnames(self):
        """Printed (C) name of every user argument."""
        names = {}
        for f in self.functions:
            for n, _ in f.program.entry.args:
                names.setdefault(n, f.program.entry.cname(n))
        return {n: names.get(n, n) for n in self.arg_names}

    def call_text(self, role, **specials):
        """C text calling the printed ``role`` function ('input', 'segment',
        'output'): ``specials`` gives the texts of i, item, prev_item,
        last_item and N; user arguments are passed by their printed names."""
        function = {"input": self.input, "segment": self.segment, "output": self.output}[role]
        return "pc_%s(%s)" % (role, ", ".join(function.call_args(specials,
                                                                 self.arg_cnames())))

    @property
    def expr(self):
        return self.scan_func.source.split("return ", 1)[1].strip()


class Scan(Primitive):
    """A parallel prefix scan; see the module docstring for the interface."""

    def __init__(self, input=None, output=None, scan_expr="a+b", is_segment=None,
                 dtype=np.float64, neutral="0", complex_map=False, backend=None):
        Primitive.__init__(self, backend)
        self.dtype = np.dtype(dtype)
        dtype_to_ctype(self.dtype)
        self.scan_expr = scan_expr
        self.neutral = neutral
        self.complex_map = bool(complex_map)
        self._scan = make_function("scan_op", ("a", "b"), scan_expr, "scan_expr")
        neutral_value(neutral, self.dtype)
        self.input_func = input
        self.output_func = output
        self.is_segment_func = is_segment
        self._input = input if input is not None else make_statement_function(
            "scan_input", ("i", "input"), "return input[i]", "default scan input")
        self._output = output if output is not None else make_statement_function(
            "scan_output", ("i", "item", "output"), "output[i] = item",
            "default scan output")
        self._segment = is_segment
        self._params = {}
        order = []
        for role, func, specials in (("input", self._input, INPUT_SPECIALS),
                                     ("segment", is_segment, INPUT_SPECIALS),
                                     ("output", self._output, OUTPUT_SPECIALS)):
            if func is None:
                continue
            if not callable(func):
                raise KernelTypeError("the %s of %s must be a function, got %r"
                                      % (role, self._where(), func))
            params = tuple(parameter_names(func))
            self._params[role] = params
            for p in params:
                if p in OUTPUT_SPECIALS and p not in specials:
                    raise KernelTypeError(
                        "%s() (the %s function of %s) takes %r, which only the output "
                        "function receives" % (func.__name__, role, self._where(), p),
                        hint="input and is_segment may take i and N; item, prev_item "
                             "and last_item go to output")
                if p not in OUTPUT_SPECIALS and p not in order:
                    order.append(p)
        self.arg_names = tuple(order)
        self.name = getattr(input, "__name__", None) or getattr(output, "__name__", "scan")
        self._checkers = {}     # role -> (Reduction, its arguments): bounds checks

    @property
    def scan(self):
        """Compyle's name for the built kernel: None until the first call, then
        the :class:`~pcompute.records.BuiltKernel` (``.backend`` is its backend)."""
        return self._last

    @property
    def profile_name(self):
        """The name of this scan's timings: ``scan[<expr>]`` after its function."""
        return "%s[%s]" % (self.name, self.scan_expr)

    def _where(self):
        return "Scan(%r)" % (self.scan_expr,)

    # -- arguments -------------------------------------------------------------
    def _bind(self, args, kwargs):
        names = self.arg_names
        if len(args) > len(names):
            raise KernelTypeError("%s takes %d argument(s) (%s), got %d positional"
                                  % (self._where(), len(names), ", ".join(names), len(args)))
        values = dict(zip(names, args))
        for key, value in kwargs.items():
            if key == "input" and key not in names and self.input_func is not None \
                    and any(value is v for k, v in kwargs.items() if k != key):
                # Compyle code passes the scanned array as input= as well as under
                # its own name; the input function reads it under that name.
                continue
            if key not in names:
                raise KernelTypeError("%s got an unexpected argument %r" % (self._where(), key),
                                      hint="its arguments are: %s" % ", ".join(names))
            if key in values:
                raise KernelTypeError("%s got argument %r twice (by position and by "
                                      "keyword)" % (self._where(), key))
            values[key] = value
        missing = [n for n in names if n not in values]
        if missing:
            raise KernelTypeError("%s is missing argument(s): %s"
                                  % (self._where(), ", ".join(missing)),
                                  hint="call it as scan(%s)" % ", ".join(
                                      "%s=..." % n for n in names))
        return [values[n] for n in names]

    def _arg_types(self, values, backend, config, strict=True):
        """One type per user argument, shared by the functions that take it."""
        demote = backend.demote_double(config)
        declared = {}
        for role in self._params:
            func = self._func(role)
            ann, _ = annotation_types(func, read_function(func))
            for name, t in ann.items():
                if name in OUTPUT_SPECIALS:
                    continue
                if demote and t.base == "double":
                    t = t.with_base("float")
                if name in declared and declared[name] != t:
                    raise KernelTypeError(
                        "argument %r of %s is annotated %s in one function and %s in "
                        "another" % (name, self._where(), declared[name], t),
                        hint="annotate it the same way everywhere")
                declared[name] = t
        given = argument_types(self.arg_names, values, declared, self._where(), backend,
                               config, strict)
        return [given[name] if name in given else declared[name] for name in self.arg_names]

    def _func(self, role):
        return {"input": self._input, "segment": self._segment, "output": self._output}[role]

    def _out_type(self, backend, config):
        out = dtype_to_ctype(self.dtype)
        if backend.demote_double(config) and out.base == "double":
            out = out.with_base("float")
        return out

    # -- building ----------------------------------------------------------------
    def _spec(self, values, backend, config, strict=True):
        out = self._out_type(backend, config)
        types = self._arg_types(values, backend, config, strict)
        by_name = dict(zip(self.arg_names, types))
        # typed on every backend: the python backend runs the functions with
        # the C types of these programs (backends/pyexec.py, Typing)
        demote = backend.demote_double(config)
        special_types = {"i": LONG, "N": LONG, "item": out, "prev_item": out,
                         "last_item": out}
        functions = {}
        for role, params in self._params.items():
            func = self._func(role)
            arg_types = {p: special_types[p] if p in OUTPUT_SPECIALS else by_name[p]
                         for p in params}
            program = type_kernel(func, arg_types, use_double=config.use_double,
                                  demote_double=demote)
            self._check_entry(role, program, by_name)
            functions[role] = ScanFunction(role, func, program, params)
        scan_program = type_kernel(self._scan, {"a": out, "b": out},
                                   use_double=config.use_double, demote_double=demote)
        return ScanSpec(functions["input"], functions.get("segment"), functions["output"],
                        scan_program, self._scan, self.arg_names, tuple(types), out,
                        neutral_value(self.neutral, out.dtype), self.complex_map,
                        self.name)

    def _check_entry(self, role, program, by_name):
        entry = program.entry
        if role == "output" and not entry.ret.is_void:
            raise KernelTypeError("the output function %s() of %s must not return a value"
                                  % (entry.name, self._where()),
                                  hint="write the result into an array argument")
        if role != "output" and not entry.ret.is_scalar:
            raise KernelTypeError("the %s function %s() of %s must return a number"
                                  % (role, entry.name, self._where()))
        for name, t in entry.args:
            want = by_name.get(name)
            if want is not None and want != t and (want.is_pointer or t.is_pointer):
                raise KernelTypeError(
                    "argument %r of %s has type %s in %s() but %s elsewhere"
                    % (name, self._where(), t, entry.name, want),
                    hint="annotate it the same way in every function")

    def _build(self, values, backend, config):
        return backend.build_scan(self._spec(values, backend, config), config)

    def _argument_names(self, args):
        return self.arg_names

    def _user_functions(self):
        return [self._func(role) for role in self._params]

    def __call__(self, *args, **kwargs):
        fast = self._fast
        if fast is not None:
            try:
                if fast(args, kwargs) is not None:
                    return
            except OverflowError as exc:
                self._raise_range_error(self._last, self._bind(args, kwargs), exc)
                raise
        stamp = self._stamp()
        values = self._bind(args, kwargs)
        config, backend = self._call_setup()
        built = self._kernel(values, backend, config)
        dev, n = device_values(self.arg_names, values, self._where(), backend)
        if config.bounds_check:         # the kernels cannot check: see scan_check.py
            check_functions(self, values, n)
            self._fast = None
        self._launch(built, backend, config, n, dev)
        if not config.bounds_check:
            self._remember_fast(built, values, stamp, backend, config)

    def generated_for(self, backend, config, args):
        """The :class:`~pcompute.records.GeneratedKernel` a call with the
        positional ``args`` builds on ``backend`` under ``config``, or None
        when it is built already (for
        :meth:`~pcompute.backends.base.Backend.prebuild`).  Builds nothing."""
        values = self._bind(args, {})
        if self._memo_key(values, backend, config) in self._memo:
            return None
        return backend.generate_scan(self._spec(values, backend, config), config)

    def checks_generated_for(self, backend, config, args):
        """The generated kernels of the bounds checks a call with ``args``
        runs first under ``config.bounds_check`` (:mod:`.scan_check`; none
        without), those built already left out (for
        :meth:`~pcompute.backends.base.Backend.prebuild`).  Builds nothing."""
        if not config.bounds_check:
            return []
        return generated_checks(self, backend, config, self._bind(args, {}))

    def generate(self, backend, *args, **kwargs):
        """The source the scan would compile on ``backend`` (a name) for these
        arguments (numpy arrays and numbers stand for the real ones), under
        the current configuration; compiles and runs nothing, so CUDA C can
        be produced without a GPU."""
        values = self._bind(args, kwargs)
        be = get_backend(backend)
        if not be.generates_source:
            raise KernelValueError("the %s backend runs Python directly and generates "
                                   "no source" % be.name)
        config = get_config()
        return be.generate_scan(self._spec(values, be, config, strict=False),
                                config).source


__all__ = ["Scan", "ScanSpec", "ScanFunction"]
