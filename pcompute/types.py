"""Kernel types: names, ``annotate``, ``declare`` and their Python meanings.

Every name here also works in plain Python, so a kernel runs unchanged in
the interpreter (the ``python`` backend): ``declare('double')`` returns
``0.0``, ``declare('matrix(3)')`` a numpy array, ``cast(x, 'int')`` an int.

Types are described by :class:`CType`; :func:`parse_type` turns every
accepted spelling (``'int'``, ``'gdoublep'``, ``'double*'``,
``'LOCAL_MEM float*'``, ``'matrix((2, 2))'``, :class:`KnownType`, numpy
dtypes) into one.
"""
import ast
import inspect
import re
import sys
from dataclasses import dataclass

import numpy as np

from .errors import InternalError, KernelTypeError

# Scalar kinds in promotion order (C-like: integers below floats, wider above).
SCALARS = ("bool", "char", "uchar", "short", "ushort", "int", "uint", "long",
           "ulong", "float", "double")
_RANK = {name: k for k, name in enumerate(SCALARS)}
INTEGERS = frozenset(SCALARS[:9])
FLOATS = frozenset(("float", "double"))

_DTYPES = {
    "bool": np.dtype(np.bool_), "char": np.dtype(np.int8),
    "uchar": np.dtype(np.uint8), "short": np.dtype(np.int16),
    "ushort": np.dtype(np.uint16), "int": np.dtype(np.int32),
    "uint": np.dtype(np.uint32), "long": np.dtype(np.int64),
    "ulong": np.dtype(np.uint64), "float": np.dtype(np.float32),
    "double": np.dtype(np.float64),
}
_FROM_DTYPE = {v: k for k, v in _DTYPES.items()}

_ALIASES = {
    "unsigned int": "uint", "unsigned": "uint", "unsigned long": "ulong",
    "long long": "long", "unsigned long long": "ulong", "int_": "int",
    "long_": "long", "float_": "float", "unsigned char": "uchar",
    "unsigned short": "ushort", "int32": "int", "int64": "long",
    "uint32": "uint", "uint64": "ulong", "float32": "float",
    "float64": "double", "int8": "char", "uint8": "uchar",
    "int16": "short", "uint16": "ushort", "size_t": "ulong",
}


@dataclass(frozen=True)
class CType:
    """A kernel type.

    ``base`` is a scalar kind (see :data:`SCALARS`) or ``'void'``;
    ``pointer`` marks a pointer to ``base``; ``space`` is the address space
    (``'global'``, ``'local'`` or ``''``); ``shape`` is non-empty for a local
    fixed-size array (``declare('matrix(3)')``).

    ``ndim`` is non-zero for an array argument that knows its shape (an n-D
    array, indexed ``a[i, j]`` and read as ``a.shape[d]``); it is then a
    pointer whose shape and strides travel as hidden scalar arguments.
    ``layout`` is ``'C'`` when the last axis is contiguous (its stride is 1
    element, printed as such) and ``'A'`` for any strides.  A pointer with
    ``ndim == 0`` is a raw pointer (``gdoublep``), indexed by one flat index.
    """

    base: str
    pointer: bool = False
    space: str = ""
    shape: tuple = ()
    ndim: int = 0
    layout: str = ""
    struct: object = None       # a StructInfo: this is a pointer to a struct

    @property
    def is_struct(self):
        """True for a pointer to a user class's struct (``self`` in a method)."""
        return self.struct is not None

    @property
    def is_scalar(self):
        return not self.pointer and not self.shape and self.base != "void"

    @property
    def is_int(self):
        return self.is_scalar and self.base in INTEGERS

    @property
    def is_float(self):
        return self.is_scalar and self.base in FLOATS

    @property
    def is_pointer(self):
        return self.pointer

    @property
    def is_array(self):
        return bool(self.shape)

    @property
    def is_void(self):
        return self.base == "void" and not self.pointer

    @property
    def is_indexable(self):
        return (self.pointer and self.struct is None) or bool(self.shape)

    @property
    def is_ndarray(self):
        """True for an array argument with a shape (``double[:, :]``)."""
        return self.ndim > 0

    def element(self):
        """The type of ``x[i]`` (of ``a[i, j]`` for an n-D array)."""
        if self.struct is not None:
            raise InternalError("element() of a struct type %s" % self)
        if self.ndim:
            return CType(self.base)
        if self.shape:
            if len(self.shape) > 1:
                return CType(self.base, False, self.space, self.shape[1:])
            return CType(self.base)
        if self.pointer:
            return CType(self.base)
        raise InternalError("element() of a scalar type %s" % self)

    def pointer_to(self, space=""):
        """A pointer to this scalar (``address(x)``)."""
        return CType(self.base, True, space)

    @property
    def dtype(self):
        """The numpy dtype of the scalar or of the pointed-to elements."""
        return _DTYPES[self.base]

    def with_base(self, base):
        return CType(base, self.pointer, self.space, self.shape, self.ndim, self.layout)

    def __str__(self):
        if self.struct is not None:
            return "%s*" % self.struct.name
        if self.ndim:
            axes = [":"] * self.ndim
            if self.layout == "C":
                axes[-1] = "::1"
            return "%s[%s]" % (self.base, ", ".join(axes))
        if self.shape:
            dims = self.shape[0] if len(self.shape) == 1 else self.shape
            text = "matrix(%s, %r)" % (dims, self.base)
            return ("LOCAL_MEM " + text) if self.space == "local" else text
        if self.pointer:
            prefix = {"global": "g", "local": "l"}.get(self.space, "")
            return "%s%sp" % (prefix, self.base)
        return self.base


