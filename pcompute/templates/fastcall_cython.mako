## The compiled fast calls of a Cython kernel module (see
## pcompute/backends/cython_fast.py): pc_fast(plan, args, kw) checks that the
## call arguments have the signature recorded in ``plan`` and that the
## configuration has not changed since, then calls pc_run; else it returns
## None and the primitive takes its checked path.  In a module of a 1-D
## Elementwise, a plan bound for calls given their index space (``plan[10]``
## true) makes pc_fast take that index space (``shape=``, an int or a tuple
## of one int) in place of ``kw``: one entry serves both kinds of call.
## pc_fast_shaped(plan, args, shape) is the entry of the other kernels called
## with ``shape=``: n-D index spaces (a tuple of ``dims`` ints) and 1-D ones
## over n-D arrays.  The checks are C (quick to compile); the plan is
## (generation list, stamp, Python types, dtypes, Array class, ndarray,
## backend name, finish, "backend", device attribute, shaped).
## Variables: rows: [(index, user name, the name as a Python literal, kind,
## declarations, first run name, [(index in pc_meta, run name)] of the
## others, rank)], one per user argument: kind 'array' (C-contiguous, of that
## rank; an n-D array's shape and strides in elements follow its address, a
## 1-D one's length when it has two run parameters) or 'scalar'; the C
## declarations and names of its run parameters; n_args: the number of user
## arguments.  plain: whether pc_fast exists (every array
## of rank 1); dims: the index rank of the kernel (None: not an Elementwise,
## no call given shape=); pc_fast_shaped exists when dims is set and plain
## is not.  run_types, run_names: pc_run's parameter types and the names
## after its extents (each after a comma); extent_values: pc_fast_shaped's
## extents; meta_size: the length of pc_meta (cython_fast.fast_source).

from cpython.ref cimport PyObject

cdef extern from *:
    """
    #define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
    #include "numpy/ndarraytypes.h"

    #define PC_PLAN(plan, k) PyTuple_GET_ITEM((plan), (k))

    /* 1 when the configuration generation is the plan's and nargs arguments
       were given (by position, then by name). */
    static int pc_fast_valid(PyObject *plan, PyObject *args, PyObject *kw,
                             Py_ssize_t nargs) {
        Py_ssize_t now = PyLong_AsSsize_t(PyList_GET_ITEM(PC_PLAN(plan, 0), 0));
        Py_ssize_t given = PyTuple_GET_SIZE(args);
        if (now != PyLong_AsSsize_t(PC_PLAN(plan, 1))) {
            PyErr_Clear();
            return 0;
        }
        if (kw != Py_None)
            given += PyDict_GET_SIZE(kw);
        return given == nargs;
    }

    /* Argument k (borrowed): by position, else by name; NULL if absent. */
    static PyObject *pc_fast_value(PyObject *args, PyObject *kw, Py_ssize_t k,
                                   PyObject *name) {
        if (k < PyTuple_GET_SIZE(args))
            return PyTuple_GET_ITEM(args, k);
        return kw == Py_None ? NULL : PyDict_GetItem(kw, name);
    }

    /* 1 when o has the exact Python type the plan recorded for argument k. */
    static int pc_fast_scalar(PyObject *plan, PyObject *o, Py_ssize_t k) {
        return o != NULL && (PyObject *)Py_TYPE(o) == PyTuple_GET_ITEM(PC_PLAN(plan, 2), k);
    }

    /* The numpy array of argument k (borrowed; an Array keeps its own) and
       its address and meta data when o is a C-contiguous array of rank
       `rank`, of the Python type and dtype the plan recorded: an Array of the
       plan's backend, or a writable numpy array.  meta: the rank extents,
       then the strides in elements of the first rank - 1 axes (those of a
       C-contiguous array: the product of the later extents).  NULL for
       anything else. */
    static PyObject *pc_fast_array(PyObject *plan, PyObject *o, Py_ssize_t k, int rank,
                                   size_t *addr, long long *meta) {
        PyObject *want, *attr;
        PyArrayObject *a;
        int same, d;
        long long stride = 1;
        if (o == NULL)
            return NULL;
        want = PyTuple_GET_ITEM(PC_PLAN(plan, 2), k);
        if ((PyObject *)Py_TYPE(o) != want)
            return NULL;
        if (want == PC_PLAN(plan, 4)) {
            attr = PyObject_GetAttr(o, PC_PLAN(plan, 8));
            if (attr == NULL) {
                PyErr_Clear();
                return NULL;
            }
            same = PyObject_RichCompareBool(attr, PC_PLAN(plan, 6), Py_EQ);
            Py_DECREF(attr);
            if (same != 1) {
                PyErr_Clear();
                return NULL;
            }
            attr = PyObject_GetAttr(o, PC_PLAN(plan, 9));
            if (attr == NULL) {
                PyErr_Clear();
                return NULL;
            }
            Py_DECREF(attr);   /* the Array holds it; the caller takes a reference */
            if ((PyObject *)Py_TYPE(attr) != PC_PLAN(plan, 5))
                return NULL;
            o = attr;
            a = (PyArrayObject *)o;
        } else if (want == PC_PLAN(plan, 5)) {
            a = (PyArrayObject *)o;
            if (!(PyArray_FLAGS(a) & NPY_ARRAY_WRITEABLE))
                return NULL;
        } else {
            return NULL;
        }
        if (PyArray_NDIM(a) != rank || !(PyArray_FLAGS(a) & NPY_ARRAY_C_CONTIGUOUS))
            return NULL;
        if ((PyObject *)PyArray_DESCR(a) != PyTuple_GET_ITEM(PC_PLAN(plan, 3), k))
            return NULL;
        *addr = (size_t)PyArray_BYTES(a);
        for (d = rank - 1; d >= 0; d--) {
            meta[d] = (long long)PyArray_DIMS(a)[d];
            if (d < rank - 1)
                meta[rank + d] = stride;
            stride *= meta[d];
        }
        return o;
    }

%if dims is not None:
    /* 1 and the extent in *e when o is an int (exactly) from 0 to 2**63 - 1. */
    static int pc_fast_extent(PyObject *o, long long *e) {
        int overflow = 0;
        if (!PyLong_CheckExact(o))
            return 0;
        *e = PyLong_AsLongLongAndOverflow(o, &overflow);
        if (overflow || *e < 0) {
            PyErr_Clear();
            return 0;
        }
        return 1;
    }

    /* 1 and the extents in e when shape is such an int (dims 1) or a tuple
       of dims of them. */
    static int pc_fast_extents(PyObject *shape, int dims, long long *e) {
        int d;
        if (dims == 1 && PyLong_CheckExact(shape))
            return pc_fast_extent(shape, e);
        if (!PyTuple_CheckExact(shape) || PyTuple_GET_SIZE(shape) != dims)
            return 0;
        for (d = 0; d < dims; d++)
            if (!pc_fast_extent(PyTuple_GET_ITEM(shape, d), e + d))
                return 0;
        return 1;
    }
%endif
    """
    bint pc_fast_valid(object, object, object, Py_ssize_t)
    PyObject* pc_fast_value(object, object, Py_ssize_t, object)
    bint pc_fast_scalar(object, PyObject*, Py_ssize_t)
    PyObject* pc_fast_array(object, PyObject*, Py_ssize_t, int, size_t*, long long*)
