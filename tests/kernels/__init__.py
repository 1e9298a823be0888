"""Kernels shared by the code-generation and semantics tests (see corpus.py)."""
