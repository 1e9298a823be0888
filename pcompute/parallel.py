"""Compyle-compatible home of the parallel primitives."""
from .primitives.elementwise import Elementwise, elementwise, serial
from .primitives.reduction import Reduction

__all__ = ["Elementwise", "Reduction", "elementwise", "serial"]