@dataclass(frozen=True)
class StructInfo:
    """The struct of a user class whose methods kernels call.

    ``name`` is the class's name (the C struct's), ``fields`` the
    ``(name, CType)`` of its number attributes in name order (the layout of
    :class:`~pcompute.cstruct.CStructHelper`), and ``cls`` the class, whose
    methods ``self.m(...)`` calls are translated as ``Name_m(self, ...)``.
    ``fields_known`` is False when the struct comes from a class without an
    instance (the translator's ``convert`` of a class text): its fields cannot
    be read then.
    """

    name: str
    fields: tuple
    cls: object = None
    fields_known: bool = True

    def field(self, name):
        """The CType of field ``name``, or None."""
        for n, t in self.fields:
            if n == name:
                return t
        return None


def struct_pointer(info, space="global"):
    """The :class:`CType` of a pointer to the struct ``info`` (``Name*``)."""
    return CType("void", True, space, struct=info)


VOID = CType("void")
BOOL = CType("bool")
INT = CType("int")
LONG = CType("long")
FLOAT = CType("float")
DOUBLE = CType("double")


def scalar(name):
    """The :class:`CType` of a scalar kind."""
    return CType(name)


def rank(t):
    return _RANK[t.base]


_SIGNED_SMALL = ("bool", "char", "short", "int")


def promote(a, b):
    """The common type of two scalar types (int < long < float < double).

    As in numpy (and unlike C), a 32-bit unsigned int with a signed int gives a
    64-bit signed int, so ``u - s`` can be negative.
    """
    if {a.base, b.base} & {"uint"} and (a.base in _SIGNED_SMALL or b.base in _SIGNED_SMALL):
        return LONG
    result = a if _RANK[a.base] >= _RANK[b.base] else b
    if result.base in ("bool", "char", "uchar", "short", "ushort"):
        return INT
    return CType(result.base)


def dtype_to_ctype(dtype):
    """The scalar :class:`CType` of a numpy dtype."""
    dtype = np.dtype(dtype)
    try:
        return CType(_FROM_DTYPE[dtype])
    except KeyError:
        raise KernelTypeError(
            "arrays of dtype %s are not supported in kernels" % dtype,
            hint="use one of: %s" % ", ".join(sorted(str(d) for d in _FROM_DTYPE)))


def ctype_to_dtype(t):
    """The numpy dtype of a scalar (or the element dtype of a pointer)."""
    return t.dtype


