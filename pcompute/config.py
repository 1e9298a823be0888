"""Run-time configuration of pcompute: backend, precision, OpenMP, caching.

One global :class:`Config` holds the settings.  Read it with
:func:`get_config`, replace it with :func:`set_config`, or change a few fields
for a block of code with :func:`use_config`::

    from pcompute.config import get_config, use_config

    get_config().use_openmp = True          # Compyle style, global
    with use_config(use_double=True):       # only inside the block
        ...

Precedence, strongest first: an explicit argument given to a pcompute
function > :func:`use_config` / :func:`set_config` / attribute assignment >
``PCOMPUTE_*`` environment variables (read when a :class:`Config` is created)
> built-in defaults.

Environment variables:

============================  ===============================================
``PCOMPUTE_BACKEND``          ``python``, ``cython``, ``opencl`` or ``cuda``
``PCOMPUTE_OPENMP``           boolean (``1/0/true/false/yes/no/on/off``)
``PCOMPUTE_DOUBLE``           boolean
``PCOMPUTE_PROFILE``          boolean
``PCOMPUTE_DEBUG``            boolean
``PCOMPUTE_SAVE_SOURCE``      boolean
``PCOMPUTE_SPECULATE``        boolean
``PCOMPUTE_STRICT_GROUPS``    boolean: a group module that cannot be merged
                              or built is an error instead of its kernels
                              being built one by one
``PCOMPUTE_CACHE_DIR``        a directory for the compile cache
``PCOMPUTE_OMP_SCHEDULE``     ``kind[,chunk]``, e.g. ``dynamic,64``
``PCOMPUTE_MARCH``            the CPU Cython modules are built for:
                              ``native`` (the default: this CPU), ``generic``
                              (the compiler's generic target, for caches
                              shipped to other machines) or another
                              ``-march`` value, e.g. ``x86-64-v3``
``PCOMPUTE_OPT_LEVEL``        ``0`` to ``3``: the C optimisation level of Cython
                              modules (default 3; the test suite uses 1)
============================  ===============================================

A bad value warns with :class:`~pcompute.errors.ConfigWarning` and the default
is kept.
"""

import contextlib
import logging
import numbers
import operator
import os
import re
import warnings

from .backends.names import backend_names
from .errors import ConfigWarning, KernelValueError

__all__ = ["Config", "ConfigOverlay", "get_config", "set_config", "use_config",
           "OMP_SCHEDULE_KINDS"]

#: ``GENERATION[0]`` is the stamp of the global configuration's current state:
#: it changes whenever a field of the global :class:`Config` is set to another
#: value, the global configuration is replaced by one with other values, a
#: backend is (un)registered or OpenCL's context is replaced.  The primitives'
#: compiled fast calls (made for one argument signature under one stamp) are
#: valid only under the stamp they were made under.  A state whose values were
#: seen before in the same epoch (see :func:`bump_generation`) gets its earlier
#: stamp back, so that ``with use_config(...)`` entered again around a loop of
#: calls (a benchmark sample, an outer iteration) keeps the fast calls made the
#: last time instead of taking every primitive's checked path again.
GENERATION = [0]

_EPOCH = [0]          # grows at each bump_generation(): no stamp made before is reused
_STAMPS = {}          # {(epoch, the global configuration's values): stamp}
_LAST_STAMP = [0]     # the largest stamp given out (stamps are never reused across epochs)
#: Distinct configuration states remembered; beyond, states get new stamps.
MAX_STAMPS = 256


def bump_generation():
    """Invalidate every primitive's fast call for good (see :data:`GENERATION`):
    backends (un)registered, an OpenCL context replaced."""
    _EPOCH[0] += 1
    _STAMPS.clear()
    _restamp()


def _config_state(config):
    """A hashable value of everything ``config`` holds (None when there is
    no global configuration yet, or when a value is not hashable)."""
    if config is None:
        return None
    try:
        state = tuple(sorted(config.__dict__.items()))
        hash(state)
    except TypeError:
        return None
    return state


