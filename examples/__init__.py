"""Example applications of pcompute (run them with ``python -m examples.<name>``)."""
