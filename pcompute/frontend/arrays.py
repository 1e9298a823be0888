"""Typing of array accesses: ``x[k]``, ``a[i, j]``, ``a.shape[d]``, ``a.ndim``,
``a.size`` and ``len(a)`` (a mixin of the function typer).

An n-D array argument (``CType.ndim > 0``) is indexed with exactly one index
per axis; a raw pointer (``gdoublep``) with one flat index; a local matrix
(``declare('matrix((2, 2))')``) either ``m[i][j]`` or ``m[i, j]``.
"""
import ast

from ..errors import KernelSyntaxError, KernelTypeError
from ..types import INT, LONG


def _text(node):
    return ast.unparse(node)


def _name_hint(t):
    """How to get an n-D array in place of the raw pointer type ``t``."""
    return ("pass an n-D numpy array or Array (the type comes from the call), or "
            "annotate it as an n-D array: 'g%sp2' or '%s[:, :]'" % (t.base, t.base))


class ArrayTyper:
    """The array-typing methods of the function typer (a mixin)."""

    def expr_Subscript(self, node):
        value = node.value
        if isinstance(value, ast.Attribute) and value.attr == "shape":
            return self.shape_item(node)
        if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name):
            inner = self.var_type(value.value.id)
            if inner is not None and inner.is_ndarray:  # a[i][j] on an n-D array
                name = value.value.id
                self.fail(KernelTypeError, node, "%s is a %d-D array: it takes %d indices "
                          "at once" % (name, inner.ndim, inner.ndim),
                          "index every axis at once: %s[%s] (not %s[i][j])"
                          % (name, ", ".join("ijklmnop"[:inner.ndim]), name))
        base = self.expr(value)
        indices = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        for index in indices:
            t = self.expr(index)
            if t is not None and not t.is_int:
                self.fail(KernelTypeError, index, "array indices must be integers, "
                          "got %s" % t, "convert with int(...)")
        if base is None:
            return None
        if not base.is_indexable:
            self.fail(KernelTypeError, node, "%s is a %s and cannot be indexed"
                      % (_text(value), base),
                      "only arrays and declare('matrix(n)') locals can be indexed")
        if isinstance(node.slice, ast.Tuple):
            self.types[id(node.slice)] = INT  # a tuple of indices has no value type
        if base.is_ndarray:
            return self.ndarray_item(node, base, indices)
        if len(indices) == 1:
            return base.element()
        if base.shape and len(indices) <= len(base.shape):
            t = base
            for _ in indices:
                t = t.element()
            return t
        if base.shape:
            self.fail(KernelTypeError, node, "%s is a local array of shape %s: it takes "
                      "at most %d indices, not %d" % (_text(value), base.shape,
                                                      len(base.shape), len(indices)),
                      "index it with one index per axis")
        self.fail(KernelTypeError, node, "%s is a 1-D pointer (%s) and takes one index, "
                  "not %d" % (_text(value), base, len(indices)),
                  "index a flat array as x[i*n + j], or " + _name_hint(base))

    def ndarray_item(self, node, base, indices):
        value = node.value
        if len(indices) != base.ndim:
            name = _text(value)
            want = "%s[%s]" % (name, ", ".join("ijklmnop"[:base.ndim]))
            if isinstance(value, ast.Subscript) or len(indices) < base.ndim:
                hint = "index every axis at once: %s (not %s[i][j])" % (want, name) \
                    if isinstance(value, ast.Subscript) else "index every axis: " + want
            else:
                hint = "index every axis once: " + want
            self.fail(KernelTypeError, node, "%s is a %d-D array: it takes %d indices, "
                      "got %d" % (name, base.ndim, base.ndim, len(indices)), hint)
        if isinstance(value, ast.Subscript):
            self.fail(KernelTypeError, node, "an element of an n-D array cannot be "
                      "indexed again", "index every axis at once: a[i, j]")
        return base.element()

    def array_arg(self, node, what, at=None):
        """The n-D array type of the argument ``node`` (a Name), or an error
        located at ``at`` (default: ``node``)."""
        t = self.expr(node)
        at = node if at is None else at
        if t is None:
            return None
        if not t.is_ndarray:
            if t.is_pointer:
                self.fail(KernelTypeError, at, "%s: %s is a 1-D pointer (%s), which "
                          "has no shape" % (what, _text(node), t),
                          _name_hint(t) + "; or pass the length as an integer argument")
            self.fail(KernelTypeError, at, "%s: %s is a %s, not an array"
                      % (what, _text(node), t),
                      "read shapes of array arguments only")
        return t

    def shape_item(self, node):
        attr = node.value
        t = self.array_arg(attr.value, "%s.shape" % _text(attr.value))
        axis = node.slice.value
        if t is not None and axis >= t.ndim:
            self.fail(KernelTypeError, node.slice, "%s is a %d-D array: it has no axis %d"
                      % (_text(attr.value), t.ndim, axis),
                      "axes run from 0 to %d" % (t.ndim - 1))
        self.types[id(node.slice)] = INT
        return LONG

    def expr_Attribute(self, node):
        what = "%s.%s" % (_text(node.value), node.attr)
        if node.attr == "shape":
            self.fail(KernelSyntaxError, node, "%s is a tuple, which kernels cannot hold"
                      % what, "read one axis at a time: %s[0]" % what)
        if node.attr not in ("ndim", "size"):
            self.fail(KernelSyntaxError, node, "arrays have no attribute %r in kernels"
                      % node.attr, "read a.shape[d], a.ndim or a.size")
        self.array_arg(node.value, what)
        return INT if node.attr == "ndim" else LONG

    def builtin_len(self, node):
        arg = node.args[0]
        if not isinstance(arg, ast.Name):
            self.fail(KernelSyntaxError, arg, "len() takes an array argument by name",
                      "write len(a) or a.shape[0]")
        t = self.expr(arg)
        if t is not None and t.shape and not t.pointer:
            return LONG
        self.array_arg(arg, "len(%s)" % _text(arg), at=node)
        return LONG


def shape_reads(src, _seen=None):
    """The names of ``src``'s parameters whose shape the function, or a helper
    it passes them to, reads (``len(x)``, ``x.shape[d]``, ``x.size``,
    ``x.ndim``): a contiguous 1-D array passed for one of them is typed as a
    1-D array that knows its length, where other 1-D arrays are raw pointers."""
    from .callgraph import Resolver
    from .source import read_function
    seen = set() if _seen is None else _seen
    seen.add(src.func)
    params = [a.arg for a in src.tree.args.args]
    found = set()
    resolver = Resolver(src)
    for node in ast.walk(src.tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.attr in ("shape", "size", "ndim"):
            found.add(node.value.id)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            names = [a.id if isinstance(a, ast.Name) else None for a in node.args]
            if node.func.id == "len" and len(names) == 1:
                found.add(names[0])
                continue
            if not any(n in params for n in names):
                continue
            try:
                kind, helper = resolver.call_target(node)
            except Exception:   # reported with its location when the kernel is typed
                continue
            if kind != "helper" or helper in seen:
                continue
            inner = read_function(helper)
            reads = shape_reads(inner, seen)
            for name, param in zip(names, [a.arg for a in inner.tree.args.args]):
                if param in reads:
                    found.add(name)
    return found & set(params)
