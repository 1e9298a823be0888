"""Type inference: from checked functions to typed, frozen records.

Each local's type is the C-like promotion of every value assigned to it (a
fixed point over the function), float literals follow ``use_double``, helpers
take the promoted types of all their call sites unless annotated.  The result
is a :class:`TypedProgram`: the functions in dependency order (helpers before
callers), each a :class:`TypedFunction` holding a normalised copy of its AST
and a type for every expression.
"""
import ast
import copy
from dataclasses import dataclass, field

from .. import types as kt
from ..errors import InternalError, KernelSyntaxError, KernelTypeError
from ..types import BOOL, DOUBLE, FLOAT, INT, LONG, VOID, CType, parse_type, promote
from .callgraph import BUILTINS, MATH_FUNCS, Resolver
from .checker import check_function
from .source import read_function

INT32_MIN, INT32_MAX = -2 ** 31, 2 ** 31 - 1

# Work-item names of low-level kernels (OpenCL/CUDA only): LID_0, GID_1, ...
WORK_ITEM_NAMES = frozenset("%s_%d" % (kind, d) for kind in ("LID", "GID", "LDIM", "GDIM")
                            for d in range(3))
INT64_MIN, INT64_MAX = -2 ** 63, 2 ** 63 - 1


@dataclass(frozen=True)
class LoopInfo:
    """How a ``for v in range(...)`` loop is printed.

    ``simple`` loops (step 1) run ``v`` from start while ``v < stop``;
    others use a trip count so that any step sign and ``continue`` behave as
    in Python.  ``stop``/``step``/``count``/``counter`` name hidden locals
    (None when the value is used directly).  ``shadow`` names a hidden local
    that runs a C loop in place of ``v`` when ``v`` is read outside the loop:
    ``v`` is then assigned from it at the top of each pass, so that after
    the loop ``v`` holds its last value (or is unchanged), as in Python; also
    when a nested loop reuses ``v`` as its variable.
    """
    simple: bool
    stop: str = None
    start: str = None
    step: str = None
    count: str = None
    counter: str = None
    shadow: str = None


@dataclass(frozen=True, eq=False)
class TypedFunction:
    """One typed function, ready to print in any dialect."""
    name: str
    c_name: str
    src: object
    tree: ast.FunctionDef
    args: tuple            # ((name, CType), ...)
    ret: CType
    locals: tuple          # ((name, CType), ...), hidden temporaries included
    types: dict            # id(expr node) -> CType
    calls: dict            # id(Call) -> ('helper', c_name) | ('math'|'builtin', name)
    loops: dict            # id(For) -> LoopInfo
    swaps: dict            # id(Assign) -> tuple of temporary names
    declares: dict         # id(Assign) -> CType declared there
    callees: tuple         # c_names of the helpers called
    names: dict            # user name -> printed name
    features: frozenset    # 'atomics', 'printf', 'local_mem', 'recursion'
    # id(Compare) -> per comparator, the hidden local holding its value when
    # it is also the left operand of the next comparison and must be
    # evaluated once (a call in ``0 <= f(x) < n``), else None.
    chains: dict = field(default_factory=dict)
    # id(AugAssign) -> per subscript level of its target (outermost first), the
    # hidden local holding an index that contains a call, else None; printed
    # as `t = f(); x[t] = x[t] // v` so that f() runs once, as in Python.
    augs: dict = field(default_factory=dict)

    def type_of(self, node):
        try:
            return self.types[id(node)]
        except KeyError:
            raise InternalError("no type recorded for %s at line %s"
                                % (type(node).__name__, getattr(node, "lineno", "?")))

    def cname(self, name):
        return self.names.get(name, name)

    def location(self, node):
        return self.src.location(node)


@dataclass(frozen=True, eq=False)
class TypedProgram:
    """A kernel and its helpers, typed; ``functions`` ends with ``entry``."""
    entry: TypedFunction
    functions: tuple
    use_double: bool
    recursive: frozenset = field(default_factory=frozenset)

    @property
    def features(self):
        out = set()
        for f in self.functions:
            out |= f.features
        return frozenset(out)


