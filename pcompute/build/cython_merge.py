"""Several generated Cython module texts merged into one module text.

One extension module per kernel costs the C compiler ~0.28 CPU-s at -O0 for
a small kernel, nearly all of it fixed cost (Python's and numpy's headers,
Cython's utility code); a kernel more in a module costs ~0.05.  So the
kernels known together before they are built (the loop nests of one
:func:`pcompute.parallelize` function) are built as one module.

:func:`merge` keeps each member's code in its own name space by suffixing
every name its module defines at the top level (``def``, ``cdef``
functions and variables, structs, ctypedefs, assignments) with
``_pcm<k>`` (``run`` of member 1 becomes ``run_pcm1``; see
:func:`member_name`).  Imports and cimports are emitted once, at the top.
``cdef extern from *`` blocks (C helpers in verbatim C) are emitted once
when several members carry the same text; a C name that two different
blocks declare is suffixed in the members that carry the second and later
of them, with every C function and macro such a block defines (the member's
own copy of it), and only such names (and the member's struct types) are
renamed in an extern block.  Names inside one-line string literals, after a ``.``
(attributes, struct fields) and naming a keyword argument are never
renamed.

Members whose ``# cython:`` directive headers differ cannot share a module;
a text with a top-level statement the merger does not know gives
:class:`MergeError` (the caller builds such members alone).  The merged text
depends only on the member texts in order (and :data:`MERGE_VERSION`).
"""
import re

#: Changes whenever the merged text of the same members would change (part
#: of a group module's cache key).
MERGE_VERSION = "2"

_IMPORT = re.compile(r"^(cimport |import |from \S+ c?import )")
_DEF = re.compile(r"^(?:cpdef|def)\s+(\w+)\s*\(")
_FUNC_PTR = re.compile(r"^cdef\b[^(=]*\(\s*\*\s*(\w+)\s*\)")
_CDEF_FUNC = re.compile(r"^cdef\b[^(=:]*?\b(\w+)\s*\(")
_STRUCT = re.compile(r"^(?:cdef|ctypedef)\s+(?:packed\s+)?(?:struct|union)\s+(\w+)")
_UNKNOWN = re.compile(r"^(?:cdef|ctypedef|cpdef)\s+(?:\w+\s+)*(?:enum|class)\b")
_CTYPEDEF = re.compile(r"^ctypedef\b.*?\b(\w+)\s*(?:\[[^\]]*\]\s*)?$")
_CDEF_VAR = re.compile(r"^cdef\b.*?\b(\w+)\s*(?:\[[^\]]*\]\s*)?(?:=.*)?$")
_ASSIGN = re.compile(r"^(\w+)\s*(?::[^=]*)?=(?!=)")
_C_STATIC = re.compile(r"\bstatic\b[^;{(=]*?\b(\w+)\s*\(")
_C_DEFINE = re.compile(r"^\s*#\s*define\s+(\w+)", re.M)
_EXTERN_DECL = re.compile(r"\b(\w+)\s*(?:\(|$|\[)")
_TOKENS = re.compile(r'(""")|(#[^\n]*)|\'[^\'\n]*\'|"[^"\n]*"|\.\s*\w+|([()])'
                     r'|\b([A-Za-z_]\w*)\b(\s*=(?!=))?')
_NAMES = re.compile(r'\'[^\'\n]*\'|"[^"\n]*"|\.\s*\w+|\b([A-Za-z_]\w*)\b')


class MergeError(ValueError):
    """A module text the merger cannot take apart (a top-level statement it
    does not know): its members are built alone."""


def member_name(name, k):
    """The name ``name`` of member ``k`` takes in a merged module."""
    return "%s_pcm%d" % (name, k)


def split(text):
    """``(header, imports, blocks)`` of a module text: its leading
    ``# cython:`` directive lines, its import lines, and its other top-level
    blocks (a column-0 line with the indented and blank lines after it, the
    column-0 comment lines before it attached)."""
    lines = text.split("\n")
    header = []
    while lines and lines[0].startswith("# cython:"):
        header.append(lines.pop(0))
    imports, blocks, pending = [], [], []
    current = None
    for line in lines:
        if not line.strip() or line[0] in " \t":
            (current if current is not None else pending).append(line)
            continue
        current = None
        if line.startswith("#"):
            pending.append(line)
        elif _IMPORT.match(line):
            imports.append(line.rstrip())
            pending = [p for p in pending if p.strip()]   # a comment before an import
            blocks.extend(["\n".join(pending)] if pending else [])
            pending = []
        else:
            current = pending + [line]
            pending = []
            blocks.append(current)
    if pending:
        blocks.append(pending)
    return header, imports, ["\n".join(b) if isinstance(b, list) else b for b in blocks]


def _code_line(block):
    """The first column-0 line of ``block`` that is not a comment, or None."""
    for line in block.split("\n"):
        if line and line[0] not in " \t#":
            return line
    return None