def _restamp():
    """Set :data:`GENERATION` for the global configuration as it is now: the
    stamp its values had before in this epoch, else a new one."""
    state = _config_state(_config)
    key = (_EPOCH[0], state)
    stamp = _STAMPS.get(key) if state is not None else None
    if stamp is None:
        _LAST_STAMP[0] += 1
        stamp = _LAST_STAMP[0]
        if state is not None:
            if len(_STAMPS) >= MAX_STAMPS:
                _STAMPS.clear()
            _STAMPS[key] = stamp
    GENERATION[0] = stamp

logger = logging.getLogger("pcompute.config")

#: Schedule kinds accepted by :attr:`Config.omp_schedule`.
OMP_SCHEDULE_KINDS = ("static", "dynamic", "guided", "auto", "runtime")

_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")
_BOOL_WORDS = "1/0/true/false/yes/no/on/off"

_DEFAULT_SCHEDULE = ("static", None)
#: The schedule of OpenMP loops when none is configured.
DEFAULT_SCHEDULE = _DEFAULT_SCHEDULE

# Plain boolean fields and their defaults.
_BOOL_FIELDS = ("use_openmp", "use_double", "profile", "use_local_memory",
                "suppress_warnings", "save_source", "debug", "bounds_check", "speculate",
                "strict_groups")

# Every public field, in the order of as_dict().
FIELDS = ("backend", "use_openmp", "use_opencl", "use_cuda", "use_double",
          "omp_schedule", "profile", "use_local_memory", "wgs",
          "suppress_warnings", "save_source", "debug", "bounds_check", "cache_dir",
          "march", "opt_level", "speculate", "strict_groups")

_ENV_BOOLS = (
    ("PCOMPUTE_OPENMP", "use_openmp"),
    ("PCOMPUTE_DOUBLE", "use_double"),
    ("PCOMPUTE_PROFILE", "profile"),
    ("PCOMPUTE_DEBUG", "debug"),
    ("PCOMPUTE_SAVE_SOURCE", "save_source"),
    ("PCOMPUTE_SPECULATE", "speculate"),
    ("PCOMPUTE_STRICT_GROUPS", "strict_groups"),
)


# ---------------------------------------------------------------- parsing

def _parse_bool(value, name):
    """Return ``value`` as a bool; strings use the 1/0/true/false/... words."""
    if isinstance(value, str):
        word = value.strip().lower()
        if word in _TRUE:
            return True
        if word in _FALSE:
            return False
        raise KernelValueError(
            "%s: %r is not a boolean; use one of %s" % (name, value, _BOOL_WORDS))
    if isinstance(value, (bool, numbers.Integral)):
        return bool(value)
    if getattr(getattr(value, "dtype", None), "kind", None) == "b" \
            and getattr(value, "shape", None) == ():
        return bool(value)      # numpy.bool_
    raise KernelValueError(
        "%s: %r is not a boolean; use True or False" % (name, value))


def _parse_backend(value):
    """Return a valid backend name, or None."""
    if value is None:
        return None
    if isinstance(value, str):
        name = value.strip().lower()
        if name in backend_names():
            return name
    raise KernelValueError(
        "backend: unknown backend %r; choose one of %s (or None to choose "
        "from use_opencl/use_cuda)" % (value, ", ".join(backend_names())))


def _schedule_error(value, why):
    return KernelValueError(
        "omp_schedule: %r is not a valid OpenMP schedule (%s); write "
        "'kind' or 'kind,chunk' or (kind, chunk) with kind one of %s and "
        "chunk a positive integer or None, e.g. 'dynamic,64'"
        % (value, why, ", ".join(OMP_SCHEDULE_KINDS)))