# Names the generated code may not use for user identifiers (C, OpenCL, CUDA,
# Cython keywords and library names); such user names get a 'pc_u_' prefix.
RESERVED = frozenset("""
auto break case char const continue default do double else enum extern float for
goto if inline int long register restrict return short signed sizeof static struct
switch typedef union unsigned void volatile while bool kernel global local constant
private __kernel __global __local __constant __private read_only write_only half
float2 float4 double2 double4 int2 int4 uint uchar ushort ulong size_t ptrdiff_t
cdef cpdef cimport ctypedef nogil gil noexcept include DEF IF ELIF ELSE NULL
new delete this class template typename namespace using operator friend virtual
printf abs fabs min max sin cos tan asin acos atan atan2 sinh cosh tanh exp log
log10 log2 log1p expm1 sqrt pow floor ceil trunc fmod hypot copysign erf erfc
isnan isinf INFINITY NAN M_PI memset malloc free main get_global_id barrier
threadIdx blockIdx blockDim gridDim warpSize __syncthreads atomicAdd atomic_inc
atomic_dec atomic_add prange parallel range object True False None and or not is
in lambda def pass print exec assert del except finally raise try with yield
async await nonlocal from import as elif
""".split())


def _words(text):
    return set(text.split())


# More names no user identifier may be printed as: C++ (CUDA) keywords and
# alternative operator tokens, OpenCL C and CUDA types (vector types too),
# macros of the C headers and OpenCL, Cython keywords and type names, the
# names the generated modules define (Cython's ``run``), and the C math names
# with the float suffix (CUDA and Cython call sinf, powf, ... in user code).
_KEYWORDS_TYPES_MACROS = _words("""
_Bool _Complex _Imaginary _Noreturn _Static_assert _Thread_local _Alignas _Alignof
true false asm nullptr public protected export mutable explicit typeid throw catch
constexpr consteval constinit decltype alignas alignof static_assert thread_local
char8_t char16_t char32_t wchar_t static_cast const_cast reinterpret_cast
dynamic_cast concept requires co_await co_return co_yield
bitand bitor compl and_eq or_eq xor xor_eq not_eq
__device__ __host__ __global__ __shared__ __constant__ __managed__
__attribute__ read_write uniform pipe image1d_t image2d_t image3d_t sampler_t
event_t quad complex imaginary vec_step dim3 cudaError_t
cython run bint Py_ssize_t ssize_t Py_hash_t Py_UCS4 Py_UNICODE object list dict
tuple str bytes unicode type readonly api fused packed cppclass by
errno EOF BUFSIZ RAND_MAX EXIT_SUCCESS EXIT_FAILURE HUGE_VAL HUGE_VALF MAXFLOAT
CHAR_BIT CHAR_MAX CHAR_MIN SCHAR_MAX SCHAR_MIN UCHAR_MAX SHRT_MAX SHRT_MIN
USHRT_MAX INT_MAX INT_MIN UINT_MAX LONG_MAX LONG_MIN ULONG_MAX LLONG_MAX LLONG_MIN
FLT_MAX FLT_MIN FLT_EPSILON FLT_DIG DBL_MAX DBL_MIN DBL_EPSILON DBL_DIG
M_E M_LOG2E M_LOG10E M_LN2 M_LN10 M_PI_2 M_PI_4 M_1_PI M_2_PI M_2_SQRTPI
M_SQRT2 M_SQRT1_2 CLK_LOCAL_MEM_FENCE CLK_GLOBAL_MEM_FENCE
""")
for _base in ("char", "uchar", "short", "ushort", "int", "uint", "long", "ulong",
              "float", "double", "half", "bool", "longlong", "ulonglong"):
    _KEYWORDS_TYPES_MACROS.update("%s%d" % (_base, _n) for _n in (1, 2, 3, 4, 8, 16))
_KEYWORDS_TYPES_MACROS.update(_f + "f" for _f in MATH_FUNCS)

RESERVED = RESERVED | frozenset(_KEYWORDS_TYPES_MACROS)

