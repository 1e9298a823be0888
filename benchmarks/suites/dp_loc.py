"""Lines of code of the dataparallel samples next to the same algorithms
written by hand as pcompute kernels (the ``dataparallel`` suite's note).

A line counts when it holds code: blank lines, comments and docstrings do
not.  Each version counts the functions and classes it is made of (the
samples' helpers they call included); array allocation and the call itself
are left out of both.
"""
import ast
import inspect
import textwrap

from examples.dataparallel import axpy as dp_axpy, md_forces, pcg, spmv
from examples.md import forces as md_hand
from examples.md import physics

from .. import pc
from . import dp_hand


def code_lines(*objects):
    """Lines holding code in the sources of ``objects`` (functions, classes;
    a @dataparallel function counts its Python function)."""
    total = 0
    for obj in objects:
        source = textwrap.dedent(inspect.getsource(getattr(obj, "py", obj)))
        docs = set()
        for node in ast.walk(ast.parse(source)):
            body = getattr(node, "body", None)
            if isinstance(body, list) and body and isinstance(body[0], ast.Expr) and \
                    isinstance(body[0].value, ast.Constant) and \
                    isinstance(body[0].value.value, str):
                docs.update(range(body[0].lineno, body[0].end_lineno + 1))
        total += sum(1 for k, line in enumerate(source.splitlines(), 1)
                     if line.strip() and not line.strip().startswith("#")
                     and k not in docs)
    return total


def rows():
    """``(sample, dataparallel lines, hand-written lines, what the hand count is)``."""
    lj = (physics.lj_force, physics.lj_energy)
    return [
        ("axpy", code_lines(dp_axpy.axpy), code_lines(pc.axpy), "one Elementwise kernel"),
        ("spmv csr", code_lines(spmv.spmv_csr), code_lines(dp_hand.spmv_by_hand),
         "one Elementwise kernel"),
        ("pcg (jacobi)", code_lines(pcg.pcg, pcg.product_and_curvature, pcg.norms, pcg.update,
                                    pcg.direction, pcg.diagonal_inverse, spmv.spmv_csr),
         code_lines(dp_hand.HandPCG, dp_hand.spmv_by_hand, dp_hand.dot_map,
                    dp_hand.weighted_square_map, dp_hand.square_map, dp_hand.update_xr,
                    dp_hand.new_direction, dp_hand.inverse_diagonal, dp_hand.copy_into),
         "5 Elementwise + 3 Reduction kernels and the loop"),
        ("md forces 2-d", code_lines(md_forces.lj_forces_2d, *lj),
         code_lines(md_hand.forces_list_2d, md_hand.pair_sums_2d, *lj),
         "examples/md forces_list_2d (its outputs also add the walls)"),
    ]


def table():
    """The note lines: one per sample."""
    out = ["dataparallel lines of code (code lines, no comments/docstrings): "
           "sample: dataparallel vs by hand"]
    for name, dp, hand, what in rows():
        out.append("  %s: %d vs %d (%s)" % (name, dp, hand, what))
    return out
