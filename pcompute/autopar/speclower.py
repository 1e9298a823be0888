"""The speculative kernel of a loop whose independence is undecidable.

A loop such as ``for i in range(n): x[p[i]] = y[i]`` carries a dependence
only if two iterations reach one element through the data (``p``).  When the
analysis finds that every dependence the loop may carry involves such an
unresolved access (:func:`speculable`), the loop can run in parallel with
exact checks (Wang, Powell, Franke and O'Boyle, CC 2014): per element of the
arrays involved, an int log holds the highest iteration id that read it
(``rd``) and one the highest that wrote it (``wr``), updated with
``atomic_max``:

- a read by iteration ``it``: ``atomic_max(rd[k], it)``, the load, then a
  later iteration had already written the element (``wr[k] > it``): an
  *anti* dependence ran out of order;
- a write: ``old = atomic_max(wr[k], it)``, another iteration of this run
  wrote it (``old >= base and old != it``: an *output* dependence, whose two
  stores may land in either order), the store, then a later iteration had
  already read it (``rd[k] > it``): a *flow* dependence ran out of order.

Iteration ids are ``base + t``; ``base`` grows from run to run, so the logs
keep entries of earlier runs (all below ``base``) and are cleared only when
the ids would overflow.  Each work item runs the iteration ``count - 1 - t``:
whatever runs on one thread runs in reverse order, so a dependence between
iterations that share a thread is always caught, not only when timing
exposes it.  Accesses of arrays that take part in no unresolved dependence
(read-only data, ``y[i]`` above) are not instrumented.

The kernel is kernel-language text (``atomic_max`` is a kernel builtin): the
front end and every backend compile it like any other kernel.  These logs
serve backends running many threads (a GPU) and the python backend; on a CPU
the loop runs in chunks with private bitmaps instead (:mod:`.specchunk`),
instrumented by the same walk over the body (:class:`_Instrument`'s hooks).
"""
import ast
import copy
import hashlib
from dataclasses import dataclass

from .nest import range_args

RD, WR = "autopar_rd_%s", "autopar_wr_%s"
VIOL, BASE, IT, COUNT = "autopar_viol", "autopar_base", "autopar_it", "autopar_count"
T0, TT, LO, ST = "autopar_t0", "autopar_t", "autopar_lo0", "autopar_st0"

#: The slots of the violation flags, by kind.
KINDS = ("output", "anti", "flow")


@dataclass(frozen=True)
class SpecKernelText:
    """The speculative kernel: source, name, the user names passed (in order),
    and the instrumented arrays: ``(array, has_read_log, has_write_log)`` by
    canonical name."""
    source: str
    name: str
    params: tuple
    logged: tuple
    dims: int = 1
    serial: bool = False
    boxes: tuple = ()
    order: tuple = (0,)
    parallel_items: bool = False    # each item a long chunk: one per thread


def speculable(loop, verdict, ndim_of, canon):
    """(arrays, reason): the canonical names of the arrays to instrument when
    ``loop`` (the root of its nest) can run speculatively, else (None, why)."""
    if not verdict.pairs or verdict.scalar_reasons or verdict.reductions:
        return None, "it carries more than array dependences through data"
    if loop.count is None or loop.lo is None or loop.lo.coeffs or loop.var is None \
            or range_args(loop.node) is None:
        return None, "its trip count is not known at the call"
    if loop.count >= 2 ** 30:
        return None, "it has more than 2**30 iterations"
    for a, b in verdict.pairs:
        if a.subs is not None and b.subs is not None:
            return None, ("the dependence %s (line %d) -> %s (line %d) is affine: "
                          "speculation would always fail"
                          % (a.text or a.array, a.node.lineno, b.text or b.array,
                             b.node.lineno))
    arrays = sorted({canon(a.array) for pair in verdict.pairs for a in pair})
    return tuple(arrays), None


