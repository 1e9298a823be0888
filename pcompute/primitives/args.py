"""Checking and converting the arguments of a primitive call.

Every check happens before any kernel runs, and each error names the
argument and says what to pass instead.
"""
import inspect
import numbers

import numpy as np

from ..arraybase import ArrayBase
from ..errors import KernelTypeError, KernelValueError
from ..frontend.source import check_is_function
from ..cstruct import (field_kinds, is_object_argument, single_precision, struct_info,
                       struct_record)
from ..types import (CType, LONG, DOUBLE, FLOAT, MAX_NDIM, dtype_to_ctype, ndarray_type,
                     out_of_range, struct_pointer)


def parameter_names(func):
    """The positional parameter names of ``func`` (a Python function)."""
    check_is_function(func)
    return [p.name for p in inspect.signature(func).parameters.values()]


def is_object(value):
    """True for an object of a user class (not an array or a number)."""
    return not isinstance(value, (ArrayBase, np.ndarray, np.generic)) and \
        is_object_argument(value)


def value_type(value, name, where, float_type, nd=False):
    """The kernel type of a call argument's value.

    With ``nd`` (primitives that take n-D arrays) an array of rank 2 or more,
    or a strided 1-D view, is an n-D array type (its rank and whether its last
    axis is contiguous are part of the type); a contiguous 1-D array is a raw
    pointer, as without ``nd``.
    """
    if isinstance(value, ArrayBase):
        base = _element_type(value.dtype, name, where).base
        if nd:
            return _nd_type(base, value.dev, name, where)
        return CType(base, True, "global")
    if isinstance(value, np.ndarray):
        base = _element_type(value.dtype, name, where).base
        if nd:
            check_writable(value, name, where)
            return _nd_type(base, value, name, where)
        check_numpy_array(value, name, where)
        return CType(base, True, "global")
    if isinstance(value, (bool, np.bool_)):
        return CType("int")
    if isinstance(value, (int,)):
        return LONG
    if isinstance(value, float):
        return float_type
    if isinstance(value, np.generic):
        return _element_type(value.dtype, name, where)
    if is_object(value):
        try:
            return struct_pointer(struct_info(value), "global")
        except KernelTypeError as exc:
            raise KernelTypeError("argument %r of %s: %s" % (name, where, exc.message),
                                  hint=exc.hint)
    if value is None:
        raise KernelTypeError("argument %r of %s is None" % (name, where),
                              hint="pass an Array, a numpy array or a number")
    if isinstance(value, str):
        raise KernelTypeError("argument %r of %s is a string (%r); kernels take "
                              "numbers and arrays" % (name, where, value[:40]),
                              hint="pass a number (e.g. an integer code for an option)")
    if isinstance(value, (list, tuple)):
        raise KernelTypeError("argument %r of %s is a %s; kernels take numbers and "
                              "arrays" % (name, where, type(value).__name__),
                              hint="pass numpy.asarray(x) or pcompute.wrap(numpy.asarray(x))")
    raise KernelTypeError("argument %r of %s is a %s, which kernels cannot take"
                          % (name, where, type(value).__name__),
                          hint="pass an Array (pcompute.wrap(x)), a numpy array or a number")


def _element_type(dtype, name, where):
    """The scalar type of a dtype, or an error naming the argument."""
    try:
        return dtype_to_ctype(dtype)
    except KernelTypeError as exc:
        raise KernelTypeError("argument %r of %s: %s" % (name, where, exc.message),
                              hint=exc.hint)


def _nd_type(base, dev, name, where):
    """The type of a (device or numpy) array ``dev`` of any rank."""
    shape, strides, item = dev.shape, dev.strides, dev.dtype.itemsize
    if not 1 <= len(shape) <= MAX_NDIM:
        raise KernelValueError("argument %r of %s is a %d-D array; kernels take arrays "
                               "of rank 1 to %d" % (name, where, len(shape), MAX_NDIM),
                               hint="pass an array of rank 1 or more (a number is "
                                    "passed as a scalar)" if not shape else
                               "reshape it to fewer axes")
    if any(s % item for s in strides):
        raise KernelValueError("argument %r of %s has strides %s that are not multiples "
                               "of its item size %d" % (name, where, strides, item),
                               hint="pass numpy.ascontiguousarray(x)")
    last_contiguous = strides[-1] == item or shape[-1] <= 1
    if len(shape) == 1 and last_contiguous:
        return CType(base, True, "global")
    return ndarray_type(base, len(shape), "C" if last_contiguous else "A")