def block_names(block):
    """``(kind, names)`` of a top-level block: kind 'extern' (names: the C
    names its verbatim C and declarations define), 'struct' (a struct or
    union: its name), 'code' or 'assign' (the Cython name it defines, one)
    or 'comment'.  :class:`MergeError` for a statement the
    merger does not know."""
    line = _code_line(block)
    if line is None:
        return "comment", ()
    if line.startswith("cdef extern"):
        return "extern", extern_names(block)
    if _UNKNOWN.match(line):       # enum values and class names: not renamed here
        raise MergeError("cannot merge the top-level statement %r" % line)
    m = _STRUCT.match(line)
    if m:
        return "struct", (m.group(1),)
    for pattern in (_DEF, _FUNC_PTR, _CDEF_FUNC):
        m = pattern.match(line)
        if m:
            return "code", (m.group(1),)
    body = line.rstrip(":").rstrip()
    m = (_CTYPEDEF if line.startswith("ctypedef") else _CDEF_VAR).match(body)
    if m:
        return "code", (m.group(1),)
    m = _ASSIGN.match(line)
    if m:
        return "assign", (m.group(1),)
    raise MergeError("cannot merge the top-level statement %r" % line)


def c_definitions(block):
    """The C names (static functions, macros) an extern block's verbatim C
    defines."""
    c_text = "".join(block.split('"""')[1::2])
    return _C_STATIC.findall(c_text) + _C_DEFINE.findall(c_text)


def extern_names(block):
    """The C names a ``cdef extern from *`` block defines: in its verbatim C
    (static functions, macros) and its Cython declarations."""
    names = c_definitions(block)
    parts = block.split('"""')
    for line in "".join(parts[0::2]).split("\n")[1:]:
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        m = _EXTERN_DECL.search(line.split("(")[0] + ("(" if "(" in line else ""))
        if m:
            names.append(m.group(1))
    seen = []
    for n in names:
        if n not in seen:
            seen.append(n)
    return tuple(seen)


def rename(text, names, k):
    """``text`` with every identifier in ``names`` renamed for member ``k``
    (see :func:`member_name`), but inside one-line string literals, after a
    ``.`` and where it names a keyword argument of a Cython call
    (``prange(..., chunksize=4)``: the name followed by ``=`` inside
    parentheses, outside triple-quoted text, which is verbatim C or a
    docstring)."""
    if not names:
        return text
    def plain(m):               # in a comment line (a C #define in verbatim C)
        name = m.group(1)
        return member_name(name, k) if name in names else m.group(0)
    out, last, depth, quoted = [], 0, 0, False
    for m in _TOKENS.finditer(text):
        triple, comment, paren, name, assign = m.groups()
        if triple:
            quoted = not quoted
        elif comment:           # its parentheses are prose: not counted
            out.append(text[last:m.start(2)] + _NAMES.sub(plain, comment))
            last = m.end(2)
        elif paren and not quoted:
            depth += 1 if paren == "(" else -1
        elif name in names and not (assign and depth > 0 and not quoted):
            out.append(text[last:m.start(4)] + member_name(name, k))
            last = m.end(4)
    return "".join(out) + text[last:]


_FIELD = re.compile(r"^(.*?)(\w+)(\s*(?:\[[^\]]*\])?\s*)$")


def rename_struct(block, names, k):
    """:func:`rename` for a struct or union block: its field names
    (the last name of each body line) are kept, their types renamed."""
    lines = block.split("\n")
    out = []
    for line in lines:
        m = _FIELD.match(line)
        if line[:1] in (" ", "\t") and m and not line.strip().startswith("#"):
            out.append(rename(m.group(1), names, k) + m.group(2) + m.group(3))
        else:
            out.append(rename(line, names, k))
    return "\n".join(out)


def merge(texts):
    """The text of one module holding every module text of ``texts``: member
    ``k``'s names are :func:`member_name` ``(name, k)``.  :class:`MergeError`
    when the directive headers differ or a text has a statement the merger
    does not know."""
    parsed = [split(t) for t in texts]
    header = parsed[0][0]
    if any(p[0] != header for p in parsed):
        raise MergeError("the members' Cython directive headers differ")
    imports = []
    for _, imps, _ in parsed:
        imports += [i for i in imps if i not in imports]
    extern_text = {}            # C name -> the first extern block declaring it
    emitted = set()             # extern block texts already in the module
    out = list(header) + imports
    for k, (_, _, blocks) in enumerate(parsed):
        kinds = [block_names(b) for b in blocks]
        own = {n for kind, names in kinds if kind in ("code", "assign", "struct")
               for n in names}
        types = {n for kind, names in kinds if kind == "struct" for n in names}
        c_own = set()           # C names another extern block declares too
        for block, (kind, names) in zip(blocks, kinds):
            if kind != "extern":
                continue
            clash = {n for n in names if extern_text.setdefault(n, block) != block}
            if clash:           # another block declares them: this member's own,
                # and so is every C function and macro its block defines (renamed
                # in part, the block's text would differ from a later member's
                # copy of the same block, and both would define the rest)
                c_own |= clash | set(c_definitions(block))
        own |= c_own
        for block, (kind, names) in zip(blocks, kinds):
            if kind == "extern":
                # its C and declarations: only the C names renamed above and
                # the member's struct types (a Cython name there, e.g. a C
                # local named like a member's helper, is not that name)
                text = rename(block, c_own | types, k)
            else:
                text = (rename_struct if kind == "struct" else rename)(block, own, k)
            if kind == "extern":
                if text in emitted:
                    continue
                emitted.add(text)
            out.append(text)
    return "\n".join(out) + "\n"
