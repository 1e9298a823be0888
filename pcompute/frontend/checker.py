"""The allow-list check of the kernel language.

A separate pass that runs before typing: every node of the function is
dispatched on its type to a ``check_<Node>`` method; a node type without one is
rejected with the message in :data:`REJECTED` (or a generic one).  Nothing the
translator does not understand reaches typing or generated code.
"""
import ast

from ..errors import KernelSyntaxError

# Constructs that are not in the kernel language, with what to write instead.
REJECTED = {
    "List": ("list literals are not supported in kernels",
             "use a local array: `a = declare('matrix(3)')` (or 'matrix(3, \"int\")')"),
    "ListComp": ("list comprehensions are not supported in kernels",
                 "use a `for k in range(n):` loop over a declare('matrix(n)') array"),
    "Dict": ("dict literals are not supported in kernels", "use scalars or declare()d arrays"),
    "DictComp": ("dict comprehensions are not supported in kernels",
                 "use scalars or declare()d arrays"),
    "Set": ("set literals are not supported in kernels", "use scalars or declare()d arrays"),
    "SetComp": ("set comprehensions are not supported in kernels",
                "use scalars or declare()d arrays"),
    "GeneratorExp": ("generator expressions are not supported in kernels",
                     "use a `for k in range(n):` loop"),
    "Lambda": ("lambda is not supported in kernels",
               "define a helper function with `def` at module level and call it"),
    "With": ("`with` is not supported in kernels", "remove the with-block"),
    "AsyncWith": ("`async with` is not supported in kernels", "remove it"),
    "Try": ("try/except is not supported in kernels",
            "kernels cannot raise; check conditions with `if` instead"),
    "TryStar": ("try/except* is not supported in kernels", "check conditions with `if`"),
    "Raise": ("raise is not supported in kernels",
              "kernels cannot raise; return early or write a flag into an array"),
    "Assert": ("assert is not supported in kernels",
               "check the condition with `if` and write a flag into an array"),
    "ClassDef": ("classes cannot be defined inside kernels",
                 "define helpers as module-level functions"),
    "FunctionDef": ("functions cannot be defined inside kernels",
                    "define the helper at module level and call it"),
    "AsyncFunctionDef": ("async functions are not supported in kernels",
                         "use a plain module-level function"),
    "Global": ("`global` is not supported in kernels",
               "pass the value as an argument (module-level numbers may be read)"),
    "Nonlocal": ("`nonlocal` is not supported in kernels", "pass the value as an argument"),
    "Delete": ("`del` is not supported in kernels", "remove it"),
    "Import": ("imports are not allowed inside kernels", "import at module level"),
    "ImportFrom": ("imports are not allowed inside kernels", "import at module level"),
    "Yield": ("yield is not supported in kernels", "write results into an array argument"),
    "YieldFrom": ("yield is not supported in kernels", "write results into an array argument"),
    "Await": ("await is not supported in kernels", "remove it"),
    "AsyncFor": ("`async for` is not supported in kernels", "use `for k in range(n):`"),
    "JoinedStr": ("f-strings are not supported in kernels",
                  "use printf('%d\\n', x) with a C format string"),
    "NamedExpr": ("the walrus operator := is not supported in kernels",
                  "assign in a separate statement"),
    "Starred": ("*args is not supported in kernels", "pass each argument explicitly"),
    "Slice": ("slicing is not supported in kernels",
              "index single elements: `x[i]` inside a `for i in range(a, b):` loop"),
    "Match": ("match statements are not supported in kernels", "use if/elif/else"),
    "AnnAssign": ("annotated assignments are not supported in kernels",
                  "write `x = declare('double')` and then assign"),
}

ALLOWED_BINOPS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod,
                  ast.Pow, ast.LShift, ast.RShift, ast.BitOr, ast.BitXor,
                  ast.BitAnd)
ALLOWED_CMPOPS = (ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE)

# Calls whose first argument may be a string.
STRING_CALLS = ("printf", "declare", "cast")