class KnownType:
    """A type given by its name, as in Compyle: ``KnownType('GLOBAL_MEM double*', 'double')``.

    ``type`` holds the type string; ``base_type`` the element type of a
    pointer (optional).  Two KnownTypes are equal when both strings are, as in
    Compyle.  Any name is accepted here (Compyle's code generators use
    ``KnownType('Thing')`` for a user's class); a kernel whose argument has a
    type pcompute cannot run is rejected when it is typed.
    """

    def __init__(self, type_str, base_type=""):
        if not isinstance(type_str, str):
            raise KernelTypeError("KnownType needs a string, got %r" % (type_str,))
        self.type = type_str
        self.base_type = base_type

    def __repr__(self):
        if self.base_type:
            return 'KnownType("%s", "%s")' % (self.type, self.base_type)
        return 'KnownType("%s")' % self.type

    def __eq__(self, other):
        if not isinstance(other, KnownType):
            return NotImplemented
        return other.type == self.type and other.base_type == self.base_type

    def __hash__(self):
        return hash(("KnownType", self.type, self.base_type))


_MATRIX = re.compile(r"^matrix\((.*)\)$", re.S)
_POINTER_NAME = re.compile(r"^([gl]?)([a-z_]+?)p([1-8]?)$")
_MEMORYVIEW = re.compile(r"^([a-z_ ]+?)\s*\[([:\s,1]*)\]$")

#: The largest rank of an array argument.
MAX_NDIM = 8


def ndarray_type(base, ndim, layout="C"):
    """The :class:`CType` of an n-D array argument of ``base`` elements."""
    if not 1 <= ndim <= MAX_NDIM:
        raise KernelTypeError("arrays of rank %d are not supported in kernels" % ndim,
                              hint="use arrays of rank 1 to %d" % MAX_NDIM)
    return CType(base, True, "global", (), ndim, layout)


def _parse_memoryview(text):
    """``'double[:, :]'`` (any strides) or ``'double[:, ::1]'`` (last axis
    contiguous), as Cython's memoryviews are written; None if not that form."""
    m = _MEMORYVIEW.match(text)
    if not m:
        return None
    base = _scalar_name(m.group(1))
    axes = [a.strip() for a in m.group(2).split(",")]
    if base is None or not all(a in (":", "::1") for a in axes):
        raise KernelTypeError(
            "cannot read the array type %r" % text,
            hint="write e.g. 'double[:, :]' (any strides) or 'double[:, ::1]' "
                 "(last axis contiguous)")
    if "::1" in axes[:-1]:
        raise KernelTypeError("only the last axis can be marked contiguous (::1) in %r"
                              % text, hint="write e.g. 'double[:, ::1]'")
    return ndarray_type(base, len(axes), "C" if axes[-1] == "::1" else "A")


def _scalar_name(text):
    text = " ".join(text.split())
    text = _ALIASES.get(text, text)
    return text if text in _RANK else None


def _parse_matrix(body, space):
    try:
        args = ast.literal_eval("(%s,)" % body)
    except (ValueError, SyntaxError):
        raise KernelTypeError("cannot read the matrix declaration 'matrix(%s)'" % body,
                              hint="write matrix(3), matrix((2, 2)) or matrix(4, 'int')")
    shape = args[0]
    base = "double"
    if len(args) > 1:
        base = _scalar_name(str(args[1]))
        if base is None:
            raise KernelTypeError("unknown element type %r in matrix(%s)" % (args[1], body),
                                  hint="use one of: " + ", ".join(SCALARS[1:]))
    if isinstance(shape, int):
        shape = (shape,)
    if (not isinstance(shape, tuple) or not shape
            or not all(isinstance(d, int) and d > 0 for d in shape)):
        raise KernelTypeError("matrix sizes must be positive integer constants, got "
                              "'matrix(%s)'" % body)
    return CType(base, False, space, tuple(shape))