# Built-in and library functions of OpenCL C and CUDA that generated code does
# not call: a user *function* with one of these names clashes with it (OpenCL C
# cannot overload them), so functions are renamed; locals may keep the name.
_LIBRARY_FUNCTIONS = _words("""
acospi asinpi atanpi atan2pi cospi sinpi tanpi cbrt exp2 exp10 fdim fma fmax fmin
fract frexp ilogb ldexp lgamma lgamma_r logb mad maxmag minmag modf nan nextafter
pown powr remainder remquo rint rootn round rsqrt sincos tgamma nearbyint lrint
llrint lround llround scalbn scalbln signbit isfinite isnormal isordered
isunordered isequal isnotequal isgreater isgreaterequal isless islessequal
islessgreater any all bitselect select shuffle shuffle2
abs_diff add_sat hadd rhadd clamp clz ctz mad_hi mad_sat mul_hi rotate sub_sat
upsample popcount mad24 mul24 degrees radians mix step smoothstep sign
cross dot distance length normalize fast_distance fast_length fast_normalize
mem_fence read_mem_fence write_mem_fence async_work_group_copy
async_work_group_strided_copy wait_group_events prefetch get_work_dim
get_global_size get_local_size get_local_id get_num_groups get_group_id
get_global_offset vload_half vstore_half vloada_half vstorea_half
rcbrt sincospi normcdf normcdfinv erfinv erfcinv norm norm3d norm4d rnorm rnorm3d
rnorm4d rhypot j0 j1 jn y0 y1 yn cyl_bessel_i0 cyl_bessel_i1 labs llabs
atomicSub atomicExch atomicMin atomicMax atomicInc atomicDec atomicCAS atomicAnd
atomicOr atomicXor clock clock64 memcpy memmove calloc realloc div ldiv lldiv
make_float2 make_float3 make_float4 make_int2 make_int3 make_int4 make_double2
make_double3 make_double4
""")
for _op in ("add", "sub", "xchg", "inc", "dec", "cmpxchg", "min", "max", "and", "or",
            "xor"):
    _LIBRARY_FUNCTIONS.update(("atomic_" + _op, "atom_" + _op))
for _fn in ("cos", "divide", "exp", "exp2", "exp10", "log", "log2", "log10", "powr",
            "recip", "rsqrt", "sin", "sqrt", "tan"):
    _LIBRARY_FUNCTIONS.update(("half_" + _fn, "native_" + _fn))
for _base in ("char", "uchar", "short", "ushort", "int", "uint", "long", "ulong",
              "float", "double", "half"):
    _LIBRARY_FUNCTIONS.update(("convert_" + _base, "as_" + _base))
for _n in (2, 3, 4, 8, 16):
    _LIBRARY_FUNCTIONS.update(("vload%d" % _n, "vstore%d" % _n, "vload_half%d" % _n,
                               "vstore_half%d" % _n))
_LIBRARY_FUNCTIONS.update(_f + _s for _f in _words("""
fabs fmin fmax fma cbrt exp2 round rint lgamma tgamma ldexp frexp modf rsqrt
nearbyint remainder fdim logb sincos sinpi cospi exp10 nan norm
""") | set(MATH_FUNCS) for _s in ("f", "l"))
RESERVED_FUNCTIONS = RESERVED | frozenset(_LIBRARY_FUNCTIONS)
del _base, _n, _op, _fn


def _printed_name(name, reserved=RESERVED):
    return "pc_u_" + name if name in reserved else name


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


# Augmented assignments printed as C's compound assignments (the target is
# evaluated once there); the others are printed as `target = f(target, value)`.
COMPOUND_OPS = (ast.Add, ast.Sub, ast.Mult, ast.BitAnd, ast.BitOr, ast.BitXor,
                ast.LShift, ast.RShift)


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


def _join(a, b):
    """Join two local types; None means not known yet."""
    if a is None:
        return b
    if b is None or a == b:
        return a
    if a.is_scalar and b.is_scalar:
        return promote(a, b)
    return False  # incompatible


