"""Sparse matrix-vector products, CSR and ELL (scalar: one row per element,
a sequential loop over the row's entries; one kernel each)."""
from pcompute.dataparallel import dataparallel, indices, len, map, replicate, split, sum


@dataparallel
def spmv_csr(data, cols, offsets, x):
    def row_dot(row, row_cols):
        return sum(map(lambda v, j: v * x[j], row, row_cols))
    return map(row_dot, split(data, offsets), split(cols, offsets))


@dataparallel
def spmv_ell(data, cols, x, width):
    """ELL (row-major, ``width`` entries per row, padding with value 0):
    each row is the segment ``[r * width, (r + 1) * width)``, one kernel."""
    rows = len(data) // width
    offsets = map(lambda r: r * width, indices(replicate(0, rows + 1)))

    def row_dot(row, row_cols):
        return sum(map(lambda v, j: v * x[j], row, row_cols))
    return map(row_dot, split(data, offsets), split(cols, offsets))
