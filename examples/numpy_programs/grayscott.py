"""Gray-Scott reaction-diffusion: a time loop of stencils and slice updates."""
import numpy as np


def laplacian(z):
    return z[:-2, 1:-1] + z[2:, 1:-1] + z[1:-1, :-2] + z[1:-1, 2:] - 4 * z[1:-1, 1:-1]


def grayscott(u, v, steps, du=0.16, dv=0.08, f=0.035, k=0.065):
    for _ in range(steps):
        uc, vc = u[1:-1, 1:-1], v[1:-1, 1:-1]
        uvv = uc * vc * vc
        u_new = uc + du * laplacian(u) - uvv + f * (1 - uc)
        v_new = vc + dv * laplacian(v) + uvv - (f + k) * vc
        u[1:-1, 1:-1] = u_new
        v[1:-1, 1:-1] = v_new
    return v


def inputs(n, seed=0):
    side = max(int(n ** 0.5), 4)
    rng = np.random.default_rng(seed)
    u = np.asarray(1 - 0.2 * rng.random((side, side)))
    v = np.asarray(0.2 * rng.random((side, side)))
    return [u, v, 3]


MAIN = grayscott
