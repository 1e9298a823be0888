"""The shared printer of typed kernels in C-like dialects.

:class:`CPrinter` prints a :class:`~pcompute.frontend.ir.TypedFunction`
as C; OpenCL C and CUDA C subclass it for their qualifiers and names, and the
Cython printer overrides statements and a few operators.  Expressions are
parenthesised by the dialect's precedence table, so the output stays readable.
Every AST node type is dispatched explicitly; an unknown one is a bug.
"""
import ast
import math
from fractions import Fraction

import numpy as np

from ..errors import InternalError, KernelTypeError
from ..types import CType, LONG
from ..bounds import ERR, sites
from .arrays import flat_index, hidden_names, shape_name
from .runtime import SIGNED, UNSIGNED, helper_name, runtime_source

# C operator precedence (higher binds tighter).
C_PREC = {
    "atom": 16, "unary": 15, "*": 13, "/": 13, "%": 13, "+": 12, "-": 12,
    "<<": 11, ">>": 11, "<": 10, "<=": 10, ">": 10, ">=": 10, "==": 9, "!=": 9,
    "&": 8, "^": 7, "|": 6, "&&": 5, "||": 4, "?:": 3,
}

BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/",
          ast.LShift: "<<", ast.RShift: ">>", ast.BitOr: "|", ast.BitXor: "^",
          ast.BitAnd: "&", ast.Mod: "%", ast.FloorDiv: "//", ast.Pow: "**"}
CMPOPS = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">",
          ast.GtE: ">="}

C_TYPES = {"bool": "int", "char": "signed char", "uchar": "unsigned char",
           "short": "short", "ushort": "unsigned short", "int": "int",
           "uint": "unsigned int", "long": "long long", "ulong": "unsigned long long",
           "float": "float", "double": "double", "void": "void"}

_UNSIGNED_OR_BOOL = frozenset(UNSIGNED + ("bool",))


def _literal_count(node):
    """The value of an integer literal operand (a shift count), else None."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    return None


def _bits(t):
    """The width of the integer type ``t`` after C's promotion."""
    return 64 if t.base in ("long", "ulong") else 32


def _c_promoted(base):
    """The type C computes a ``base`` operand of a shift in (smaller
    integers and bool are promoted to int)."""
    return "int" if base in ("bool", "char", "uchar", "short", "ushort") else base


def float32_text(value):
    """Decimal text of ``value`` rounded to float32 (as Python's
    ``numpy.float32(value)`` rounds it) that every C compiler reads back as
    that same float32.

    A literal that float32 cannot hold exactly is written as the float32 it
    rounds to, so that no compiler has to round it: they disagree on ties
    (nvcc 13 reads ``16777217.0f``, halfway between two float32 values, as
    16777218 where C and Python give 16777216).  The shortest text that
    round-trips (``0.1``) is used unless it lies exactly halfway between two
    float32 values itself; then the float32's exact double text is."""
    value = float(value)
    with np.errstate(over="ignore"):
        single = np.float32(value)
    if not np.isfinite(single) or float(single) == value:
        return repr(value)
    if single == 0:                    # underflow to a signed zero
        return "-0.0" if np.signbit(single) else "0.0"
    if 1e-4 <= abs(value) < 1e16:
        short = np.format_float_positional(single, unique=True, trim="0")
    else:
        short = np.format_float_scientific(single, unique=True, trim="0")
    exact = Fraction(float(single))
    q = Fraction(short)
    for other in (np.nextafter(single, np.float32(-np.inf)),
                  np.nextafter(single, np.float32(np.inf))):
        if np.isfinite(other) and q == (exact + Fraction(float(other))) / 2:
            return repr(float(single))
    return short

class Code:
    """Lines with indentation."""

    def __init__(self, indent="    "):
        self.lines = []
        self.level = 0
        self.indent = indent

    def add(self, line):
        self.lines.append(self.indent * self.level + line if line else "")

    def text(self):
        return "\n".join(self.lines)


