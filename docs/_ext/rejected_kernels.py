"""Kernels that are each outside the kernel language in exactly one way.

The documentation's table of rejected constructs (``language.rst``) is made
from this file when the docs are built: the ``pcompute-rejected`` directive of
``pcompute_docs.py`` runs pcompute's front end on every kernel of
:data:`CASES` and prints the error it raises.  ``tests/test_docs.py`` checks
the same cases, so the table cannot drift from the code.  Nothing here is
ever compiled.
"""
import math  # noqa: F401

import numpy as np

from pcompute import annotate, declare, printf  # noqa: F401


class Particle:
    mass = 1.0


PARTICLE = Particle()


def helper_add(a, b):
    return a + b


def helper_default(a, b=1.0):
    return a + b


def factorial(n):
    if n <= 1:
        return 1
    return n * factorial(n - 1)


# -- values ------------------------------------------------------------------
def k_list(i, x):
    a = [1.0, 2.0]
    x[i] = a[0]


def k_dict(i, x):
    d = {1: 2.0}
    x[i] = d[1]


def k_set(i, x):
    s = {1.0, 2.0}
    x[i] = 0.0


def k_listcomp(i, x):
    a = [k * 2 for k in range(3)]
    x[i] = a[0]


def k_genexp(i, x):
    x[i] = max(k for k in range(3))


def k_tuple(i, x):
    t = (1.0, 2.0)
    x[i] = 0.0


def k_string(i, x):
    s = 'abc'
    x[i] = 1.0


def k_fstring(i, x):
    printf(f"{i}\n")


def k_none(i, x):
    a = None
    x[i] = 0.0


def k_complex(i, x):
    a = 1j
    x[i] = 0.0


def k_lambda(i, x):
    f = lambda t: 2 * t  # noqa: E731
    x[i] = f(1.0)


# -- statements --------------------------------------------------------------
def k_with(i, x):
    with x:
        x[i] = 1.0


def k_try(i, x):
    try:
        x[i] = 1.0
    except Exception:
        x[i] = 0.0


def k_raise(i, x):
    if i < 0:
        raise ValueError
    x[i] = 1.0


def k_assert(i, x):
    assert i >= 0
    x[i] = 1.0


def k_class(i, x):
    class Point:
        pass
    x[i] = 1.0


def k_nested_def(i, x):
    def inner(t):
        return t
    x[i] = inner(1.0)


def k_import(i, x):
    import math  # noqa: F811
    x[i] = math.pi


def k_global(i, x):
    global PARTICLE
    x[i] = 1.0


def k_del(i, x):
    a = 1.0
    del a
    x[i] = 0.0


def k_yield(i, x):
    yield i


def k_walrus(i, x):
    if (n := i) > 0:
        x[i] = n


def k_annassign(i, x):
    a: float = 1.0
    x[i] = a


def k_chained_assign(i, x):
    a = b = 1.0
    x[i] = a + b


def k_return_tuple(i, x):
    return i, x


def k_expression_statement(i, x):
    x[i] + 1.0


# -- loops -------------------------------------------------------------------
def k_for_array(i, x):
    total = 0.0
    for v in x:
        total += v
    x[i] = total


def k_for_else(i, x):
    for k in range(3):
        x[i] = k
    else:
        x[i] = -1.0


def k_while_else(i, x):
    k = 0
    while k < 3:
        k += 1
    else:
        x[i] = -1.0


def k_assign_loop_var(i, x):
    for k in range(3):
        k = 2
        x[i] = k


def k_float_range(i, x):
    for k in range(2.5):
        x[i] = k


# -- arrays and operators ----------------------------------------------------
def k_slice(i, x):
    y = x[1:3]
    x[i] = y[0]


def k_multi_subscript(i, x):
    x[i] = x[i, 0]


def k_negative_index(i, x):
    x[i] = x[-1]


def k_pointer_arithmetic(i, x):
    x[i] = (x + 1)[0]


def k_matmul(i, x, a, b):
    x[i] = a @ b


def k_and_numbers(i, x, a, b):
    x[i] = a or b


def k_is(i, x, a, b):
    if a is b:
        x[i] = 1.0


def k_in(i, x):
    if i in x:
        x[i] = 1.0


def k_int_negative_power(i, x):
    x[i] = i ** -1


def k_augassign_unbound(i, x):
    total += x[i]  # noqa: F821
    x[i] = total


# -- functions, names and attributes -----------------------------------------
def k_keyword_arg(i, x):
    x[i] = helper_add(1.0, b=2.0)


def k_default_arg(i, x, n=None):
    x[i] = n


def k_default_helper(i, x):
    x[i] = helper_default(1.0)


def k_varargs(i, x, *args):
    x[i] = 1.0


def k_starred_call(i, x):
    x[i] = helper_add(*x)


def k_print(i, x):
    print(x[i])


def k_attribute_shape(i, x):
    n = x.shape
    x[i] = n


