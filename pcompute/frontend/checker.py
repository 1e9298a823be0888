"""The allow-list check of the kernel language.

A separate pass that runs before typing: every node of the function is
dispatched on its type to a ``check_<Node>`` method; a node type without one is
rejected with its own message and hint from :data:`REJECTED` (an unknown node
type, e.g. from a newer Python, still raises).  Nothing the translator does
not understand reaches typing or generated code.
"""
import ast

from .defaults import default_declarations
from ..errors import KernelSyntaxError

# Constructs that are not in the kernel language, with what to write instead.
REJECTED = {
    # literals and comprehensions
    "List": ("list literals are not supported in kernels",
             "use a local array: `a = declare('matrix(3)')` (or 'matrix(3, \"int\")') "
             "and set its elements"),
    "ListComp": ("list comprehensions are not supported in kernels",
                 "fill a local array in a loop: `a = declare('matrix(n)')`, then "
                 "`for k in range(n): a[k] = ...`"),
    "Dict": ("dict literals are not supported in kernels",
             "use separate scalars, or a local array `declare('matrix(n)')` indexed "
             "by integers"),
    "DictComp": ("dict comprehensions are not supported in kernels",
                 "use a local array `declare('matrix(n)')` filled in a "
                 "`for k in range(n):` loop"),
    "Set": ("set literals are not supported in kernels",
            "use separate scalars, or a local array `declare('matrix(n)')`"),
    "SetComp": ("set comprehensions are not supported in kernels",
                "use a local array `declare('matrix(n)')` filled in a "
                "`for k in range(n):` loop"),
    "GeneratorExp": ("generator expressions are not supported in kernels",
                     "accumulate in a `for k in range(n):` loop, e.g. "
                     "`s = 0.0` then `s += x[k]`"),
    "Lambda": ("lambda is not supported in kernels",
               "define a helper function with `def` at module level and call it"),
    "JoinedStr": ("f-strings are not supported in kernels",
                  "use printf('%d %f\\n', i, x) with a C format string"),
    "FormattedValue": ("f-strings are not supported in kernels",
                       "use printf('%d %f\\n', i, x) with a C format string"),
    # statements
    "With": ("`with` is not supported in kernels",
             "remove the with-block and keep its body"),
    "AsyncWith": ("`async with` is not supported in kernels",
                  "remove the with-block and keep its body"),
    "Try": ("try/except is not supported in kernels",
            "kernels cannot raise; check conditions with `if` instead"),
    "TryStar": ("try/except* is not supported in kernels",
                "kernels cannot raise; check conditions with `if` instead"),
    "Raise": ("raise is not supported in kernels",
              "kernels cannot raise; return early, or write an error flag into an "
              "array argument and check it after the call"),
    "Assert": ("assert is not supported in kernels",
               "check the condition with `if` and write an error flag into an array "
               "argument"),
    "ClassDef": ("classes cannot be defined inside kernels",
                 "kernels work on numbers and arrays; define helpers as module-level "
                 "functions"),
    "FunctionDef": ("functions cannot be defined inside kernels",
                    "define the helper at module level (`def helper(...):`) and call it"),
    "AsyncFunctionDef": ("async functions cannot be defined inside kernels",
                         "define a plain helper with `def` at module level"),
    "Global": ("`global` is not supported in kernels",
               "pass the value as an argument (module-level numbers may be read "
               "without `global`)"),
    "Nonlocal": ("`nonlocal` is not supported in kernels",
                 "pass the value as an argument and write results into an array"),
    "Delete": ("`del` is not supported in kernels",
               "remove it: locals live until the function returns"),
    "Import": ("imports are not allowed inside kernels",
               "import at module level; kernels may use module functions "
               "such as math.sqrt"),
    "ImportFrom": ("imports are not allowed inside kernels",
                   "import at module level; kernels may use module functions "
                   "such as math.sqrt"),
    "Yield": ("yield is not supported in kernels",
              "write the results into an array argument"),
    "YieldFrom": ("yield from is not supported in kernels",
                  "write the results into an array argument"),
    "Await": ("await is not supported in kernels",
              "kernels are plain functions; remove it"),
    "AsyncFor": ("`async for` is not supported in kernels",
                 "write `for k in range(n):`"),
    "NamedExpr": ("the walrus operator := is not supported in kernels",
                  "assign in a separate statement before the expression"),
    "Starred": ("starred expressions (*x) are not supported in kernels",
                "pass or assign each value explicitly"),
    "Slice": ("slicing is not supported in kernels",
              "index single elements: `x[k]` inside a `for k in range(a, b):` loop"),
    "Match": ("match statements are not supported in kernels",
              "use if/elif/else"),
    "AnnAssign": ("annotated assignments are not supported in kernels",
                  "write `x = declare('double')` and then assign, or just `x = 1.0`"),
    "TypeAlias": ("type aliases are not supported in kernels",
                  "define type names at module level"),
}

