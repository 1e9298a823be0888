"""Compyle-compatible home of the parallel primitives."""
from .primitives.elementwise import Elementwise, elementwise, serial

__all__ = ["Elementwise", "elementwise", "serial"]
