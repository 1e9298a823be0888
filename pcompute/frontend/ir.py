"""The typed records the front end hands to the code generators."""
import ast  # noqa: F401
from dataclasses import dataclass, field

from ..errors import InternalError
from ..types import CType, promote


@dataclass(frozen=True)
class LoopInfo:
    """How a ``for v in range(...)`` loop is printed.

    ``simple`` loops (step 1) run ``v`` from start while ``v < stop``;
    others use a trip count so that any step sign and ``continue`` behave as
    in Python.  ``stop``/``step``/``count``/``counter`` name hidden locals
    (None when the value is used directly).  ``shadow`` names a hidden local
    that runs a C loop in place of ``v`` when ``v`` is read outside the loop:
    ``v`` is then assigned from it at the top of each pass, so that after
    the loop ``v`` holds its last value (or is unchanged), as in Python; also
    when a nested loop reuses ``v`` as its variable.
    """
    simple: bool
    stop: str = None
    start: str = None
    step: str = None
    count: str = None
    counter: str = None
    shadow: str = None


@dataclass(frozen=True, eq=False)
class TypedFunction:
    """One typed function, ready to print in any dialect."""
    name: str
    c_name: str
    src: object
    tree: ast.FunctionDef
    args: tuple            # ((name, CType), ...)
    ret: CType
    locals: tuple          # ((name, CType), ...), hidden temporaries included
    types: dict            # id(expr node) -> CType
    calls: dict            # id(Call) -> ('helper', c_name) | ('math'|'builtin', name)
    loops: dict            # id(For) -> LoopInfo
    swaps: dict            # id(Assign) -> tuple of temporary names
    declares: dict         # id(Assign) -> CType declared there
    callees: tuple         # c_names of the helpers called
    names: dict            # user name -> printed name
    features: frozenset    # 'atomics', 'printf', 'local_mem', 'recursion'
    # id(Compare) -> per comparator, the hidden local holding its value when
    # it is also the left operand of the next comparison and must be
    # evaluated once (a call in ``0 <= f(x) < n``), else None.
    chains: dict = field(default_factory=dict)
    # id(AugAssign) -> per subscript level of its target (outermost first), the
    # hidden local holding an index that contains a call, else None; printed
    # as `t = f(); x[t] = x[t] // v` so that f() runs once, as in Python.
    augs: dict = field(default_factory=dict)

    def type_of(self, node):
        try:
            return self.types[id(node)]
        except KeyError:
            raise InternalError("no type recorded for %s at line %s"
                                % (type(node).__name__, getattr(node, "lineno", "?")))

    def cname(self, name):
        return self.names.get(name, name)

    def location(self, node):
        return self.src.location(node)


@dataclass(frozen=True, eq=False)
class TypedProgram:
    """A kernel and its helpers, typed; ``functions`` ends with ``entry``."""
    entry: TypedFunction
    functions: tuple
    use_double: bool
    recursive: frozenset = field(default_factory=frozenset)
    # The entry's leading index arguments: 1 for f(i, ...), 2 for an
    # Elementwise over a 2-D index space f(i, j, ...), 3 for f(i, j, k, ...).
    index_dims: int = 1
    # Array accesses are checked against the shapes (pcompute/bounds.py): every
    # function then takes the error record ``pc_err`` as its last argument.
    bounds_check: bool = False

    @property
    def features(self):
        out = set()
        for f in self.functions:
            out |= f.features
        return frozenset(out)

def _join(a, b):
    """Join two local types; None means not known yet."""
    if a is None:
        return b
    if b is None or a == b:
        return a
    if a.is_scalar and b.is_scalar:
        return promote(a, b)
    return False  # incompatible
