"""Great-circle distance between pairs of points (haversine formula)."""
import numpy as np


def arc_distance(theta_1, phi_1, theta_2, phi_2):
    half_dtheta = np.sin((theta_2 - theta_1) / 2)
    half_dphi = np.sin((phi_2 - phi_1) / 2)
    temp = half_dtheta ** 2 + np.cos(theta_1) * np.cos(theta_2) * half_dphi ** 2
    return 2 * np.arctan2(np.sqrt(temp), np.sqrt(1 - temp))


def inputs(n, seed=0):
    rng = np.random.default_rng(seed)
    return [np.asarray(rng.random(n) * np.pi) for _ in range(4)]


MAIN = arc_distance
