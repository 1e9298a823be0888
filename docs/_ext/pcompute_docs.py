"""Sphinx directives that build parts of the pcompute docs by running pcompute.

``.. pcompute-rejected::``
    The table of constructs outside the kernel language: every kernel of
    ``rejected_kernels.CASES`` goes through pcompute's front end and the error
    it raises (class, message, hint) becomes a row.  A kernel that is accepted
    fails the build, so the table cannot drift from the code.

``.. pcompute-error:: KERNEL``
    The full text of the error one kernel of ``rejected_kernels`` raises, as a
    user sees it (file, line, caret, message, hint).

``.. pcompute-benchmarks::``
    The tables of ``benchmarks/results/latest.md`` (the committed summary of
    the latest full benchmark run), or a note saying how to produce them.
"""
import itertools
import linecache
import os
import re

from docutils import nodes
from docutils.parsers.rst import Directive
from sphinx.errors import ExtensionError

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BENCHMARKS_MD = os.path.join(ROOT, "benchmarks", "results", "latest.md")


# ----------------------------------------------------------- shared helpers

def run_case(func, backend, types):
    """The pcompute error ``func`` raises on ``backend`` (None if accepted)."""
    from pcompute.errors import KernelError
    from pcompute.generate import generate_source
    try:
        generate_source(func, backend, types=types)
    except KernelError as exc:
        return exc
    return None


def builtin_base(exc):
    """The builtin exception class a pcompute error subclasses."""
    for cls in type(exc).__mro__:
        if cls.__module__ == "builtins" and cls is not Exception:
            return cls
    return Exception


def rejected_rows():
    """(group, construct, code line, error class, builtin, message, hint) rows."""
    import rejected_kernels as rk
    rows = []
    for func, group, construct, backend in rk.CASES:
        exc = run_case(func, backend, rk.TYPES)
        if exc is None:
            raise ExtensionError("pcompute accepted %s (%s) on %s: the table of rejected "
                                 "constructs is out of date" % (func.__name__, construct,
                                                                backend))
        line = exc.location.line if exc.location is not None else ""
        line = line.split("  # noqa")[0].strip()
        rows.append((group, construct, line, type(exc).__name__,
                     builtin_base(exc).__name__, exc.message, exc.hint or "", backend))
    return rows


def _inline(text):
    """Nodes for ``text``, with `backquoted` parts as inline literals."""
    out = []
    for k, part in enumerate(text.split("`")):
        if not part:
            continue
        out.append(nodes.literal(part, part) if k % 2 else nodes.Text(part))
    return out


def _table(header, rows, widths):
    table = nodes.table(classes=["pcompute-table"])
    group = nodes.tgroup(cols=len(header))
    table += group
    for w in widths:
        group += nodes.colspec(colwidth=w)
    head = nodes.thead()
    group += head
    row = nodes.row()
    for title in header:
        row += nodes.entry("", nodes.paragraph("", title))
    head += row
    body = nodes.tbody()
    group += body
    for cells in rows:
        row = nodes.row()
        for cell in cells:
            entry = nodes.entry()
            if isinstance(cell, nodes.Node):
                entry += cell
            else:
                entry += nodes.paragraph("", "", *cell)
            row += entry
        body += row
    return table


# --------------------------------------------------------------- directives

class RejectedDirective(Directive):
    has_content = False

    def run(self):
        rows = rejected_rows()
        out = []
        groups = []
        for row in rows:
            if row[0] not in groups:
                groups.append(row[0])
        for group in groups:
            out.append(nodes.rubric("", group.capitalize()))
            cells = []
            for _, construct, line, cls, base, message, hint, backend in \
                    (r for r in rows if r[0] == group):
                what = [nodes.Text(construct)]
                code = [nodes.literal(line, line)]
                error = [nodes.literal(cls, cls), nodes.Text(" (a %s)" % base)]
                text = _inline(message)
                if hint:
                    text += [nodes.Text(". Instead: ")] + _inline(hint)
                cells.append((what, code, error, text))
            out.append(_table(("Construct", "Example", "Raises", "Message and hint"),
                              cells, (14, 24, 16, 46)))
        return out


class ErrorDirective(Directive):
    required_arguments = 1
    has_content = False

    def run(self):
        import rejected_kernels as rk
        name = self.arguments[0]
        case = next((c for c in rk.CASES if c[0].__name__ == name), None)
        if case is None:
            raise self.error("no kernel %r in rejected_kernels.CASES" % name)
        exc = run_case(case[0], case[3], rk.TYPES)
        if exc is None:
            raise ExtensionError("pcompute accepted %s" % name)
        text = "%s: %s" % (type(exc).__module__ + "." + type(exc).__name__, exc)
        text = text.replace(ROOT + os.sep, "")
        text = re.sub(r"\s+# noqa: \w+", "", text)
        return [nodes.literal_block(text, text, language="text")]


