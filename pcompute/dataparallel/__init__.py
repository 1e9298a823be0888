"""Copperhead-style data-parallel functions (see docs: "Data-parallel functions").

``from pcompute.dataparallel import dataparallel, map, zip, gather, ...``: the
primitives are plain functions on NumPy arrays and lists (the prelude, also
the oracle), and ``@dataparallel`` compiles a function written with them into
fused phases, one kernel each, on the configured backend.
"""
from .decorator import DataParallelFunction, dataparallel
from .prelude import (exclusive_scan, gather, indices, len, map, max, min, permute,
                      reduce, replicate, rotate, rscan, scan, scatter, scatter_add, shift, sort,
                      sort_by_key, split, sum, unzip, zip)

__all__ = ["DataParallelFunction", "dataparallel", "exclusive_scan", "gather", "indices", "len", "map", "max", "min",
           "permute", "reduce", "replicate", "rotate", "rscan", "scan", "scatter", "scatter_add",
           "shift", "sort", "sort_by_key", "split", "sum", "unzip", "zip"]
