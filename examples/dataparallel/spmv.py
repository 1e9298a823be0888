"""Sparse matrix-vector products, CSR (scalar: one row per element, a
sequential loop over the row's entries; one kernel)."""
from pcompute.dataparallel import dataparallel, map, split, sum


@dataparallel
def spmv_csr(data, cols, offsets, x):
    def row_dot(row, row_cols):
        return sum(map(lambda v, j: v * x[j], row, row_cols))
    return map(row_dot, split(data, offsets), split(cols, offsets))
