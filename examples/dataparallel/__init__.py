"""Samples of pcompute.dataparallel: algorithms written with the prelude."""
