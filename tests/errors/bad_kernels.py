"""Kernels that are each outside the kernel subset in exactly one way.

tests/errors/test_error_messages.py compiles none of them: it runs the front
end (and the OpenCL printer for recursion) and checks that each error names
this file, the line carrying the marker comment ``# <- <name>``, puts a caret
under the construct and says what to write instead.  Line numbers are never
hard-coded: the tests search this file for the markers, so kernels may be
added or moved freely.
"""
import math  # noqa: F401  (module attribute access is allowed in kernels)

import numpy as np

from pcompute.types import annotate, declare, printf  # noqa: F401

GLOBAL_LIST = [1.0, 2.0]
SCALE = 2.0


class Holder:
    value = 1.0


HOLDER = Holder()


# -- literals and comprehensions ------------------------------------------------
def k_list_literal(i, x):
    a = [1.0, 2.0]  # <- list_literal
    x[i] = a[0]


def k_dict_literal(i, x):
    d = {1: 2.0}  # <- dict_literal
    x[i] = d[1]


def k_set_literal(i, x):
    s = {1.0, 2.0}  # <- set_literal
    x[i] = 0.0


def k_list_comp(i, x):
    a = [k * 2 for k in range(3)]  # <- list_comp
    x[i] = a[0]


def k_dict_comp(i, x):
    d = {k: k for k in range(3)}  # <- dict_comp
    x[i] = d[0]


def k_set_comp(i, x):
    s = {k for k in range(3)}  # <- set_comp
    x[i] = 0.0


def k_generator(i, x):
    x[i] = max(k for k in range(3))  # <- generator


def k_lambda_in_kernel(i, x):
    f = lambda t: t * 2  # noqa: E731  # <- lambda_in_kernel
    x[i] = f(1.0)


# -- statements -----------------------------------------------------------------
def k_with(i, x):
    with x:  # <- with
        x[i] = 1.0


def k_try(i, x):
    try:  # <- try
        x[i] = 1.0
    except Exception:
        x[i] = 0.0


def k_raise(i, x):
    if i < 0:
        raise ValueError  # <- raise
    x[i] = 1.0


def k_assert(i, x):
    assert i >= 0  # <- assert
    x[i] = 1.0


def k_class(i, x):
    class Point:  # <- class
        pass
    x[i] = 1.0


def k_nested_def(i, x):
    def inner(t):  # <- nested_def
        return t
    x[i] = inner(1.0)


def k_for_over_array(i, x):
    total = 0.0
    for v in x:  # <- for_over_array
        total += v
    x[i] = total


def k_for_else(i, x):
    for k in range(3):
        x[i] = k
    else:  # <- for_else
        x[i] = -1.0


def k_while_else(i, x):
    k = 0
    while k < 3:
        k += 1
    else:  # <- while_else
        x[i] = -1.0


def k_global(i, x):
    global SCALE  # <- global
    x[i] = SCALE


def _make_nonlocal():
    scale = 1.0

    def k_nonlocal(i, x):
        nonlocal scale  # <- nonlocal
        x[i] = scale
    return k_nonlocal


k_nonlocal = _make_nonlocal()


def k_import(i, x):
    import math  # noqa: F811  # <- import
    x[i] = math.pi


def k_import_from(i, x):
    from math import pi  # <- import_from
    x[i] = pi


def k_del(i, x):
    a = 1.0
    del a  # <- del
    x[i] = 0.0


def k_match(i, x):
    match i:  # <- match
        case 0:
            x[i] = 1.0


def k_annassign(i, x):
    a: float = 1.0  # <- annassign
    x[i] = a


def k_assign_loop_var(i, x):
    for k in range(3):
        k = 2  # <- assign_loop_var
        x[i] = k


def k_chained_assign(i, x):
    a = b = 1.0  # <- chained_assign
    x[i] = a + b


def k_yield(i, x):
    yield i  # <- yield


def k_yield_value(i, x):
    x[i] = (yield i)  # <- yield_value


async def k_async(i, x):  # <- async
    x[i] = 1.0


async def k_await(i, x):  # <- await_in_async
    await x


def k_expression_statement(i, x):
    x[i] + 1.0  # <- expression_statement


def k_starred_assign(i, x):
    a, *b = 1.0, 2.0, 3.0  # <- starred_assign
    x[i] = a


def k_nested_unpack(i, x):
    (a, b), c = (1.0, 2.0), 3.0  # <- nested_unpack
    x[i] = a


def k_return_tuple(i, x):
    return i, x  # <- return_tuple


# -- expressions ----------------------------------------------------------------
def k_slice(i, x):
    y = x[1:3]  # <- slice
    x[i] = y[0]


def k_keyword_arg(i, x):
    x[i] = helper_add(1.0, b=2.0)  # <- keyword_arg


def k_double_star_arg(i, x):
    x[i] = helper_add(**x)  # <- double_star_arg


def k_starred_arg(i, x):
    x[i] = helper_add(*x)  # <- starred_arg


def k_default_arg(i, x, n=None):  # <- default_arg
    x[i] = n


def k_varargs(i, x, *args):  # <- varargs
    x[i] = 1.0


def k_kwargs(i, x, **kwargs):  # <- kwargs
    x[i] = 1.0


def k_kwonly(i, x, *, n):  # <- kwonly
    x[i] = n


def k_posonly(i, x, /, n):  # <- posonly
    x[i] = n


def k_string_value(i, x):
    s = 'abc'  # <- string_value
    x[i] = 1.0


def k_string_concat(i, x):
    s = 'a' + 'b'  # <- string_concat
    x[i] = 1.0


def k_fstring(i, x):
    printf(f"{i}\n")  # <- fstring


def k_print(i, x):
    print(x[i])  # <- print