class _FunctionTyper:
    """Types one function for one set of argument types."""

    def __init__(self, program, src, arg_types, ret_hint):
        self.program = program
        self.src = src
        self.resolver = Resolver(src)
        self.tree = copy.deepcopy(src.tree)
        self.args = dict(arg_types)
        self.ret_hint = ret_hint
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
            return
        if name in self.declared:
            old = self.declared[name]
            if ctype is not None and old.is_scalar != ctype.is_scalar:
                self.fail(KernelTypeError, node,
                          "%r is declared as %s and cannot be assigned a %s"
                          % (name, old, ctype), "use another local name")
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
        if isinstance(target, ast.Subscript) and not isinstance(node.op, COMPOUND_OPS):
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

    def expr_Subscript(self, node):
        base = self.expr(node.value)
        index = self.expr(node.slice)
        if index is not None and not index.is_int:
            self.fail(KernelTypeError, node.slice, "array indices must be integers, "
                      "got %s" % index, "convert with int(...)")
        if base is None:
            return None
        if not base.is_indexable:
            self.fail(KernelTypeError, node, "%s is a %s and cannot be indexed"
                      % (ast.unparse(node.value), base),
                      "only arrays and declare('matrix(n)') locals can be indexed")
        return base.element()

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

    def weak_unsigned(self, node, t, other):
        """A non-negative int literal met by an unsigned value takes its type, as
        numpy's Python ints do: ``u + 1`` stays uint32."""
        if other is None or other.base not in ("uint", "ulong") or t == other:
            return t
        if isinstance(node, ast.Constant) and type(node.value) is int and node.value >= 0:
            self.types[id(node)] = other
            return other
        return t

    def binop(self, node):
        left, right = self.expr(node.left), self.expr(node.right)
        if left is None or right is None:
            return left or right
        left, right = (self.weak_float(node.left, left, right),
                       self.weak_float(node.right, right, left))
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
        if isinstance(op, ast.Pow) and left.is_int and right.is_int:
            exponent = node.right
            if (isinstance(exponent, ast.UnaryOp) and isinstance(exponent.op, ast.USub)) \
                    or (_int_constant(exponent) or 0) < 0:
                self.fail(KernelTypeError, node, "an integer raised to a negative power "
                          "is a float in Python", "write float(a) ** b")
        return promote(left, right)

    def expr_Call(self, node, allow_void=False):
        kind, target = self.resolver.call_target(node)
        if kind == "helper":
            return self.call_helper(node, target)
        if kind == "extern":
            return self.call_extern(node, target)
        self.calls[id(node)] = (kind, target)
        nargs = len(node.args)
        if kind == "math":
            if nargs != MATH_FUNCS[target]:
                self.fail(KernelTypeError, node, "%s() takes %d argument(s), got %d"
                          % (target, MATH_FUNCS[target], nargs),
                          "call it as in C's math library: %s(%s)" % (
                              target, ", ".join("xyz"[:MATH_FUNCS[target]])))
            types = [self.expr(a) for a in node.args]
            for a, t in zip(node.args, types):
                if t is not None and not t.is_scalar:
                    self.fail(KernelTypeError, a, "%s() needs numbers, not a %s" % (target, t))
            if target in ("isnan", "isinf"):
                return BOOL
            known = [t for t in types if t is not None]
            if not known:
                return None
            if all(t == FLOAT or t.is_int for t in known) and FLOAT in known:
                return FLOAT
            if any(t == DOUBLE for t in known):
                return DOUBLE
            return self.program.float_type
        low, high = BUILTINS[target]
        if not low <= nargs <= high:
            self.fail(KernelTypeError, node, "%s() takes %s argument(s), got %d"
                      % (target, low if low == high else "%d to %d" % (low, high), nargs),
                      "pass %s positional argument(s)"
                      % (low if low == high else "%d to %d" % (low, high)))
        return getattr(self, "builtin_" + target)(node)

    def builtin_abs(self, node):
        t = self.expr(node.args[0])
        if t is not None and not t.is_scalar:
            self.fail(KernelTypeError, node, "abs() needs a number, not a %s" % t)
        return None if t is None else (promote(t, INT) if t.is_int else t)

    def builtin_min(self, node):
        result = None
        for a in node.args:
            t = self.expr(a)
            if t is not None and not t.is_scalar:
                self.fail(KernelTypeError, a, "min()/max() need numbers, not a %s" % t)
            result = _join(result, t) if t is not None else result
        return None if result is None else promote(result, INT)

    builtin_max = builtin_min

    def builtin_int(self, node):
        self.expr(node.args[0])
        return INT

    def builtin_float(self, node):
        self.expr(node.args[0])
        return self.program.float_type

    def builtin_cast(self, node):
        self.expr(node.args[0])
        spec = node.args[1]
        if not isinstance(spec, ast.Constant) or not isinstance(spec.value, str):
            self.fail(KernelSyntaxError, spec, "cast() needs a type string, e.g. "
                      "cast(x, 'float')")
        try:
            t = self.program.fix(parse_type(spec.value))
        except KernelTypeError as exc:
            self.fail(KernelTypeError, spec, exc.message, exc.hint)
        if not t.is_scalar:
            self.fail(KernelTypeError, spec, "cast() converts to scalar types only")
        return t

    def builtin_address(self, node):
        arg = node.args[0]
        if not isinstance(arg, (ast.Name, ast.Subscript)):
            self.fail(KernelSyntaxError, arg, "address() takes a variable or an array "
                      "element")
        t = self.expr(arg)
        if t is None:
            return None
        if not t.is_scalar:
            self.fail(KernelTypeError, arg, "address() of a %s is not supported" % t)
        space = ""
        if isinstance(arg, ast.Subscript):
            base = self.types.get(id(arg.value))
            space = base.space if base is not None else ""
        return t.pointer_to(space or "private")

    def builtin_atomic_inc(self, node):
        arg = node.args[0]
        if not isinstance(arg, ast.Subscript):
            self.fail(KernelSyntaxError, arg, "atomic_inc()/atomic_dec() work on an "
                      "array element", "write atomic_inc(counts[k])")
        t = self.expr(arg)
        if t is not None and t.base not in ("int", "uint", "long", "ulong"):
            self.fail(KernelTypeError, arg, "atomics need an int, uint, long or ulong "
                      "array, not %s" % t)
        self.features.add("atomics")
        return t

    builtin_atomic_dec = builtin_atomic_inc

    def builtin_local_barrier(self, node):
        self.features.add("work_items")
        return VOID

    def builtin_printf(self, node):
        fmt = node.args[0]
        if not isinstance(fmt, ast.Constant) or not isinstance(fmt.value, str):
            self.fail(KernelSyntaxError, fmt, "printf() needs a format string literal "
                      "as its first argument")
        for a in node.args[1:]:
            t = self.expr(a)
            if t is not None and not t.is_scalar:
                self.fail(KernelTypeError, a, "printf() prints numbers only")
        self.features.add("printf")
        return VOID

    def builtin_declare(self, node):
        self.fail(KernelSyntaxError, node, "declare() must be the whole right-hand side "
                  "of an assignment", "write x = declare('double')")

    def call_helper(self, node, func):
        arg_types = [self.expr(a) for a in node.args]
        if any(t is None for t in arg_types):
            self.pending.append(node)
            return None
        typed = self.program.request(func, node, self.src, arg_types)
        self.calls[id(node)] = ("helper", typed.c_name if typed is not None
                                else self.program.c_name_of(func))
        name = self.calls[id(node)][1]
        if name not in self.callees:
            self.callees.append(name)
        if typed is None:  # recursion: still being typed
            return self.program.current_ret(func)
        return typed.ret

    def call_extern(self, node, ext):
        arg_types = [self.expr(a) for a in node.args]
        self.calls[id(node)] = ("extern", ext)
        return self.program.fix(parse_type(getattr(ext, "return_type", "double")))

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


