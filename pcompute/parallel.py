"""Compyle-compatible home of the parallel primitives."""
from .primitives.elementwise import Elementwise, elementwise, serial
from .primitives.reduction import Reduction
from .primitives.scan import Scan

__all__ = ["Elementwise", "Reduction", "Scan", "elementwise", "serial"]
