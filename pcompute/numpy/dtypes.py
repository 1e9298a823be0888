"""NumPy 2 (NEP 50) type resolution for the lazy layer.

The layer never re-implements NumPy's promotion table: it asks NumPy itself
(``ufunc.resolve_dtypes``), with Python scalars passed as the weak types
``int``/``float`` exactly as NEP 50 describes, and keeps the loop dtypes
(what each input is converted to) and the output dtype of every operation.
"""
import functools

import numpy as np

from ..types import _FROM_DTYPE

#: dtypes a generated kernel can compute in (others run in NumPy on the host)
KERNEL_DTYPES = frozenset(_FROM_DTYPE)


def kernel_type_name(dtype):
    """The kernel-language scalar type name of ``dtype`` ('double', 'int', ...)."""
    return _FROM_DTYPE[np.dtype(dtype)]


def in_kernel(dtype):
    """True when values of ``dtype`` can live in a generated kernel."""
    return np.dtype(dtype) in KERNEL_DTYPES


_WEAK = {int: int, float: float, complex: complex}


def operand_key(x):
    """What :func:`resolve` is given for one operand: a dtype, or the weak
    Python type ``int``/``float``/``complex`` of a Python scalar (NEP 50)."""
    weak = _WEAK.get(type(x))
    if weak is not None:
        return weak
    if isinstance(x, bool):
        return np.dtype(np.bool_)
    if isinstance(x, (int, float, complex)) and not isinstance(x, np.generic):
        return type(x)
    return np.dtype(x.dtype)


@functools.lru_cache(maxsize=4096)
def _resolve(ufunc, keys):
    dtypes = ufunc.resolve_dtypes(keys + (None,) * ufunc.nout)
    return dtypes[:ufunc.nin], dtypes[ufunc.nin:]


def resolve_keys(ufunc, keys):
    """(input loop dtypes, output dtypes) of ``ufunc`` over operands whose
    :func:`operand_key` values are ``keys`` (a tuple; memoised).  The range
    of Python ``int`` operands is not checked here (see :func:`resolve`)."""
    return _resolve(ufunc, keys)


def resolve(ufunc, operands):
    """(input loop dtypes, output dtypes) of ``ufunc`` over ``operands``.

    Raises NumPy's own errors (a ``UFuncTypeError`` for ``bool - bool``, an
    ``OverflowError`` for ``uint8 + 300``), so bad input fails as in NumPy.
    """
    keys = tuple(operand_key(x) for x in operands)
    loop, out = _resolve(ufunc, keys)
    for x, key, want in zip(operands, keys, loop):
        if key is int and want.kind in "iu":
            want.type(x)        # NumPy 2 raises OverflowError for out-of-range ints
    return loop, out


@functools.lru_cache(maxsize=1024)
def reduction_dtype(name, dtype):
    """The result dtype NumPy gives ``numpy.<name>`` of an array of ``dtype``."""
    return np.dtype(getattr(np, name)(np.ones(1, dtype=dtype)).dtype)