def _parse_chunk(chunk, original):
    if chunk is None:
        return None
    if isinstance(chunk, str):
        text = chunk.strip()
        if text.lower() in ("", "none"):
            return None
        try:
            chunk = int(text)
        except ValueError:
            raise _schedule_error(original, "chunk %r is not an integer" % text)
    elif isinstance(chunk, bool) or not isinstance(chunk, numbers.Integral):
        raise _schedule_error(original, "chunk %r is not an integer" % (chunk,))
    chunk = int(chunk)
    if chunk <= 0:
        raise _schedule_error(original, "chunk must be > 0")
    return chunk


def parse_omp_schedule(value):
    """Return ``value`` as a validated ``(kind, chunk)`` tuple.

    Accepts ``None`` (the default ``('static', None)``), a string ``"kind"``
    or ``"kind,chunk"``, or a tuple/list ``(kind,)`` or ``(kind, chunk)``.
    ``auto`` and ``runtime`` take no chunk (as in OpenMP).  Raises
    :class:`~pcompute.errors.KernelValueError` on anything else.
    """
    if value is None:
        return _DEFAULT_SCHEDULE
    if isinstance(value, str):
        parts = value.split(",")
        if len(parts) > 2:
            raise _schedule_error(value, "too many commas")
    elif isinstance(value, (tuple, list)):
        parts = list(value)
        if not 1 <= len(parts) <= 2:
            raise _schedule_error(value, "expected 1 or 2 items")
    else:
        raise _schedule_error(value, "expected a string or a tuple")
    kind = parts[0]
    if not isinstance(kind, str) or kind.strip().lower() not in OMP_SCHEDULE_KINDS:
        raise _schedule_error(value, "unknown kind %r" % (kind,))
    kind = kind.strip().lower()
    chunk = _parse_chunk(parts[1] if len(parts) == 2 else None, value)
    if chunk is not None and kind in ("auto", "runtime"):
        raise _schedule_error(value, "%r takes no chunk size" % kind)
    return (kind, chunk)


def _parse_wgs(value):
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) \
            or value <= 0:
        raise KernelValueError(
            "wgs: work-group size must be a positive integer or None, "
            "not %r" % (value,))
    return int(value)


#: :attr:`Config.march` of the compiler's generic target, and its aliases.
MARCH_GENERIC = "generic"
_MARCH_GENERIC_WORDS = ("generic", "none")
_MARCH_DEFAULT = "native"
_MARCH_DEFAULT_WORDS = ("", "default")


def _parse_march(value):
    """The CPU to build for: ``'native'`` (also ``''`` and ``'default'``),
    :data:`MARCH_GENERIC` (also None and ``'none'``: the compiler's generic
    target) or another ``-march`` value."""
    if value is None:
        return MARCH_GENERIC
    if isinstance(value, str):
        word = value.strip()
        if word.lower() in _MARCH_GENERIC_WORDS:
            return MARCH_GENERIC
        if word.lower() in _MARCH_DEFAULT_WORDS:
            return _MARCH_DEFAULT
        if re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._+-]*", word):
            return word
    raise KernelValueError(
        "march: %r is not a -march value; use 'native' (code for this CPU, the "
        "default), 'generic' (the compiler's generic target) or a name the "
        "compiler knows such as 'x86-64-v3'" % (value,))


#: The C optimisation levels :attr:`Config.opt_level` accepts.
OPT_LEVELS = (0, 1, 2, 3)
DEFAULT_OPT_LEVEL = 3


def _parse_opt_level(value):
    """The C optimisation level (0-3) of Cython modules; None: the default."""
    if value is None:
        return DEFAULT_OPT_LEVEL
    if isinstance(value, str):
        text = value.strip()
        value = int(text) if text in ("0", "1", "2", "3") else text
    if isinstance(value, numbers.Integral) and not isinstance(value, bool) \
            and int(value) in OPT_LEVELS:
        return int(value)
    raise KernelValueError(
        "opt_level: %r is not a C optimisation level; use 0, 1, 2 or 3 (the "
        "default, -O3), or None for the default" % (value,))


