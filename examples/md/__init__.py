"""Molecular dynamics with pcompute: 2-D and 3-D Lennard-Jones particles.

Every kernel is written once in the kernel subset of Python and runs on the
python, cython (serial or OpenMP), opencl and cuda backends.  Run it with
``python -m examples.md --help``; use it from Python with::

    from examples.md import Simulation
    sim = Simulation(n=1000, nnps="cells")
    sim.step(100)
    print(sim.energy())
"""
from .simulation import NNPS, Simulation

__all__ = ["Simulation", "NNPS"]
