## The compiled fast call of a Cython kernel module (see
## pcompute/backends/cython_fast.py): pc_fast(plan, args, kw) checks that the
## call arguments have the signature recorded in ``plan`` and that the
## configuration has not changed since, then calls pc_run; else it returns
## None and the primitive takes its checked path.  The checks are C (quick to
## compile); the plan is (generation list, stamp, Python types, dtypes,
## Array class, ndarray, backend name, finish, "backend", device attribute).
## Variables: args: [(user name, kind, declarations, run names)], one per
## user argument: kind 'array' (1-D contiguous; its length is passed after
## its address when it has two run parameters) or 'scalar'; the C
## declarations and names of its run parameters.

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
       its address and length when o is a 1-D C-contiguous array of the
       Python type and dtype the plan recorded: an Array of the plan's
       backend, or a writable numpy array.  NULL for anything else. */
    static PyObject *pc_fast_array(PyObject *plan, PyObject *o, Py_ssize_t k,
                                   size_t *addr, long long *length) {
        PyObject *want, *attr;
        PyArrayObject *a;
        int same;
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
        if (PyArray_NDIM(a) != 1 || !(PyArray_FLAGS(a) & NPY_ARRAY_C_CONTIGUOUS))
            return NULL;
        if ((PyObject *)PyArray_DESCR(a) != PyTuple_GET_ITEM(PC_PLAN(plan, 3), k))
            return NULL;
        *addr = (size_t)PyArray_BYTES(a);
        *length = (long long)PyArray_DIMS(a)[0];
        return o;
    }
    """
    bint pc_fast_valid(object, object, object, Py_ssize_t)
    PyObject* pc_fast_value(object, object, Py_ssize_t, object)
    bint pc_fast_scalar(object, PyObject*, Py_ssize_t)
    PyObject* pc_fast_array(object, PyObject*, Py_ssize_t, size_t*, long long*)


def pc_fast(tuple pc_plan, tuple pc_args, pc_kw):
    """run() for arguments of the signature recorded in pc_plan (the
    configuration unchanged since), else None."""
    cdef long long pc_n = -1, pc_m = 0
    cdef PyObject* pc_p
    cdef object pc_result
%for name, kind, decls, names in args:
%for decl in decls:
    cdef ${decl}
%endfor
%if kind == "array":
    cdef object pc_keep_${name}
%endif
%endfor
    if not pc_fast_valid(pc_plan, pc_args, pc_kw, ${len(args)}):
        return None
%for k, (name, kind, decls, names) in enumerate(args):
    pc_p = pc_fast_value(pc_args, pc_kw, ${k}, ${repr(name)})
%if kind == "scalar":
    if not pc_fast_scalar(pc_plan, pc_p, ${k}):
        return None
    ${names[0]} = <object>pc_p
%else:
    pc_p = pc_fast_array(pc_plan, pc_p, ${k}, &${names[0]}, &pc_m)
    if pc_p == NULL:
        return None
    pc_keep_${name} = <object>pc_p
    if pc_n < 0:
        pc_n = pc_m
%if len(names) > 1:
    ${names[1]} = pc_m
%endif
%endif
%endfor
    if pc_n < 0:
        return None
    pc_result = pc_run(pc_n${"".join(", " + n for _, _, _, names in args for n in names)})
    if pc_plan[7] is None:
        return True
    return pc_plan[7](pc_result)