class CPrinter:
    """Prints typed functions as C (the base of the OpenCL and CUDA printers)."""

    dialect = "c"
    prec = C_PREC
    # True where the dialect reads `a < b == c` as a chain (Cython): a
    # comparison operand of a comparison is then parenthesised on both sides.
    chained_comparisons = False
    # Signed integer + - * << and unary - wrap around (two's complement), as
    # the python backend computes them.  True where the compiler is told so
    # (Cython's C is built with -fwrapv); OpenCL C and CUDA have no such
    # option, so their printers compute these in the unsigned type of the
    # same width (defined to wrap) and convert back (see wrapping_text).
    signed_wraps_natively = False
    type_names = C_TYPES
    helper_qualifier = "static inline"
    function_qualifier = "static"
    long_suffix = "LL"
    and_op, or_op, not_op = "&&", "||", "!"
    # The device templates' dialect (templates/device_preamble.mako, through
    # pcompute.codegen.device_preamble): kernel, memory-space, barrier and
    # work-item macros as (name, definition) pairs and the fixed-width
    # integer names as (C type, name) pairs; None where the dialect has no
    # device templates.
    device_macros = None
    device_typedefs = None

    @classmethod
    def device_extensions(cls, double):
        """The lines a device template starts with (``double``: it computes
        in double precision)."""
        return ()

    def __init__(self, program):
        self.program = program
        self.needed = set()
        self.includes = set()
        self.externs = {}
        # Structs of the objects passed to the functions printed (name ->
        # StructInfo), defined before the functions; the translator defines
        # its own (define_structs False).
        self.structs = {}
        self.define_structs = True
        self.unsigned_forms = {}    # see wrapping_text

    # -- names and types ----------------------------------------------------
    def type_name_of(self, base):
        return self.type_names[base]

    def type_name(self, t):
        if t.is_struct:
            return "%s%s*" % (self.space_prefix(t.space), t.struct.name)
        if t.pointer:
            # numpy bools are one byte each: a bool array is an unsigned char array.
            base = "uchar" if t.base == "bool" else t.base
            return "%s%s*" % (self.space_prefix(t.space), self.type_name_of(base))
        return self.type_name_of(t.base)

    def space_prefix(self, space):
        return ""

    def math_name(self, name, base):
        """Name of a math function for operands of type ``base`` in user code."""
        return self.c_math_name(name, base)

    def c_math_name(self, name, base):
        """C name of a math function for operands of type ``base``."""
        if name == "abs":
            name = "fabs"
        if base == "float" and name not in ("isnan", "isinf"):
            return name + "f"
        return name

    def cast(self, t, text, prec):
        return "(%s)%s" % (self.type_name(t), self.wrap(text, prec, self.prec["unary"]))

    def wrap(self, text, prec, need):
        return text if prec >= need else "(%s)" % text

    def need(self, kind, base):
        self.needed.add((kind, base))
        return helper_name(kind, base)

    # -- functions ----------------------------------------------------------
    def declarations(self, fn):
        """Declarations of a function's locals, one per line."""
        out = []
        for name, t in fn.locals:
            cname = fn.cname(name)
            if t.shape:
                dims = "".join("[%d]" % d for d in t.shape)
                out.append("%s%s %s%s;" % (self.local_array_prefix(t.space),
                                           self.type_name_of(t.base), cname, dims))
            else:
                out.append("%s %s;" % (self.type_name(t), cname))
        return out

    def local_array_prefix(self, space):
        return ""

    def param(self, name, t):
        """One parameter declaration; a local array (declare('matrix(n)')) is
        passed by address, so the callee writes the caller's array as in Python."""
        if t.shape:
            return "%s%s %s%s" % (self.param_array_prefix(t.space), self.type_name_of(t.base),
                                  name, "".join("[%d]" % d for d in t.shape))
        if t.is_ndarray:  # the pointer, then its shape and strides (codegen/arrays.py)
            return ", ".join(["%s %s" % (self.type_name(t), name)] + [
                "%s %s" % (self.type_name(LONG), h) for h in hidden_names(name, t)])
        return "%s %s" % (self.type_name(t), name)

    def param_array_prefix(self, space):
        return ""

    def signature(self, fn):
        params = ", ".join(self.param(fn.cname(n), t) for n, t in fn.args)
        return "%s %s(%s)" % (self.type_name(fn.ret), fn.c_name, params or "void")

    def function_prefix(self, fn):
        return self.function_qualifier

    def note_structs(self, fn):
        """Record the structs of ``fn``'s object arguments."""
        for _, t in fn.args:
            if t.is_struct and t.struct.fields_known:
                old = self.structs.setdefault(t.struct.name, t.struct)
                if old != t.struct:
                    raise fn.src.error(
                        KernelTypeError, fn.tree, "two different classes named %s (or "
                        "objects of one class with different attributes) are used in "
                        "one kernel" % t.struct.name,
                        "give each object of a class the same number attributes")

    def struct_definitions(self):
        """The C definitions of the recorded structs (fields in the order of
        :func:`pcompute.cstruct.struct_record`'s record)."""
        out = []
        for name, info in sorted(self.structs.items()):
            fields = ["    %s %s;" % (self.type_name_of(t.base), n) for n, t in info.fields]
            out.append("typedef struct %s {\n%s\n} %s;" % (
                name, "\n".join(fields or ["    int pc_empty;"]), name))
        return "\n\n".join(out)

    def print_function(self, fn):
        self.note_structs(fn)
        self.fn = fn
        code = Code()
        prefix = self.function_prefix(fn)
        code.add(("%s %s" % (prefix, self.signature(fn))).strip())
        code.add("{")
        code.level += 1
        for line in self.declarations(fn):
            code.add(line)
        self.block(code, fn.tree.body)
        code.level -= 1
        code.add("}")
        return code.text()

    def prototypes(self):
        return ["%s %s;" % (self.function_prefix(fn), self.signature(fn))
                for fn in self.program.functions]

    def print_program(self):
        """(runtime helper text, user function text) for the whole program."""
        bodies = [self.print_function(fn) for fn in self.program.functions]
        if self.program.recursive:
            bodies = ["\n".join(p.strip() for p in self.prototypes())] + bodies
        return self.module_runtime(), "\n\n".join(bodies)

    # -- what a module of several programs needs from its dialect ------------
    #: between two printed functions of a module
    function_separator = "\n\n"
    #: the first line(s) of a module of translated functions
    module_header = ""

    def check_recursion(self):
        """Raise a located error when the dialect cannot run the program's
        recursion (called for recursive programs only)."""

    def forward_declarations(self):
        """What a module prints before the functions of a recursive
        program: C needs their prototypes."""
        return self.prototypes()

    def module_runtime(self):
        """The runtime helpers and Extern code the printed functions use."""
        return self.with_externs(runtime_source(self.needed, self))

    def module_prelude(self, runtime, functions):
        """The lines a module of translated functions starts with after its
        header (``runtime`` and ``functions`` are its text)."""
        return []

    def with_externs(self, runtime):
        """``runtime`` preceded by the code of the Extern functions called."""
        codes = [ext.code(self.dialect).strip() for ext in self.externs.values()]
        if self.define_structs and self.structs:
            codes.insert(0, self.struct_definitions())
        return "\n\n".join([c for c in codes if c] + ([runtime] if runtime else []))

    # -- statements ---------------------------------------------------------
    def block(self, code, stmts):
        for stmt in stmts:
            method = getattr(self, "stmt_" + type(stmt).__name__, None)
            if method is None:
                raise InternalError("no printer for statement %s" % type(stmt).__name__)
            method(code, stmt)

    def stmt_Pass(self, code, node):
        pass

    def stmt_Break(self, code, node):
        code.add("break;")

    def stmt_Continue(self, code, node):
        code.add("continue;")

    def stmt_Return(self, code, node):
        if node.value is None:
            code.add("return;")
        else:
            code.add("return %s;" % self.expr(node.value)[0])

    def stmt_Expr(self, code, node):
        if isinstance(node.value, ast.Constant):
            return
        code.add("%s;" % self.expr(node.value)[0])

    def assign_line(self, target, value):
        return "%s = %s;" % (target, value)

    def stmt_Assign(self, code, node):
        fn = self.fn
        target = node.targets[0]
        if id(node) in fn.declares:
            self.print_declare(code, node, fn.declares[id(node)])
            return
        if isinstance(target, ast.Tuple):
            temps = fn.swaps[id(node)]
            for tmp, value in zip(temps, node.value.elts):
                code.add(self.assign_line(tmp, self.expr(value)[0]))
            for elt, tmp in zip(target.elts, temps):
                code.add(self.assign_line(self.expr(elt)[0], tmp))
            return
        value = self.store_value(self.fn.type_of(target), self.fn.type_of(node.value),
                                 self.expr(node.value))
        code.add(self.assign_line(self.expr(target)[0], value))

    def store_value(self, ttype, vtype, part):
        """The text of ``part`` (of type ``vtype``) converted for a store into
        ``ttype``, as Python/NumPy store it: a float into an integer truncates
        towards zero (an explicit cast, never an implicit narrowing), anything
        into a bool element is its truth value."""
        if ttype is None or vtype is None or ttype == vtype or not ttype.is_scalar:
            return part[0]
        if ttype.base == "bool":
            return "%s != 0" % self.wrap(part[0], part[1], self.prec["!="] + 1)
        if ttype.is_int and vtype.is_float:
            if ttype.base in ("long", "ulong"):
                return self.cast(ttype, *part)
            # Truncate to 64 bits first (defined for every float below 2**63),
            # then narrow as integers do (wrapping, as NumPy's store does); a
            # float cast straight to a narrower type is undefined out of range.
            wide = self.cast(CType("long"), *part)
            return self.cast(ttype, wide, self.prec["unary"])
        return part[0]

    def print_declare(self, code, node, t):
        target = node.targets[0]
        names = target.elts if isinstance(target, ast.Tuple) else [target]
        for name_node in names:
            cname = self.fn.cname(name_node.id)
            if t.shape:
                if t.space == "local":
                    continue
                total = 1
                for d in t.shape:
                    total *= d
                self.zero_array(code, cname, t, total)
            else:
                code.add(self.assign_line(cname, "0"))

    def zero_array(self, code, cname, t, total):
        flat = cname if len(t.shape) == 1 else "(&%s%s)" % (cname, "[0]" * len(t.shape))
        code.add("for (int pc_z = 0; pc_z < %d; pc_z++) %s[pc_z] = 0;" % (total, flat))

    def stmt_AugAssign(self, code, node):
        temps = self.fn.augs.get(id(node))
        if temps and any(temps):
            target_text = self.hoisted_target(code, node.target, temps)
        else:
            target_text = self.expr(node.target)[0]
        ttype = self.fn.type_of(node.target)
        rtype = self.fn.type_of(node.value)
        op = BINOPS[type(node.op)]
        result = self.fn.types[id(node)]
        converts = ttype.is_scalar and (ttype.base == "bool" or
                                        (ttype.is_int and result.is_float))
        count = _literal_count(node.value)
        plain = op in "+-*&|^" or (op in ("<<", ">>") and
                                   self.plain_shift(ttype, result, count))
        if plain and not converts and not self.wraps_here(op, result):
            code.add("%s %s= %s;" % (target_text, op, self.expr(node.value)[0]))
            return
        part = self.binop_text(op, (target_text, self.prec["atom"]), ttype,
                               self.expr(node.value), rtype, result, count, node)
        code.add(self.assign_line(target_text, self.store_value(ttype, result, part)))

    def hoisted_target(self, code, target, temps):
        """The text of a subscript target whose indices with calls are first
        stored in their temporaries (innermost first, as Python evaluates)."""
        levels = []
        while isinstance(target, ast.Subscript):
            levels.append(target)
            target = target.value
        text = self.expr(target)[0]
        for sub, tmp in reversed(list(zip(levels, temps))):
            index = self.index_text(sub)
            if tmp is not None:
                code.add(self.assign_line(tmp, index))
                index = tmp
            text = "%s[%s]" % (text, index)
        return text

    def stmt_If(self, code, node):
        code.add("if (%s) {" % self.expr(node.test)[0])
        code.level += 1
        self.block(code, node.body)
        code.level -= 1
        orelse = node.orelse
        while len(orelse) == 1 and isinstance(orelse[0], ast.If):
            inner = orelse[0]
            code.add("} else if (%s) {" % self.expr(inner.test)[0])
            code.level += 1
            self.block(code, inner.body)
            code.level -= 1
            orelse = inner.orelse
        if orelse:
            code.add("} else {")
            code.level += 1
            self.block(code, orelse)
            code.level -= 1
        code.add("}")

    def stmt_With(self, code, node):
        # `with nogil:` / `with parallel():`: the kernel is already nogil.
        self.block(code, node.body)

    def stmt_While(self, code, node):
        code.add("while (%s) {" % self.expr(node.test)[0])
        code.level += 1
        self.block(code, node.body)
        code.level -= 1
        code.add("}")

    def range_parts(self, node):
        args = node.iter.args
        if len(args) == 1:
            return ("0", self.prec["atom"]), self.expr(args[0]), None
        return self.expr(args[0]), self.expr(args[1]), (args[2] if len(args) == 3 else None)

    def stmt_For(self, code, node):
        fn = self.fn
        info = fn.loops[id(node)]
        var = fn.cname(node.target.id)
        start, stop, step = self.range_parts(node)
        stop_text = stop[0]
        if info.stop:
            code.add(self.assign_line(info.stop, stop_text))
            stop_text = info.stop
        counter = info.shadow or var
        if info.simple:
            code.add("for (%s = %s; %s < %s; %s++) {" % (counter, start[0], counter,
                                                         stop_text, counter))
        elif info.count is None:
            value = self.literal_step(step)
            cmp, inc = ("<", "+=") if value > 0 else (">", "-=")
            code.add("for (%s = %s; %s %s %s; %s %s %d) {"
                     % (counter, start[0], counter, cmp, stop_text, counter, inc,
                        abs(value)))
        else:
            code.add(self.assign_line(info.start, start[0]))
            code.add(self.assign_line(info.step, self.expr(step)[0]))
            code.add(self.assign_line(info.count, "%s(%s, %s, %s)" % (
                self.need("rangelen", self.local_type(info.count).base), info.start,
                stop_text, info.step)))
            code.add("for (%s = 0; %s < %s; %s++) {" % (info.counter, info.counter,
                                                         info.count, info.counter))
        code.level += 1
        if info.count is not None:
            code.add(self.assign_line(var, "%s + %s * %s" % (info.start, info.counter,
                                                             info.step)))
        elif info.shadow:
            code.add(self.assign_line(var, info.shadow))
        self.block(code, node.body)
        code.level -= 1
        code.add("}")

    def local_type(self, name):
        """The type of a local (hidden ones included) of the current function."""
        for local, t in self.fn.locals:
            if local == name:
                return t
        raise InternalError("no local %r in %s" % (name, self.fn.name))

    @staticmethod
    def literal_step(step):
        if isinstance(step, ast.Constant):
            return step.value
        return -step.operand.value

    # -- expressions: each returns (text, precedence) ----------------------
    def expr(self, node):
        method = getattr(self, "expr_" + type(node).__name__, None)
        if method is None:
            raise InternalError("no printer for expression %s" % type(node).__name__)
        return method(node)

    def literal(self, value, t):
        if isinstance(value, bool):
            return "1" if value else "0"
        if isinstance(value, int):
            if t is not None and t.is_float:    # converted to a float (typeinfer)
                return self.float_literal(float(value), t)
            if t is not None and t.base in ("long", "ulong"):
                return "%d%s" % (value, self.long_suffix)
            return str(value)
        return self.float_literal(value, t)

    def float_literal(self, value, t):
        if math.isinf(value):
            return "INFINITY" if value > 0 else "(-INFINITY)"
        if math.isnan(value):
            return "NAN"
        single = t is not None and t.base == "float"
        text = float32_text(value) if single else repr(float(value))
        if "e" not in text and "." not in text and "inf" not in text:
            text += ".0"
        return text + ("f" if single else "")

    def expr_Constant(self, node):
        t = self.fn.types.get(id(node))
        text = self.literal(node.value, t)
        return text, self.prec["atom"] if not text.startswith("(") else self.prec["atom"]

    def expr_Name(self, node):
        return self.fn.cname(node.id), self.prec["atom"]

    def expr_Subscript(self, node):
        value = node.value
        if isinstance(value, ast.Attribute):  # a.shape[d]
            return shape_name(self.fn.cname(value.value.id), node.slice.value), \
                self.prec["atom"]
        base_type = self.fn.type_of(value)
        if base_type.shape and isinstance(node.slice, ast.Tuple):  # m[i, j] on a matrix
            text = self.expr(value)[0]
            for index in node.slice.elts:
                text += "[%s]" % self.expr(index)[0]
            return text, self.prec["atom"]
        base = self.expr(value)
        return "%s[%s]" % (self.wrap(base[0], base[1], self.prec["atom"]),
                           self.index_text(node)), self.prec["atom"]

    def index_text(self, node):
        """The text between the brackets of ``node`` (a Subscript): the flat
        offset of an n-D array element, else the index itself."""
        base_type = self.fn.type_of(node.value)
        if not base_type.is_ndarray:
            return self.expr(node.slice)[0]
        indices = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        texts = [self.wrap(*self.expr(i), self.prec["*"]) for i in indices]
        cname = self.fn.cname(node.value.id)
        if self.program.bounds_check and id(node) != getattr(self, "_prefetched", None):
            site = self.bound_sites()[id(node)]  # pcompute/bounds.py
            texts = ["%s(%s, %s, %d, %d, %s)" % (self.need("bound", "long"), self.expr(i)[0],
                                                 shape_name(cname, d), site, d, ERR)
                     for d, i in enumerate(indices)]
        return flat_index(cname, base_type, texts)

    def bound_sites(self):
        """{id(access): site number} of the program's checked array accesses."""
        cached = getattr(self, "_sites", None)
        if cached is None or cached[0] is not self.program:
            cached = self._sites = (self.program, sites(self.program)[0])
        return cached[1]

    def bound_helper(self):
        """The C text of ``pc_bound_long`` (see pcompute/bounds.py)."""
        T = self.type_name_of("long")
        return ("%s %s pc_bound_long(%s i, %s n, %s site, %s axis, %s%s *err)\n{\n"
                "    if (i >= 0 && i < n) return i;\n"
                "    if (err[0] == 0) {\n"
                "        err[0] = site; err[1] = axis; err[2] = i; err[3] = n;\n"
                "    }\n    return 0;\n}"
                % (self.helper_qualifier, T, T, T, T, T, self.space_prefix("global"), T))

    def shift_count_helper(self):
        """The C text of ``pc_shcount_long`` (see pcompute/bounds.py)."""
        T = self.type_name_of("long")
        return ("%s %s pc_shcount_long(%s n, %s site, %s%s *err)\n{\n"
                "    if (n < 0 && err[0] == 0) {\n"
                "        err[0] = site; err[1] = 0; err[2] = n; err[3] = 0;\n"
                "    }\n    return n;\n}"
                % (self.helper_qualifier, T, T, T, self.space_prefix("global"), T))

    def expr_Attribute(self, node):
        """``a.ndim`` (a constant of the type) and ``a.size`` (the product of
        the hidden shape scalars); ``obj.field`` of an object's struct."""
        t = self.fn.type_of(node.value)
        if t.is_struct:
            return self.field_text(self.fn.cname(node.value.id), node.attr), \
                self.prec["atom"]
        if node.attr == "ndim":
            return str(t.ndim), self.prec["atom"]
        cname = self.fn.cname(node.value.id)
        names = [shape_name(cname, d) for d in range(t.ndim)]
        if len(names) == 1:
            return names[0], self.prec["atom"]
        return " * ".join(names), self.prec["*"]

    def field_text(self, pointer, field):
        """A field of the struct a pointer points to."""
        return "%s->%s" % (pointer, field)

    def call_len(self, node):
        t = self.fn.type_of(node.args[0])
        if t.shape:
            return self.literal(t.shape[0], LONG), self.prec["atom"]
        return shape_name(self.fn.cname(node.args[0].id), 0), self.prec["atom"]

    def expr_UnaryOp(self, node):
        operand = self.expr(node.operand)
        if isinstance(node.op, ast.Not):
            return self.not_text(operand)
        sym = {ast.USub: "-", ast.UAdd: "+", ast.Invert: "~"}[type(node.op)]
        result = self.fn.type_of(node)
        if sym == "-" and self.wraps_here("-", result) and \
                not isinstance(node.operand, ast.Constant):
            unsigned = CType("u" + result.base)
            inner = self.as_unsigned(operand, unsigned)
            text = self.wrap(inner[0], inner[1], self.prec["unary"])
            if text[:1] in "-+~":       # -(-x), never --x
                text = "(%s)" % text
            inner = "-" + text, self.prec["unary"]
            text = "(%s)(%s)" % (self.type_name(result), inner[0])
            self.unsigned_forms[text] = (unsigned, inner)
            return text, self.prec["unary"]
        text = self.wrap(operand[0], operand[1], self.prec["unary"])
        if text[:1] in "-+~":
            text = "(%s)" % text
        return sym + text, self.prec["unary"]

    def not_text(self, operand):
        return "!" + self.wrap(operand[0], operand[1], self.prec["unary"]), self.prec["unary"]

    def expr_BoolOp(self, node):
        op = self.and_op if isinstance(node.op, ast.And) else self.or_op
        p = self.prec[op]
        parts = self.boolop_parts(node, [self.expr(v) for v in node.values])
        return (" %s " % op).join(self.wrap(t, q, p + 1) for t, q in parts), p

    def boolop_parts(self, node, parts):
        """The texts (with their precedence) of the operands of ``node``, an
        ``and``/``or``, as the dialect joins them; a dialect that types the
        operands otherwise converts them here."""
        return parts

    def expr_Compare(self, node):
        operands = [node.left] + node.comparators
        texts = [self.expr(a) for a in operands]
        # A middle operand held in a temporary is evaluated once, as in Python.
        temps = (None,) + tuple(self.fn.chains.get(id(node)) or ()) + (None,)
        parts = []
        for k, op in enumerate(node.ops):
            a, b = operands[k], operands[k + 1]
            ta, tb = self.fn.type_of(a), self.fn.type_of(b)
            sym = CMPOPS[type(op)]
            p = self.prec[sym]
            left, right = texts[k], texts[k + 1]
            if temps[k] is not None:
                left = temps[k], self.prec["atom"]
            if temps[k + 1] is not None:
                right = self.assign_expr(temps[k + 1], right[0]), self.prec["atom"]
            if ta.is_int and tb.is_int and (ta.base in UNSIGNED) != (tb.base in UNSIGNED) \
                    and "ulong" not in (ta.base, tb.base):
                # Compare mixed signed/unsigned values as Python does: exactly.
                wide = CType("long")
                left = self.cast(wide, *left), self.prec["unary"]
                right = self.cast(wide, *right), self.prec["unary"]
            lneed = p + 1 if self.chained_comparisons else p
            parts.append(("%s %s %s" % (self.wrap(left[0], left[1], lneed),
                                        sym, self.wrap(right[0], right[1], p + 1)), p))
        if len(parts) == 1:
            return parts[0]
        p = self.prec[self.and_op]
        return (" %s " % self.and_op).join(self.wrap(t, q, p + 1) for t, q in parts), p

    def assign_expr(self, name, text):
        """An assignment used as an expression (its value is the value assigned)."""
        return "(%s = %s)" % (name, text)

    def branch_types(self, node, body, orelse):
        """The branches of ``a if c else b`` converted to its type where the
        dialect would give another: C converts an ``int`` and a ``uint`` branch
        to ``uint``, and Cython types ``short``/``ushort`` branches as ``ushort``
        (``-2`` read as ``65534``); pcompute's type is NumPy's (``int``,
        ``long``).  Each branch is then cast to that type when the two integer
        branches differ and one is unsigned or a bool."""
        t = self.fn.type_of(node)
        a, b = self.fn.type_of(node.body), self.fn.type_of(node.orelse)
        if t is None or not t.is_int or a is None or b is None or a == b \
                or not (a.is_int and b.is_int) \
                or not ({a.base, b.base} & _UNSIGNED_OR_BOOL):
            return body, orelse
        return tuple(part if bt == t else (self.cast(t, *part), self.prec["unary"])
                     for bt, part in ((a, body), (b, orelse)))

    def expr_IfExp(self, node):
        test, body, orelse = (self.expr(node.test), self.expr(node.body),
                              self.expr(node.orelse))
        body, orelse = self.branch_types(node, body, orelse)
        p = self.prec["?:"]
        if self.fn.type_of(node.test).is_float:
            # OpenCL C rejects a float condition of ?: (a float is true when != 0).
            test = "%s != 0" % self.wrap(test[0], test[1], self.prec["!="] + 1), \
                self.prec["!="]
        return "%s ? %s : %s" % (self.wrap(test[0], test[1], p + 1),
                                 self.wrap(body[0], body[1], p + 1),
                                 self.wrap(orelse[0], orelse[1], p)), p

    def expr_BinOp(self, node):
        fn = self.fn
        return self.binop_text(BINOPS[type(node.op)], self.expr(node.left),
                               fn.type_of(node.left), self.expr(node.right),
                               fn.type_of(node.right), fn.type_of(node),
                               _literal_count(node.right), node)

    def binop_text(self, op, left, ltype, right, rtype, result, count=None, node=None):
        """The text of ``left op right`` (texts with their precedence, and
        types) of type ``result``; ``count``: the right operand's value when it
        is an integer literal (a shift by it may need no guard); ``node``: the
        BinOp or AugAssign (a bounds-checked shift's site)."""
        if op in ("<<", ">>") and result.is_int:
            return self.shift_text(op, left, ltype, right, rtype, result, count, node)
        if result.is_int and op in ("+", "-", "*", "&", "|", "^"):
            # pcompute promotes like numpy (uint with int is long): C would
            # compute in unsigned first, so convert operands of the other sign.
            unsigned = result.base in UNSIGNED
            if ltype.is_int and (ltype.base in UNSIGNED) != unsigned:
                left = self.cast(result, *left), self.prec["unary"]
            if rtype.is_int and (rtype.base in UNSIGNED) != unsigned:
                right = self.cast(result, *right), self.prec["unary"]
        if self.wraps_here(op, result):
            return self.wrapping_text(op, left, right, result)
        if op == "/":
            if ltype.is_int and rtype.is_int:
                left = self.cast(result, *left), self.prec["unary"]
            return self.infix("/", left, right)
        if op in ("//", "%"):
            if result.base in UNSIGNED:
                return self.infix("/" if op == "//" else "%", left, right)
            kind = "floordiv" if op == "//" else "mod"
            return "%s(%s, %s)" % (self.need(kind, result.base), left[0], right[0]), \
                self.prec["atom"]
        if op == "**":
            if result.is_int:
                return "%s(%s, %s)" % (self.need("ipow", result.base), left[0], right[0]), \
                    self.prec["atom"]
            args = [self.as_type(part, t, result) for part, t in ((left, ltype),
                                                                  (right, rtype))]
            return "%s(%s, %s)" % (self.math_name("pow", result.base), args[0], args[1]), \
                self.prec["atom"]
        return self.infix(op, left, right)

    def plain_shift(self, ltype, result, count):
        """True where a shift of a ``ltype`` value to type ``result`` by
        ``count`` (a literal's value, else None) means in C what it means in
        pcompute, so C's operator prints as it is: the count is a literal below
        the width and C computes in ``result`` (the left operand's promoted
        type)."""
        return count is not None and 0 <= count < _bits(result) and \
            _c_promoted(ltype.base) == result.base

    def shift_text(self, op, left, ltype, right, rtype, result, count, node=None):
        """``left << right`` / ``left >> right``: Python's shift reduced to the
        type ``result`` for every count (docs/semantics.rst, Shifts).  C computes
        in the left operand's type (converted to ``result`` first where they
        differ); a literal count below the width is C's operator; any other
        count goes through ``pc_shl_T``/``pc_shr_T`` (codegen/runtime.py), which
        give 0 (``>>`` of a negative value: -1) for a count of the width or
        more, where C is undefined and OpenCL masks the count, and treat a
        negative count (Python raises) as one beyond the width, as NumPy does;
        with bounds checks a negative count is also recorded (bounds.py)."""
        if _c_promoted(ltype.base) != result.base:
            left = self.cast(result, *left), self.prec["unary"]
        if count is not None and 0 <= count < _bits(result):
            if self.wraps_here(op, result):
                return self.wrapping_text(op, left, right, result)
            return self.infix(op, left, right)
        site = self.bound_sites().get(id(node)) if self.program.bounds_check and \
            node is not None else None
        if site is not None:
            value = right[0] if rtype.base == "long" else self.cast(LONG, *right)
            right = "%s(%s, %d, %s)" % (self.need("shcount", "long"), value, site, ERR), \
                self.prec["atom"]
            rtype = LONG
        if rtype.base != "ulong":
            right = self.cast(CType("ulong"), *right), self.prec["unary"]
        kind = "shl" if op == "<<" else "shr"
        return "%s(%s, %s)" % (self.need(kind, result.base), left[0], right[0]), \
            self.prec["atom"]

    def wraps_here(self, op, result):
        """True where ``op`` on signed ``result`` must be printed through
        :meth:`wrapping_text` for its overflow to wrap (see
        ``signed_wraps_natively``)."""
        return not self.signed_wraps_natively and result.is_int and \
            result.base in ("int", "long") and op in ("+", "-", "*", "<<")

    def wrapping_text(self, op, left, right, result):
        """``left op right`` computed in the unsigned type of ``result``'s
        width (where overflow is defined: it wraps) and converted back."""
        unsigned = CType("u" + result.base)
        left = self.as_unsigned(left, unsigned)
        if op != "<<":
            right = self.as_unsigned(right, unsigned)
        inner = self.infix(op, left, right)
        text = "(%s)(%s)" % (self.type_name(result), inner[0])
        # an operand of the next wrapping operation of this width uses the
        # unsigned text itself: (int)((uint)a + (uint)b * (uint)c), not a
        # conversion back and forth at every operator
        self.unsigned_forms[text] = (unsigned, inner)
        return text, self.prec["unary"]

    def as_unsigned(self, part, unsigned):
        form = self.unsigned_forms.get(part[0])
        if form is not None and form[0] == unsigned:
            return form[1]
        digits = part[0][:-len(self.long_suffix)] if part[0].endswith(self.long_suffix) \
            else part[0]
        if digits.isdigit():        # a literal >= 0: the unsigned literal (3u, 3UL)
            return digits + ("u" if unsigned.base == "uint" else "U" + self.long_suffix), \
                self.prec["atom"]
        return self.cast(unsigned, *part), self.prec["unary"]

    def as_type(self, part, t, want):
        if t == want:
            return part[0]
        return self.cast(want, *part)

    def infix(self, op, left, right):
        p = self.prec[op]
        return "%s %s %s" % (self.wrap(left[0], left[1], p), op,
                             self.wrap(right[0], right[1], p + 1)), p

    def expr_Call(self, node):
        kind, target = self.fn.calls[id(node)]
        if kind in ("helper", "method"):
            args = []
            if kind == "method":  # obj.m(a): Class_m(obj, a)
                args.append(self.fn.cname(node.func.value.id))
            for a in node.args:
                args.append(self.expr(a)[0])
                t = self.fn.type_of(a)
                if t.is_ndarray:  # its shape and strides follow the pointer
                    args.extend(hidden_names(self.fn.cname(a.id), t))
            if self.program.bounds_check:
                args.append(ERR)
            return "%s(%s)" % (target, ", ".join(args)), self.prec["atom"]
        if kind == "extern":
            args = ", ".join(self.expr(a)[0] for a in node.args)
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr
            self.externs.setdefault(id(target), target)
            return "%s(%s)" % (name, args), self.prec["atom"]
        if kind == "math":
            return self.call_math(node, target)
        return getattr(self, "call_" + target)(node)

    def call_math(self, node, name):
        result = self.fn.type_of(node)
        if name in ("isnan", "isinf"):
            arg = node.args[0]
            t = self.fn.type_of(arg)
            text = self.expr(arg)
            if t.is_int:
                return "0", self.prec["atom"]
            return "%s(%s)" % (name, text[0]), self.prec["atom"]
        args = [self.as_type(self.expr(a), self.fn.type_of(a), result) for a in node.args]
        text = "%s(%s)" % (self.math_name(name, result.base), ", ".join(args))
        if name in ("floor", "ceil", "trunc"):
            # Python's floor/ceil/trunc give an int, so never -0.0: adding +0.0
            # turns C's -0.0 into 0.0 and leaves every other value unchanged.
            return self.infix("+", (text, self.prec["atom"]),
                              (self.literal(0.0, result), self.prec["atom"]))
        return text, self.prec["atom"]

    def call_abs(self, node):
        t = self.fn.type_of(node)
        arg = self.expr(node.args[0])
        if t.is_float:
            return "%s(%s)" % (self.math_name("fabs", t.base), arg[0]), self.prec["atom"]
        if t.base in UNSIGNED:
            return arg
        return "%s(%s)" % (self.need("abs", t.base), arg[0]), self.prec["atom"]

    def call_min(self, node, kind="min"):
        t = self.fn.type_of(node)
        name = self.need(kind, t.base)
        parts = [self.expr(a)[0] for a in node.args]
        text = parts[0]
        for part in parts[1:]:
            text = "%s(%s, %s)" % (name, text, part)
        return text, self.prec["atom"]

    def call_max(self, node):
        return self.call_min(node, "max")

    def call_int(self, node):
        return self.cast(self.fn.type_of(node), *self.expr(node.args[0])), self.prec["unary"]

    call_float = call_cast = call_int

    def call_address(self, node):
        arg = self.expr(node.args[0])
        return "&" + self.wrap(arg[0], arg[1], self.prec["unary"]), self.prec["unary"]

    def call_atomic_inc(self, node, kind="atomic_inc"):
        t = self.fn.type_of(node)
        arg = self.expr(node.args[0])
        return self.atomic_text(kind, t, "&" + self.wrap(arg[0], arg[1],
                                                          self.prec["unary"]))

    def call_atomic_dec(self, node):
        return self.call_atomic_inc(node, "atomic_dec")

    def call_atomic_max(self, node):
        t = self.fn.type_of(node)
        arg = self.expr(node.args[0])
        value = self.cast(t, *self.expr(node.args[1]))
        pointer = "&" + self.wrap(arg[0], arg[1], self.prec["unary"])
        return self.atomic_max_text(t, pointer, value)

    def atomic_max_text(self, t, pointer, value):
        return "%s(%s, %s)" % (self.need("atomic_max", t.base), pointer, value), \
            self.prec["atom"]

    def atomic_max_helper(self, base):
        """``old = *p; *p = max(*p, v)`` atomically, returning ``old``: always
        one sequentially consistent read-modify-write (a compare-and-swap
        that stores ``old`` back when ``v`` is not larger), so it is a full
        memory barrier between the item's accesses before and after it."""
        T = self.type_name_of(base)
        return ("%s %s %s(%s *p, %s v)\n{\n"
                "    %s old = __atomic_load_n(p, __ATOMIC_RELAXED);\n"
                "    while (!__atomic_compare_exchange_n(p, &old, old < v ? v : old, 0, "
                "__ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {}\n"
                "    return old;\n}"
                % (self.helper_qualifier, T, helper_name("atomic_max", base), T, T, T))

    def atomic_text(self, kind, t, pointer):
        return "%s(%s)" % (self.need(kind, t.base), pointer), self.prec["atom"]

    def atomic_helper(self, kind, base):
        T = self.type_name_of(base)
        op = "++" if kind == "atomic_inc" else "--"
        return ("%s %s %s(%s *p)\n{\n    %s old;\n    #pragma omp atomic capture\n"
                "    old = (*p)%s;\n    return old;\n}"
                % (self.helper_qualifier, T, helper_name(kind, base), T, T, op))

    def call_prefetch(self, node):
        arg = node.args[0]
        t = self.fn.type_of(arg)
        # the element is not accessed: no bounds check (its index's reads are)
        outer, self._prefetched = getattr(self, "_prefetched", None), id(arg)
        try:
            text = self.expr(arg)
        finally:
            self._prefetched = outer
        pointer = "&" + self.wrap(text[0], text[1], self.prec["unary"])
        return "%s(%s)" % (self.need("prefetch", t.base), pointer), self.prec["atom"]

    def prefetch_helper(self, base):
        """``pc_prefetch_<base>(p)``: the C compiler's prefetch of ``*p`` for
        writing (GCC and Clang; nothing elsewhere).  Never faults."""
        T = self.type_name_of(base)
        return ("%s void %s(%s *p)\n{\n#if defined(__GNUC__) || defined(__clang__)\n"
                "    __builtin_prefetch(p, 1);\n#else\n    (void)p;\n#endif\n}"
                % (self.helper_qualifier, helper_name("prefetch", base), T))

    def call_local_barrier(self, node):
        # A macro defined by the low-level Kernel preamble of each dialect.
        return "local_barrier()", self.prec["atom"]

    def call_printf(self, node):
        fmt = node.args[0].value
        args = [self.c_string(fmt)] + [self.expr(a)[0] for a in node.args[1:]]
        return "printf(%s)" % ", ".join(args), self.prec["atom"]

    @staticmethod
    def c_string(text):
        out = []
        for ch in text:
            if ch == "\\":
                out.append("\\\\")
            elif ch == '"':
                out.append('\\"')
            elif ch == "\n":
                out.append("\\n")
            elif ch == "\t":
                out.append("\\t")
            elif 32 <= ord(ch) < 127:
                out.append(ch)
            else:
                out.append("\\x%02x" % ord(ch))
        return '"%s"' % "".join(out)


SIGNED_TYPES = SIGNED