ALLOWED_BINOPS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod,
                  ast.Pow, ast.LShift, ast.RShift, ast.BitOr, ast.BitXor,
                  ast.BitAnd)
ALLOWED_CMPOPS = (ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE)

OPERATOR_TEXT = {"MatMult": "@", "Add": "+", "Sub": "-", "Mult": "*", "Div": "/",
                 "FloorDiv": "//", "Mod": "%", "Pow": "**", "LShift": "<<",
                 "RShift": ">>", "BitOr": "|", "BitXor": "^", "BitAnd": "&"}

# Attributes of array arguments readable in kernels (a.shape[d], a.ndim, a.size).
ARRAY_ATTRIBUTES = ("shape", "ndim", "size")

# Calls whose first argument may be a string.
STRING_CALLS = ("printf", "declare", "cast")

_COMPARE_HINTS = {
    "is": "compare numbers with == or !=",
    "is not": "compare numbers with == or !=",
    "in": "search with a `for k in range(n):` loop comparing x[k] == value",
    "not in": "search with a `for k in range(n):` loop comparing x[k] != value",
}


def _compare_name(op):
    return {"In": "in", "NotIn": "not in", "Is": "is",
            "IsNot": "is not"}.get(type(op).__name__, type(op).__name__)


class _Marker:
    """A position with no AST node of its own (the `else:` of a loop)."""

    def __init__(self, lineno, col_offset, end_col_offset):
        self.lineno = self.end_lineno = lineno
        self.col_offset = col_offset
        self.end_col_offset = end_col_offset


