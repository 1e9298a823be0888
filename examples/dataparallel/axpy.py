"""y <- a x + y as one fused map (one kernel)."""
from pcompute.dataparallel import dataparallel, map


@dataparallel
def axpy(a, x, y):
    return map(lambda xi, yi: a * xi + yi, x, y)
