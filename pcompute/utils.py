"""Helpers for scripts using pcompute (Compyle-compatible).

:class:`ArgumentParser` is an :class:`argparse.ArgumentParser` with the
standard options of a pcompute application; as in Compyle, ``parse_args`` and
``parse_known_args`` apply them to the global configuration::

    from pcompute.utils import ArgumentParser

    p = ArgumentParser()
    p.add_argument('-n', type=int, default=10000)
    o = p.parse_args()          # get_config() now has the backend, precision, ...
    run(o.n, backend=o.backend)
"""
import argparse
import inspect

from .backends.names import backend_names
from .config import get_config
from .timing.report import register_print_at_exit

__all__ = ["ArgumentParser", "getsource", "getsourcelines"]


def getsourcelines(obj):
    """``inspect.getsourcelines(obj)``, or ``(obj.source lines, 0)`` for
    objects that carry their source as text."""
    try:
        return inspect.getsourcelines(obj)
    except Exception:
        if hasattr(obj, "source"):
            return obj.source.splitlines(True), 0
        raise


def getsource(obj):
    """``inspect.getsource(obj)``, or ``obj.source`` for objects that carry
    their source as text."""
    try:
        return inspect.getsource(obj)
    except Exception:
        if hasattr(obj, "source"):
            return obj.source
        raise


class ArgumentParser(argparse.ArgumentParser):
    """Argument parser with the standard pcompute options.

    ``-b/--backend {cython,opencl,cuda,python}``, ``--openmp``,
    ``--use-double``, ``--profile`` (record timings and print the table to
    stderr at exit) and ``--suppress-warnings``.

    ``parse_args`` / ``parse_known_args`` apply the options to
    :func:`~pcompute.config.get_config` (Compyle's behaviour); call
    :meth:`apply_options` yourself to apply a namespace again.  An option not
    given on the command line keeps the configured value (from
    ``PCOMPUTE_*`` or code), and the namespace reports the value in effect:
    ``options.backend`` is always a backend name.
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        group = self.add_argument_group("pcompute options")
        group.add_argument(
            "-b", "--backend", dest="backend", default=None, choices=list(backend_names()),
            help="backend to run on (default: the configured one, cython unless "
                 "PCOMPUTE_BACKEND says otherwise)")
        group.add_argument(
            "--openmp", dest="openmp", action="store_true", default=None,
            help="use OpenMP on the cython backend")
        group.add_argument(
            "--use-double", dest="use_double", action="store_true", default=None,
            help="use double precision (also on GPUs)")
        group.add_argument(
            "--profile", dest="profile", action="store_true", default=None,
            help="record kernel timings and print them at exit")
        group.add_argument(
            "--suppress-warnings", dest="suppress_warnings", action="store_true",
            default=None, help="silence pcompute's warnings")
        self.profile_registered = False

    def apply_options(self, options):
        """Apply the pcompute options of ``options`` to the global config and
        fill the options not given with the configured values."""
        config = get_config()
        if options.backend is not None:
            config.backend = options.backend
        options.backend = config.backend
        for field in ("openmp", "use_double", "suppress_warnings", "profile"):
            name = "use_openmp" if field == "openmp" else field
            if getattr(options, field):
                setattr(config, name, True)
            setattr(options, field, getattr(config, name))
        if options.profile and not self.profile_registered:
            register_print_at_exit()
            self.profile_registered = True
        return options

    # Compyle's name for the same thing.
    _set_config_options = apply_options

    def parse_args(self, args=None, namespace=None):
        # argparse's parse_args calls parse_known_args: apply only once.
        self._applying = False
        try:
            options = super().parse_args(args, namespace)
        finally:
            self._applying = True
        return self.apply_options(options)

    def parse_known_args(self, args=None, namespace=None):
        options, unknown = super().parse_known_args(args, namespace)
        if getattr(self, "_applying", True):
            self.apply_options(options)
        return options, unknown