class Checker:
    """Walks one function and raises on the first construct outside the subset."""

    def __init__(self, src):
        self.src = src
        self.loop_vars = []

    def fail(self, node, message, hint=None):
        raise self.src.error(KernelSyntaxError, node, message, hint)

    def visit(self, node):
        method = getattr(self, "check_" + type(node).__name__, None)
        if method is None:
            name = type(node).__name__
            message, hint = REJECTED.get(
                name, ("`%s` is not supported in kernels" % name, None))
            self.fail(node, message, hint)
        method(node)

    def visit_all(self, nodes):
        for node in nodes:
            self.visit(node)

    # -- the function -------------------------------------------------------
    def check_function(self, tree):
        args = tree.args
        if args.vararg or args.kwarg:
            self.fail(tree, "*args and **kwargs are not supported in kernels",
                      "list every argument explicitly")
        if args.kwonlyargs or getattr(args, "posonlyargs", []):
            self.fail(tree, "keyword-only and positional-only arguments are not "
                      "supported in kernels", "use plain positional arguments")
        if args.defaults or args.kw_defaults:
            self.fail(args.defaults[0] if args.defaults else tree,
                      "default argument values are not supported in kernels",
                      "pass every argument at each call")
        for arg in args.args:
            self.check_name_text(arg, arg.arg)
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

    # -- statements ---------------------------------------------------------
    def check_Expr(self, node):
        value = node.value
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            return  # a docstring-like comment string
        if not isinstance(value, ast.Call):
            self.fail(node, "an expression statement has no effect in a kernel",
                      "assign its value or remove it")
        self.visit(value)

    def check_Assign(self, node):
        if len(node.targets) != 1:
            self.fail(node, "chained assignment (a = b = c) is not supported in kernels",
                      "write one assignment per line")
        target = node.targets[0]
        if isinstance(target, ast.Tuple):
            for elt in target.elts:
                self.check_target(elt)
            value = node.value
            if isinstance(value, ast.Tuple):
                if len(value.elts) != len(target.elts):
                    self.fail(node, "cannot unpack %d values into %d names"
                              % (len(value.elts), len(target.elts)))
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
                          "`for` loop has no effect in Python" % target.id,
                          "use a `while` loop if you need to change the counter")
        elif isinstance(target, ast.Subscript):
            self.check_Subscript(target)
        elif isinstance(target, ast.Attribute):
            self.fail(target, "cannot assign to an attribute in a kernel",
                      "kernels work on scalars and arrays; assign to a local or x[i]")
        elif isinstance(target, (ast.Tuple, ast.List)):
            self.fail(target, "nested unpacking is not supported in kernels",
                      "assign each name separately")
        elif isinstance(target, ast.Starred):
            self.visit(target)
        else:
            self.fail(target, "cannot assign to this expression in a kernel")

    def check_AugAssign(self, node):
        if not isinstance(node.op, ALLOWED_BINOPS):
            self.fail(node, "the operator %s= is not supported in kernels"
                      % type(node.op).__name__)
        self.check_target(node.target)
        self.visit(node.value)

    def check_If(self, node):
        self.visit(node.test)
        self.visit_all(node.body)
        self.visit_all(node.orelse)

    def check_While(self, node):
        if node.orelse:
            self.fail(node, "while ... else is not supported in kernels",
                      "use a flag variable and an `if` after the loop")
        self.visit(node.test)
        self.visit_all(node.body)

    def check_For(self, node):
        if node.orelse:
            self.fail(node, "for ... else is not supported in kernels",
                      "use a flag variable and an `if` after the loop")
        if not isinstance(node.target, ast.Name):
            self.fail(node.target, "the loop variable must be a single name",
                      "write `for k in range(n):`")
        it = node.iter
        if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name)
                and it.func.id == "range"):
            self.fail(it, "kernels can only loop over range(...): iterating over "
                      "an array or other object is not supported",
                      "write `for k in range(n):` and index the array: x[k]")
        if it.keywords or not 1 <= len(it.args) <= 3:
            self.fail(it, "range() takes 1 to 3 positional arguments")
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
            self.fail(node, "the operator %s is not supported in kernels"
                      % type(node.op).__name__)
        self.visit(node.left)
        self.visit(node.right)

    def check_UnaryOp(self, node):
        self.visit(node.operand)

    def check_BoolOp(self, node):
        self.visit_all(node.values)

    def check_Compare(self, node):
        for op in node.ops:
            if not isinstance(op, ALLOWED_CMPOPS):
                name = {"In": "in", "NotIn": "not in", "Is": "is",
                        "IsNot": "is not"}.get(type(op).__name__, type(op).__name__)
                self.fail(node, "the comparison `%s` is not supported in kernels" % name,
                          "compare numbers with ==, !=, <, <=, >, >=")
        self.visit(node.left)
        self.visit_all(node.comparators)

    def check_IfExp(self, node):
        self.visit(node.test)
        self.visit(node.body)
        self.visit(node.orelse)

    def check_Constant(self, node):
        value = node.value
        if isinstance(value, str):
            self.fail(node, "strings are only allowed as the format of printf() "
                      "and the type of declare()/cast()",
                      "kernels compute on numbers")
        if value is None:
            self.fail(node, "None is not a value in kernels",
                      "use a number, or `return` without a value")
        if isinstance(value, (complex, bytes)) or value is Ellipsis:
            self.fail(node, "%s constants are not supported in kernels"
                      % type(value).__name__)

    def check_Name(self, node):
        self.check_name_text(node, node.id)

    def check_Attribute(self, node):
        # Only module.name (math.sin, math.pi, module constants); resolved later.
        if not isinstance(node.value, ast.Name):
            self.fail(node, "attribute access is only allowed on modules "
                      "(math.sin, math.pi) in kernels",
                      "pass the value as an argument")

    def check_Subscript(self, node):
        index = node.slice
        if isinstance(index, ast.Slice):
            self.visit(index)
        if isinstance(index, ast.Tuple):
            self.fail(node, "multi-dimensional subscripts x[i, j] are not supported",
                      "index a flat array as x[i*n + j], or a declared matrix as m[i][j]")
        base = node.value
        if not isinstance(base, (ast.Name, ast.Subscript)):
            self.fail(node, "only names can be subscripted in kernels",
                      "assign the array to a local first")
        self.visit(base)
        self.visit(index)

    def check_Tuple(self, node):
        self.fail(node, "tuples are not values in kernels",
                  "only `a, b = b, a` style swaps use tuples")

    def check_Call(self, node):
        if node.keywords:
            self.fail(node.keywords[0].value if node.keywords[0].arg else node,
                      "keyword arguments are not supported in kernel calls",
                      "pass the arguments by position")
        func = node.func
        if isinstance(func, ast.Attribute):
            if not isinstance(func.value, ast.Name):
                self.fail(func, "only functions of modules (math.sqrt) or plain "
                          "names can be called in kernels")
        elif not isinstance(func, ast.Name):
            self.fail(func, "only named functions can be called in kernels")
        name = func.id if isinstance(func, ast.Name) else func.attr
        if name == "print":
            self.fail(node, "print() is not supported in kernels",
                      "use printf('%f\\n', x) with a C format string")
        args = node.args
        if name in STRING_CALLS and args and isinstance(args[0], ast.Constant) \
                and isinstance(args[0].value, str) and name != "cast":
            args = args[1:]
        elif name == "cast" and len(args) == 2 and isinstance(args[1], ast.Constant):
            args = args[:1]
        for arg in args:
            if isinstance(arg, ast.Starred):
                self.visit(arg)
            self.visit(arg)


def check_function(src):
    """Check ``src`` (a :class:`FunctionSource`) against the kernel subset."""
    Checker(src).check_function(src.tree)
