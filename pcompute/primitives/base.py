"""What every primitive shares: backend choice, memoised builds, timers, source.

A primitive (:class:`~pcompute.primitives.elementwise.Elementwise`,
:class:`~pcompute.primitives.reduction.Reduction`,
:class:`~pcompute.primitives.scan.Scan`, the low-level ``Kernel``) is cheap
to construct.  Its first call on a backend types the user's functions,
asks the :class:`~pcompute.backends.base.Backend` object to generate and
build the kernel, and memoises the resulting
:class:`~pcompute.records.BuiltKernel` per backend object, configuration and
argument signature; later calls only convert arguments and launch.
Subclasses implement :meth:`Primitive._build` and say what they are called.

After a call through that checked path, a backend may give a compiled fast
call for the same argument signature (``BuiltKernel.fastcall``): the
primitive keeps the one of its last call (``_fast``) and tries it first on
the next call.  It checks the arguments and the configuration itself and
declines (None) whatever the checked path could treat differently.
"""
from ..backends.registry import get_backend
from ..config import GENERATION, get_config
from ..errors import KernelValueError
from ..timing.timers import compile_timer, kernel_timer
from .args import argument_range_error, signature


class Primitive:
    """Base class of the primitives (see the module docstring).

    ``backend`` is a backend name (or Backend object); None follows the
    configuration at each call, so ``use_config(backend=...)`` between
    calls switches it.
    """

    def __init__(self, backend=None):
        if backend is not None:
            get_backend(backend)            # an unknown name fails here, not at the call
        self._fast = None                   # fast(args, kw) of the last signature, or None
        self._backend = backend
        # (Backend, device, codegen key, signature) -> BuiltKernel
        self._memo = {}
        self._last = None                   # the BuiltKernel of the last call

    @property
    def _backend(self):
        """The backend given (a name, a Backend or None: the configured one)."""
        return self._backend_choice

    @_backend.setter
    def _backend(self, backend):
        self._backend_choice = backend
        self._fast = None
        self._fast_shaped = None            # Elementwise: calls with shape= (Python)

    # -- backend ----------------------------------------------------------------
    @property
    def backend(self):
        """The name of the backend this primitive runs on now."""
        return self.backend_object().name

    def backend_object(self):
        """The :class:`~pcompute.backends.base.Backend` it runs on now."""
        return get_backend(self._backend)

    def set_backend(self, backend):
        """Run on ``backend`` (a name, a Backend, or None: the configured one)
        from the next call on; kernels built before are kept."""
        if backend is not None:
            get_backend(backend)
        self._backend = backend

    # -- building -----------------------------------------------------------------
    def _where(self):
        return "%s(%s)" % (type(self).__name__, getattr(self, "name", ""))

    @property
    def profile_name(self):
        """The name this primitive's timings are recorded under."""
        return self.name

    def _build(self, args, backend, config):
        """The :class:`~pcompute.records.BuiltKernel` for call arguments ``args``."""
        raise NotImplementedError

    @staticmethod
    def _memo_key(args, backend, config):
        """The key of the kernel built for ``args`` on ``backend`` in ``_memo``."""
        return (backend, backend.device_key(), config.codegen_key(), signature(args))

    def _kernel(self, args, backend, config):
        """The built kernel for ``args`` on ``backend`` (memoised)."""
        key = self._memo_key(args, backend, config)
        built = self._memo.get(key)
        if built is None:
            backend.require()
            with compile_timer(self.profile_name):
                built = self._build(args, backend, config)
            self._memo[key] = built
        self._last = built
        return built

    def _launch(self, built, backend, config, n, values):
        """Run ``built`` on ``n`` items (timed when profiling is on)."""
        try:
            if config.profile:
                with kernel_timer(self.profile_name, backend):
                    return built(n, values)
            return built(n, values)
        except Exception as exc:
            # An integer argument beyond its type: the backends fail in their
            # own ways (OverflowError from Cython and pyopencl, struct.error from
            # pycuda's argument packing): the located error when one is the
            # cause, else the backend's own error.
            self._raise_range_error(built, values, exc)
            raise

    def _argument_names(self, args):
        """The parameter names of the user's call arguments ``args``."""
        return self._params[len(self._params) - len(args):]

    def _user_functions(self):
        """The user functions whose parameters the call arguments are."""
        return [getattr(self, "func", None), getattr(self, "map_func", None)]

    def _raise_range_error(self, built, args, exc):
        """Raise the located error for an integer argument of ``args`` (the
        user's values) that does not fit its parameter's type, if one does not
        (the compiled calls raise a bare OverflowError); return otherwise."""
        names = self._argument_names(args)
        error = argument_range_error(self._user_functions(), names,
                                     [getattr(a, "value", a) for a in args],
                                     built.generated.args, self._where())
        if error is not None:
            raise error from exc

    def _call_setup(self):
        """(config, backend) of a call."""
        return get_config(), self.backend_object()

    @staticmethod
    def _stamp():
        """The configuration generation a checked call starts under."""
        return GENERATION[0]

    def _remember_fast(self, built, args, stamp, backend, config):
        """Keep the compiled fast call of ``built`` for the signature of
        ``args`` (the user values of a call that has just run through the
        checked path, started under generation ``stamp``), if it has one.
        Never while profiling: the fast call records no timings."""
        self._fast = None
        if built.fastcall is not None and not config.profile:
            self._fast = built.fastcall(tuple(args), stamp, backend.name)

    # -- generated source -------------------------------------------------------------
    @property
    def built(self):
        """The :class:`~pcompute.records.BuiltKernel` of the last call (None before)."""
        return self._last

    @property
    def all_source(self):
        """The whole generated source of the last kernel built (after a call)."""
        if self._last is None:
            raise KernelValueError("%s has not been called yet, so no kernel is built"
                                   % self._where(),
                                   hint="call it once, or use "
                                        "pcompute.generate.generate_source()")
        return self._last.source

    @property
    def source(self):
        """The generated source of the last kernel built (after a call)."""
        return self.all_source