def check_accesses(loop_node, accesses, arrays, canon, ndim_of):
    """None when every access of the ``arrays`` can be instrumented, else why."""
    shortcut = set()
    for node in ast.walk(loop_node):
        if isinstance(node, (ast.IfExp, ast.BoolOp)):
            shortcut.update(id(n) for n in ast.walk(node))
        elif isinstance(node, ast.While):
            shortcut.update(id(n) for n in ast.walk(node.test))
    for acc in accesses:
        if canon(acc.array) not in arrays:
            continue
        where = "%s (line %d)" % (acc.text or acc.array, acc.node.lineno)
        if not isinstance(acc.node, ast.Subscript):
            return "the array %s is passed whole to a function at line %d" % (
                acc.array, acc.node.lineno)
        if ndim_of(acc.array) != 1 or isinstance(acc.node.slice, (ast.Tuple, ast.Slice)):
            return "%s is not an element of a 1-D array" % where
        if id(acc.node) in shortcut:
            return "%s is read inside a conditional expression or a while test" % where
    return None


class _Instrument:
    """Rewrites the statements of the loop body (a copy of the AST)."""

    def __init__(self, arrays, rd_logged, wr_logged, owned, owners):
        self.arrays = arrays          # user name -> canonical name, instrumented
        self.rd_logged = rd_logged    # canonical names with a read log
        self.wr_logged = wr_logged    # ... with a write log
        self.owned = owned            # ids of the (copied) accesses at the loop index
        self.owners = owners          # canonical name -> {(c0, c, write)}
        self.n = 0

    def _owner_checks(self, log, key, write):
        """Checks of an element against the accesses at the loop index
        (``a[c0 + c*t]``, touched by iteration ``t`` only): another iteration
        owning the element, one of the two writing, is a dependence."""
        out = []
        for c0, c, owner_writes in sorted(self.owners.get(log, ())):
            if not (write or owner_writes):
                continue
            if write and owner_writes:
                early = late = "output"
            elif write:                 # the owner reads: earlier is anti
                early, late = "anti", "flow"
            else:                       # the owner writes: earlier is flow
                early, late = "flow", "anti"
            d = "(%s - %d)" % (key, c0)
            owner = "%s // %d" % (d, c)
            out.append(_stmt(
                "if %s %% %d == 0 and %s >= 0 and %s < %s and %s:\n"
                "    if %s < %s:\n        atomic_max(%s[%d], 1)\n"
                "    else:\n        atomic_max(%s[%d], 1)"
                % (d, c, owner, owner, COUNT, self.apart(owner), owner, TT, VIOL,
                   KINDS.index(early), VIOL, KINDS.index(late))))
        return out

    # -- what each access adds (the atomic-max logs; see specchunk for bitmaps)
    def apart(self, owner):
        """The test that the iteration ``owner`` (an expression) and the
        running one may run out of order: here, any other iteration."""
        return "%s != %s" % (owner, TT)

    def read_before(self, log, key):
        """Statements before the load of ``log``'s element ``key``."""
        if log in self.rd_logged:
            return [_stmt("atomic_max(%s[%s], %s)" % (RD % log, key, IT))]
        return []

    def read_after(self, log, key):
        """Statements after that load."""
        if log in self.wr_logged:
            return _flag("atomic_max(%s[%s], 0) > %s" % (WR % log, key, IT), "anti")
        return []

    def update_before(self, log, key):
        """Statements before ``x[key] op= ...`` (a read and a write)."""
        return [_stmt("atomic_max(%s[%s], %s)" % (RD % log, key, IT))] + self._write(log, key)

    def update_after(self, log, key):
        """Statements after ``x[key] op= ...``."""
        return (_flag("atomic_max(%s[%s], 0) > %s" % (WR % log, key, IT), "anti")
                + _flag("atomic_max(%s[%s], 0) > %s" % (RD % log, key, IT), "flow"))

    def write_before(self, log, key):
        """Statements before ``x[key] = ...``."""
        return self._write(log, key)

    def write_after(self, log, key):
        """Statements after ``x[key] = ...``."""
        if log in self.rd_logged:
            return _flag("atomic_max(%s[%s], 0) > %s" % (RD % log, key, IT), "flow")
        return []

    def _key(self, node, pre):
        index = self._expr(node.slice, pre)
        name = "autopar_k%d" % self.n
        self.n += 1
        pre.append(_stmt("%s = 0" % name, value=index))
        return name

    def _is_logged(self, node):
        return (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name)
                and node.value.id in self.arrays and id(node) not in self.owned)

    def _expr(self, node, pre):
        """``node`` with its instrumented reads replaced by temporaries, the
        logging statements appended to ``pre``."""
        outer = self

        class Reads(ast.NodeTransformer):
            def visit_Subscript(self, sub):
                self.generic_visit(sub)
                if not outer._is_logged(sub) or not isinstance(sub.ctx, ast.Load):
                    return sub
                array = sub.value.id
                log = outer.arrays[array]
                key = outer._key(sub, pre)
                value = "autopar_v%d" % outer.n
                outer.n += 1
                pre.extend(outer.read_before(log, key))
                pre.append(_stmt("%s = %s[%s]" % (value, array, key)))
                pre.extend(outer.read_after(log, key))
                pre.extend(outer._owner_checks(log, key, False))
                return ast.Name(value, ast.Load())

        return Reads().visit(node)

    def block(self, body):
        out = []
        for stmt in body:
            out.extend(self.stmt(stmt))
        return out

    def stmt(self, node):
        pre, post = [], []
        if isinstance(node, ast.For):
            node.iter = self._expr(node.iter, pre)
            node.body, node.orelse = self.block(node.body), self.block(node.orelse)
        elif isinstance(node, ast.While):
            node.body, node.orelse = self.block(node.body), self.block(node.orelse)
        elif isinstance(node, ast.If):
            node.test = self._expr(node.test, pre)
            node.body, node.orelse = self.block(node.body), self.block(node.orelse)
        elif isinstance(node, ast.AugAssign) and self._is_logged(node.target):
            node.value = self._expr(node.value, pre)
            array = node.target.value.id
            log = self.arrays[array]
            key = self._key(node.target, pre)
            pre.extend(self.update_before(log, key))
            pre.extend(self._owner_checks(log, key, True))
            node.target = _target(array, key)
            post.extend(self.update_after(log, key))
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            node.value = self._expr(node.value, pre) if node.value is not None else None
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            new = []
            for target in targets:
                if self._is_logged(target):
                    array = target.value.id
                    log = self.arrays[array]
                    key = self._key(target, pre)
                    pre.extend(self.write_before(log, key))
                    pre.extend(self._owner_checks(log, key, True))
                    post.extend(self.write_after(log, key))
                    target = _target(array, key)
                elif isinstance(target, ast.Subscript):
                    target = self._expr(target, pre)
                new.append(target)
            if isinstance(node, ast.Assign):
                node.targets = new
            else:
                node.target = new[0]
        else:
            node = self._expr(node, pre)
        return pre + [node] + post

    def _write(self, log, key):
        return [_stmt("autopar_o = atomic_max(%s[%s], %s)" % (WR % log, key, IT))] + _flag(
            "autopar_o >= %s and autopar_o != %s" % (BASE, IT), "output")


