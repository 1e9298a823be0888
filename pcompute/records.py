"""The records the pipeline's stages hand each other.

``frontend/`` produces a typed program; a backend's code generator turns it
(with a template) into a :class:`GeneratedKernel`: the complete source text,
its entry points, the argument layout and the options that change the build,
frozen and picklable, so a cache, a profiler, ``pcompute source`` and the
builder all read the same thing.  The backend's builder turns that into a
:class:`BuiltKernel`: the callable launch handle primitives keep and call.

This module imports nothing from pcompute: every stage may use it.
"""
import hashlib
from dataclasses import dataclass, field


@dataclass(frozen=True)
class GeneratedKernel:
    """Generated source of one kernel, before anything is compiled.

    * ``kind``: 'elementwise', 'reduction', 'scan', 'kernel', ...
    * ``name``: the user-facing name (the function's, or the primitive's)
    * ``dialect``: 'cython', 'opencl', 'cuda', ... or 'python' (the source is
      then the user's Python code, which runs as it is)
    * ``source``: the whole text handed to the compiler
    * ``entries``: names of the entry points in ``source`` the launcher calls
    * ``args``: the argument layout after the implicit ones (index, n), as
      ``(name, CType)`` pairs in call order
    * ``options``: ``(key, value)`` pairs that change how the source is built
      (e.g. ``('openmp', True)``), part of :attr:`cache_key`
    """

    kind: str
    name: str
    dialect: str
    source: str
    entries: tuple = ()
    args: tuple = ()
    options: tuple = field(default=())

    def option(self, key, default=None):
        """The value of build option ``key`` (``default`` if not set)."""
        return dict(self.options).get(key, default)

    @property
    def pointer_slots(self):
        """Positions (in :attr:`args`) of the array arguments."""
        return tuple(k for k, (_, t) in enumerate(self.args) if t.is_pointer)

    @property
    def cache_key(self):
        """A content hash of everything that determines the built code.

        Builders add their compiler identity and flags to it (see
        :mod:`pcompute.build.cache`)."""
        h = hashlib.sha256()
        for part in (self.dialect, self.kind, self.source, repr(self.entries),
                     repr(self.options)):
            h.update(part.encode("utf-8"))
            h.update(b"\0")
        return h.hexdigest()

    def __str__(self):
        return self.source


@dataclass(frozen=True, eq=False)
class BuiltKernel:
    """A compiled kernel ready to launch: ``built(n, args)`` runs it.

    ``generated`` is the :class:`GeneratedKernel` it was built from,
    ``backend`` the name of the backend it runs on (Compyle code reads
    ``Elementwise(...).elementwise.backend``) and ``launch`` the callable
    ``launch(n, args)`` (``args``: the device values of the user arguments).
    ``fastcall``, when not None, is ``fastcall(args, stamp, backend_name,
    shaped=False)``: a compiled call for later calls with the signature of the
    user values ``args`` (with ``shaped``, for calls given their index space
    ``shape=``; see :mod:`pcompute.backends.cython_fast`), or None.
    """

    generated: GeneratedKernel
    backend: str
    launch: object
    fastcall: object = None

    def __call__(self, n, args):
        return self.launch(n, args)

    @property
    def source(self):
        """The generated source this kernel was built from."""
        return self.generated.source

    @property
    def name(self):
        return self.generated.name

    @property
    def kind(self):
        return self.generated.kind

    def __repr__(self):
        return "<BuiltKernel %s %s on %s>" % (self.kind, self.name, self.backend)
