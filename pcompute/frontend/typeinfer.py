"""Type inference: from checked functions to typed, frozen records.

Each local's type is the promotion of every value assigned to it (a fixed
point over the function), float literals take the precision of what they meet
(else double, float only on a device without ``use_double``), helpers take the promoted types of all their call
sites unless annotated.  This module types one function (statements and
expressions; calls are in :mod:`.calls`); :mod:`.program` types a kernel and
its helpers into a :class:`~.ir.TypedProgram`.
"""
import ast
import copy

from ..errors import InternalError, KernelSyntaxError, KernelTypeError, KernelValueError
from ..types import BOOL, DOUBLE, FLOAT, INT, LONG, VOID, parse_type, promote
from .arrays import ArrayTyper
from .calls import CallTyper
from .callgraph import Resolver
from .ir import LoopInfo, TypedFunction, _join
from .names import WORK_ITEM_NAMES, _printed_name
from .structs import StructTyper

INT32_MIN, INT32_MAX = -2 ** 31, 2 ** 31 - 1
INT64_MIN, INT64_MAX = -2 ** 63, 2 ** 63 - 1


def _literal_type(value, default_float):
    if isinstance(value, bool):
        return BOOL
    if isinstance(value, int):
        if INT32_MIN <= value <= INT32_MAX:
            return INT
        if INT64_MIN <= value <= INT64_MAX:
            return LONG
        return None
    return default_float


# Arithmetic in which an integer literal meeting a float is converted to it
# (not ** : an integer exponent keeps its meaning).
_CONVERTING = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod)



