"""pcompute's speed comparisons: ``python -m benchmarks [--full] [--only NAME]``.

Each suite (``benchmarks/suites``) times pcompute's backends against a
hand-written C + OpenMP reference (``benchmarks/reference``) and peers
(numpy, Numba, pyopencl, Compyle when importable) in the same run, and the
run is written to ``benchmarks/results`` as CSV and JSON (with the machine's
details) plus the Markdown table ``latest.md``.  ``benchmarks/plot.py`` draws
the CSV.
"""