def parse_type(spec):
    """Turn any accepted type spelling into a :class:`CType`.

    Accepts strings (``'int'``, ``'gdoublep'``, ``'double*'``, ``'GLOBAL_MEM
    float*'``, ``'matrix(3)'``), :class:`KnownType`, :class:`CType`, numpy
    dtypes, the builtins ``int``/``float``/``bool`` and ``None`` (void).
    """
    if isinstance(spec, CType):
        return spec
    if isinstance(spec, KnownType):
        return parse_type(spec.type)
    if spec is None:
        return VOID
    if spec is int:
        return LONG
    if spec is float:
        return DOUBLE
    if spec is bool:
        return BOOL
    if isinstance(spec, (np.dtype, type)) and not isinstance(spec, str):
        return dtype_to_ctype(spec)
    if not isinstance(spec, str):
        raise KernelTypeError("cannot use %r as a kernel type" % (spec,),
                              hint="use a type name such as 'int', 'double' or 'gdoublep'")
    text = " ".join(spec.replace("*", " * ").split())
    space = ""
    for prefix, sp in (("LOCAL_MEM ", "local"), ("GLOBAL_MEM ", "global"),
                       ("__local ", "local"), ("__global ", "global"),
                       ("local ", "local"), ("global ", "global"),
                       ("const ", None)):
        if text.startswith(prefix):
            text = text[len(prefix):]
            space = sp if sp is not None else space
    if text == "void":
        return VOID
    m = _MATRIX.match(text)
    if m:
        return _parse_matrix(m.group(1), space)
    if text.endswith("]"):
        parsed = _parse_memoryview(text)
        if parsed is not None:
            return parsed
    if text.endswith(" *"):
        base = _scalar_name(text[:-2])
        if base is not None:
            return CType(base, True, space or "global")
    base = _scalar_name(text)
    if base is not None:
        return CType(base)
    m = _POINTER_NAME.match(text)
    if m:
        base = _scalar_name(m.group(2))
        if base is not None:
            sp = {"g": "global", "l": "local", "": ""}[m.group(1)]
            if m.group(3):
                if sp == "local":
                    raise KernelTypeError("%r: n-D arrays live in global memory" % spec,
                                          hint="write g%sp%s" % (base, m.group(3)))
                return ndarray_type(base, int(m.group(3)), "C")
            return CType(base, True, sp or "global")
    raise KernelTypeError(
        "unknown type %r" % spec,
        hint="use a scalar name (int, uint, long, ulong, float, double), a pointer "
             "name (gdoublep, gintp, lfloatp, ...), an n-D array ('gdoublep2', "
             "'double[:, :]') or 'matrix(n)'")



def names_address_space(spec):
    """Whether a pointer spelling names its address space.

    ``gdoublep``, ``'GLOBAL_MEM double*'``, ``lfloatp`` and n-D array types do;
    ``doublep`` and ``'double*'`` do not: as in Compyle, such a pointer in a
    helper takes the address space of what each call passes (a global array, a
    local ``declare('matrix(n)')``), and a helper called with both gets a
    version per address space.  In a kernel's own arguments it is global.
    """
    if isinstance(spec, KnownType):
        spec = spec.type
    if not isinstance(spec, str):
        return True
    text = " ".join(spec.replace("*", " * ").split())
    if text.startswith("const "):
        text = text[len("const "):]
    if text.startswith(("LOCAL_MEM ", "GLOBAL_MEM ", "__local ", "__global ",
                        "local ", "global ")):
        return True
    if text.endswith(" *"):
        return False
    m = _POINTER_NAME.match(text)
    if m and not m.group(3) and _scalar_name(m.group(2)) is not None:
        return bool(m.group(1))
    return True

# Compyle-compatible type names, with Compyle's KnownType values: ``floatp`` is
# KnownType('float*', 'float'), ``gdoublep`` KnownType('GLOBAL_MEM double*',
# 'double'), ``uint`` KnownType('unsigned int').  Pointers without a g/l
# prefix are global pointers in kernel arguments (see docs/types.rst).
_C_SPELLING = {"int": "int", "long": "long", "uint": "unsigned int",
               "ulong": "unsigned long", "float": "float", "double": "double",
               "char": "char", "uchar": "unsigned char", "short": "short",
               "ushort": "unsigned short"}
_SPACE_PREFIX = {"": "", "g": "GLOBAL_MEM ", "l": "LOCAL_MEM "}

