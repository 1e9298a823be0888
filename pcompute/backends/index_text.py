"""The text of an Elementwise's index space for its templates: the extents'
parameters, the indentation of nested loops, the bounds test.  Made here so
that the templates paste names only (ARCHITECTURE.md: templates hold no
logic beyond ``%if``/``%for``)."""

INDENT = "    "


def extent_params(dims, ctype):
    """The parameters of a ``dims``-D index space's extents, of C type
    ``ctype``: ``[ctype + " pc_n"]`` in 1-D, ``pc_n0`` .. ``pc_n{dims-1}``
    otherwise."""
    if dims == 1:
        return ["%s pc_n" % ctype]
    return ["%s pc_n%d" % (ctype, d) for d in range(dims)]


def signature(dims, ctype, params):
    """A kernel's parameter list: the extents (:func:`extent_params`), then
    ``params``, joined with commas."""
    return ", ".join(extent_params(dims, ctype) + list(params))


def nest(dims, first=0):
    """(loops, body indentation) of the loops over the axes ``first`` ..
    ``dims - 1`` nested one in the other: ``loops`` is ``[(indentation, axis)]``,
    each loop one :data:`INDENT` deeper than the one outside it, starting
    from none; the body is one deeper than the innermost loop."""
    return ([(INDENT * (d - first), d) for d in range(first, dims)],
            INDENT * (dims - first))


def in_range(dims):
    """The C test that every index of a ``dims``-D space is below its extent."""
    return " && ".join("pc_i%d < pc_n%d" % (d, d) for d in range(dims))
