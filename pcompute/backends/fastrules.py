"""The rules of the fast calls, one table for the backends that have them.

After a call has run through a primitive's checked path, a backend may give a
fast call for the same argument signature (``BuiltKernel.fastcall``; see
:mod:`pcompute.primitives.base`).  A later call may skip the checked path only
when it shares with that first call everything the checked path decided on.
Two backends implement the rules: the cython backend in C (``pc_fast`` in
``templates/fastcall_cython.mako``, its plan made by
:func:`pcompute.backends.cython_fast.binder`) and the opencl backend in Python
(:func:`pcompute.backends.cl_args.binder`).  Anything a rule refuses goes to
the checked path, which gives the right kernel or the user's error.

=====================  ==================================  ==================================
rule                   cython (C, ``pc_fast``)             opencl (Python, ``cl_args``)
=====================  ==================================  ==================================
configuration          ``GENERATION[0]`` is the stamp of   the same
                       the first call
argument count         positional plus keyword arguments   the same
                       equal the kernel's; keywords fill
                       the places after the positional
Python type            exactly the first call's            the same
                       (``type(v) is``), per argument
array reading          :func:`bound_array` at bind; at     the same
                       call the class's ``DEV_ATTRIBUTE``
array backend          ``v.backend`` == the backend name   the same, checked when the device
                                                           array is not the last call's
array dtype            the canonical dtype object of the   ``dev.dtype ==`` the first call's
                       first call (identity)
array layout           C-contiguous, rank 1 (else there    (rank, last axis contiguous) of
                       is no ``pc_fast``); with shape=,    the first call
                       the parameter's rank (n-D:
                       ``pc_fast_shaped``)
array context          --                                  ``dev.context`` is the kernels'
numpy array argument   writable, layout as above           none (bind gives no fast call)
numpy scalar argument  (the exact Python type rule)        of the parameter's own scalar type
                                                           only (no conversion), else none
user-class object      none (no ``pc_fast``)               none (bind gives no fast call)
=====================  ==================================  ==================================

The rows differ where the backends pass different things: a cython kernel
takes a host pointer and a length (so numpy arrays qualify and the layout must
be 1-D contiguous), an OpenCL kernel a buffer, an offset and the strides (so
any recorded layout qualifies, and the buffer must belong to the kernels'
context).  The cuda backend runs the opencl column's Python checks
(``cl_args.binder``, with no context row: pycuda arrays live in the device's
primary context) over packed parameter buffers (``cuda_args.PackedArgs``).
``tests/test_fastcall.py`` changes the configuration, the
argument arrangement, scalar types, arrays for scalars, backends, dtypes,
lengths and ranks between two calls on every backend (the one ``backend``
fixture); ``tests/test_opencl_context.py`` an array's context.

Why the C checks are not generated from this table: the cython checks must
stay C (a fast call runs no Python function: see
``test_repeated_calls_run_few_python_functions``) and the OpenCL ones Python
(the opencl backend needs no C compiler); a table interpreted at call time
would add a Python dispatch per rule to the path that exists to save it, and
generating both from it would be a second code generator for a handful of
checks whose rows differ per backend.  What both share in Python is here.
"""
from ..arraybase import ArrayBase


def bound_array(value):
    """``(DEV_ATTRIBUTE, device array)`` of an :class:`~pcompute.arraybase.ArrayBase`
    argument whose device array a fast call may read directly: its class names
    the attribute and the device array has the argument's dtype.  None when the
    argument is no ArrayBase or cannot be read so (no fast call then)."""
    if not isinstance(value, ArrayBase):
        return None
    attr = type(value).DEV_ATTRIBUTE
    if attr is None:
        return None
    dev = getattr(value, attr)
    if getattr(dev, "dtype", None) != value.dtype:
        return None
    return attr, dev