def _int_constant(node):
    """The value of an integer literal (possibly negated), else None."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd,
                                                              ast.Invert)):
        value = _int_constant(node.operand)
        if value is None:
            return None
        return {ast.USub: -value, ast.UAdd: value, ast.Invert: ~value}[type(node.op)]
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    return None


_FOLD = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
         ast.Mult: lambda a, b: a * b, ast.FloorDiv: lambda a, b: a // b,
         ast.Mod: lambda a, b: a % b, ast.BitOr: lambda a, b: a | b,
         ast.BitXor: lambda a, b: a ^ b, ast.BitAnd: lambda a, b: a & b,
         ast.LShift: lambda a, b: a << b, ast.RShift: lambda a, b: a >> b,
         ast.Pow: lambda a, b: a ** b}


def _fold_int(node):
    """The value of an operation on two integer literals, computed as Python does
    (so that ``1 << 40`` or ``2 ** 40`` do not overflow C's int), else None."""
    a, b = _int_constant(node.left), _int_constant(node.right)
    if a is None or b is None or type(node.op) not in _FOLD:
        return None
    if isinstance(node.op, (ast.FloorDiv, ast.Mod)) and b == 0:
        return None
    if isinstance(node.op, (ast.LShift, ast.RShift, ast.Pow)) and not 0 <= b <= 128:
        return None
    return _FOLD[type(node.op)](a, b)




class FunctionTyper(StructTyper, ArrayTyper, CallTyper):
    """Types one function for one set of argument types."""

    def __init__(self, program, src, arg_types, ret_hint):
        self.program = program
        self.src = src
        self.resolver = Resolver(src)
        self.tree = copy.deepcopy(src.tree)
        self.args = dict(arg_types)
        self.ret_hint = ret_hint
        self.annotated = frozenset()
        self.declared = {}
        self.locals = {}
        self.order = []
        self.types = {}
        self.calls = {}
        self.loops = {}
        self.swaps = {}
        self.chains = {}
        self.augs = {}
        self.declares = {}
        self.callees = []
        self.features = set()
        self.ret = None
        self.ret_nodes = []
        self.hidden = {}
        self.conditions = set()
        self._hidden_count = 0

    # -- helpers ------------------------------------------------------------
    def fail(self, cls, node, message, hint=None):
        raise self.src.error(cls, node, message, hint)

    def hidden_local(self, kind, ctype):
        name = "pc_%s%d" % (kind, self._hidden_count)
        self._hidden_count += 1
        self.hidden[name] = ctype
        return name

    def set_local(self, node, name, ctype):
        if name in self.args:
            old = self.args[name]
            if ctype is not None and old.is_scalar != ctype.is_scalar:
                self.fail(KernelTypeError, node,
                          "argument %r is a %s and cannot be assigned a %s"
                          % (name, old, ctype), "use another local name")
            if ctype is not None and old.is_scalar:
                joined = _join(old, ctype)
                if joined != old:
                    # Python rebinds the name to the wider value: widen the
                    # argument (callers convert), unless its type was given.
                    if name in self.annotated:
                        self.fail(KernelTypeError, node,
                                  "argument %r is annotated %s but is assigned a %s "
                                  "here (Python would make it a %s)"
                                  % (name, old, ctype, joined),
                                  "assign the value to a new local name")
                    self.args[name] = joined
                    self.changed = True
            return
        if name in self.declared:
            old = self.declared[name]
            if ctype is not None and old.is_scalar != ctype.is_scalar:
                self.fail(KernelTypeError, node,
                          "%r is declared as %s and cannot be assigned a %s"
                          % (name, old, ctype), "use another local name")
            if ctype is not None and old.is_int and ctype.is_float:
                self.fail(KernelTypeError, node,
                          "%r is declared %s but is assigned a %s here: Python would "
                          "make it a float, C would truncate it" % (name, old, ctype),
                          "write %s = int(...) to truncate towards zero, or declare "
                          "it as a float" % name)
            return
        if name not in self.locals:
            self.order.append(name)
            self.locals[name] = None
        joined = _join(self.locals[name], ctype)
        if joined is False:
            self.fail(KernelTypeError, node,
                      "the local %r is assigned both a %s and a %s"
                      % (name, self.locals[name], ctype),
                      "use two different names: a local holds either a pointer or "
                      "a number, with one type")
        if joined != self.locals[name]:
            self.locals[name] = joined
            self.changed = True

    def var_type(self, name):
        if name in self.args:
            return self.args[name]
        if name in self.declared:
            return self.declared[name]
        return self.locals.get(name)

    def is_variable(self, name):
        return name in self.args or name in self.declared or name in self.assigned

    # -- normalisation ------------------------------------------------------
    def normalise(self):
        """Resolve constants and module attributes in the copied tree."""
        self.assigned = set(self.args)
        for node in ast.walk(self.tree):
            targets = []
            if isinstance(node, ast.Assign):
                targets = node.targets
            elif isinstance(node, (ast.AugAssign, ast.For)):
                targets = [node.target]
            for t in targets:
                for sub in ast.walk(t):
                    if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                        self.assigned.add(sub.id)
        typer = self

        class Normaliser(ast.NodeTransformer):
            def visit_Call(self, node):
                node.args = [self.visit(a) for a in node.args]
                return node

            def visit_Name(self, node):
                if isinstance(node.ctx, ast.Load) and not typer.is_variable(node.id):
                    if node.id in WORK_ITEM_NAMES:
                        typer.features.add("work_items")
                        return node
                    value = typer.resolver.constant(node, node.id)
                    return ast.copy_location(ast.Constant(value), node)
                return node

            def visit_With(self, node):
                # `with nogil:` / `with parallel():` items are not values.
                node.body = [self.visit(stmt) for stmt in node.body]
                return node

            def visit_Attribute(self, node):
                if isinstance(node.value, ast.Name) and typer.is_variable(node.value.id):
                    return node  # a.shape, a.ndim, a.size of an array argument
                value = typer.resolver.attribute_constant(node)
                return ast.copy_location(ast.Constant(value), node)

            def visit_BinOp(self, node):
                self.generic_visit(node)
                value = _fold_int(node)
                if value is None:
                    return node
                return ast.copy_location(ast.Constant(value), node)

        body = [Normaliser().visit(stmt) for stmt in self.tree.body]
        if (body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            body = body[1:]
        self.tree.body = body

    # -- the fixed point ----------------------------------------------------
    def run(self):
        self.normalise()
        for _ in range(50):
            self.changed = False
            self.ret = None
            self.ret_nodes = []
            self.callees = []
            self.pending = []
            self.block(self.tree.body)
            if not self.changed:
                break
        else:
            raise InternalError("type inference did not converge for %s" % self.src.name)
        if self.pending:
            node = self.pending[0]
            self.fail(KernelTypeError, node, "cannot infer the types of the arguments "
                      "of this call", "declare the locals it uses, e.g. x = declare('double')")
        for name in self.order:
            if self.locals[name] is None:
                node = next(n for n in ast.walk(self.tree)
                            if isinstance(n, ast.Name) and n.id == name)
                self.fail(KernelTypeError, node, "cannot infer the type of %r" % name,
                          "declare it: %s = declare('double')" % name)
        ret = self.ret_hint if self.ret_hint is not None else (self.ret or VOID)
        if self.ret_hint is None:
            has_value = [r for r in self.ret_nodes if r.value is not None]
            if has_value and len(has_value) != len(self.ret_nodes):
                bare = next(r for r in self.ret_nodes if r.value is None)
                self.fail(KernelTypeError, bare,
                          "this function returns a value elsewhere but not here",
                          "return a value on every path")
        return ret

    # -- statements ---------------------------------------------------------
    def block(self, stmts):
        for stmt in stmts:
            getattr(self, "stmt_" + type(stmt).__name__)(stmt)

    def stmt_Expr(self, node):
        if isinstance(node.value, ast.Call):
            self.expr(node.value, allow_void=True)

    def stmt_Pass(self, node):
        pass

    stmt_Break = stmt_Continue = stmt_Pass

    def stmt_Assign(self, node):
        target, value = node.targets[0], node.value
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) \
                and value.func.id == "declare":
            self.declare(node, target, value)
            return
        if isinstance(target, ast.Tuple):
            values = value.elts
            vtypes = [self.expr(v) for v in values]
            temps = self.swaps.get(id(node))
            if temps is None:
                temps = tuple(self.hidden_local("t", t) for t in vtypes)
                self.swaps[id(node)] = temps
            for tmp, t in zip(temps, vtypes):
                self.hidden[tmp] = _join(self.hidden[tmp], t) or t
            for elt, t in zip(target.elts, vtypes):
                self.assign_target(elt, t, node)
            return
        self.assign_target(target, self.expr(value), node)

    def assign_target(self, target, vtype, node):
        if isinstance(target, ast.Name):
            if vtype is not None and vtype.is_struct:
                self.fail(KernelTypeError, node, "an object cannot be assigned to a "
                          "local name in a kernel", "use %s itself"
                          % ast.unparse(node.value))
            if vtype is not None and vtype.is_ndarray:
                self.fail(KernelTypeError, node, "an n-D array cannot be assigned to a "
                          "local name", "use the argument itself: %s"
                          % ast.unparse(node.value))
            if vtype is not None and vtype.shape:
                self.fail(KernelTypeError, node, "a local array cannot be assigned to "
                          "a name: in Python both names would be the same array, in C "
                          "it would be copied",
                          "use the array itself, or declare another one and copy "
                          "element by element")
            self.set_local(target, target.id, vtype)
            self.types[id(target)] = self.var_type(target.id) or vtype
        else:
            ttype = self.expr(target)
            if isinstance(node, ast.Assign) and node.targets[0] is target:
                vtype = self.weak_float(node.value, vtype, ttype)
            if vtype is not None and not vtype.is_scalar:
                self.fail(KernelTypeError, node, "cannot store a %s into an array "
                          "element of type %s" % (vtype, ttype),
                          "store one number per element: x[k] = m[k] in a loop")

    def declare(self, node, target, call):
        args = call.args
        if not args or not isinstance(args[0], ast.Constant) or \
                not isinstance(args[0].value, str):
            self.fail(KernelSyntaxError, call, "declare() needs a type string as "
                      "its first argument", "e.g. declare('double') or declare('int', 3)")
        try:
            ctype = self.program.fix(parse_type(args[0].value))
        except KernelTypeError as exc:
            self.fail(KernelTypeError, args[0], exc.message, exc.hint)
        if ctype.is_pointer:
            self.fail(KernelTypeError, args[0], "declare() cannot declare pointers",
                      "pass arrays as arguments; declare scalars or 'matrix(n)'")
        num = 1
        if len(args) == 2:
            if not isinstance(args[1], ast.Constant) or type(args[1].value) is not int:
                self.fail(KernelSyntaxError, args[1], "the count in declare(type, n) "
                          "must be an integer literal",
                          "write the number of names: a, b = declare('double', 2)")
            num = args[1].value
        names = target.elts if isinstance(target, ast.Tuple) else [target]
        if len(names) != num:
            self.fail(KernelSyntaxError, node, "declare(%r, %d) gives %d value(s) but "
                      "%d name(s) are assigned" % (args[0].value, num, num, len(names)),
                      "declare(type, n) declares n names: a, b = declare('double', 2)")
        if ctype.space == "local":
            self.features.add("local_mem")
        for name_node in names:
            if not isinstance(name_node, ast.Name):
                self.fail(KernelSyntaxError, name_node, "declare() assigns plain names")
            name = name_node.id
            if name in self.args:
                self.fail(KernelTypeError, name_node, "cannot declare %r: it is an "
                          "argument" % name, "use another name for the local")
            old = self.declared.get(name) or self.locals.get(name)
            if old is not None and old != ctype:
                self.fail(KernelTypeError, name_node, "%r is declared as %s here but "
                          "has type %s elsewhere" % (name, ctype, old),
                          "declare each local once, before its first use")
            if name not in self.declared:
                self.declared[name] = ctype
                if name in self.locals:
                    del self.locals[name]
                    self.order.remove(name)
                self.changed = True
            self.types[id(name_node)] = ctype
        self.declares[id(node)] = ctype
        self.types[id(call)] = ctype

    def stmt_AugAssign(self, node):
        target = node.target
        fake = ast.BinOp(left=target, op=node.op, right=node.value)
        ast.copy_location(fake, node)
        result = self.binop(fake)
        if isinstance(target, ast.Name):
            self.set_local(target, target.id, result)
            self.types[id(target)] = self.var_type(target.id) or result
        self.types[id(node)] = result
        # `a[f(i)] op= v` evaluates f(i) once, as Python does: an index with a
        # call is stored in a temporary first, whatever the op, since every
        # dialect may print the target twice (`t = f(t, v)`: a // or a shift,
        # a wrapping signed + on OpenCL/CUDA, a float into an integer element)
        if isinstance(target, ast.Subscript):
            levels = []
            while isinstance(target, ast.Subscript):
                levels.append(target)
                target = target.value
            temps = self.augs.get(id(node))
            if temps is None:
                temps = tuple(self.hidden_local("ix", None)
                              if any(isinstance(n, ast.Call) for n in ast.walk(sub.slice))
                              else None for sub in levels)
                self.augs[id(node)] = temps
            for tmp, sub in zip(temps, levels):
                if tmp is not None:
                    t = self.types.get(id(sub.slice))
                    self.hidden[tmp] = _join(self.hidden[tmp], t) or t

    def stmt_If(self, node):
        self.condition(node.test)
        self.block(node.body)
        self.block(node.orelse)

    def stmt_With(self, node):
        self.block(node.body)

    def stmt_While(self, node):
        self.condition(node.test)
        self.block(node.body)

    def stmt_For(self, node):
        args = node.iter.args
        atypes = [self.expr(a) for a in args]
        for a, t in zip(args, atypes):
            if t is not None and not t.is_int:
                self.fail(KernelTypeError, a, "range() needs integer arguments, got %s" % t,
                          "convert with int(...)")
        ltype = INT
        for t in atypes:
            if t is not None:
                ltype = promote(ltype, t)
        var = node.target.id
        self.set_local(node.target, var, ltype)
        self.types[id(node.target)] = self.var_type(var) or ltype
        info = self.loops.get(id(node))
        if info is None:
            info = self.loop_info(node, args, ltype)
            self.loops[id(node)] = info
        for hidden in (info.stop, info.start, info.step, info.count, info.counter,
                       info.shadow):
            if hidden is not None:
                self.hidden[hidden] = _join(self.hidden[hidden], ltype) or ltype
        self.block(node.body)

    def loop_info(self, node, args, ltype):
        step = args[2] if len(args) == 3 else None
        stop = args[1] if len(args) >= 2 else args[0]
        assigned_in_body = set()
        for sub in ast.walk(ast.Module(body=node.body, type_ignores=[])):
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                assigned_in_body.add(sub.id)
        reads = {n.id for n in ast.walk(stop) if isinstance(n, ast.Name)}
        stop_is_stable = (isinstance(stop, (ast.Constant, ast.Name)) or (
            isinstance(stop, ast.UnaryOp) and isinstance(stop.operand, ast.Constant)))
        stop_is_stable = (stop_is_stable
                          and not (reads & assigned_in_body))
        step_value = None
        if step is None:
            step_value = 1
        elif isinstance(step, ast.Constant):
            step_value = step.value
        elif isinstance(step, ast.UnaryOp) and isinstance(step.op, ast.USub) and \
                isinstance(step.operand, ast.Constant):
            step_value = -step.operand.value
        if step_value == 0:
            self.fail(KernelSyntaxError, step, "range() step must not be zero",
                      "use a positive or negative step")
        stop_name = None if stop_is_stable else self.hidden_local("stop", ltype)
        shadow = None
        var = node.target.id
        if step_value is not None and (var in assigned_in_body
                                       or self.read_outside(var, node)):
            shadow = self.hidden_local("v", ltype)
        if step_value == 1:
            return LoopInfo(True, stop_name, shadow=shadow)
        if step_value is not None:
            return LoopInfo(False, stop_name, shadow=shadow)
        return LoopInfo(False, None, self.hidden_local("start", ltype),
                        self.hidden_local("step", ltype), self.hidden_local("n", ltype),
                        self.hidden_local("k", ltype))

    def read_outside(self, name, loop):
        """True if ``name`` is read anywhere in the function outside ``loop``."""
        inside = {id(n) for n in ast.walk(loop)}
        return any(isinstance(n, ast.Name) and n.id == name
                   and isinstance(n.ctx, ast.Load) and id(n) not in inside
                   for n in ast.walk(self.tree))

    def stmt_Return(self, node):
        self.ret_nodes.append(node)
        if node.value is None:
            return
        t = self.expr(node.value)
        if t is not None and not t.is_scalar:
            self.fail(KernelTypeError, node.value, "kernels can only return numbers, "
                      "not a %s" % t, "write results into an array argument")
        if (t is not None and self.ret_hint is not None and self.ret_hint.is_int
                and t.is_float):
            self.fail(KernelTypeError, node.value, "%s() is annotated to return %s but "
                      "returns a %s here: Python would return the float, C would "
                      "truncate it" % (self.src.name, self.ret_hint, t),
                      "return int(...) to truncate towards zero, or annotate the "
                      "return type as a float")
        joined = _join(self.ret, t)
        self.ret = joined

    # -- expressions --------------------------------------------------------
    def condition(self, node):
        self.conditions.add(id(node))
        t = self.expr(node)
        if t is not None and not t.is_scalar:
            self.fail(KernelTypeError, node, "a %s cannot be used as a condition" % t,
                      "test a number, e.g. `if n > 0:` or `if x[i] != 0:`")

    def expr(self, node, allow_void=False):
        method = getattr(self, "expr_" + type(node).__name__, None)
        if method is None:
            self.fail(KernelSyntaxError, node, "`%s` is not supported in kernels"
                      % type(node).__name__)
        t = method(node)
        if t is not None and t.is_void and not allow_void:
            self.fail(KernelTypeError, node, "this call returns nothing, so its value "
                      "cannot be used", "call it as a statement on its own line")
        if t is not None:
            self.types[id(node)] = t
        return t

    def expr_Constant(self, node):
        value = node.value
        if isinstance(value, str):
            self.fail(KernelSyntaxError, node, "strings are only allowed as the format "
                      "of printf() and the type of declare()/cast()")
        t = _literal_type(value, self.program.float_type)
        if t is None:
            self.fail(KernelTypeError, node, "the integer %d does not fit in 64 bits" % value,
                      "use a float literal (%.17g) or a smaller integer" % value)
        return t

    def expr_Name(self, node):
        t = self.var_type(node.id)
        if t is None and node.id in WORK_ITEM_NAMES:
            return INT
        if t is None and node.id not in self.locals and node.id not in self.assigned:
            raise InternalError("unresolved name %r" % node.id)
        return t

    def expr_UnaryOp(self, node):
        if isinstance(node.op, ast.Not):
            self.conditions.add(id(node.operand))
            self.expr(node.operand)
            return BOOL
        t = self.expr(node.operand)
        if t is None:
            return None
        if not t.is_scalar:
            self.fail(KernelTypeError, node, "unary operators need numbers, got %s" % t,
                      "apply it to an element: -x[k]")
        if isinstance(node.op, ast.Invert) and not t.is_int:
            self.fail(KernelTypeError, node, "~ needs an integer, got %s" % t,
                      "convert with int(...) first")
        return promote(t, INT) if t.is_int else t

    def expr_BoolOp(self, node):
        in_condition = id(node) in self.conditions
        for value in node.values:
            if in_condition:
                self.conditions.add(id(value))
            t = self.expr(value)
            if not in_condition and t is not None and t != BOOL:
                self.fail(KernelTypeError, node,
                          "`and`/`or` between numbers gives one of the numbers in "
                          "Python but 0/1 in C, so it is only allowed on conditions",
                          "compare explicitly (x != 0 and y != 0), or write "
                          "`a if a else b`")
        return BOOL

    def expr_Compare(self, node):
        types = []
        for operand in [node.left] + node.comparators:
            t = self.expr(operand)
            if t is not None and not t.is_scalar:
                self.fail(KernelTypeError, operand, "only numbers can be compared, not "
                          "a %s" % t, "compare elements: x[k] == y[k]")
            types.append(t)
        operands = [node.left] + node.comparators
        for k in range(len(operands) - 1):
            types[k] = self.weak_float(operands[k], types[k], types[k + 1])
            types[k + 1] = self.weak_float(operands[k + 1], types[k + 1], types[k])
            self.check_ulong_comparison(operands[k], types[k], operands[k + 1], types[k + 1])
        # In `a < f(x) < b` Python evaluates f(x) once: keep it in a temporary.
        temps = self.chains.get(id(node))
        if temps is None and len(node.comparators) > 1:
            temps = tuple(
                self.hidden_local("c", t) if any(isinstance(n, ast.Call)
                                                 for n in ast.walk(operand)) else None
                for operand, t in zip(node.comparators[:-1], types[1:-1]))
            self.chains[id(node)] = temps
        for tmp, t in zip(temps or (), types[1:-1]):
            if tmp is not None:
                self.hidden[tmp] = _join(self.hidden[tmp], t) or t
        return BOOL

    def check_ulong_comparison(self, a, ta, b, tb):
        """A uint64 value compared with a signed integer: C converts the signed
        one to uint64 (-1 becomes 2**64 - 1), Python compares the values, so
        unless the signed one is visibly non-negative it is an error (smaller
        unsigned types are compared exactly, through a 64-bit signed value)."""
        for u, tu, other, to in ((a, ta, b, tb), (b, tb, a, ta)):
            if tu is None or to is None or tu.base != "ulong" or not to.is_int or \
                    to.base not in ("char", "short", "int", "long"):
                continue
            if not self.non_negative(other):
                self.fail(KernelTypeError, other,
                          "a uint64 value is compared with a signed integer that may be "
                          "negative: C would compare it as a uint64 (-1 as 2**64 - 1), "
                          "Python compares the values",
                          "convert one side: cast(u, 'long') < s if the uint64 values "
                          "are below 2**63, or test s < 0 first")

    def expr_IfExp(self, node):
        self.condition(node.test)
        a, b = self.expr(node.body), self.expr(node.orelse)
        a, b = self.weak_float(node.body, a, b), self.weak_float(node.orelse, b, a)
        joined = _join(a, b)
        if joined is False:
            self.fail(KernelTypeError, node, "the two branches have types %s and %s"
                      % (a, b), "make both branches numbers, or both the same array")
        return joined

    def expr_BinOp(self, node):
        return self.binop(node)

    def weak_float(self, node, t, other):
        """A float literal takes the float type of what it meets (numpy's "weak"
        Python scalars, NEP 50): ``x * 0.1`` is float32 arithmetic for a float32
        ``x`` and double for a double ``x``, whatever ``use_double`` says."""
        if other is None or not other.is_float or t == other:
            return t
        inner = node.operand if (isinstance(node, ast.UnaryOp) and
                                 isinstance(node.op, (ast.USub, ast.UAdd))) else node
        if isinstance(inner, ast.Constant) and type(inner.value) is float:
            self.types[id(inner)] = other
            self.types[id(node)] = other
            return other
        return t

    def int_to_float(self, node, t, other):
        """An integer literal met by a float in arithmetic is converted to
        that float type, as C converts it (``x * 16777217`` multiplies by
        16777216.0 for a float32 ``x``); typed so, it is printed as a float
        literal of that type (Cython would otherwise compute in double)."""
        if other is None or not other.is_float or t is None or not t.is_int:
            return t
        if isinstance(node, ast.Constant) and type(node.value) is int:
            self.types[id(node)] = other
            return other
        return t

    def weak_unsigned(self, node, t, other):
        """A non-negative int literal met by an unsigned value takes its type, as
        numpy's Python ints do: ``u + 1`` stays uint32."""
        if other is None or other.base not in ("uint", "ulong") or t == other:
            return t
        if isinstance(node, ast.Constant) and type(node.value) is int and \
                0 <= node.value <= INT32_MAX:
            self.types[id(node)] = other
            return other
        return t

    def binop(self, node):
        left, right = self.expr(node.left), self.expr(node.right)
        if left is None or right is None:
            return left or right
        left, right = (self.weak_float(node.left, left, right),
                       self.weak_float(node.right, right, left))
        if isinstance(node.op, _CONVERTING):
            left, right = (self.int_to_float(node.left, left, right),
                           self.int_to_float(node.right, right, left))
        left, right = (self.weak_unsigned(node.left, left, right),
                       self.weak_unsigned(node.right, right, left))
        op = node.op
        for side, t in ((node.left, left), (node.right, right)):
            if not t.is_scalar:
                self.fail(KernelTypeError, side, "arithmetic on a %s is not supported "
                          "(no pointer arithmetic)" % t,
                          "index the array instead: x[i + k]")
        if isinstance(op, ast.Div):
            if DOUBLE in (left, right):
                return DOUBLE
            if FLOAT in (left, right):
                return FLOAT
            return self.program.float_type
        if isinstance(op, (ast.LShift, ast.RShift, ast.BitAnd, ast.BitOr, ast.BitXor)):
            if not (left.is_int and right.is_int):
                self.fail(KernelTypeError, node, "bitwise operators need integers, got "
                          "%s and %s" % (left, right), "convert with int(...) first")
            count = _int_constant(node.right)
            if isinstance(op, (ast.LShift, ast.RShift)) and count is not None and count < 0:
                self.fail(KernelValueError, node.right, "negative shift count %d (Python "
                          "raises ValueError)" % count,
                          "shift the other way: x %s %d" % (
                              ">>" if isinstance(op, ast.LShift) else "<<", -count))
        if isinstance(op, ast.Pow) and left.is_int and right.is_int:
            exponent = node.right
            value = _int_constant(exponent)
            if value is not None and value < 0:
                self.fail(KernelTypeError, node, "an integer raised to a negative power "
                          "is a float in Python", "write float(a) ** b")
            if value is None and not self.non_negative(exponent):
                self.fail(KernelTypeError, node.right,
                          "this integer exponent may be negative, and an integer to a "
                          "negative power is a float in Python (an integer in C)",
                          "make it a float power, float(a) ** b, or show the exponent "
                          "is not negative: a ** abs(b), a ** (b % n), or an unsigned "
                          "exponent")
        return promote(left, right)

    def non_negative(self, node):
        """True when the integer expression ``node`` cannot be negative, by its
        form: a literal >= 0, an unsigned value, ``abs(...)``, ``x % m`` or
        ``x & m`` with a literal m >= 0 (m > 0 for %), and sums, products,
        floor quotients, shifts and powers of such expressions."""
        t = self.types.get(id(node))
        if t is not None and t.base in ("bool", "uchar", "ushort", "uint", "ulong"):
            return True
        value = _int_constant(node)
        if value is not None:
            return value >= 0
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                node.func.id == "abs" and self.calls.get(id(node), ("",))[0] == "builtin":
            return True
        if isinstance(node, ast.BinOp):
            right = _int_constant(node.right)
            if isinstance(node.op, ast.Mod) and right is not None:
                return right > 0
            if isinstance(node.op, ast.BitAnd) and (
                    (right is not None and right >= 0) or self.non_negative(node.right)
                    or self.non_negative(node.left)):
                return True
            if isinstance(node.op, (ast.Add, ast.Mult, ast.FloorDiv, ast.LShift,
                                    ast.RShift, ast.BitOr, ast.Pow)):
                return self.non_negative(node.left) and self.non_negative(node.right)
        return False

    def result(self, c_name, ret):
        locs = tuple((n, self.locals[n]) for n in self.order)
        decl = tuple(self.declared.items())
        hidden = tuple(self.hidden.items())
        all_locals = decl + locs + hidden
        names = {}
        for n, _ in tuple(self.args.items()) + all_locals:
            names[n] = _printed_name(n)
        return TypedFunction(
            name=self.src.name, c_name=c_name, src=self.src, tree=self.tree,
            args=tuple(self.args.items()), ret=ret, locals=all_locals,
            types=self.types, calls=self.calls, loops=self.loops, swaps=self.swaps,
            chains=self.chains, augs=self.augs,
            declares=self.declares, callees=tuple(self.callees), names=names,
            features=frozenset(self.features))