def _stmt(text, value=None):
    node = ast.parse(text).body[0]
    if value is not None:
        node.value = value
    return node


def _flag(test, kind):
    return [_stmt("if %s:\n    atomic_max(%s[%d], 1)" % (test, VIOL, KINDS.index(kind)))]


def _target(array, key):
    return ast.Subscript(ast.Name(array, ast.Load()), ast.Name(key, ast.Load()), ast.Store())


def _owned(acc, loop):
    """(c0, c) when ``acc`` is ``a[c0 + c*t]`` over the counter ``t`` of
    ``loop`` only (so only iteration t touches that element), else None."""
    if acc.subs is None or len(acc.subs) != 1 or not isinstance(acc.node, ast.Subscript):
        return None
    sub = acc.subs[0]
    if sub.variables != (loop.counter,) or sub.coeff(loop.counter) == 0:
        return None
    return sub.const, sub.coeff(loop.counter)


def _loaded(nodes):
    out = []
    for node in nodes:
        for n in ast.walk(node):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id not in out:
                out.append(n.id)
    return out


def instrumented_body(loop, names_in_ns, arrays, accesses, canon, kind=None):
    """(params, logged, statements): the user names the kernel takes, the
    instrumented arrays ``(array, has_read_log, has_write_log)`` and the
    body of ``loop`` with the accesses of the ``arrays`` (canonical names)
    instrumented by ``kind`` (an :class:`_Instrument` class: the logs here,
    the bitmaps of :mod:`.specchunk`)."""
    body = loop.node.body
    assigned = {n.id for s in body for n in ast.walk(s)
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)} | {loop.var}
    params = tuple(n for n in _loaded(body) if n in names_in_ns and n not in assigned)
    users = {acc.array: canon(acc.array) for acc in accesses if canon(acc.array) in arrays}
    mine = [acc for acc in accesses if canon(acc.array) in arrays]
    # an access under an if or an inner loop may not run: never an owner
    conditional = {id(n) for stmt in body if not isinstance(
        stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr)) for n in ast.walk(stmt)}
    owned = {id(acc.node): _owned(acc, loop) for acc in mine
             if id(acc.node) not in conditional}
    owned = {k: v for k, v in owned.items() if v is not None}
    owners = {}
    for acc in mine:
        if id(acc.node) in owned:
            owners.setdefault(canon(acc.array), set()).add(owned[id(acc.node)] + (acc.write,))
    logged_reads = {canon(a.array) for a in mine if not a.write and id(a.node) not in owned}
    wr_logged = {canon(a.array) for a in mine if a.write and id(a.node) not in owned}
    rd_logged = logged_reads & wr_logged
    logged = tuple((a, a in rd_logged, a in wr_logged) for a in arrays)
    copied = copy.deepcopy(body)
    twins = {id(o): id(c) for s_o, s_c in zip(body, copied)
             for o, c in zip(ast.walk(s_o), ast.walk(s_c))}
    instrument = (kind or _Instrument)(users, rd_logged, wr_logged,
                                       {twins[k] for k in owned}, owners)
    return params, logged, instrument.block(copied)