#: Annotation name -> KnownType (``'int'``, ``'gdoublep'``, ...), as Compyle records them.
KNOWN_TYPES = {}
for _base, _c in _C_SPELLING.items():
    KNOWN_TYPES[_base] = KnownType(_c)
    for _prefix, _space in _SPACE_PREFIX.items():
        KNOWN_TYPES["%s%sp" % (_prefix, _base)] = KnownType("%s%s*" % (_space, _c), _c)
del _base, _c, _prefix, _space

# Module attributes: Compyle writes int_, long_, float_ for the scalars whose
# names are Python builtins.
for _name, _known in KNOWN_TYPES.items():
    globals()[_name + "_" if _name in ("int", "long", "float") else _name] = _known
del _name, _known

TYPES = {name: value for name, value in globals().items()
         if isinstance(value, KnownType)}


# ---------------------------------------------------------------------------
# annotate

def known_type(value):
    """``value`` as the :class:`KnownType` Compyle records in ``__annotations__``.

    Compyle's names map to its values (``'floatp'`` gives
    ``KnownType('float*', 'float')``); a KnownType is kept as it is; any other
    spelling :func:`parse_type` accepts (``'double*'``, ``np.float64``) is
    checked and kept as a KnownType of its text.  An unknown name raises
    :class:`~pcompute.errors.KernelTypeError` (a TypeError).
    """
    if isinstance(value, KnownType):
        return value
    if isinstance(value, str) and value.strip() in KNOWN_TYPES:
        return KNOWN_TYPES[value.strip()]
    ctype = parse_type(value)
    if isinstance(value, str):
        return KnownType(value)
    return KNOWN_TYPES.get(str(ctype)) or KnownType(str(ctype))


def _annotation_name(name):
    return "return" if name in ("return_", "return") else name


def annotations_from(kw, func_name, params):
    """The ``__annotations__`` of ``@annotate(**kw)`` on a function with
    parameters ``params``.

    ``name=type`` annotates an argument; ``type='a, b'`` annotates several
    (``return_`` among them names the return type)."""
    annotations = {}
    for key, value in kw.items():
        if key in ("return_", "return") or key in params:
            annotations[_annotation_name(key)] = known_type(value)
            continue
        known = known_type(key)
        if not isinstance(value, str):
            raise KernelTypeError(
                "@annotate(%s=%r): the names of the arguments must be a string"
                % (key, value), hint="write @annotate(%s='x, y')" % key)
        for name in value.split(","):
            name = name.strip()
            if not name:
                continue
            if name not in params and name not in ("return_", "return"):
                raise KernelTypeError(
                    "@annotate names %r, which is not an argument of %s()"
                    % (name, func_name), hint="its arguments are: " + ", ".join(params))
            annotations[_annotation_name(name)] = known
    return annotations


def annotate(func=None, **kw):
    """Give a kernel function its argument types.

    Spellings (all Compyle-compatible)::

        @annotate(i='int', x='gdoublep')            # argument=type
        @annotate(int='i, n', gdoublep='x, y')      # type='arguments'
        @annotate(i='int', return_='double')        # return type
        @annotate(int='n, return_')                 # return type in a group
        @annotate                                   # infer types at the first call
        annotate(f, i='int')                        # without the decorator syntax

    Python 3 annotations using the names of this module (``x: gdoublep``)
    work too, without the decorator.  The types end up, as :class:`KnownType`
    objects, in ``func.__annotations__`` (see :func:`known_type`).  As in
    Compyle, ``func.is_jit`` is True for ``@annotate`` without types (the
    types come from the first call) and False otherwise.
    """
    def decorator(f):
        if not callable(f):
            raise KernelTypeError("annotate takes a function and keyword arguments, "
                                  "e.g. @annotate(i='int', x='gdoublep')")
        if not kw:
            f.is_jit = True
            return f
        params = list(inspect.signature(f).parameters)
        annotations = annotations_from(kw, getattr(f, "__name__", "?"), params)
        f.is_jit = getattr(f, "is_jit", False)
        f.__annotations__ = annotations
        return f

    if func is not None:
        return decorator(func)
    return decorator


# ---------------------------------------------------------------------------
# Kernel-language functions with a Python meaning.

