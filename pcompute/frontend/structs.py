"""Typing of objects of user classes: ``obj.field`` and ``obj.method(...)``
(a mixin of the function typer).

An object reaches a kernel as a pointer to its class's struct (a
:class:`~pcompute.types.StructInfo`, see :mod:`pcompute.cstruct`): the
``self`` of a method, or an instance passed as a kernel argument.  Its number
attributes are read-only fields; ``obj.m(a, b)`` calls the class's method
``m`` as the helper ``Class_m(obj, a, b)``, typed like any helper.
"""
import ast
import inspect

from ..errors import KernelTypeError


class StructTyper:
    """The object-typing methods of the function typer (a mixin)."""

    def struct_of(self, node):
        """The struct type of the Name ``node``, or None if it is not one."""
        if isinstance(node, ast.Name):
            t = self.var_type(node.id)
            if t is not None and t.is_struct:
                self.types[id(node)] = t
                return t
        return None

    def expr_Attribute(self, node):
        t = self.struct_of(node.value)
        if t is None:
            return super().expr_Attribute(node)
        info = t.struct
        what = "%s.%s" % (node.value.id, node.attr)
        if not info.fields_known:
            self.fail(KernelTypeError, node, "%s: the fields of class %s are not known "
                      "here (the class was given without an instance)" % (what, info.name),
                      "translate an instance, whose number attributes are the fields: "
                      "CConverter().parse_instance(obj)")
        field = info.field(node.attr)
        if field is None:
            fields = ", ".join(n for n, _ in info.fields) or "none"
            method = getattr(info.cls, node.attr, None) if info.cls else None
            hint = ("call it: %s(...)" % what if callable(method) else
                    "kernels read the public number attributes (int, float) of an "
                    "object; set %s to a number before the call" % what)
            self.fail(KernelTypeError, node, "%s: an object of class %s has no number "
                      "attribute %r in kernels (its fields: %s)"
                      % (what, info.name, node.attr, fields), hint)
        return field

    def call_method(self, node, t):
        """``obj.m(args)``: the helper ``Class_m(obj, args)``."""
        info = t.struct
        name = node.func.attr
        func = self.program.method_of(info, name)
        if func is None:
            raw = inspect.getattr_static(info.cls, name, None) if info.cls else None
            if isinstance(raw, (staticmethod, classmethod, property)):
                self.fail(KernelTypeError, node.func, "%s.%s is a %s: kernels call plain "
                          "methods only" % (info.name, name, type(raw).__name__),
                          "make it a plain method `def %s(self, ...)`, or a module-level "
                          "function" % name)
            self.fail(KernelTypeError, node.func, "class %s has no method %r"
                      % (info.name, name),
                      "define `def %s(self, ...)` in class %s" % (name, info.name))
        arg_types = [t] + [self.expr(a) for a in node.args]
        if any(a is None for a in arg_types):
            self.pending.append(node)
            return None
        self.program.method_names[func] = "%s_%s" % (info.name, name)
        typed = self.program.request(func, node, self.src, arg_types)
        key = self.program.version_key(func, arg_types)
        c_name = typed.c_name if typed is not None else self.program.c_name_of(key)
        self.calls[id(node)] = ("method", c_name)
        if c_name not in self.callees:
            self.callees.append(c_name)
        if typed is None:  # recursion: still being typed
            return self.program.current_ret(key)
        return typed.ret