class Checker:
    """Walks one function and raises on the first construct outside the subset."""

    def __init__(self, src, struct_params=()):
        self.src = src
        # Parameters holding a user class's struct (``self`` of a method):
        # their fields can be read and their methods called.
        self.struct_params = frozenset(struct_params)
        self.loop_vars = []
        self.params = set()
        self.local_names = set()

    def fail(self, node, message, hint=None):
        raise self.src.error(KernelSyntaxError, node, message, hint)

    def visit(self, node):
        method = getattr(self, "check_" + type(node).__name__, None)
        if method is None:
            self.reject(node)
        method(node)

    def reject(self, node):
        """Raise the message of a construct outside the kernel subset."""
        name = type(node).__name__
        message, hint = REJECTED.get(name, (
            "the Python construct `%s` is not supported in kernels" % name,
            "kernels use numbers, arrays, if/while/for-range loops and calls to "
            "helpers; rewrite it with those"))
        self.fail(node, message, hint)

    def visit_all(self, nodes):
        for node in nodes:
            self.visit(node)

    # -- the function -------------------------------------------------------
    def check_function(self, tree):
        if isinstance(tree, ast.AsyncFunctionDef):
            self.fail(tree, "async functions cannot be kernels or helpers",
                      "define it with a plain `def`")
        args = tree.args
        if args.vararg:
            self.fail(args.vararg, "*%s is not supported in kernels: kernels take a "
                      "fixed number of arguments" % args.vararg.arg,
                      "list every argument explicitly: def f(i, x, y):")
        if args.kwarg:
            self.fail(args.kwarg, "**%s is not supported in kernels: kernels take a "
                      "fixed number of arguments" % args.kwarg.arg,
                      "list every argument explicitly: def f(i, x, y):")
        if args.kwonlyargs:
            self.fail(args.kwonlyargs[0], "keyword-only arguments are not supported "
                      "in kernels", "remove the `*,` and pass the arguments by position")
        if getattr(args, "posonlyargs", []):
            self.fail(args.posonlyargs[-1], "positional-only arguments (`/`) are not "
                      "supported in kernels", "remove the `/`")
        default_declarations(self.src)  # defaults declare types; bad ones raise
        for arg in args.args:
            self.check_name_text(arg, arg.arg)
        self.params = {a.arg for a in args.args}
        self.local_names = set()
        self.bound_names = set(self.params)  # given a value other than by +=
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                self.local_names.add(node.id)
            if isinstance(node, (ast.Assign, ast.For)):
                for target in (node.targets if isinstance(node, ast.Assign)
                               else [node.target]):
                    for sub in ast.walk(target):
                        if isinstance(sub, ast.Name):
                            self.bound_names.add(sub.id)
        body = tree.body
        if (body and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            body = body[1:]
        self.visit_all(body)

    def check_name_text(self, node, name):
        if name.startswith("pc_") or name.startswith("_pc_"):
            self.fail(node, "the name %r is reserved: names starting with 'pc_' "
                      "are used by pcompute's generated code" % name,
                      "rename it (e.g. %r)" % name.lstrip("_").replace("pc_", "p_", 1))

    def else_marker(self, node):
        """A marker at the `else` of a loop (the loop itself if not found)."""
        lines = self.src.lines
        first = node.body[-1].end_lineno if node.body else node.lineno
        last = node.orelse[0].lineno
        for rel in range(first + 1, last + 1):
            rel_text = lines[rel - 1] if 0 < rel <= len(lines) else ""
            stripped = rel_text.lstrip()
            if stripped.startswith("else"):
                col = len(rel_text) - len(stripped) - self.src.indent
                return _Marker(rel, max(col, 0), max(col, 0) + 4)
        return node

    # -- statements ---------------------------------------------------------
    def check_Expr(self, node):
        value = node.value
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            return  # a docstring-like comment string
        if isinstance(value, ast.Call):
            self.visit(value)
            return
        if not hasattr(self, "check_" + type(value).__name__):
            self.reject(value)  # yield, await, ... have their own message
        if isinstance(value, ast.Constant) and value.value is Ellipsis:
            self.fail(node, "`...` as a statement is not supported in kernels",
                      "write `pass`")
        self.fail(node, "an expression statement has no effect in a kernel",
                  "assign its value (y = ...) or remove it")

    def check_Assign(self, node):
        if len(node.targets) != 1:
            self.fail(node, "chained assignment (a = b = c) is not supported in kernels",
                      "write one assignment per line: b = c, then a = b")
        target = node.targets[0]
        if isinstance(target, (ast.Tuple, ast.List)):
            if isinstance(target, ast.List):
                self.fail(target, "unpacking into a list [a, b] = ... is not "
                          "supported in kernels", "write a, b = ...")
            for elt in target.elts:
                self.check_target(elt)
            value = node.value
            if isinstance(value, ast.Tuple):
                if len(value.elts) != len(target.elts):
                    self.fail(node, "cannot unpack %d values into %d names"
                              % (len(value.elts), len(target.elts)),
                              "give as many values as names")
                self.visit_all(value.elts)
            elif self.is_declare(value):
                self.visit(value)
            else:
                self.fail(value, "only tuples (a, b = b, a) and declare('type', n) "
                          "can be unpacked in kernels",
                          "assign each name separately")
            return
        self.check_target(target)
        self.visit(node.value)

    def is_declare(self, node):
        return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id == "declare")

    def check_target(self, target):
        if isinstance(target, ast.Name):
            self.check_name_text(target, target.id)
            if target.id in self.loop_vars:
                self.fail(target, "assigning to the loop variable %r inside its "
                          "`for` loop has no effect on the loop in Python" % target.id,
                          "use another local name, or a `while` loop if you need to "
                          "change the counter")
        elif isinstance(target, ast.Subscript):
            self.check_Subscript(target)
        elif isinstance(target, ast.Attribute):
            if isinstance(target.value, ast.Name) and target.value.id in self.struct_params:
                self.fail(target, "cannot assign to %s.%s: the fields of an object are "
                          "read-only in kernels (every work-item shares one copy, and "
                          "compiled backends do not copy it back)"
                          % (target.value.id, target.attr),
                          "compute into a local, or write the result into an array "
                          "argument; set the attribute outside the kernel")
            self.fail(target, "cannot assign to an attribute in a kernel",
                      "kernels work on numbers and arrays; assign to a local or to "
                      "an array element x[i]")
        elif isinstance(target, (ast.Tuple, ast.List)):
            self.fail(target, "nested unpacking is not supported in kernels",
                      "assign each name separately")
        elif isinstance(target, ast.Starred):
            self.fail(target, "starred assignment (a, *b = ...) is not supported in "
                      "kernels", "assign each name separately")
        else:
            self.fail(target, "cannot assign to this expression in a kernel",
                      "assign to a local name or an array element x[i]")

    def check_AugAssign(self, node):
        if not isinstance(node.op, ALLOWED_BINOPS):
            op = OPERATOR_TEXT.get(type(node.op).__name__, type(node.op).__name__)
            self.fail(node, "the operator %s= is not supported in kernels" % op,
                      "kernels have no matrix product; write the loops")
        target = node.target
        if isinstance(target, ast.Name) and target.id not in self.bound_names:
            self.fail(target, "%r is updated with %s= but never assigned a first "
                      "value" % (target.id, OPERATOR_TEXT.get(type(node.op).__name__,
                                                              "")),
                      "assign it first, e.g. %s = 0.0 before the loop" % target.id)
        self.check_target(target)
        self.visit(node.value)

    def check_With(self, node):
        # `with nogil:` / `with parallel():` (Compyle's Cython functions) are
        # transparent blocks: the whole kernel already runs without the GIL.
        for item in node.items:
            ctx = item.context_expr
            ok = item.optional_vars is None and (
                (isinstance(ctx, ast.Name) and ctx.id == "nogil") or
                (isinstance(ctx, ast.Call) and isinstance(ctx.func, ast.Name)
                 and ctx.func.id == "parallel" and not ctx.args and not ctx.keywords))
            if not ok:
                message, hint = REJECTED["With"]
                self.fail(node, message, hint)
        self.visit_all(node.body)

    def check_If(self, node):
        self.visit(node.test)
        self.visit_all(node.body)
        self.visit_all(node.orelse)

    def check_While(self, node):
        if node.orelse:
            self.fail(self.else_marker(node),
                      "while ... else is not supported in kernels",
                      "set a flag before `break` and test it with `if` after the loop")
        self.visit(node.test)
        self.visit_all(node.body)

    def check_For(self, node):
        if node.orelse:
            self.fail(self.else_marker(node),
                      "for ... else is not supported in kernels",
                      "set a flag before `break` and test it with `if` after the loop")
        if not isinstance(node.target, ast.Name):
            self.fail(node.target, "the loop variable must be a single name",
                      "write `for k in range(n):` and read the values inside the loop")
        it = node.iter
        if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name)
                and it.func.id in ("range", "prange")):
            self.fail(it, "kernels can only loop over range(...): iterating over "
                      "an array or other object is not supported",
                      "write `for k in range(n):` and index the array: x[k]")
        if it.keywords:
            self.fail(it.keywords[0], "range() takes no keyword arguments",
                      "write range(start, stop, step) with positional arguments")
        if not 1 <= len(it.args) <= 3:
            self.fail(it, "range() takes 1 to 3 positional arguments, got %d"
                      % len(it.args), "write range(n), range(a, b) or range(a, b, step)")
        for arg in it.args:
            if isinstance(arg, ast.Starred):
                self.fail(arg, "starred arguments range(*x) are not supported in "
                          "kernels", "write range(start, stop, step)")
        self.visit_all(it.args)
        self.check_name_text(node.target, node.target.id)
        self.loop_vars.append(node.target.id)
        self.visit_all(node.body)
        self.loop_vars.pop()

    def check_Break(self, node):
        pass

    def check_Continue(self, node):
        pass

    def check_Pass(self, node):
        pass

    def check_Return(self, node):
        if node.value is not None:
            if isinstance(node.value, ast.Tuple):
                self.fail(node.value, "kernels cannot return several values",
                          "write the results into array arguments")
            self.visit(node.value)

    # -- expressions --------------------------------------------------------
    def check_BinOp(self, node):
        if not isinstance(node.op, ALLOWED_BINOPS):
            op = OPERATOR_TEXT.get(type(node.op).__name__, type(node.op).__name__)
            self.fail(node, "the operator %s is not supported in kernels" % op,
                      "kernels have no matrix product; write the loops over the "
                      "elements")
        self.visit(node.left)
        self.visit(node.right)

    def check_UnaryOp(self, node):
        self.visit(node.operand)

    def check_BoolOp(self, node):
        self.visit_all(node.values)

    def check_Compare(self, node):
        for op in node.ops:
            if not isinstance(op, ALLOWED_CMPOPS):
                name = _compare_name(op)
                hint = _COMPARE_HINTS.get(name, "compare numbers with ==, !=, <, <=, "
                                                ">, >=")
                self.fail(node, "the comparison `%s` is not supported in kernels" % name,
                          hint)
        self.visit(node.left)
        self.visit_all(node.comparators)

    def check_IfExp(self, node):
        self.visit(node.test)
        self.visit(node.body)
        self.visit(node.orelse)

    def check_Constant(self, node):
        value = node.value
        if isinstance(value, str):
            self.fail(node, "strings are not values in kernels: they are only "
                      "allowed as the format of printf() and the type of "
                      "declare()/cast()",
                      "kernels compute on numbers; use a number or an integer code, "
                      "and printf('...') for text output")
        if isinstance(value, bytes):
            self.fail(node, "bytes are not values in kernels",
                      "use numbers, or an array of uint8 passed as an argument")
        if value is None:
            self.fail(node, "None is not a value in kernels",
                      "use a number (e.g. 0 or -1 as a marker), or `return` without "
                      "a value")
        if isinstance(value, complex):
            self.fail(node, "complex numbers are not supported in kernels",
                      "keep the real and imaginary parts in two float variables")
        if value is Ellipsis:
            self.fail(node, "`...` is not a value in kernels", "use a number")

    def check_Name(self, node):
        self.check_name_text(node, node.id)

    def local_kind(self, name):
        if name in self.params:
            return "the argument"
        if name in self.local_names:
            return "the local"
        return None

    def check_Attribute(self, node):
        # Only module.name (math.sin, math.pi, module constants); resolved later.
        base = node.value
        if not isinstance(base, ast.Name):
            self.fail(node, "attribute access is only allowed on modules "
                      "(math.pi, mymodule.CONSTANT) in kernels",
                      "import the value at module level, or pass it as an argument")
        if base.id in self.struct_params:
            return  # a field of the object (typed later)
        kind = self.local_kind(base.id)
        if kind == "the argument" and node.attr in ARRAY_ATTRIBUTES:
            return  # a.shape[d], a.ndim, a.size of an array argument (typed later)
        if kind is not None:
            if node.attr in ("shape", "size", "ndim", "nbytes", "dtype"):
                hint = "pass the length as an integer argument (e.g. n) instead of " \
                       "%s.%s" % (base.id, node.attr)
            else:
                hint = "kernels see numbers and arrays only; pass %s.%s as an " \
                       "argument" % (base.id, node.attr)
            self.fail(node, "%s %r has no attribute %r in a kernel: attributes are "
                      "only allowed on modules (math.pi)" % (kind, base.id, node.attr),
                      hint)

    def check_Subscript(self, node):
        index = node.slice
        if isinstance(index, ast.Slice):
            self.visit(index)
        indices = index.elts if isinstance(index, ast.Tuple) else [index]
        for k, sub in enumerate(indices):
            if isinstance(sub, ast.Slice):
                self.fail(sub, "slicing is not supported in kernels",
                          "index single elements: x[i, k] inside a `for k in "
                          "range(a, b):` loop, or pass a view (a[1:-1, ::2]) as "
                          "the argument")
            if isinstance(sub, ast.Starred):
                self.fail(sub, "starred indices x[*idx] are not supported in kernels",
                          "write every index: x[i, j]")
        base = node.value
        if isinstance(base, ast.Attribute) and base.attr == "shape" \
                and isinstance(base.value, ast.Name):
            self.check_shape_index(node)
            return
        if not isinstance(base, (ast.Name, ast.Subscript)):
            self.fail(node, "only names can be subscripted in kernels (no pointer "
                      "arithmetic or indexing of call results)",
                      "assign the value to a local first, or index the array with the "
                      "offset added: x[k + 1]")
        for k, sub in enumerate(indices):
            if (isinstance(sub, ast.UnaryOp) and isinstance(sub.op, ast.USub)
                    and isinstance(sub.operand, ast.Constant)
                    and isinstance(sub.operand.value, int)
                    and sub.operand.value > 0):
                where = "x.shape[%d] - %d" % (k, sub.operand.value) \
                    if isinstance(index, ast.Tuple) else "n - %d" % sub.operand.value
                self.fail(sub, "negative indices count from the end in Python but "
                          "read before the start of the array in C",
                          "index from the start: x[%s] (n-D arrays know their shape: "
                          "x.shape[d]; for a 1-D pointer pass the length n as an "
                          "argument)" % where)
        self.visit(base)
        self.visit_all(indices)

    def check_shape_index(self, node):
        """``a.shape[d]``: ``d`` must be an integer literal."""
        self.visit(node.value)
        index = node.slice
        if not (isinstance(index, ast.Constant) and type(index.value) is int
                and index.value >= 0):
            self.fail(index, "the axis in %s.shape[d] must be a non-negative integer "
                      "literal" % node.value.value.id,
                      "write %s.shape[0], %s.shape[1], ..."
                      % (node.value.value.id, node.value.value.id))

    def check_Tuple(self, node):
        self.fail(node, "tuples are not values in kernels",
                  "only swaps and multiple assignment `a, b = b, a` use tuples; "
                  "write results into arrays")

    def check_Call(self, node):
        if node.keywords:
            kw = node.keywords[0]
            if kw.arg is None:
                self.fail(kw, "**kwargs in a call is not supported in kernels",
                          "pass each argument by position")
            self.fail(kw, "keyword arguments are not supported in kernel calls "
                      "(%s=...)" % kw.arg,
                      "pass the arguments by position, in the order of the "
                      "function's parameters")
        func = node.func
        if isinstance(func, ast.Attribute):
            if not isinstance(func.value, ast.Name):
                self.fail(func, "only functions of modules (math.sqrt) or plain "
                          "names can be called in kernels",
                          "import the function at module level "
                          "(from package.module import f) and call f(...)")
            kind = self.local_kind(func.value.id)
            if func.value.id in self.struct_params:
                kind = None  # obj.method(...): the method of its class
            if kind is not None:
                self.fail(func, "%s %r has no methods in a kernel: only functions of "
                          "modules (math.sqrt) can be called"
                          % (kind, func.value.id),
                          "write the operation as a loop over the elements, or pass "
                          "its result as an argument")
        elif not isinstance(func, ast.Name):
            self.fail(func, "only named functions can be called in kernels",
                      "call a module-level function by name: f(...)")
        name = func.id if isinstance(func, ast.Name) else func.attr
        if name == "print" and isinstance(func, ast.Name):
            self.fail(node, "print() is not supported in kernels",
                      "use printf('%f\\n', x) with a C format string")
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                self.fail(arg, "starred arguments f(*x) are not supported in kernels",
                          "pass each argument explicitly: f(a, b)")
        args = node.args
        if name in STRING_CALLS and args and isinstance(args[0], ast.Constant) \
                and isinstance(args[0].value, str) and name != "cast":
            args = args[1:]
        elif name == "cast" and len(args) == 2 and isinstance(args[1], ast.Constant) \
                and isinstance(args[1].value, str):
            args = args[:1]
        self.visit_all(args)


def check_function(src, struct_params=()):
    """Check ``src`` (a :class:`FunctionSource`) against the kernel subset.

    ``struct_params`` names the parameters that hold an object of a user class
    (``self`` of a method): ``p.field`` reads and ``p.method(...)`` calls are
    allowed on them."""
    Checker(src, struct_params).check_function(src.tree)
