"""Peer implementations the suites compare against (each optional)."""