%if dims is not None:
    bint pc_fast_extents(object, int, long long*)
%endif

<%def name="arguments(kw)">\
%for k, name, quoted, kind, decls, first, hidden, rank in rows:
%for decl in decls:
    cdef ${decl}
%endfor
%if kind == "array":
    cdef object pc_keep_${name}
%endif
%endfor
%for k, name, quoted, kind, decls, first, hidden, rank in rows:
    pc_p = pc_fast_value(pc_args, ${kw}, ${k}, ${quoted})
%if kind == "scalar":
    if not pc_fast_scalar(pc_plan, pc_p, ${k}):
        return None
    ${first} = <object>pc_p
%else:
    pc_p = pc_fast_array(pc_plan, pc_p, ${k}, ${rank}, &${first}, pc_meta)
    if pc_p == NULL:
        return None
    pc_keep_${name} = <object>pc_p
%if kw != "None":
    if pc_n < 0:
        pc_n = pc_meta[0]
%endif
%for j, hidden_name in hidden:
    ${hidden_name} = pc_meta[${j}]
%endfor
%endif
%endfor
</%def>

# The entries call pc_run through this pointer: gcc would inline pc_run into
# an entry as large as these, and there its kernel function, past the
# entry's inlining budget, stayed a call per item (a scalar loop: a fused
# 5-op chain over 65536 items ran 3.5x slower than through run()).
cdef object (*pc_run_ptr)(${run_types})
pc_run_ptr = pc_run
%if plain:

def pc_fast(tuple pc_plan, tuple pc_args, pc_kw):
%if dims == 1:
    """run() for arguments of the signature recorded in pc_plan (the
    configuration unchanged since), else None.  With a plan bound for calls
    given shape= (pc_plan[10]), pc_kw is that index space."""
%else:
    """run() for arguments of the signature recorded in pc_plan (the
    configuration unchanged since), else None."""
%endif
    cdef long long pc_n = -1
    cdef long long pc_meta[1]
    cdef PyObject* pc_p
    cdef object pc_result
%if dims == 1:
    if pc_plan[10] is True:
        if not pc_fast_extents(pc_kw, 1, &pc_n):
            return None
        pc_kw = None
%endif
    if not pc_fast_valid(pc_plan, pc_args, pc_kw, ${n_args}):
        return None
${arguments("pc_kw")}\
    if pc_n < 0:
        return None
    pc_result = pc_run_ptr(pc_n${run_names})
    if pc_plan[7] is None:
        return True
    return pc_plan[7](pc_result)
%endif
%if dims is not None and not plain:

def pc_fast_shaped(tuple pc_plan, tuple pc_args, pc_shape):
    """run() over the index space pc_shape for arguments of the signature
    recorded in pc_plan (the configuration unchanged since), else None."""
    cdef long long pc_meta[${meta_size}]
    cdef long long pc_e[${dims}]
    cdef PyObject* pc_p
    if not pc_fast_extents(pc_shape, ${dims}, pc_e):
        return None
    if not pc_fast_valid(pc_plan, pc_args, None, ${n_args}):
        return None
${arguments("None")}\
    pc_run_ptr(${extent_values}${run_names})
    return True
%endif