def kernel_source(prefix, sig, statements):
    """(name, source) of a kernel function taking ``sig`` whose body is
    ``statements`` (AST); the name is ``prefix`` and a digest of the text."""
    text = "\n".join("    " + line for s in statements
                     for line in ast.unparse(s).splitlines())
    digest = hashlib.sha1((",".join(sig) + text).encode()).hexdigest()[:10]
    name = prefix + digest
    return name, "def %s(%s):\n%s\n" % (name, ", ".join(sig), text)


def speculative_kernel(loop, names_in_ns, arrays, accesses, canon):
    """The :class:`SpecKernelText` of ``loop`` with the accesses of the
    ``arrays`` (canonical names) instrumented with the atomic-max logs."""
    params, logged, new_body = instrumented_body(loop, names_in_ns, arrays, accesses, canon)
    logs = [p for a, r, w in logged for p in ((RD % a,) if r else ()) + ((WR % a,) if w else ())]
    head = [_stmt("%s = %s - 1 - %s" % (TT, COUNT, T0)),
            _stmt("%s = %s + %s * %s" % (loop.var, LO, ST, TT)),
            _stmt("%s = %s + %s" % (IT, BASE, TT))]
    sig = [T0] + list(params) + [LO, ST, COUNT, BASE] + logs + [VIOL]
    name, source = kernel_source("autopar_spec_", sig, head + new_body)
    return SpecKernelText(source, name, params, logged)
