"""How n-D array arguments are passed and indexed in generated code.

An n-D array argument ``a`` of rank k travels as its data pointer followed by
hidden 64-bit scalars: its shape ``pc_n0_a ... pc_n<k-1>_a`` and its strides
in elements ``pc_s0_a ...``; with layout ``'C'`` (last axis contiguous) the
last stride is the constant 1 and is not passed.  Shapes and strides are
never baked into the source, so a new shape never recompiles.  ``a[i, j]``
is printed ``a[i * pc_s0_a + j]`` (64-bit index arithmetic).

The same order is used by every backend's entry point and by the launch
values (:func:`meta_values`), and by calls of helpers taking the array.
"""


def shape_name(cname, axis):
    return "pc_n%d_%s" % (axis, cname)


def stride_name(cname, axis):
    return "pc_s%d_%s" % (axis, cname)


def strides_passed(t):
    """The axes whose stride is passed (all but the last for layout 'C')."""
    return range(t.ndim - 1 if t.layout == "C" else t.ndim)


def hidden_names(cname, t):
    """The names of the hidden scalars of array ``cname`` of type ``t`` (none
    for scalars and raw pointers), in the order they are passed."""
    if not t.is_ndarray:
        return []
    return ([shape_name(cname, d) for d in range(t.ndim)]
            + [stride_name(cname, d) for d in strides_passed(t)])


def expanded_names(fn, first=0):
    """The printed argument names of ``fn``'s arguments from ``first`` on, each
    array followed by its hidden scalars."""
    out = []
    for name, t in fn.args[first:]:
        cname = fn.cname(name)
        out.append(cname)
        out.extend(hidden_names(cname, t))
    return out


def meta_values(t, value):
    """The hidden scalars of an array ``value`` passed for type ``t``: its shape
    then its strides in elements (numpy, pyopencl and pycuda arrays alike)."""
    if not t.is_ndarray:
        return []
    item = value.dtype.itemsize
    strides = [s // item for s in value.strides]
    return list(value.shape) + [strides[d] for d in strides_passed(t)]


def flat_index(cname, t, index_texts):
    """The flat element offset of ``cname[i, j, ...]`` (texts already wrapped
    to bind tighter than ``*``)."""
    terms = []
    for axis, text in enumerate(index_texts):
        if axis == t.ndim - 1 and t.layout == "C":
            terms.append(text)
        else:
            terms.append("%s * %s" % (text, stride_name(cname, axis)))
    return " + ".join(terms)
