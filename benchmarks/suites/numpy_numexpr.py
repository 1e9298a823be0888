"""The NumPy programs of the ``numpy`` suite written for numexpr, where numexpr
can say them: each ``make(args)`` returns ``run()``, which computes the
program's result from the same inputs as ``MAIN(*args)`` (a copy of the
inputs where the program writes into them).  numexpr runs a whole expression
per ``evaluate`` in cache-sized blocks on its threads; a reduction must be
the last operation of an expression and NumPy does the rest (numexpr's own
rules), so a program may take several calls.  cronbach (variances along
axes) has no numexpr form here.
"""
import numpy as np

from ..peers import numexpr_peer


def _ev(expr, out=None, **arrays):
    return numexpr_peer.numexpr.evaluate(expr, local_dict=arrays, out=out)


def arc_distance(args):
    t1, p1, t2, p2 = args

    def run():
        t = _ev("sin((b - a) / 2) ** 2 + cos(a) * cos(b) * sin((d - c) / 2) ** 2",
                a=t1, b=t2, c=p1, d=p2)
        return _ev("2 * arctan2(sqrt(t), sqrt(1 - t))", out=t, t=t)
    return run


def pythagorean_id(args):
    a, b = args
    return lambda: _ev("sin(a) ** 2 + cos(b) ** 2", a=a, b=b)


def vibr_energy(args):
    h, o, v = args
    return lambda: _ev("sum(exp(-h * v - o) * (h * v + o))", h=h, o=o, v=v)


def log_likelihood(args):
    d, m, s = args
    return lambda: _ev("sum(log(exp(-((d - m) ** 2) / (2 * s ** 2)) / "
                       "sqrt(2 * pi * s ** 2)))", d=d, m=m, s=s, pi=np.pi)


def l2norm(args):
    x, = args
    return lambda: np.sqrt(_ev("sum(abs(x) ** 2, axis=1)", x=x))


def rosen(args):
    x, = args
    return lambda: _ev("sum(100.0 * (t - h ** 2) ** 2 + (1 - h) ** 2)", h=x[:-1], t=x[1:])


def harris(args):
    im, = args
    k = 0.05

    def run():
        return _ev("(dx * dx * dy * dy - dx * dy * dx * dy) - k * (dx * dx + dy * dy) ** 2",
                   dx=_ev("a - b", a=im[1:-1, 2:], b=im[1:-1, :-2]),
                   dy=_ev("a - b", a=im[2:, 1:-1], b=im[:-2, 1:-1]), k=k)
    return run


def laplacien(args):
    im, = args

    def run():
        out = _ev("a + b + c + d - 4 * e", a=im[:-2, 1:-1], b=im[2:, 1:-1],
                  c=im[1:-1, :-2], d=im[1:-1, 2:], e=im[1:-1, 1:-1])
        top = _ev("max(abs(o))", o=out)
        return _ev("o / t", out=out, o=out, t=top)
    return run


def specialconvolve(args):
    a, = args

    def run():
        rows = _ev("a + 2 * b + c", a=a[:-2, :], b=a[1:-1, :], c=a[2:, :])
        return _ev("a - b + 0.5 * c", a=rows[:, :-2], b=rows[:, 2:], c=rows[:, 1:-1])
    return run


def _laplacian(name, z):
    """The expression of the program's 5-point laplacian of ``z`` and its arrays."""
    parts = dict(zip(("%s0" % name, "%s1" % name, "%s2" % name, "%s3" % name, "%sc" % name),
                     (z[:-2, 1:-1], z[2:, 1:-1], z[1:-1, :-2], z[1:-1, 2:], z[1:-1, 1:-1])))
    return "(%s0 + %s1 + %s2 + %s3 - 4 * %sc)" % ((name,) * 5), parts


def grayscott(args):
    u0, v0, steps = args
    du, dv, f, k = 0.16, 0.08, 0.035, 0.065

    def run():
        u, v = u0.copy(), v0.copy()
        for _ in range(steps):
            uc, vc = u[1:-1, 1:-1], v[1:-1, 1:-1]
            lu, au = _laplacian("u", u)
            lv, av = _laplacian("v", v)
            u_new = _ev("uc + du * %s - uc * vc * vc + f * (1 - uc)" % lu,
                        vc=vc, du=du, f=f, **au)
            v_new = _ev("vc + dv * %s + uc * vc * vc - (f + k) * vc" % lv,
                        uc=uc, dv=dv, f=f, k=k, **av)
            uc[...] = u_new
            vc[...] = v_new
        return v
    return run


def evolve(args):
    grid0, steps, diffusion = args

    def run():
        grid = grid0
        for step in range(steps):
            dt = 0.1 / (1 + step)
            inner = _ev("m + c * (r - 2 * m + l)", m=grid[1:-1], r=grid[2:], l=grid[:-2],
                        c=dt * diffusion)
            grid = np.concatenate([grid[:1], inner, grid[-1:]])
        return grid
    return run


def nn(args):
    x, w, steps = args

    def run():
        ww, hidden = w, None
        for step in range(steps):
            rate = 0.5 / (step + 1)
            hidden = _ev("tanh(x * w)", x=x, w=ww)
            total = _ev("sum((h - 0.25) * (1 - h ** 2) * x)", h=hidden, x=x)
            ww = ww - rate * (float(total) / x.size)
        return _ev("w + h", w=ww, h=hidden)
    return run


#: program name -> make(args) -> run()
MAKERS = {name: globals()[name] for name in (
    "arc_distance", "pythagorean_id", "vibr_energy", "log_likelihood", "l2norm", "rosen",
    "harris", "laplacien", "specialconvolve", "grayscott", "evolve", "nn")}