def _annotation_types(func, src):
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

    def __init__(self, use_double=True, demote_double=False):
        self.use_double = use_double
        self.demote_double = demote_double
        self.float_type = DOUBLE if use_double else FLOAT
        self.signatures = {}
        self.c_names = {}

    def fix(self, t):
        """Apply the precision decision: double becomes float when demoting."""
        if self.demote_double and t is not None and t.base == "double":
            return t.with_base("float")
        return t

    def c_name_of(self, func):
        if func not in self.c_names:
            base = _printed_name(func.__name__, RESERVED_FUNCTIONS)
            if func.__name__.startswith("pc_"):  # the prefix of pcompute's own names
                base = "pc_u_" + func.__name__
            used = set(self.c_names.values())
            name, k = base, 1
            while name in used:
                name = "%s_%d" % (base, k)
                k += 1
            self.c_names[func] = name
        return self.c_names[func]

    def current_ret(self, func):
        return self.partial_ret.get(func)

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
            raise caller_src.error(KernelTypeError, node,
                                   "%s() takes %d argument(s) but %d were given"
                                   % (func.__name__, len(params), len(arg_types)),
                                   "pass one value for each parameter: %s(%s)"
                                   % (func.__name__, ", ".join(params)))
        return self._type(func, node, caller_src, dict(zip(params, arg_types)))

    def _type(self, func, node, caller_src, call_types, entry=False):
        src = read_function(func)
        ann_args, ann_ret = _annotation_types(func, src)
        ann_args = {k: self.fix(v) for k, v in ann_args.items()}
        ann_ret = self.fix(ann_ret)
        params = [a.arg for a in src.tree.args.args]
        if entry:
            types = {}
            for p in params:
                t = ann_args.get(p) or call_types.get(p)
                if t is None:
                    raise src.error(KernelTypeError, src.tree,
                                    "cannot tell the type of argument %r of %s()"
                                    % (p, src.name),
                                    "annotate it, e.g. @annotate(%s='gdoublep'), or let "
                                    "pcompute infer it from the call's arguments" % p)
                types[p] = t
        else:
            sig = self.signatures.get(func)
            types = {}
            for p in params:
                given = call_types.get(p)
                if p in ann_args:
                    want = ann_args[p]
                    if given is not None and given.is_scalar != want.is_scalar:
                        raise caller_src.error(
                            KernelTypeError, node, "argument %r of %s() is a %s but a %s "
                            "is passed" % (p, src.name, want, given))
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
            self.signatures[func] = dict(types)
        if func in self.typed:
            return self.typed[func]
        if func in self.in_progress:
            self.recursive.add(self.c_name_of(func))
            if ann_ret is not None:
                self.partial_ret[func] = ann_ret
            return None
        if not entry:
            check_function(src)
        self.in_progress.add(func)
        self.partial_ret.setdefault(func, ann_ret)
        typer = _FunctionTyper(self, src, types, ann_ret)
        ret = typer.run()
        if func in self.recursive_funcs():
            for _ in range(10):
                if self.partial_ret.get(func) == ret:
                    break
                self.partial_ret[func] = ret
                typer = _FunctionTyper(self, src, types, ann_ret)
                ret = typer.run()
        self.in_progress.discard(func)
        self.c_name_of(func)
        result = typer.result(self.c_names[func], ret)
        if self.c_names[func] in self.recursive:
            result = _with_feature(result, "recursion")
        self.typed[func] = result
        return result

    def recursive_funcs(self):
        return {f for f, n in self.c_names.items() if n in self.recursive}


def _with_feature(typed, feature):
    from dataclasses import replace
    return replace(typed, features=typed.features | {feature})


def type_kernel(func, arg_types=None, use_double=True, demote_double=False):
    """Check and type ``func`` and its helpers; return a :class:`TypedProgram`.

    ``arg_types`` maps argument names to types for arguments without
    annotations (call-time inference); ``use_double`` decides the type of float
    literals and of ``float(...)`` and true division of integers;
    ``demote_double`` turns every double into float (devices running in
    single precision).
    """
    src = read_function(func)
    check_function(src)
    return ProgramTyper(use_double, demote_double).type_program(func, arg_types)
