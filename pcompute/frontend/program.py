"""Typing a kernel and every helper it reaches into a TypedProgram."""
import inspect
import types as pytypes
from dataclasses import replace

from ..errors import InternalError, KernelTypeError
from ..types import DOUBLE, FLOAT, names_address_space, parse_type
from .checker import check_function
from .defaults import default_declarations
from .ir import TypedProgram
from .names import RESERVED_FUNCTIONS, _printed_name
from .source import read_function
from .ir import _join
from .typeinfer import FunctionTyper


def annotation_types(func, src):
    """Argument and return types from @annotate or Python annotations."""
    ann = getattr(func, "__annotations__", None) or {}
    arg_types, ret = {}, None
    for name, value in ann.items():
        try:
            t = parse_type(value)
        except KernelTypeError as exc:
            raise src.error(KernelTypeError, src.tree, "bad annotation for %r: %s"
                            % (name, exc.message), exc.hint)
        if name == "return":
            ret = t
        else:
            arg_types[name] = t
    return arg_types, ret


class ProgramTyper:
    """Types an entry function and every helper it reaches."""

    def __init__(self, use_double=True, demote_double=False, single_literals=None):
        self.use_double = use_double
        self.demote_double = demote_double
        # A float literal that meets no float value, float(...) and the true
        # division of integers are Python floats, so double, as a Python float
        # argument is (primitives.args.scalar_float_type); only a device
        # computing in float32 (demote_double) makes them float.
        if single_literals is None:
            single_literals = demote_double
        self.float_type = FLOAT if single_literals else DOUBLE
        self.signatures = {}
        self.c_names = {}
        # Methods of user classes: function -> printed name ``Class_method``.
        self.method_names = {}
        # (class name, method name) -> the function typed for it (the
        # translator's copies of methods with their declared types).
        self.methods = {}

    def fix(self, t):
        """Apply the precision decision: double becomes float when demoting."""
        if self.demote_double and t is not None and t.base == "double":
            return t.with_base("float")
        return t

    def version_key(self, func, arg_types):
        """The key of the version of helper ``func`` that a call passing
        ``arg_types`` (in order) uses.

        A helper is typed once per combination of address spaces of the arrays
        it is passed: the all-global version, the common case, is keyed by the
        function alone; one called with a local ``declare('matrix(n)')`` (or a
        ``__local`` array) gets a version of its own, ``(func, spaces)``.
        """
        spaces = tuple(_space_of(t) if t is not None and not t.is_scalar else None
                       for t in arg_types)
        if all(sp in (None, "global") for sp in spaces):
            return func
        return (func, spaces)

    def c_name_of(self, key):
        """The printed name of a helper version (see :meth:`version_key`): the
        first version typed keeps the function's name, a later one adds its
        address spaces (``put2_private``, ``put2_global``)."""
        if key not in self.c_names:
            func = _func_of(key)
            base = _printed_name(func.__name__, RESERVED_FUNCTIONS)
            if func in self.method_names:
                base = self.method_names[func]
            elif func.__name__.startswith("pc_"):  # the prefix of pcompute's own names
                base = "pc_u_" + func.__name__
            if any(_func_of(k) is func for k in self.c_names):
                # another version of the helper holds the plain name
                base += "_" + ("_".join(sorted({sp for sp in key[1]
                                                if sp not in (None, "global")}))
                               if key is not func else "global")
            used = set(self.c_names.values())
            name, k = base, 1
            while name in used:
                name = "%s_%d" % (base, k)
                k += 1
            self.c_names[key] = name
        return self.c_names[key]

    def method_of(self, info, name):
        """The function of method ``name`` of the struct ``info``'s class (a
        translator's stand-in from ``methods`` first), or None."""
        if (info.name, name) in self.methods:
            return self.methods[(info.name, name)]
        raw = inspect.getattr_static(info.cls, name, None) if info.cls else None
        return raw if isinstance(raw, pytypes.FunctionType) else None

    def current_ret(self, key):
        return self.partial_ret.get(key)

    def type_program(self, func, arg_types=None):
        arg_types = {k: self.fix(parse_type(v)) for k, v in (arg_types or {}).items()}
        for _ in range(20):
            self.widened = False
            self.typed = {}
            self.in_progress = set()
            self.partial_ret = {}
            self.recursive = set()
            entry = self._type(func, None, None, arg_types, entry=True)
            if not self.widened:
                break
        else:
            raise InternalError("helper signatures did not converge")
        order = []
        seen = set()

        def visit(f):
            if f.c_name in seen:
                return
            seen.add(f.c_name)
            for callee in f.callees:
                visit(self.by_cname[callee])
            order.append(f)
        self.by_cname = {f.c_name: f for f in self.typed.values()}
        visit(entry)
        return TypedProgram(entry=entry, functions=tuple(order),
                            use_double=self.use_double,
                            recursive=frozenset(self.recursive))

    def request(self, func, node, caller_src, arg_types):
        src = read_function(func)
        params = [a.arg for a in src.tree.args.args]
        if len(arg_types) != len(params):
            hint = ("pass one value for each parameter: %s(%s)"
                    % (func.__name__, ", ".join(params)))
            if src.tree.args.defaults:
                hint += ("; default values only declare types in kernels, they "
                         "are never filled in")
            raise caller_src.error(KernelTypeError, node,
                                   "%s() takes %d argument(s) but %d were given"
                                   % (func.__name__, len(params), len(arg_types)), hint)
        key = self.version_key(func, arg_types)
        return self._type(func, node, caller_src, dict(zip(params, arg_types)), key=key)

    def _type(self, func, node, caller_src, call_types, entry=False, key=None):
        key = func if key is None else key
        src = read_function(func)
        ann_args, ann_ret = annotation_types(func, src)
        ann_args = {k: self.fix(v) for k, v in ann_args.items()}
        ann_ret = self.fix(ann_ret)
        params = [a.arg for a in src.tree.args.args]
        if entry:
            # Compyle's spelling def f(i=0, x=[0.0]): a default value declares
            # the type of an argument that neither an annotation nor the call
            # types (a passed value wins over its default, as in Python).
            declared = {k: self.fix(v) for k, v in default_declarations(src).items()}
            types = {}
            for p in params:
                t = ann_args.get(p) or call_types.get(p) or declared.get(p)
                if t is None:
                    raise src.error(KernelTypeError, src.tree,
                                    "cannot tell the type of argument %r of %s()"
                                    % (p, src.name),
                                    "annotate it, e.g. @annotate(%s='gdoublep'), or let "
                                    "pcompute infer it from the call's arguments" % p)
                types[p] = t
        else:
            sig = self.signatures.get(key)
            generic = _generic_pointers(func)
            types = {}
            for p in params:
                given = call_types.get(p)
                if p in ann_args:
                    want = ann_args[p]
                    if (given is not None and not given.is_scalar and want.is_pointer
                            and given.base != want.base):
                        raise caller_src.error(
                            KernelTypeError, node, "argument %r of %s() is annotated %s "
                            "but an array of %s is passed"
                            % (p, src.name, replace(want, space="") if p in generic
                               else want, given.base),
                            "pass %s data, or annotate the parameter '%sp' (or leave it "
                            "unannotated to take the type of what is passed)"
                            % (want.base, given.base))
                    if p in generic and given is not None and not given.is_scalar:
                        # doublep / 'double*': the space of what is passed
                        want = replace(want, space=_space_of(given))
                    if given is not None and given.is_scalar != want.is_scalar:
                        raise caller_src.error(
                            KernelTypeError, node, "argument %r of %s() is a %s but a %s "
                            "is passed" % (p, src.name, want, given))
                    if given is not None and given.is_float and want.is_int:
                        raise caller_src.error(
                            KernelTypeError, node, "argument %r of %s() is annotated %s "
                            "but a %s is passed: Python would not convert it, C would "
                            "truncate it" % (p, src.name, want, given),
                            "convert it explicitly: %s(int(...)), or annotate the "
                            "parameter as a float" % src.name)
                    types[p] = want
                    continue
                old = sig.get(p) if sig else None
                joined = _join(old, given)
                if joined is False:
                    raise caller_src.error(
                        KernelTypeError, node, "%s() is called with a %s and with a %s for "
                        "argument %r" % (src.name, old, given, p),
                        "annotate the helper, or pass the same kind of value")
                if old is not None and joined != old:
                    self.widened = True
                types[p] = joined
                if types[p] is None:
                    raise caller_src.error(KernelTypeError, node, "cannot infer the type "
                                           "of argument %r of %s()" % (p, src.name))
            self.signatures[key] = dict(types)
        if key in self.typed:
            return self.typed[key]
        if key in self.in_progress:
            self.recursive.add(self.c_name_of(key))
            if ann_ret is not None:
                self.partial_ret[key] = ann_ret
            return None
        if not entry:
            check_function(src, struct_names(types))
        self.in_progress.add(key)
        self.partial_ret.setdefault(key, ann_ret)
        typer = FunctionTyper(self, src, types, ann_ret)
        typer.annotated = frozenset(ann_args)
        ret = typer.run()
        if key in self.recursive_keys():
            for _ in range(10):
                if self.partial_ret.get(key) == ret:
                    break
                self.partial_ret[key] = ret
                typer = FunctionTyper(self, src, types, ann_ret)
                typer.annotated = frozenset(ann_args)
                ret = typer.run()
        self.in_progress.discard(key)
        c_name = self.c_name_of(key)
        result = typer.result(c_name, ret)
        if c_name in self.recursive:
            result = _with_feature(result, "recursion")
        self.typed[key] = result
        return result

    def recursive_keys(self):
        return {k for k, n in self.c_names.items() if n in self.recursive}


