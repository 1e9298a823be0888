"""The module-level values the python backend's copy of a function reads.

A copy (:func:`.pyexec.python_callable`) holds the values of the names that
the function and its helpers read from their modules as they are when it is
made, as a compiled kernel holds the module's numbers it was built with; a
changed number gives a new copy, as a new build compiles the new constant in.
"""
import ast

import numpy as np

from ..frontend.callgraph import Resolver
from ..frontend.source import read_function

GONE = object()      # a name no longer in its module
_READS = {}          # func -> global_reads(func)
#: The values a kernel compiles in as constants (autopar's planner keys on
#: them too): bool, int, float, complex, NumPy scalars.
NUMBERS = (bool, int, float, complex, np.generic)


def user_helpers(func, src):
    """``{name: function}`` of the user functions ``func`` (read as ``src``)
    calls by name."""
    resolver = Resolver(src)
    found = {}
    for node in ast.walk(src.tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            try:
                kind, target = resolver.call_target(node)
            except Exception:
                continue
            if kind == "helper" and target is not func:
                found[node.func.id] = target
    return found


def global_reads(func):
    """``((module globals, name), ...)``: the names ``func`` and the helpers
    it calls (and theirs) read from their modules, found once per function."""
    reads = _READS.get(func)
    if reads is None:
        found = {}
        _collect_reads(func, set(), found)
        reads = _READS[func] = tuple(found.values())
    return reads


def _collect_reads(func, seen, found):
    seen.add(func)
    src = read_function(func)
    module = func.__globals__
    stored = {a.arg for a in src.tree.args.args} | {
        n.id for n in ast.walk(src.tree)
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    for n in ast.walk(src.tree):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and \
                n.id not in stored and n.id in module:
            found[id(module), n.id] = (module, n.id)
    for helper in user_helpers(func, src).values():
        if helper not in seen:
            _collect_reads(helper, seen, found)


def global_values(reads):
    """What the copies made now would hold of ``reads`` (:func:`global_reads`):
    a number by its type and value, anything else by identity.  A copy keeps
    the values of the time it is made, as a compiled kernel keeps the module's
    numbers it was built with (a changed one gives a new copy, as a new build
    there compiles the new constant in)."""
    return tuple([(type(v), v) if isinstance(v, NUMBERS) else id(v)
                  for v in [module.get(name, GONE) for module, name in reads]])