def k_attribute_arg(i, x):
    n = x.shape  # <- attribute_arg
    x[i] = n


def k_attribute_local(i, x):
    a = 1.0
    x[i] = a.real  # <- attribute_local


def k_attribute_object(i, x):
    x[i] = HOLDER.value  # <- attribute_object


def k_method_call(i, x):
    x[i] = x.sum()  # <- method_call


def k_unknown_function(i, x):
    x[i] = no_such_function(i)  # noqa: F821  # <- unknown_function


def k_unknown_name(i, x):
    x[i] = no_such_name  # noqa: F821  # <- unknown_name


def k_len(i, x):
    n = len(x)  # <- len
    x[i] = n


def k_range_value(i, x):
    r = range(3)  # <- range_value
    x[i] = 0.0


def k_multi_subscript(i, x):
    x[i] = x[i, 0]  # <- multi_subscript


def k_negative_index(i, x):
    x[i] = x[-1]  # <- negative_index


def k_and_value(i, x, a, b):
    x[i] = a and b  # <- and_value


def k_or_value(i, x, a, b):
    x[i] = a or b  # <- or_value


def k_is(i, x, a, b):
    if a is b:  # <- is
        x[i] = 1.0


def k_in(i, x):
    if i in x:  # <- in
        x[i] = 1.0


def k_walrus(i, x):
    if (n := i) > 0:  # <- walrus
        x[i] = n


def k_none(i, x):
    a = None  # <- none
    x[i] = 0.0


def k_complex(i, x):
    a = 1j  # <- complex
    x[i] = 0.0


def k_matmul(i, x, a, b):
    x[i] = a @ b  # <- matmul


def k_reserved_name(i, x):
    pc_tmp = 1.0  # <- reserved_name
    x[i] = pc_tmp


def k_reserved_arg(i, x, pc_n):  # <- reserved_arg
    x[i] = pc_n


def k_chained_attribute_call(i, x):
    x[i] = np.linalg.norm(x)  # <- chained_attribute_call


def k_subscript_call(i, x):
    x[i] = x[0](1)  # <- subscript_call


def k_range_keyword(i, x):
    for k in range(3, step=1):  # <- range_keyword
        x[i] = k


def k_range_no_args(i, x):
    for k in range():  # <- range_no_args
        x[i] = k


def k_tuple_loop_var(i, x):
    for a, b in range(3):  # <- tuple_loop_var
        x[i] = a


def k_assign_attribute(i, x):
    x.value = 1.0  # <- assign_attribute


# -- types, names and calls (type inference / call graph) ---------------------
def k_pointer_and_number(i, x):
    a = x
    a = 1.0  # <- pointer_and_number
    x[i] = a


def k_bad_declare_type(i, x):
    a = declare('dubble')  # <- bad_declare_type
    x[i] = a


def k_declare_not_whole(i, x):
    a = 1.0 + declare('double')  # <- declare_not_whole
    x[i] = a


def helper_first(v, k):
    return v[k]


def k_helper_inconsistent(i, x):
    a = helper_first(x, i)
    b = helper_first(2.0, i)  # <- helper_inconsistent
    x[i] = a + b


def helper_add(a, b):
    return a + b


def k_int_pow_negative(i, x):
    x[i] = i ** -1  # <- int_pow_negative


def k_float_range(i, x):
    for k in range(2.5):  # <- float_range
        x[i] = k


def k_numpy_function(i, x):
    x[i] = np.cumsum(x)  # <- numpy_function


def k_call_class(i, x):
    h = Holder()  # <- call_class
    x[i] = 1.0


def k_module_list(i, x):
    x[i] = GLOBAL_LIST[0]  # <- module_list


def k_math_missing(i, x):
    x[i] = math.no_such(1.0)  # <- math_missing


def k_math_arity(i, x):
    x[i] = math.atan2(1.0)  # <- math_arity


def k_helper_arity(i, x):
    x[i] = helper_add(1.0)  # <- helper_arity


def k_function_as_value(i, x):
    x[i] = printf  # <- function_as_value


def fact(n):
    if n <= 1:
        return 1
    return n * fact(n - 1)  # <- recursion_opencl


def k_recursion(i, x):
    x[i] = fact(i)


def helper_with_default(a, b=1.0):
    return a + b


def k_helper_default(i, x):
    x[i] = helper_with_default(1.0)  # <- helper_default


def k_pointer_arithmetic(i, x):
    x[i] = (x + 1)[0]  # <- pointer_arithmetic


def k_return_array(i, x):
    return x  # <- return_array


def k_index_float(i, x):
    x[i] = x[1.5]  # <- index_float


def k_augassign_unbound(i, x):
    total += x[i]  # noqa: F821  # <- augassign_unbound
    x[i] = total


def k_numpy_scalar_call(i, x):
    x[i] = np.float32(x[i])  # <- numpy_scalar_call


def k_builtin_call(i, x):
    x[i] = sum(i)  # <- builtin_call


def k_builtin_as_value(i, x):
    f = abs  # <- builtin_as_value
    x[i] = 1.0


def k_unicode_column(i, x):
    café = 1.0
    x[i] = café * [2.0]  # <- unicode_column


def k_pointer_condition(i, x):
    if x:  # <- pointer_condition
        x[i] = 1.0


# -- kernels without readable source -------------------------------------------
k_lambda_kernel = lambda i, x: 0.0  # noqa: E731  # <- lambda_kernel

_EXEC_TEXT = "def k_exec(i, x):\n    x[i] = 1.0\n"
exec(_EXEC_TEXT)


# -- kernels for call-time argument checks (these are correct) ---------------
def k_copy(i, x, y):
    y[i] = x[i]


@annotate(i='int', x='gfloatp', y='gfloatp')
def k_copy_float(i, x, y):
    y[i] = x[i]
