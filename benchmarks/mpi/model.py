"""A scaling model of the decomposed MD: what one step costs on P ranks.

Each rank owns a cube (square in 2-D) of side ``a = (V / P)^(1/d)`` and keeps
ghosts in a layer of width ``r`` (cut-off + skin) around it, so

    ghost fraction      g = ((a + 2 r)^d - a^d) / a^d
    ghost refresh       2 d messages per step (2 per axis), g n_p d 8 bytes
    rebuild test        one Allreduce per step: ceil(log2 P) latencies

with ``n_p = N / P`` particles per rank.  A step costs

    T(P) = n_p t_p  +  g n_p t_g  +  2 d alpha  +  g n_p d 8 / bw
           + ceil(log2 P) alpha

(force work, packing and unpacking the ghosts, message latency, halo bytes,
the global rebuild test), and the parallel efficiency is
``E(P) = n_p t_p / T(P)``: the fraction of the step spent on the physics.
Nothing overlaps here (the implementation does not overlap communication
with computation), and the migration at rebuilds (every ~10 steps with a
skin, with a few particles) is left out.
"""
import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Machine:
    """Per rank: ``t_p`` seconds of force work per particle and step,
    ``t_g`` seconds to pack + unpack one ghost; the network's latency
    ``alpha`` (s) and bandwidth ``bw`` (bytes/s)."""
    t_p: float
    t_g: float
    alpha: float
    bw: float


@dataclass(frozen=True)
class Prediction:
    ranks: int
    per_rank: float
    ghost_fraction: float
    messages: int
    halo_bytes: float
    step_s: float
    efficiency: float


def predict(n, ranks, density, reach, machine, dim=3):
    """The model's step time and efficiency for ``n`` particles on ``ranks``."""
    volume = n / density
    side = (volume / ranks) ** (1.0 / dim)
    g = ((side + 2 * reach) ** dim - side ** dim) / side ** dim
    per_rank = n / ranks
    halo = g * per_rank * dim * 8
    messages = 2 * dim
    work = per_rank * machine.t_p
    step = (work + g * per_rank * machine.t_g + messages * machine.alpha
            + halo / machine.bw + math.ceil(math.log2(max(ranks, 2))) * machine.alpha)
    return Prediction(ranks, per_rank, g, messages, halo, step, work / step)


def table(n, rank_counts, density, reach, machine, dim=3):
    """Rows of text: ranks, particles per rank, ghost fraction, halo size, efficiency."""
    lines = ["%6s %12s %8s %10s %10s %6s" % ("ranks", "per rank", "ghosts", "halo MB",
                                               "step ms", "E")]
    for p in rank_counts:
        r = predict(n, p, density, reach, machine, dim)
        lines.append("%6d %12.3g %8.3f %10.3f %10.3f %6.2f" % (
            p, r.per_rank, r.ghost_fraction, r.halo_bytes / 1e6, 1e3 * r.step_s,
            r.efficiency))
    return "\n".join(lines)