def _func_of(key):
    return key[0] if isinstance(key, tuple) else key


def _space_of(t):
    """The address space of an array value passed to a helper: a local
    ``declare('matrix(n)')`` is private (or ``__local``), an array global."""
    if t.shape:
        return t.space or "private"
    return t.space or "global"


def _generic_pointers(func):
    """Arguments of ``func`` annotated as pointers without an address space
    (``doublep``, ``'double*'``; see :func:`~pcompute.types.names_address_space`)."""
    ann = getattr(func, "__annotations__", None) or {}
    return {name for name, value in ann.items()
            if name != "return" and not names_address_space(value)}


def _with_feature(typed, feature):
    return replace(typed, features=typed.features | {feature})


def struct_names(types):
    """The names among ``types`` ({name: CType}) that hold a struct."""
    return {name for name, t in types.items() if t is not None and t.is_struct}


def type_kernel(func, arg_types=None, use_double=True, demote_double=False,
                single_literals=None, method_names=None, methods=None):
    """Check and type ``func`` and its helpers; return a :class:`TypedProgram`.

    ``arg_types`` maps argument names to types for arguments without
    annotations (call-time inference); float literals that meet no float,
    ``float(...)`` and true division of integers are double, except with
    ``demote_double``, which turns every double into float (devices running
    in single precision, i.e. without ``use_double``).  ``single_literals``
    (default: ``demote_double``) makes those float without demoting the rest
    (the translator's OpenCL/CUDA text for a single-precision device).
    ``use_double`` is recorded in the program.  ``method_names`` maps
    functions that are methods of a user class to their printed names
    (``Class_method``; the methods a kernel calls are named so anyway);
    ``methods`` maps (class name, method name) to the function that stands
    for the method (see :meth:`ProgramTyper.method_of`).
    """
    src = read_function(func)
    try:
        given = {k: parse_type(v) for k, v in (arg_types or {}).items()}
        given.update(annotation_types(func, src)[0])
    except KernelTypeError:
        given = {}  # reported, located, when the kernel is typed
    check_function(src, struct_names(given))
    typer = ProgramTyper(use_double, demote_double, single_literals)
    typer.method_names.update(method_names or {})
    typer.methods.update(methods or {})
    return typer.type_program(func, arg_types)
