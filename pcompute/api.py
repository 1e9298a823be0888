"""The public names of pcompute (also importable from ``pcompute``)."""
from .array import (Array, arange, empty, empty_like, linspace, ones, ones_like,
                    to_device, wrap, zeros, zeros_like)
from .array import (align, argsort, cumsum, dot, maximum, minimum, sort_by_keys, take,
                    take_bool, update_min_max, where)
from .backends.registry import available_backends, get_backend
from .config import Config, get_config, set_config, use_config
from .errors import (BackendUnavailableError, BuildError, InternalError,
                     KernelSyntaxError, KernelTypeError, KernelValueError, RaceError,
                     RaceWarning, SequentialLoopError, SequentialLoopWarning)
from .kernel_options import build_options
from .parallel import Elementwise, elementwise, serial
from .primitives.reduction import Reduction
from .primitives.scan import Scan
from . import low_level, template  # noqa: F401
from .low_level import Cython, Extern, Kernel, LocalMem
# `profile` stays out of __all__: `from pcompute import *` must not shadow the
# module pcompute.profile (Compyle users write `from compyle.api import profile`).
from .profile import (get_profile_info, named_profile, print_profile,  # noqa: F401
                      profile, profile2csv, profile_ctx, profile_kernel, reset_profile)
from .utils import ArgumentParser
from . import autopar as _autopar  # noqa: F401,E402 (registers the race check)
from .autopar import parallelize  # noqa: E402
from .types import (KnownType, address, annotate, atomic_dec, atomic_inc, atomic_max, cast,
                    declare, prefetch, printf)
from .types import TYPES as _TYPES

globals().update(_TYPES)

__all__ = [
    "Array", "arange", "empty", "empty_like", "linspace", "ones", "ones_like",
    "to_device", "wrap", "zeros", "zeros_like", "available_backends", "get_backend",
    "Config", "get_config", "set_config", "use_config", "BackendUnavailableError",
    "BuildError", "InternalError", "KernelSyntaxError", "KernelTypeError",
    "KernelValueError", "RaceError", "RaceWarning", "SequentialLoopError",
    "SequentialLoopWarning", "parallelize", "Elementwise", "elementwise", "serial",
    "build_options", "KnownType",
    "address", "annotate", "atomic_dec", "atomic_inc", "atomic_max", "cast", "declare",
    "prefetch", "printf",
    "Reduction", "Cython", "Extern", "Kernel", "LocalMem", "get_profile_info",
    "named_profile", "print_profile", "profile2csv", "profile_ctx", "profile_kernel",
    "reset_profile", "ArgumentParser", "Scan", "cumsum", "dot", "take_bool", "where",
    "align", "argsort", "maximum", "minimum", "sort_by_keys", "take", "update_min_max",
] + sorted(_TYPES)