def shaped(types, names):
    """``types`` with the raw 1-D pointers among ``names`` made 1-D arrays that
    know their length (for kernels reading len(x), x.shape, x.size, x.ndim)."""
    out = dict(types)
    for name in names:
        t = out.get(name)
        if t is not None and t.is_pointer and not t.is_ndarray and not t.is_struct:
            out[name] = ndarray_type(t.base, 1, "C")
    return out


def check_writable(value, name, where):
    """Raise if the numpy array ``value`` is read-only."""
    if not value.flags.writeable:
        raise KernelValueError("argument %r of %s is a read-only array" % (name, where),
                               hint="pass a writable copy: x.copy()")


def check_numpy_array(value, name, where):
    """Raise unless ``value`` is a 1-D, contiguous, writable numpy array."""
    if value.ndim != 1:
        raise KernelValueError("argument %r of %s is a %d-D array; kernels take "
                               "1-D arrays" % (name, where, value.ndim),
                               hint="pass x.ravel() and index it as x[i*n + j]")
    if not value.flags.c_contiguous:
        raise KernelValueError("argument %r of %s is not contiguous (a strided view "
                               "such as x[::2])" % (name, where),
                               hint="pass numpy.ascontiguousarray(x)")
    if not value.flags.writeable:
        raise KernelValueError("argument %r of %s is a read-only array" % (name, where),
                               hint="pass a writable copy: x.copy()")


def device_value(value, name, where, backend):
    """What is handed to the backend's kernel for one argument."""
    if isinstance(value, ArrayBase):
        if value.backend != backend.name:
            raise KernelValueError(
                "argument %r of %s is an Array of the %s backend, but the kernel runs "
                "on the %s backend" % (name, where, value.backend, backend.name),
                hint="create it on the same backend, or move it: wrap(x.pull().data, "
                     "backend=%r)" % backend.name)
        why = backend.foreign_array(value.dev)
        if why is not None:
            raise KernelValueError("argument %r of %s cannot be used: %s" % (name, where, why),
                                   hint="make it again: wrap(x.get(), backend=%r)"
                                   % backend.name)
        return value.dev
    if isinstance(value, np.ndarray):
        if not backend.on_host:
            raise KernelTypeError(
                "argument %r of %s is a numpy array; the %s backend needs device "
                "arrays" % (name, where, backend.name),
                hint="wrap it first: x = pcompute.wrap(x)")
        if getattr(value, "ndim", 1) == 1:
            check_numpy_array(value, name, where)
        return value
    if is_object(value):
        return object_value(value, backend)
    return value


def object_value(value, backend):
    """What the backend's kernel takes for an object of a user class: a
    record of its fields with its struct's layout (float32 fields on a device
    computing in float32), or the object itself on the python backend."""
    from ..config import get_config
    info = struct_info(value)
    if backend.demote_double(get_config()):
        info = single_precision(info)
    return backend.object_value(value, struct_record(value, info))


def _layout(a):
    """(rank, last axis contiguous) of an array, None for other values."""
    dev = getattr(a, "dev", a) if isinstance(a, ArrayBase) else a
    strides = getattr(dev, "strides", None)
    if strides is None or not isinstance(a, (np.ndarray, ArrayBase)):
        return None
    shape = dev.shape
    return len(shape), (not shape or strides[-1] == dev.dtype.itemsize or shape[-1] <= 1)


def signature(args):
    """A cheap key of the argument kinds: dtype, rank and layout for arrays,
    type for scalars."""
    return tuple((type(a), getattr(a, "dtype", None), _layout(a)) if not
                 is_object(a) else (type(a), field_kinds(a)) for a in args)