def _parse_cache_dir(value):
    if value is None:
        return None
    try:
        path = os.fspath(value)
    except TypeError:
        path = None
    if not isinstance(path, str) or not path.strip():
        raise KernelValueError(
            "cache_dir: expected a directory path (str) or None, not %r"
            % (value,))
    return os.path.expanduser(path)


# ----------------------------------------------------------------- Config

def _as_given(value, field):
    """``value`` checked as a boolean and kept as given (Compyle stores what it
    is given: ``use_openmp = 10`` reads back 10); strings become bools."""
    parsed = _parse_bool(value, field)
    return parsed if isinstance(value, str) else value


def _bool_property(field, doc):
    attr = "_" + field

    def setter(self, value):
        setattr(self, attr, _as_given(value, field))

    # A C getter: fields like ``profile`` are read on every call of a phase or
    # primitive, and a Python getter cost two calls more each time.
    return property(operator.attrgetter(attr), setter, doc=doc)


class Config:
    """The settings pcompute runs with.

    ``Config()`` starts from the defaults, then applies the ``PCOMPUTE_*``
    environment variables (unless ``read_environment=False``), then the
    keyword arguments, e.g. ``Config(use_openmp=True)``.

    Backend selection: :attr:`backend` reads as the backend in effect: an
    explicitly set ``backend`` if any, else ``'opencl'`` if ``use_opencl``,
    else ``'cuda'`` if ``use_cuda``, else ``'cython'``.  For Compyle
    compatibility, setting ``use_opencl = True`` or ``use_cuda = True``
    clears an explicit ``backend`` (so ``get_config().use_opencl = True``
    always selects OpenCL), and the last of the two set to True wins.
    Setting ``use_opencl = False`` (or ``use_cuda = False``) also clears an
    explicit ``backend`` naming that backend.  ``use_opencl`` and
    ``use_cuda`` read True exactly when that backend is the one in effect.
    """

    def __setattr__(self, name, value):
        object.__setattr__(self, name, value)
        if self is _config:
            _restamp()              # a fast call made under other values is stale

    def __init__(self, read_environment=True, **fields):
        self._backend = None        # explicit override, or None
        self._flag_backend = None   # 'opencl'/'cuda' from use_opencl/use_cuda
        self._flag_given = True     # the (true) value use_opencl/use_cuda was set to
        for field in _BOOL_FIELDS:
            setattr(self, "_" + field, False)
        self._omp_schedule = _DEFAULT_SCHEDULE
        self._wgs = None
        self._cache_dir = None
        self._march = _MARCH_DEFAULT
        self._opt_level = DEFAULT_OPT_LEVEL
        self.cache_dir_explicit = False
        if read_environment:
            self._apply_environment(os.environ)
        self.update(**fields)

    # ------------------------------------------------------------ backend
    @property
    def backend(self):
        """Name of the backend in effect: 'python', 'cython', 'opencl' or
        'cuda'.  Set a name to force it, or None to choose from the
        ``use_opencl``/``use_cuda`` flags (default 'cython')."""
        if self._backend is not None:
            return self._backend
        if self._flag_backend is not None:
            return self._flag_backend
        return "cython"

    @backend.setter
    def backend(self, value):
        self._backend = _parse_backend(value)

    @property
    def use_opencl(self):
        """True when OpenCL is the backend in effect (the value set, when it
        was set true).  Setting True selects OpenCL (clearing an explicit
        :attr:`backend`)."""
        return self._flag_value("opencl")

    @use_opencl.setter
    def use_opencl(self, value):
        self._set_flag_backend("opencl", _as_given(value, "use_opencl"))

    @property
    def use_cuda(self):
        """True when CUDA is the backend in effect (the value set, when it
        was set true).  Setting True selects CUDA (clearing an explicit
        :attr:`backend`)."""
        return self._flag_value("cuda")

    @use_cuda.setter
    def use_cuda(self, value):
        self._set_flag_backend("cuda", _as_given(value, "use_cuda"))

    def _flag_value(self, name):
        if self.backend != name:
            return False
        if self._flag_backend == name and self._backend is None:
            return self._flag_given
        return True

    def _set_flag_backend(self, name, on):
        if on:
            self._backend = None
            self._flag_backend = name
            self._flag_given = on
        else:
            if self._flag_backend == name:
                self._flag_backend = None
            if self._backend == name:
                self._backend = None

    # ------------------------------------------------------ plain fields
    use_openmp = _bool_property(
        "use_openmp", "Run Cython kernels in parallel with OpenMP.")
    use_double = _bool_property(
        "use_double", "Use double precision for floating point types.")
    profile = _bool_property(
        "profile", "Record per-kernel timings (see pcompute.profile).")
    use_local_memory = _bool_property(
        "use_local_memory", "Compyle's field, accepted and stored; it changes "
        "nothing: pcompute's kernels use local/shared memory where their "
        "templates do (reductions, scans, sort), whatever its value.")
    suppress_warnings = _bool_property(
        "suppress_warnings", "Silence pcompute's warnings.")
    save_source = _bool_property(
        "save_source", "Keep the generated source files.")
    debug = _bool_property(
        "debug", "Debug mode: more checks and logging (bounds checks included).")
    speculate = _bool_property(
        "speculate", "The default of pcompute.parallelize(speculate=...): run loops "
        "whose dependences go through data (x[p[i]]) in parallel with checks.")
    strict_groups = _bool_property(
        "strict_groups", "Make the Cython group modules' fallback an error: a group "
        "of kernels built together (pcompute.build.cython_group) whose text cannot "
        "be merged or whose module fails to build raises GroupBuildError naming "
        "the group and the cause, instead of its kernels being built one by one "
        "(counted in cython_group.stats and logged).  Results never depend on it.")

    @property
    def bounds_check(self):
        """Check every array access of Elementwise kernels and Reduction maps
        against the shapes
        and raise an IndexError naming the kernel, the array and the index
        (see :doc:`ndarrays`).  True when set, or when :attr:`debug` is."""
        return bool(self._bounds_check) or bool(self.debug)

    @bounds_check.setter
    def bounds_check(self, value):
        self._bounds_check = _as_given(value, "bounds_check")

    @property
    def omp_schedule(self):
        """OpenMP schedule as ``(kind, chunk)``, default ``('static', None)``.

        Accepts a tuple/list or a string such as ``'dynamic,64'``."""
        return self._omp_schedule

    @omp_schedule.setter
    def omp_schedule(self, value):
        self._omp_schedule = parse_omp_schedule(value)

    def set_omp_schedule(self, omp_schedule):
        """Set :attr:`omp_schedule` from the ``OMP_SCHEDULE`` spelling
        ``"kind,chunk"`` or ``"kind"`` (Compyle's method)."""
        self.omp_schedule = omp_schedule

    @property
    def wgs(self):
        """Work-group (block) size of OpenCL and CUDA launches, or None:
        pcompute chooses a fixed one per kernel (never the driver, whose
        choice follows the global size)."""
        return self._wgs

    @wgs.setter
    def wgs(self, value):
        self._wgs = _parse_wgs(value)

    @property
    def cache_dir(self):
        """Directory of the compile cache, or None for the default one."""
        return self._cache_dir

    @cache_dir.setter
    def cache_dir(self, value):
        self._cache_dir = _parse_cache_dir(value)
        # Set in code (or use_config): it wins over PCOMPUTE_CACHE_DIR, which
        # the compile cache otherwise reads when it is used.
        self.cache_dir_explicit = value is not None

    @property
    def march(self):
        """The CPU Cython modules are built for.  ``'native'`` (the
        default): the CPU that builds them, as a JIT compiler does
        (``-march=native``; ``-mcpu=native`` on ARM; the compiler's generic
        target on other machines and with MSVC).  ``'generic'``: the
        compiler's generic target (x86-64), code that runs on every CPU of
        the architecture, for a cache copied to other machines.  Another
        value is passed as ``-march=<value>`` (ignored, with a warning, by
        MSVC).  Every build is made with ``-ffp-contract=off``, so no
        multiply and add is fused and results are the same, bit for bit,
        whatever the CPU; code built for one CPU puts that CPU's identity
        into the cache key (a cache shared between machines never loads a
        module made for another CPU)."""
        return self._march

    @march.setter
    def march(self, value):
        self._march = _parse_march(value)

    @property
    def opt_level(self):
        """The C optimisation level Cython modules are built with (``-O<n>``;
        MSVC: ``/Od``, ``/O1``, ``/O2``): 3 by default.  Lower levels compile
        faster (the test suite uses 0 for the kernels of tests that check
        features, not the language's meaning; at 0 Cython's int fast paths
        are left out too) and run slower; every level
        computes the same results (signed overflow wraps at each: ``-fwrapv``).
        OpenCL and CUDA builds do not use it."""
        return self._opt_level

    @opt_level.setter
    def opt_level(self, value):
        self._opt_level = _parse_opt_level(value)

    # ----------------------------------------------------------- helpers
    def update(self, **fields):
        """Set several fields at once; unknown names raise KernelValueError.

        Fields are set in the order given."""
        for name, value in fields.items():
            if name not in FIELDS:
                raise KernelValueError(
                    "unknown configuration option %r; the options are: %s"
                    % (name, ", ".join(FIELDS)))
            setattr(self, name, value)
        return self

    def copy(self):
        """An independent copy of this configuration (environment not reread)."""
        new = Config.__new__(Config)
        new.__dict__.update(self.__dict__)
        return new

    def as_dict(self):
        """The public fields and their values (``backend`` resolved)."""
        return {name: getattr(self, name) for name in FIELDS}

    def codegen_key(self):
        """Hashable tuple of the fields that change generated or built code:
        ``(backend, use_openmp, use_double, omp_schedule, wgs, march,
        bounds_check, opt_level)``.  ``use_local_memory`` changes nothing, so it is not
        part of it."""
        return (self.backend, bool(self.use_openmp), bool(self.use_double),
                self.omp_schedule, self.wgs, self.march, self.bounds_check,
                self.opt_level)

    def __repr__(self):
        items = ", ".join("%s=%r" % kv for kv in self.as_dict().items())
        return "Config(%s)" % items

    # ------------------------------------------------------- environment
    def _apply_environment(self, environ):
        def get(var):
            value = environ.get(var)
            if value is None or not value.strip():
                return None
            return value

        def bad(var, value, accepted):
            warnings.warn(
                "ignoring %s=%r: not one of %s; using the default"
                % (var, value, accepted), ConfigWarning, stacklevel=4)

        value = get("PCOMPUTE_BACKEND")
        if value is not None:
            try:
                self.backend = value
            except KernelValueError:
                bad("PCOMPUTE_BACKEND", value, "|".join(backend_names()))
        for var, field in _ENV_BOOLS:
            value = get(var)
            if value is None:
                continue
            if value.strip().lower() in _TRUE + _FALSE:
                setattr(self, field, value)
            else:
                bad(var, value, _BOOL_WORDS)
        value = get("PCOMPUTE_CACHE_DIR")
        if value is not None:
            self.cache_dir = value
            self.cache_dir_explicit = False
        value = get("PCOMPUTE_OMP_SCHEDULE")
        if value is not None:
            try:
                self.omp_schedule = value
            except KernelValueError:
                bad("PCOMPUTE_OMP_SCHEDULE", value,
                    "kind[,chunk] with kind in %s and chunk > 0"
                    % "|".join(OMP_SCHEDULE_KINDS))
        value = environ.get("PCOMPUTE_MARCH")
        if value is not None:
            try:
                self.march = value
            except KernelValueError:
                bad("PCOMPUTE_MARCH", value,
                    "native|generic|<a -march value>")
        value = get("PCOMPUTE_OPT_LEVEL")
        if value is not None:
            try:
                self.opt_level = value
            except KernelValueError:
                bad("PCOMPUTE_OPT_LEVEL", value, "0|1|2|3")
        logger.debug("configuration from environment: %r", self)


