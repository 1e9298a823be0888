"""Differential fuzzing: random valid kernels, every backend against python.

:mod:`.generator` writes random kernels in the kernel subset (with static
bounds so that they are valid by construction), :mod:`.tracked` evaluates them
with a running error analysis (tolerances per element, fragile elements,
range checks), :mod:`.runner` runs them through Elementwise, Reduction and
Scan on the selected backends and compares with the python backend.
``python -m pcompute.fuzz --seconds N`` is the long profile;
``tests/test_fuzz.py`` the fast one.
"""
from .choosers import Chooser, DataChooser, RandomChooser
from .generator import FuzzCase, generate_case
from .runner import (CaseRun, Failure, Stats, Target, load_case, run_case, save_failure,
                     targets_from_names)

__all__ = ["Chooser", "DataChooser", "RandomChooser", "FuzzCase", "generate_case",
           "CaseRun", "Failure", "Stats", "Target", "load_case", "run_case",
           "save_failure", "targets_from_names"]