def device_values(names, args, where, backend):
    """(the kernel values of ``args``, n): n is the length of the first array.

    Raises :class:`KernelValueError` when there is no array to give n.
    """
    values, n = [], None
    for name, a in zip(names, args):
        values.append(device_value(a, name, where, backend))
        if n is None:
            n = array_length(a)
    if n is None:
        raise KernelValueError("%s needs at least one array argument: its length "
                               "gives the number of items" % where,
                               hint="pass the arrays the kernel works on")
    return values, n


def array_length(value):
    """Length of an array argument, or None for a scalar."""
    if isinstance(value, (np.ndarray, ArrayBase)):
        return len(value)
    return None


def device_precision(given, name, where, backend, demote):
    """The type an argument has on a device computing in float32 (``demote``):
    double becomes float; a float64 ARRAY there would be misread, so it is an
    error (float64 data wrapped for such a device is already stored as float32).
    """
    if not demote or given.base != "double":
        return given
    if given.is_pointer:
        raise KernelTypeError(
            "argument %r of %s is a float64 array, but the %s backend computes in "
            "float32 here (use_double is False)" % (name, where, backend.name),
            hint="set get_config().use_double = True, or pass float32 data "
                 "(wrap() stores float64 as float32 then)")
    return given.with_base("float")


def check_declared(declared, given, name, where, value=None):
    """Compare an annotated argument type with the value's type."""
    if declared.is_pointer and given.is_pointer and declared.ndim != given.ndim:
        _check_rank(declared, given, name, where, value)
    if declared.is_ndarray and declared.layout == "C" and given.layout == "A":
        raise KernelValueError(
            "argument %r of %s is annotated %s (last axis contiguous) but a view whose "
            "last axis is strided was passed" % (name, where, declared),
            hint="annotate it '%s[%s:]' to accept any strides, or pass a contiguous "
                 "copy" % (declared.base, ":, " * (declared.ndim - 1)))
    if declared.is_pointer != given.is_pointer:
        what = "an array" if declared.is_pointer else "a number"
        raise KernelTypeError("argument %r of %s must be %s (annotated %s), got a %s"
                              % (name, where, what, declared, given),
                              hint="pass %s, or change the annotation" % what)
    if declared.is_pointer and declared.base != given.base:
        raise KernelTypeError(
            "argument %r of %s is annotated %s but an array of %s was passed"
            % (name, where, declared, given.dtype),
            hint="pass an array of dtype %s, or change the annotation" % declared.dtype)


def argument_range_error(funcs, names, values, arg_types, where):
    """The located error for an integer argument that does not fit its
    parameter's type (the compiled calls raise a bare OverflowError), or None
    if every one fits.  ``names``/``values``: the user's arguments;
    ``arg_types``: the kernel's ``(name, CType)`` pairs; ``funcs``: the user
    functions whose parameters they are (the error points at the parameter)."""
    from ..frontend.source import read_function
    types = dict(arg_types)
    for name, value in zip(names, values):
        t = types.get(name)
        if not out_of_range(t, value):
            continue
        info = np.iinfo(t.dtype)
        message = ("argument %r of %s is %d, which does not fit its type %s (%d to %d)"
                   % (name, where, int(value), t.base, info.min, info.max))
        hint = ("pass a value in that range, or annotate the parameter with a wider "
                "type (e.g. %s='long')" % name)
        for func in funcs:
            if func is None:
                continue
            try:
                src = read_function(func)
            except Exception:
                continue
            node = next((a for a in src.tree.args.args if a.arg == name), None)
            if node is not None:
                return src.error(KernelValueError, node, message, hint)
        return KernelValueError(message, hint=hint)
    return None