def k_attribute_object(i, x):
    x[i] = PARTICLE.mass


def k_method(i, x):
    x[i] = x.sum()


def k_unknown_function(i, x):
    x[i] = no_such_function(i)  # noqa: F821


def k_numpy_function(i, x):
    x[i] = np.cumsum(x)


def k_len(i, x):
    n = len(x)
    x[i] = n


def k_reserved_name(i, x):
    pc_tmp = 1.0
    x[i] = pc_tmp


# -- types -------------------------------------------------------------------
def k_pointer_and_number(i, x):
    a = x
    a = 1.0
    x[i] = a


def k_bad_declare(i, x):
    a = declare('dubble')
    x[i] = a


def k_recursion(i, x):
    x[i] = factorial(i)


# Argument types for the kernels above (they carry no annotations).
TYPES = {"x": "gdoublep", "a": "double", "b": "double", "n": "int"}

# (kernel, group, construct, backend).  Each raises a pcompute error on that
# backend's front end / printer.
CASES = [
    (k_list, "values", "list literal", "cython"),
    (k_dict, "values", "dict literal", "cython"),
    (k_set, "values", "set literal", "cython"),
    (k_listcomp, "values", "list/dict/set comprehension", "cython"),
    (k_genexp, "values", "generator expression", "cython"),
    (k_tuple, "values", "tuple as a value", "cython"),
    (k_string, "values", "string value", "cython"),
    (k_fstring, "values", "f-string", "cython"),
    (k_none, "values", "None", "cython"),
    (k_complex, "values", "complex number", "cython"),
    (k_lambda, "values", "lambda", "cython"),
    (k_with, "statements", "with", "cython"),
    (k_try, "statements", "try/except", "cython"),
    (k_raise, "statements", "raise", "cython"),
    (k_assert, "statements", "assert", "cython"),
    (k_class, "statements", "class in a kernel", "cython"),
    (k_nested_def, "statements", "def in a kernel", "cython"),
    (k_import, "statements", "import in a kernel", "cython"),
    (k_global, "statements", "global", "cython"),
    (k_del, "statements", "del", "cython"),
    (k_yield, "statements", "yield", "cython"),
    (k_walrus, "statements", ":= (walrus)", "cython"),
    (k_annassign, "statements", "annotated assignment", "cython"),
    (k_chained_assign, "statements", "chained assignment a = b = c", "cython"),
    (k_return_tuple, "statements", "returning several values", "cython"),
    (k_expression_statement, "statements", "expression without effect", "cython"),
    (k_for_array, "loops", "for x in array", "cython"),
    (k_for_else, "loops", "for ... else", "cython"),
    (k_while_else, "loops", "while ... else", "cython"),
    (k_assign_loop_var, "loops", "assigning the loop variable", "cython"),
    (k_float_range, "loops", "range() of a float", "cython"),
    (k_slice, "arrays and operators", "slicing", "cython"),
    (k_multi_subscript, "arrays and operators", "multi-dimensional subscript",
     "cython"),
    (k_negative_index, "arrays and operators", "negative literal index", "cython"),
    (k_pointer_arithmetic, "arrays and operators", "arithmetic on an array",
     "cython"),
    (k_matmul, "arrays and operators", "@ (matrix product)", "cython"),
    (k_and_numbers, "arrays and operators", "and/or between numbers", "cython"),
    (k_is, "arrays and operators", "is / is not", "cython"),
    (k_in, "arrays and operators", "in / not in", "cython"),
    (k_int_negative_power, "arrays and operators",
     "integer to a negative power", "cython"),
    (k_augassign_unbound, "arrays and operators", "+= before any assignment",
     "cython"),
    (k_keyword_arg, "functions and names", "keyword argument in a call", "cython"),
    (k_default_arg, "functions and names", "default value that is not a number",
     "cython"),
    (k_default_helper, "functions and names", "leaving out an argument with a default",
     "cython"),
    (k_varargs, "functions and names", "*args / **kwargs", "cython"),
    (k_starred_call, "functions and names", "f(*x) in a call", "cython"),
    (k_print, "functions and names", "print()", "cython"),
    (k_attribute_shape, "functions and names", "x.shape and other attributes",
     "cython"),
    (k_attribute_object, "functions and names", "attribute of an object",
     "cython"),
    (k_method, "functions and names", "method call x.sum()", "cython"),
    (k_unknown_function, "functions and names", "unknown function", "cython"),
    (k_numpy_function, "functions and names", "numpy function", "cython"),
    (k_len, "functions and names", "len()", "cython"),
    (k_reserved_name, "functions and names", "name starting with pc_",
     "cython"),
    (k_pointer_and_number, "types", "a local that is an array and a number",
     "cython"),
    (k_bad_declare, "types", "unknown type in declare()", "cython"),
    (k_recursion, "types", "recursion (OpenCL only)", "opencl"),
]
