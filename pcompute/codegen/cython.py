"""Cython printer: typed ``cdef ... noexcept nogil`` functions.

Statements use Python syntax with C types; the runtime helpers (floor
division, atomics, ...) are C functions pasted verbatim through
``cdef extern from *`` so that their meaning is the same as on OpenCL and CUDA.
"""
import ast

from .cfamily import Code, CPrinter
from .lanemath import LANE_FUNCS, lane_declarations, lane_name, lane_source
from .nowrap import UNWRAPPED, pointer_name, unwrapped_declarations, unwrapped_source
from .runtime import helper_name

# Python operator precedence, as Cython parses it.
PY_PREC = {
    "atom": 16, "unary": 14, "*": 13, "/": 13, "%": 13, "+": 12, "-": 12,
    "<<": 11, ">>": 11, "&": 10, "^": 9, "|": 8, "<": 7, "<=": 7, ">": 7,
    ">=": 7, "==": 7, "!=": 7, "not": 6, "and": 5, "or": 4, "?:": 3,
}

_HELPER_ARGS = {"floordiv": 2, "mod": 2, "ipow": 2, "min": 2, "max": 2, "abs": 1,
                "rangelen": 3}



def extern_block(source, declarations):
    """A `cdef extern from *` block: the C text ``source`` verbatim (as the
    block's docstring), then the Cython ``declarations`` of what it defines."""
    code = Code()
    code.add("cdef extern from *:")
    code.level += 1
    code.add('"""')
    for line in source.splitlines():
        code.lines.append("    " + line if line else "")
    code.add('"""')
    for line in declarations:
        code.add(line)
    return code.text()