def _check_rank(declared, given, name, where, value):
    """The annotated rank must be the array's (a raw pointer takes contiguous
    1-D arrays)."""
    if declared.ndim == 1 and given.ndim == 0:
        return  # a contiguous 1-D array
    if not declared.is_ndarray:
        if given.ndim == 1:
            raise KernelValueError(
                "argument %r of %s is annotated %s (a 1-D pointer to contiguous data) "
                "but a strided view was passed" % (name, where, declared),
                hint="annotate it '%s' to pass the view with its strides, or pass "
                     "numpy.ascontiguousarray(x)" % ndarray_type(declared.base, 1, "A"))
        raise KernelValueError(
            "argument %r of %s is annotated %s (a 1-D pointer) but a %d-D array was "
            "passed" % (name, where, declared, given.ndim),
            hint="annotate it as an n-D array ('g%sp%d' or '%s') and index it "
                 "x[i, j], or pass x.ravel()"
                 % (declared.base, given.ndim, ndarray_type(declared.base, given.ndim,
                                                            "A")))
    raise KernelValueError(
        "argument %r of %s is annotated %s (%d-D) but a %d-D array was passed"
        % (name, where, declared, declared.ndim, given.ndim or 1),
        hint="pass a %d-D array, or change the annotation" % declared.ndim)


__all__ = ["parameter_names", "value_type", "device_value", "array_length",
           "check_declared", "check_numpy_array", "DOUBLE", "FLOAT"]


def scalar_float_type(backend, config):
    """The kernel type of a Python ``float`` argument (the one rule every
    primitive uses): double, except on a device computing in float32."""
    if backend.demote_double(config):
        return FLOAT
    return DOUBLE if config.use_double or backend.on_host else FLOAT


def argument_types(names, values, declared, where, backend, config, strict=True,
                   nd=False):
    """The kernel types of call arguments ``values`` (named ``names``).

    ``declared`` maps annotated names to their types; each such argument is
    checked against its value and left out of the result (the annotation
    types it).  Returns ``{name: CType}`` for the others.  On a device
    computing in float32 a double value becomes float; a float64 array there
    is an error unless ``strict`` is False (generating source only).  ``nd``:
    the primitive takes n-D arrays (see :func:`value_type`).
    """
    demote = backend.demote_double(config)
    float_type = scalar_float_type(backend, config)
    types = {}
    for name, value in zip(names, values):
        given = value_type(value, name, where, float_type, nd=nd)
        if demote and given.is_struct:
            given = struct_pointer(single_precision(given.struct), given.space)
        if demote and given.base == "double":
            given = (device_precision(given, name, where, backend, demote) if strict
                     else given.with_base("float"))
        want = declared.get(name)
        if want is not None:
            if demote and want.base == "double":
                want = want.with_base("float")
            check_declared(want, given, name, where, value)
            continue
        types[name] = given
    return types


def index_space(args, dims, shape, params, where):
    """The extents of a ``dims``-D index space: ``shape`` (an int or a tuple),
    else the shape of the first array argument of rank ``dims`` (None for
    ``dims == 1``: the first array's length is used).  ``params`` are the
    kernel's parameter names (the first ``dims`` are the indices)."""
    if shape is not None:
        extents = (shape,) if isinstance(shape, numbers.Integral) else tuple(shape)
        if len(extents) != dims or not all(
                isinstance(e, (numbers.Integral, np.integer)) and e >= 0 for e in extents):
            raise KernelValueError("%s: shape=%r does not describe a %d-D index space"
                                   % (where, shape, dims),
                                   hint="pass %d non-negative integers, one per index "
                                   "parameter (%s)" % (dims, ", ".join(params[:dims])))
        extents = tuple(int(e) for e in extents)
        return extents[0] if dims == 1 else extents
    if dims == 1:
        return None
    for a in args:
        if array_length(a) is not None:
            dev = a.dev if isinstance(a, ArrayBase) else a
            if len(dev.shape) == dims:
                return tuple(int(e) for e in dev.shape)
    nargs = len(params) - 1
    raise KernelTypeError(
        "%s takes %d argument(s) after the index (%s), got %d"
        % (where, nargs, ", ".join(params[1:]), len(args)),
        hint="pass every argument; or, if %s runs over a %d-D index space (%s), pass a "
             "%d-D array argument or shape=(...) to give its extents"
             % (where, dims, ", ".join(params[:dims]), dims))