_TABLE_LINE = re.compile(r"^\s*\|.*\|\s*$")
_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")


def _md_cells(line):
    line = line.strip()
    if line.startswith("|"):
        line = line[1:]
    if line.endswith("|"):
        line = line[:-1]
    return [c.strip() for c in line.split("|")]


def _md_inline(text):
    """Nodes for a Markdown cell or paragraph: `code`, **bold**, *italic*."""
    out = []
    pattern = r"(`[^`]*`|\*\*[^*]+\*\*|\*[^*\s][^*]*\*)"
    for k, part in enumerate(re.split(pattern, text)):
        if not part:
            continue
        if part.startswith("`") and part.endswith("`") and len(part) > 1:
            out.append(nodes.literal(part[1:-1], part[1:-1]))
        elif part.startswith("**") and part.endswith("**") and len(part) > 4:
            out.append(nodes.strong(part[2:-2], part[2:-2]))
        elif part.startswith("*") and part.endswith("*") and len(part) > 2:
            out.append(nodes.emphasis(part[1:-1], part[1:-1]))
        else:
            out.append(nodes.Text(part))
    return out


def markdown_to_nodes(text):
    """The small Markdown subset latest.md uses: headings, paragraphs,
    bullet lists and pipe tables."""
    out = []
    lines = text.splitlines()
    k = 0
    para = []

    def flush():
        if para:
            out.append(nodes.paragraph("", "", *_md_inline(" ".join(para))))
            del para[:]

    while k < len(lines):
        line = lines[k]
        if not line.strip():
            flush()
            k += 1
            continue
        m = re.match(r"^(#+)\s+(.*)$", line)
        if m:
            flush()
            out.append(nodes.rubric("", "", *_md_inline(m.group(2).strip())))
            k += 1
            continue
        if _TABLE_LINE.match(line):
            flush()
            block = []
            while k < len(lines) and _TABLE_LINE.match(lines[k]):
                block.append(lines[k])
                k += 1
            header = _md_cells(block[0])
            body = [_md_cells(l) for l in block[1:] if not _RULE.match(l)]
            width = len(header)
            body = [(r + [""] * width)[:width] for r in body]
            out.append(_table(header, [[_md_inline(c) for c in r] for r in body],
                              [1] * width))
            continue
        m = re.match(r"^\s*[-*]\s+(.*)$", line)
        if m:
            flush()
            items = nodes.bullet_list()
            while k < len(lines):
                m = re.match(r"^\s*[-*]\s+(.*)$", lines[k])
                if m:
                    items += nodes.list_item("", nodes.paragraph(
                        "", "", *_md_inline(m.group(1))))
                elif lines[k].startswith("  ") and lines[k].strip() and len(items):
                    items[-1][0] += [nodes.Text(" ")] + _md_inline(lines[k].strip())
                else:
                    break
                k += 1
            out.append(items)
            continue
        para.append(line.strip())
        k += 1
    flush()
    return out


class BenchmarksDirective(Directive):
    has_content = False

    def run(self):
        env = self.state.document.settings.env
        env.note_dependency(BENCHMARKS_MD)
        if not os.path.exists(BENCHMARKS_MD):
            text = ("No committed benchmark summary yet (benchmarks/results/latest.md "
                    "is missing): run make bench to produce it.")
            return [nodes.note("", nodes.paragraph(text, text))]
        with open(BENCHMARKS_MD, encoding="utf-8") as f:
            return markdown_to_nodes(f.read())


# ------------------------------------------------------- doctest source lines

def _keep_doctest_sources():
    """Let pcompute read kernels defined in earlier doctest blocks.

    pcompute translates a function from its source text, found through
    ``inspect``/``linecache`` by the function's file name.  Sphinx compiles
    every block of a group under the same name (``<doctest default[0]>``) and
    doctest serves only the running block's text under it, so a kernel defined
    in one block and used in a later one would be read from the wrong text.
    Here every block gets a unique name and its text stays in ``linecache``.
    """
    from sphinx.ext import doctest as sphinx_doctest
    runner = sphinx_doctest.SphinxDocTestRunner
    if getattr(runner, "_pcompute_keeps_sources", False):
        return
    original = runner.run
    counter = itertools.count()

    def run(self, test, *args, **kwargs):
        test.name = "%s#%d" % (test.name, next(counter))
        for k, example in enumerate(test.examples):
            filename = "<doctest %s[%d]>" % (test.name, k)
            lines = example.source.splitlines(True)
            linecache.cache[filename] = (len(example.source), None, lines, filename)
        return original(self, test, *args, **kwargs)

    runner.run = run
    runner._pcompute_keeps_sources = True


def setup(app):
    _keep_doctest_sources()
    app.add_directive("pcompute-rejected", RejectedDirective)
    app.add_directive("pcompute-error", ErrorDirective)
    app.add_directive("pcompute-benchmarks", BenchmarksDirective)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