class CythonPrinter(CPrinter):
    """Prints typed functions as Cython."""

    dialect = "cython"
    prec = PY_PREC
    helper_qualifier = "static inline"
    and_op, or_op = "and", "or"
    chained_comparisons = True      # `a < b == c` is a chain in Cython, not (a<b)==c
    signed_wraps_natively = True    # the C is built with -fwrapv (build/cython_builder.py)
    #: Math functions called through lane wrappers (:mod:`.lanemath`); the
    #: backend sets it for kernels built for the host CPU.
    lane_math = False

    def __init__(self, program):
        CPrinter.__init__(self, program)
        self.math = set()
        self.lanes = set()          # (C name, C type, arity) of the lane wrappers used
        self.unwrapped = set()      # C math functions called without glibc's wrapper
        self.uses_printf = False
        self.uses_memset = False
        self.truth_tested = set()   # ids of expressions read only as conditions
        # While a block function is printed (.blockmath): the locals kept one
        # per item (name -> slot text) and the lane calls' result slots (id ->).
        self.block_names, self.block_calls = {}, {}

    def cast(self, t, text, prec):
        return "<%s>%s" % (self.type_name(t), self.wrap(text, prec, self.prec["atom"]))

    def field_text(self, pointer, field):
        return "%s.%s" % (pointer, field)  # Cython dereferences struct pointers

    def math_name(self, name, base):
        cname = CPrinter.math_name(self, name, base)
        if self.lane_math and name in LANE_FUNCS and base in ("float", "double"):
            self.lanes.add((cname, self.type_name_of(base), LANE_FUNCS[name]))
            return lane_name(cname)
        self.math.add(cname)
        return cname

    # -- functions ----------------------------------------------------------
    def signature(self, fn):
        params = ", ".join(self.param(fn.cname(n), t) for n, t in fn.args)
        inline = "" if fn.c_name in self.program.recursive else "inline "
        return "cdef %s%s %s(%s) noexcept nogil" % (inline, self.type_name(fn.ret),
                                                     fn.c_name, params)

    def declarations(self, fn):
        out = []
        for name, t in fn.locals:
            cname = fn.cname(name)
            if t.shape:
                dims = "".join("[%d]" % d for d in t.shape)
                out.append("cdef %s %s%s" % (self.type_name_of(t.base), cname, dims))
            else:
                out.append("cdef %s %s" % (self.type_name(t), cname))
        return out

    def struct_definitions(self):
        out = []
        for name, info in sorted(self.structs.items()):
            fields = ["    %s %s" % (self.type_name_of(t.base), n) for n, t in info.fields]
            out.append("cdef struct %s:\n%s" % (name, "\n".join(fields
                                                            or ["    int pc_empty"])))
        return "\n\n".join(out)

    def print_function(self, fn):
        self.note_structs(fn)
        self.fn = fn
        code = Code()
        code.add(self.signature(fn) + ":")
        code.level += 1
        for line in self.declarations(fn):
            code.add(line)
        self.suite(code, fn.tree.body)
        code.level -= 1
        return code.text()

    def suite(self, code, stmts):
        before = len(code.lines)
        self.block(code, stmts)
        if len(code.lines) == before:
            code.add("pass")

    function_separator = "\n\n\n"
    module_header = ("# cython: language_level=3, boundscheck=False, wraparound=False, "
                     "cdivision=True\n")

    def print_program(self):
        bodies = [self.print_function(fn) for fn in self.program.functions]
        return self.module_runtime(), self.function_separator.join(bodies)

    def forward_declarations(self):
        return []                       # Cython resolves names module-wide

    def module_runtime(self):
        return self.with_externs("\n\n".join(
            b for b in (self.unwrapped_block(), self.lane_block(), self.runtime_block())
            if b))

    def unwrapped_call(self, cname, base):
        """The name a loop of its own calls the C math function ``cname`` by:
        for ``exp`` and ``log`` on doubles, the module's pointer to glibc's
        function without its errno wrapper (:mod:`.nowrap`)."""
        if base == "double" and cname in UNWRAPPED:
            self.unwrapped.add(cname)
            return pointer_name(cname)
        self.math.add(cname)
        return cname

    def unwrapped_block(self):
        """The `cdef extern from *` block of the unwrapped pointers (or '')."""
        if not self.unwrapped:
            return ""
        return extern_block(unwrapped_source(), unwrapped_declarations())

    def lane_block(self):
        """The `cdef extern from *` block of the lane wrappers used (or '')."""
        if not self.lanes:
            return ""
        return extern_block(lane_source(self.lanes), lane_declarations(self.lanes))

    def module_prelude(self, runtime, functions):
        return [line + "\n" for line in self.cimports()]

    def runtime_block(self):
        """The `cdef extern from *` block with the C runtime helpers used."""
        if not self.needed:
            return ""
        from .runtime import runtime_source
        c_text = runtime_source(self.needed, self)
        code = Code()
        code.add("cdef extern from *:")
        code.level += 1
        code.add('"""')
        for line in c_text.splitlines():
            code.lines.append("    " + line if line else "")
        code.add('"""')
        for kind, base in sorted(self.needed):
            T = self.type_name_of(base)
            if kind == "atomic_max":
                code.add("%s %s(%s *p, %s v) nogil" % (T, helper_name(kind, base), T, T))
            elif kind == "prefetch":
                code.add("void %s(%s *p) nogil" % (helper_name(kind, base), T))
            elif kind.startswith("atomic"):
                code.add("%s %s(%s *p) nogil" % (T, helper_name(kind, base), T))
            elif kind in ("shl", "shr"):
                code.add("%s %s(%s a, %s n) nogil" % (T, helper_name(kind, base), T,
                                                    self.type_name_of("ulong")))
            elif kind == "shcount":
                code.add("%s pc_shcount_long(%s n, %s site, %s *err) nogil" % ((T,) * 4))
            elif kind == "bound":
                code.add("%s pc_bound_long(%s i, %s n, %s site, %s axis, %s *err) nogil"
                         % ((T,) * 6))
            else:
                params = ", ".join("%s %s" % (T, v) for v in "abc"[:_HELPER_ARGS[kind]])
                code.add("%s %s(%s) nogil" % (T, helper_name(kind, base), params))
        return code.text()

    def cimports(self):
        """The cimport lines the printed functions need."""
        lines = []
        if self.math:
            lines.append("from libc.math cimport " + ", ".join(sorted(self.math)))
        if self.uses_printf:
            lines.append("from libc.stdio cimport printf")
        if self.uses_memset:
            lines.append("from libc.string cimport memset")
        return lines

    # -- statements ---------------------------------------------------------
    def assign_line(self, target, value):
        return "%s = %s" % (target, value)

    def stmt_Break(self, code, node):
        code.add("break")

    def stmt_Continue(self, code, node):
        code.add("continue")

    def stmt_Pass(self, code, node):
        code.add("pass")

    def stmt_Return(self, code, node):
        code.add("return" if node.value is None else "return %s" % self.expr(node.value)[0])

    def stmt_Expr(self, code, node):
        if isinstance(node.value, ast.Constant):
            return
        code.add(self.expr(node.value)[0])

    def zero_array(self, code, cname, t, total):
        self.uses_memset = True
        first = cname + "[0]" * len(t.shape)
        code.add("memset(&%s, 0, sizeof(%s))" % (first, cname))

    def stmt_AugAssign(self, code, node):
        line_count = len(code.lines)
        CPrinter.stmt_AugAssign(self, code, node)
        for k in range(line_count, len(code.lines)):
            if code.lines[k].endswith(";"):
                code.lines[k] = code.lines[k][:-1]

    def condition(self, node):
        """The text of ``node`` read as a condition (an ``if``/``while``
        test): it and the operands of its ``and``/``or`` are only tested."""
        self.truth_tested.add(id(node))
        if isinstance(node, ast.BoolOp):
            for value in node.values:
                self.truth_tested.add(id(value))
        return self.expr(node)

    def stmt_If(self, code, node, keyword="if"):
        code.add("%s %s:" % (keyword, self.condition(node.test)[0]))
        code.level += 1
        self.suite(code, node.body)
        code.level -= 1
        orelse = node.orelse
        if len(orelse) == 1 and isinstance(orelse[0], ast.If):
            self.stmt_If(code, orelse[0], "elif")
        elif orelse:
            code.add("else:")
            code.level += 1
            self.suite(code, orelse)
            code.level -= 1

    def stmt_While(self, code, node):
        code.add("while %s:" % self.condition(node.test)[0])
        code.level += 1
        self.suite(code, node.body)
        code.level -= 1

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
            loop = "prange" if node.iter.func.id == "prange" else "range"
            code.add("for %s in %s(%s, %s):" % (counter, loop, start[0], stop_text))
        elif info.count is None:
            code.add("for %s in range(%s, %s, %d):" % (counter, start[0], stop_text,
                                                       self.literal_step(step)))
        else:
            code.add(self.assign_line(info.start, start[0]))
            code.add(self.assign_line(info.step, self.expr(step)[0]))
            code.add(self.assign_line(info.count, "%s(%s, %s, %s)" % (
                self.need("rangelen", self.local_type(info.count).base), info.start,
                stop_text, info.step)))
            code.add("for %s in range(%s):" % (info.counter, info.count))
        code.level += 1
        if info.count is not None:
            code.add(self.assign_line(var, "%s + %s * %s" % (info.start, info.counter,
                                                             info.step)))
        elif info.shadow:
            code.add(self.assign_line(var, info.shadow))
        self.suite(code, node.body)
        code.level -= 1

    # -- expressions --------------------------------------------------------
    def float_literal(self, value, t):
        text = CPrinter.float_literal(self, value, None)
        if text in ("INFINITY", "(-INFINITY)", "NAN"):
            self.math.add(text.strip("(-)"))
        if t is not None and t.base == "float":
            return "<float>%s" % text
        return text

    def expr_Constant(self, node):
        text, _ = CPrinter.expr_Constant(self, node)
        if text.startswith("<") or text.startswith("-"):
            return text, self.prec["unary"]
        return text, self.prec["atom"]

    def assign_expr(self, name, text):
        return "(%s := %s)" % (name, text)

    def not_text(self, operand):
        return "not " + self.wrap(operand[0], operand[1], self.prec["not"]), self.prec["not"]

    def truths_as_numbers(self, t, parts, truths):
        """``parts`` (texts with their precedence) of one expression of type
        ``t``, each whose flag in ``truths`` is set (a bint to Cython: a
        comparison, ``not``, ``and``/``or``) converted to ``t`` when bints and
        numbers meet: Cython types a bint mixed with a number (even an int
        local holding a truth value) under ``?:``, ``and``/``or`` or a bitwise
        operator as a Python object, then refuses it without the GIL.  None
        when nothing is to convert (no mix, or ``t`` not a scalar)."""
        if t is None or not t.is_scalar or all(truths) or not any(truths):
            return None
        return [(self.cast(t, *part), self.prec["unary"]) if truth else part
                for truth, part in zip(truths, parts)]

    def expr_IfExp(self, node):
        test, body, orelse = (self.condition(node.test), self.expr(node.body),
                              self.expr(node.orelse))
        # A bint branch and a number (`i if c else x != i`): the bint becomes
        # the expression's type; integer branches of different signedness are
        # converted too (branch_types).
        cast = self.truths_as_numbers(self.fn.type_of(node), (body, orelse),
                                      (_bint(node.body), _bint(node.orelse)))
        body, orelse = cast or self.branch_types(node, body, orelse)
        p = self.prec["?:"]
        return "%s if %s else %s" % (self.wrap(body[0], body[1], p + 1),
                                     self.wrap(test[0], test[1], p + 1),
                                     self.wrap(orelse[0], orelse[1], p)), p

    def binop_text(self, op, left, ltype, right, rtype, result, count=None, node=None):
        # `n | (i != i)`: the truth value becomes the result's type first.
        if op in ("&", "|", "^") and result.is_int:
            left, right = self.truths_as_numbers(
                result, (left, right), (ltype.base == "bool", rtype.base == "bool")) \
                or (left, right)
        return CPrinter.binop_text(self, op, left, ltype, right, rtype, result, count, node)

    def boolop_parts(self, node, parts):
        # The value of `a or b` mixing bints and numbers: the bints become the
        # expression's type.  As a condition Cython tests each operand as it
        # is: no conversion.
        if id(node) in self.truth_tested:
            return parts
        return self.truths_as_numbers(self.fn.type_of(node), parts,
                                      [_bint(v) for v in node.values]) or parts

    def call_printf(self, node):
        self.uses_printf = True
        fmt = node.args[0].value
        args = ["b" + self.c_string(fmt)] + [self.expr(a)[0] for a in node.args[1:]]
        return "printf(%s)" % ", ".join(args), self.prec["atom"]

    def expr_Name(self, node):
        slot = self.block_names.get(node.id)
        return (slot, self.prec["atom"]) if slot else CPrinter.expr_Name(self, node)

    def call_math(self, node, name):
        slot = self.block_calls.get(id(node))
        if slot:
            return slot, self.prec["atom"]
        if name in ("isnan", "isinf"):
            self.math.add(name)
        return CPrinter.call_math(self, node, name)


def _bint(node):
    """True if Cython types the expression ``node`` as a bint."""
    if isinstance(node, (ast.Compare, ast.BoolOp)):
        return True
    if isinstance(node, ast.UnaryOp):
        return isinstance(node.op, ast.Not)
    if isinstance(node, ast.IfExp):
        return _bint(node.body) and _bint(node.orelse)
    return False