def _zero(ctype):
    if ctype.shape:
        return np.zeros(ctype.shape, dtype=ctype.dtype)
    if ctype.pointer:
        return None
    return 0.0 if ctype.is_float else 0


def declare(type_str, num=1):
    """Declare a typed local: ``x = declare('double')``, ``a, b = declare('int', 2)``.

    ``declare('matrix(3)')`` gives a local array of 3 doubles,
    ``declare('matrix((2, 2))')`` a 2x2 array, ``declare('matrix(4, "int")')``
    4 ints, and ``declare('LOCAL_MEM matrix(64)')`` an array in work-group local
    memory.  In Python this returns zero values (a numpy array for matrices).
    """
    ctype = parse_type(type_str)
    if num == 1:
        return _zero(ctype)
    return tuple(_zero(ctype) for _ in range(num))


def cast(x, type_str):
    """Convert ``x`` to the given scalar type (``cast(x, 'float')``)."""
    ctype = parse_type(type_str)
    if ctype.is_float:
        return np.dtype(ctype.dtype).type(x)
    if ctype.is_int:
        return np.dtype(ctype.dtype).type(int(x))
    raise KernelTypeError("cast() converts to a scalar type, not %r" % type_str)


def address(x):
    """``&x`` in C; in Python the value itself."""
    return x


def atomic_inc(x):
    """Atomically increment ``x`` (an array element) by 1 and return its old value.

    Inside kernels this is a real atomic on every backend.  Called directly
    from Python it cannot change the caller's value; the python backend
    rewrites ``atomic_inc(a[i])`` so that it does.
    """
    return x


def atomic_dec(x):
    """Atomically decrement ``x`` by 1 and return its old value (see atomic_inc)."""
    return x


def atomic_max(x, value):
    """Atomically set ``x`` (an element of an int, uint, long or ulong array)
    to ``max(x, value)`` and return its old value.

    Inside kernels this is a real atomic on every backend (OpenCL: int and
    uint arrays, global memory), and a full memory barrier: the loads and
    stores of the item before it happen before it, those after it after it.
    Called directly from Python it cannot change the caller's value; the
    python backend rewrites ``atomic_max(a[i], v)`` so that it does.
    """
    return x


def prefetch(x):
    """A hint that the array element ``x`` (``prefetch(a[k])``) will be
    written or read soon: the processor may start loading its cache line
    now, so that the access itself does not wait for memory.

    It reads and writes nothing, never faults (an index past the array's end
    is not an error here) and changes no result.  The cython backend emits
    the C compiler's prefetch for writing (``__builtin_prefetch(&a[k], 1)``
    with GCC and Clang, nothing with other compilers), OpenCL its
    ``prefetch`` (global arrays only), CUDA nothing.  The python backend
    does not evaluate the argument.  Worth it for accesses the processor
    cannot foresee, a few iterations ahead: ``prefetch(x[p[t + 16]])`` in a
    loop storing ``x[p[t]]`` over a large array.
    """
    return None


def printf(fmt, *args):
    """C ``printf``: in Python, write ``fmt % args`` to standard output."""
    sys.stdout.write(fmt % args if args else fmt)


# Python-mode meanings of the math names kernels may use by bare name.
from math import (acos, acosh, asin, asinh, atan, atan2, atanh, ceil,  # noqa: E402,F401
                  copysign, cos, cosh, erf, erfc, exp, expm1, fabs, floor,
                  fmod, hypot, isinf, isnan, log, log10, log1p, log2, pi, pow,
                  sin, sinh, sqrt, tan, tanh, trunc, inf as INFINITY)

M_PI = pi


def out_of_range(t, value):
    """True if the integer argument ``value`` does not fit the integer kernel
    type ``t`` (a Python int beyond int32 passed for an ``int`` parameter);
    False for anything else (floats, bools, arrays, fitting values)."""
    if t is None or not t.is_int or t.is_pointer or isinstance(value, (bool, np.bool_)) \
            or not isinstance(value, (int, np.integer)):
        return False
    info = np.iinfo(t.dtype)
    return not info.min <= int(value) <= info.max
