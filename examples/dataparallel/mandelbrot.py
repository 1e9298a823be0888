"""Mandelbrot escape times, the escape loop written as self tail recursion
(as in Copperhead): compiled to a loop inside one kernel."""
from pcompute.dataparallel import dataparallel, map


@dataparallel
def mandelbrot(cx, cy, max_iter):
    def escape(x, y, c_re, c_im, i):
        if x * x + y * y > 4.0 or i >= max_iter:
            return i
        return escape(x * x - y * y + c_re, 2.0 * x * y + c_im, c_re, c_im, i + 1)
    return map(lambda a, b: escape(0.0 * a, 0.0 * b, a, b, 0), cx, cy)
