"""NumPy programs (the kinds DelayRepay and numpy-benchmarks measure), each
written against ``import numpy as np``.  :func:`load` runs a program's file
with that one line changed to ``import pcompute.numpy as np``, and nothing
else, so the tests and benchmarks compare the same text under both."""
import os
import types

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = ("arc_distance", "pythagorean_id", "vibr_energy", "harris", "log_likelihood",
            "l2norm", "rosen", "grayscott", "laplacien", "evolve", "cronbach",
            "specialconvolve", "nn")
IMPORT = "import numpy as np\n"


def load(name, lazy):
    """Module ``name`` as written (``lazy=False``) or importing
    ``pcompute.numpy as np`` instead of ``numpy`` (``lazy=True``)."""
    if name not in PROGRAMS:
        raise ValueError("unknown program %r (known: %s)" % (name, ", ".join(PROGRAMS)))
    path = os.path.join(HERE, name + ".py")
    with open(path) as f:
        text = f.read()
    if text.count(IMPORT) != 1:
        raise ValueError("%s must contain the line %r once" % (path, IMPORT.strip()))
    if lazy:
        text = text.replace(IMPORT, "import pcompute.numpy as np\n")
    module = types.ModuleType("numpy_programs.%s%s" % (name, "_lazy" if lazy else ""))
    module.__file__ = path
    exec(compile(text, path, "exec"), module.__dict__)
    return module