# ------------------------------------------------------------ the global

_config = None


def get_config():
    """The global :class:`Config`, created (reading the environment) on
    first use."""
    global _config
    if _config is None:
        _config = Config()
        _restamp()
    return _config


def set_config(config):
    """Make ``config`` the global :class:`Config`.

    ``None`` drops the global one; the next :func:`get_config` makes a fresh
    one from the environment."""
    global _config
    if config is not None and not isinstance(config, Config):
        raise KernelValueError(
            "set_config expects a Config or None, not %r" % (config,))
    _config = config
    _restamp()


@contextlib.contextmanager
def use_config(**fields):
    """Overlay the given fields on the global config for a ``with`` block.

    A copy of the current global config gets only the given fields set and
    becomes the global config; it is yielded.  On exit, also on an
    exception, the previous global config object is restored.  An unknown
    field raises :class:`~pcompute.errors.KernelValueError` before anything
    changes::

        with use_config(use_openmp=True, omp_schedule="dynamic,64") as cfg:
            ...
    """
    previous = get_config()
    overlay = previous.copy().update(**fields)
    set_config(overlay)
    try:
        yield overlay
    finally:
        set_config(previous)


class ConfigOverlay:
    """A reusable :func:`use_config` of fixed ``fields``, for code that enters
    the same overlay around every call of a loop (pcompute.numpy wraps each
    launch in ``ConfigOverlay(use_double=True)``).

    Inside the block the global configuration is a copy of the previous one
    with ``fields`` set, and on exit the previous object is back, as with
    :func:`use_config`.  The copy and both stamps (:data:`GENERATION`) are
    kept per previous configuration object and stamp, so entering the block
    again costs two dictionary comparisons instead of a copy and two
    restamps; when the previous configuration already has the fields' values
    the block changes nothing.  A configuration changed meanwhile (either
    object's fields, a new epoch) is seen by those comparisons and takes the
    full path.  Not for several threads at once (neither is ``use_config``).
    """

    __slots__ = ("fields", "_memo", "_stack")

    def __init__(self, **fields):
        Config(read_environment=False).update(**fields)   # bad names or values fail here
        self.fields = fields
        # (previous, its stamp, its values, overlay or None, overlay's values, overlay's stamp)
        self._memo = None
        self._stack = []

    def __enter__(self):
        global _config
        previous = get_config()
        memo = self._memo
        if memo is None or memo[0] is not previous or memo[1] != GENERATION[0] or \
                memo[2] != previous.__dict__ or \
                (memo[3] is not None and memo[4] != memo[3].__dict__):
            memo = self._memo = self._make(previous)
        elif memo[3] is not None:
            _config = memo[3]
            GENERATION[0] = memo[5]
        self._stack.append(memo)
        return _config

    def _make(self, previous):
        stamp = GENERATION[0]
        overlay = previous.copy().update(**self.fields)
        if overlay.__dict__ == previous.__dict__:
            return (previous, stamp, dict(previous.__dict__), None, None, stamp)
        set_config(overlay)
        return (previous, stamp, dict(previous.__dict__), overlay, dict(overlay.__dict__),
                GENERATION[0])

    def __exit__(self, *exc):
        global _config
        memo = self._stack.pop()
        previous, overlay = memo[0], memo[3]
        if overlay is None:
            return
        if _config is overlay and GENERATION[0] == memo[5] and \
                memo[2] == previous.__dict__:
            _config = previous
            GENERATION[0] = memo[1]
        else:
            set_config(previous)
