"""Write the benchmark tables of the README and the docs from one results file.

    python -m benchmarks.publish [RUN.json] [--check]

``RUN.json`` (the JSON a run of ``python -m benchmarks`` writes, every
suite) becomes ``benchmarks/results/published.json``, the committed results
file; without it the committed file is used again.  From that file alone
this writes, between their markers:

- ``README.md`` (``<!-- benchmarks:begin -->`` ... ``<!-- benchmarks:end -->``):
  the summary table, primitives at n = 10^7 and the MD;
- ``docs/md_example.rst`` (``.. benchmarks:begin`` ... ``.. benchmarks:end``):
  every MD row;
- ``benchmarks/results/latest.md``: every row of every suite (the docs'
  benchmarks page shows it).

Every figure in those places comes from the file, with the machine, the
load average before and after the run, the profile, the date and the commit
measured.  ``--check`` writes nothing and fails if a table differs from what
the file gives (the tests run it: no hand-typed figures survive).
"""
import argparse
import json
import re
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PUBLISHED = ROOT / "benchmarks" / "results" / "published.json"
LATEST_MD = ROOT / "benchmarks" / "results" / "latest.md"
README = ROOT / "README.md"
MD_DOC = ROOT / "docs" / "md_example.rst"
MD_MARKERS = (".. benchmarks:begin", ".. benchmarks:end")
README_MARKERS = ("<!-- benchmarks:begin -->", "<!-- benchmarks:end -->")

# Summary columns: (header, how a row is picked from a group).
PCOMPUTE = "pcompute cython+omp"
COLUMNS = (
    ("pcompute OpenMP", lambda rows: _named(rows, PCOMPUTE)),
    ("pcompute generic", lambda rows: _named(rows, PCOMPUTE + " generic")),
    ("pcompute -march=native", lambda rows: _named(rows, PCOMPUTE + " -march=native")),
    ("numpy", lambda rows: _prefixed(rows, "numpy")),
    ("numexpr", lambda rows: _prefixed(rows, "numexpr")),
    ("Numba parallel", lambda rows: _prefixed(rows, "numba parallel")),
    ("Compyle default", lambda rows: _named(rows, "compyle cython+omp")),
    ("Compyle best", lambda rows: _best(rows, "compyle")),
    ("Taichi CPU", lambda rows: _prefixed(rows, "taichi")),
    ("Warp CPU (1 thread)", lambda rows: _prefixed(rows, "warp")),
    ("LAMMPS", lambda rows: _prefixed(rows, "LAMMPS")),
)
PRIMITIVES = (("axpy", "float64", "axpy, float64"), ("sum", "float64", "sum, float64"),
              ("sum", "float32", "sum, float32"), ("sum", "int32", "sum, int32"),
              ("scan", "inclusive float64", "inclusive scan, float64"),
              ("sort", "int32 keys+values", "sort int32 keys + int32 values"),
              ("map", "sin*exp+sqrt float64", "map sin*exp+sqrt, float64"))
# (case in the MD suite, title, strategy named in its pcompute rows)
MD_SUMMARY = (("2-D cells", "MD 2-D cells", "cells"),
              ("2-D count/sort lists", "MD 2-D count lists", "count"),
              ("2-D count/sort lists, skin 0.3", "MD 2-D count lists, skin 0.3", "count"),
              ("3-D walls cells", "MD 3-D walls cells", "cells"),
              ("3-D periodic cells", "MD 3-D periodic cells", "cells"),
              ("3-D periodic count", "MD 3-D periodic count lists", "count"))
# pcompute's second build, shown when the run has it: 'generic' (runs where the
# default build is made for the CPU at hand) or '-march=native' (runs of
# commits whose default build was generic).
BUILD_COLUMNS = {"pcompute generic": " generic", "pcompute -march=native": " -march=native"}
# Columns that show the fastest of several configurations of one program:
# the README names the configuration each cell took (e.g. Compyle's schedule).
BEST_OF = ("numpy", "Numba parallel", "Compyle best", "Taichi CPU", "Warp CPU (1 thread)",
           "LAMMPS")


def columns(data):
    """COLUMNS less the build columns of which the run has no row."""
    impls = [r["impl"] for r in data["rows"] if r["impl"].startswith(PCOMPUTE)]
    return tuple(c for c in COLUMNS if c[0] not in BUILD_COLUMNS
                 or any(i.endswith(BUILD_COLUMNS[c[0]]) for i in impls))


def build_note(data):
    """What 'pcompute OpenMP' and the build column of this run are."""
    headers = [c[0] for c in columns(data)]
    if "pcompute generic" in headers:
        return ("`pcompute OpenMP` is pcompute's default build, made for the CPU at hand "
                "(`-march=native` with `-ffp-contract=off`: results bit-identical to the "
                "generic build, except the MD example's pair and force kernels, built with "
                "`fma=True` since a60857f, as the C reference's gcc contracts "
                "multiply-adds); `pcompute generic` the same with `march='generic'`.")
    if "pcompute -march=native" in headers:
        return ("`pcompute OpenMP` is the build that was pcompute's default at the commit "
                "measured (generic x86-64); `pcompute -march=native` the same with "
                "`march='native'`.")
    return ""


def _named(rows, impl):
    return next((r for r in rows if r["impl"] == impl and r["median_s"]), None)


def _prefixed(rows, prefix):
    found = [r for r in rows if r["impl"].startswith(prefix) and r["median_s"]
             and not r["impl"].endswith("(ctypes)")]
    return min(found, key=lambda r: r["median_s"]) if found else None


def _best(rows, prefix):
    return _prefixed(rows, prefix)


# ------------------------------------------------------------------ loading

def refusals(data):
    """Why a run must not become the published one ([] if it may): the smoke
    profile, a run of some suites only, sizes or MD groups chosen on the
    command line."""
    from .suites import SUITES
    m = data.get("machine") or {}
    out = []
    if data.get("profile") not in ("quick", "full"):
        out.append("profile %r (publish a quick or full run)" % data.get("profile"))
    ran = m.get("suites")
    if ran is None:
        out.append("the run does not say which suites it ran")
    else:
        missing = [s for s in SUITES if s not in ran]
        if missing:
            out.append("suites not run: %s" % ", ".join(missing))
    for key, option in (("sizes", "--n"), ("md_sizes", "--md-n")):
        if m.get(key, "default") != "default":
            out.append("sizes chosen with %s (%s)" % (option, m[key]))
    if m.get("md_cases", "all") != "all":
        out.append("MD groups chosen with --md-case (%s)" % ", ".join(m["md_cases"]))
    return out


def load(path=PUBLISHED):
    data = json.loads(Path(path).read_text())
    for row in data["rows"]:
        for key in ("median_s", "min_s", "ratio_vs_ref", "ratio_min_vs_ref", "n"):
            row[key] = _number(row.get(key))
    return data


def _number(v):
    if v in (None, ""):
        return None
    return float(v) if not isinstance(v, (int, float)) else v


def groups(data):
    out = {}
    for row in data["rows"]:
        out.setdefault((row["suite"], row["case"], int(row["n"] or 0)), []).append(row)
    return out


# --------------------------------------------------------------- formatting

def fmt_time(s):
    if s is None:
        return "-"
    if s < 0.9995e-3:
        return "%.3g us" % (s * 1e6)
    if s < 0.9995:
        return "%.3g ms" % (s * 1e3)
    return "%.3g s" % s


def fmt_n(n):
    n = int(n)
    if n >= 1000 and str(n).rstrip("0") == "1":
        return "10^%d" % (len(str(n)) - 1)
    return str(n)


def ratio_cell(row):
    """'median ratio / best-sample ratio' against the group's reference."""
    if row is None or row.get("ratio_vs_ref") is None:
        return "-"
    cell = "%.2f / %.2f" % (row["ratio_vs_ref"], row["ratio_min_vs_ref"])
    if row.get("check", "").startswith(("WRONG", "FAILED")):
        cell += " (wrong)"
    return cell


def provenance(data):
    """One paragraph: machine, date, profile, commit, load, missing peers."""
    m = data["machine"]
    cores = m.get("cores") or 0
    loads = (m.get("load_average"), m.get("load_average_end"))
    # Busy: other work at the start (over half the cores), or more at the end
    # than the run's own threads explain (the 1-minute average at the end
    # includes the last suite's own 2-thread OpenMP work, up to `cores`).
    busy = bool(cores) and ((loads[0] is not None and loads[0] > 0.5 * cores)
                            or (loads[1] is not None and loads[1] > cores))
    text = ("Measured by `python -m benchmarks` (profile `%s`) on %s: %s, %s cores, "
            "load average %s at the start and %s at the end%s; pcompute %s; gcc: %s; "
            "Python %s, numpy %s." % (
                data["profile"], m.get("date", "?"), m.get("cpu", "?"), cores, loads[0],
                loads[1], " (**a busy machine: noisy figures, OpenMP ones most**)"
                if busy else "", m.get("pcompute", "?"), m.get("gcc", "?"),
                m.get("python", "?"), m.get("numpy", "?")))
    if data["profile"] not in ("quick", "full"):
        text += (" **Profile %s: a check of the harness (tiny sizes, few samples), not a "
                 "measurement.**" % data["profile"])
    md = m.get("md_sizes")
    if md and md != "default":
        text += " MD at N = %s only (`--md-n`)." % ", ".join(fmt_n(n) for n in md)
    missing = m.get("missing_peers") or {}
    if missing:
        text += " Peers missing from this run: %s." % ", ".join(sorted(missing))
    return text


# ------------------------------------------------------------------ tables

def readme_table(data, picked=None):
    """The summary table's lines; ``picked`` (a dict) collects, per best-of
    column, the implementations its cells show."""
    g = groups(data)
    cols = columns(data)
    head = ["work", "best C (median)"] + [c[0] for c in cols]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for suite, case, title in PRIMITIVES:
        sizes = sorted(n for (s, c, n) in g if s == suite and c == case)
        if not sizes:
            continue
        n = 10**7 if 10**7 in sizes else sizes[-1]
        rows = g[(suite, case, n)]
        lines.append(_summary_line("%s, n = %s" % (title, fmt_n(n)), rows,
                                   lambda pick, rows=rows: pick(rows), picked, cols))
    for case, title, strategy in MD_SUMMARY:
        for n in sorted(n for (s, c, n) in g if s == "md" and c == case):
            rows = g[("md", case, n)]

            def pick_md(pick, rows=rows, strategy=strategy):
                found = pick([dict(r, impl=_strip_strategy(r["impl"], strategy))
                              for r in rows])
                # the row as published (its own label), for the column notes
                return found and next(r for r in rows if r["median_s"] == found["median_s"]
                                      and r["suite"] == found["suite"])
            lines.append(_summary_line("%s, N = %s, ms/step" % (title, fmt_n(n)),
                                       rows, pick_md, picked, cols))
    return lines


def column_notes(picked):
    """'- Compyle best: compyle cython+omp static (5 cells), ...' per best-of column."""
    out = []
    for header in BEST_OF:
        impls = picked.get(header)
        if not impls:
            continue
        counts = {}
        for impl in impls:
            counts[impl] = counts.get(impl, 0) + 1
        out.append("- %s: %s." % (header, ", ".join(
            "%s (%d %s)" % (impl, k, "cell" if k == 1 else "cells")
            for impl, k in counts.items())))
    return out


def _strip_strategy(impl, strategy):
    """'pcompute cython+omp cells generic' -> 'pcompute cython+omp generic'
    (so MD rows match the summary columns)."""
    return re.sub(r" %s(?= |$)" % re.escape(strategy), "", impl, count=1)


def _summary_line(title, rows, pick, picked=None, cols=COLUMNS):
    ref = next((r for r in rows if r.get("ref_impl") and r["impl"] == r["ref_impl"]), None)
    cells = [title, "%s (%s)" % (fmt_time(ref["median_s"]), ref["impl"]) if ref else "-"]
    for header, how in cols:
        row = pick(how)
        cells.append(ratio_cell(row))
        if picked is not None and row and header in BEST_OF and row.get("ratio_vs_ref"):
            picked.setdefault(header, []).append(row["impl"])
    return "| " + " | ".join(cells) + " |"


def readme_block(data):
    lines = [README_MARKERS[0], "",
             "Generated by `python -m benchmarks.publish` from "
             "[benchmarks/results/published.json](benchmarks/results/published.json) "
             "(do not edit by hand). " + provenance(data), "",
             "Each cell is the median time over the median of the fastest C + OpenMP "
             "version measured in the same run (`best C`: for the primitives C built with "
             "`-march=native`; for the MD the faster of the generic and the "
             "`-march=native` builds), then the same ratio for the best samples: "
             "`1.05 / 0.98` means 5 % slower by median and 2 % faster by best sample. "
             "Lower is better; `-` was not measured. 2 threads unless the column says. "
             + (build_note(data) + " " if build_note(data) else "") +
             "Every row, spread and first-call time: "
             "[benchmarks/results/latest.md](benchmarks/results/latest.md).", ""]
    picked = {}
    lines += readme_table(data, picked)
    cols = column_notes(picked)
    if cols:
        lines += ["", "Where a column is the fastest of several configurations, the one "
                  "each cell shows:", ""] + cols
    notes = _headline_notes(data)
    if notes:
        lines += [""] + notes
    lines += ["", README_MARKERS[1]]
    return "\n".join(lines)


def _headline_notes(data):
    out = []
    g = groups(data)
    over = g.get(("overhead", "Elementwise n=1", 1)) or next(
        (rows for (s, _, _), rows in g.items() if s == "overhead"), None)
    if over:
        row = _named(over, PCOMPUTE) or _prefixed(over, "pcompute cython")
        if row:
            out.append("- Per-call overhead of an Elementwise at n = 1 (%s): %s." % (
                row["impl"], fmt_time(row["median_s"])))
    build = g.get(("build", "cython", 0)) or []
    cold = _named(build, "cold build (first call)")
    warm = _named(build, "warm load (first call)")
    if cold and warm:
        out.append("- One Elementwise kernel on Cython: cold build %s; loaded from the "
                   "cache in a new process %s (medians)." % (fmt_time(cold["median_s"]),
                                                             fmt_time(warm["median_s"])))
    return out


def _md_sampling(data):
    """How the run made an MD sample: runs of 25 steps from the lattice, as
    many as make a sample last 20 ms (runs that recorded ``runs_per_sample``),
    or one run per sample (older runs)."""
    runs = [r["extra"].get("runs_per_sample") for r in data.get("rows", ())
            if r.get("suite") == "md" and isinstance(r.get("extra"), dict)]
    runs = [v for v in runs if v]
    if runs:
        return ("each sample %s run(s) of 25 steps from the lattice, interleaved, enough "
                "for 20 ms" % "-".join(str(v) for v in sorted({min(runs), max(runs)})))
    return "25 steps from the lattice per sample"


def md_doc_block(data):
    g = groups(data)
    lines = [MD_MARKERS[0], "",
             "Generated by ``python -m benchmarks.publish`` from "
             "``benchmarks/results/published.json`` (do not edit by hand). "
             + provenance(data).replace("`", "``").replace("****", ""), "",
             "ms per step (median, %s, at least 7 samples); *vs C* is the median"
             % _md_sampling(data)
             + " over the median of the fastest C + OpenMP "
             "build of the same strategy in the same group (generic or "
             "``-march=native``), *best* the same for the fastest samples.", "",
             ".. list-table::", "   :header-rows: 1", "   :widths: 22 8 40 10 10 10", "",
             "   * - case", "     - N", "     - implementation", "     - ms/step",
             "     - vs C", "     - best"]
    for (suite, case, n), rows in g.items():
        if suite != "md":
            continue
        for r in rows:
            if not r["median_s"]:
                continue
            ref = r.get("ref_impl") == r["impl"]
            wrong = " (wrong)" if r.get("check", "").startswith(("WRONG", "FAILED")) else ""
            lines += ["   * - %s" % case, "     - %s" % fmt_n(n),
                      "     - %s%s%s" % (r["impl"], " (reference)" if ref else "", wrong),
                      "     - %.3g" % (r["median_s"] * 1e3),
                      "     - %s" % ("%.2f" % r["ratio_vs_ref"] if r["ratio_vs_ref"] else "-"),
                      "     - %s" % ("%.2f" % r["ratio_min_vs_ref"]
                                     if r["ratio_min_vs_ref"] else "-")]
    lines += ["", MD_MARKERS[1]]
    return "\n".join(lines)


def latest_md(data):
    m = data["machine"]
    head = ["case", "n", "impl", "median", "IQR", "min-max", "vs C", "vs C (min)",
            "first call", "check", "target"]
    lines = ["# pcompute benchmarks: the published run", "",
             "Generated by `python -m benchmarks.publish` from `published.json` (do not "
             "edit by hand). " + provenance(data), "",
             "Times are per call (MD: per step). *vs C* is the median over the median of "
             "the group's reference (`[ref]`: the fastest of the C + OpenMP versions, "
             "`(C candidate)` the others), *vs C (min)* the same for the fastest samples.",
             "", "Machine: " + "; ".join("%s: %s" % (k, m.get(k)) for k in (
                 "cpu", "cores", "memory_gib", "load_average", "load_average_end", "python",
                 "numpy", "cython", "gcc", "pyopencl", "opencl_device", "numba", "pcompute",
                 "elapsed_s")),
             "", "Peers: " + ", ".join("%s %s" % (k, v) for k, v in
                                       sorted((m.get("peer_versions") or {}).items()))]
    suite = None
    for (s, case, n), rows in groups(data).items():
        if s != suite:
            suite = s
            lines += ["", "### %s" % s, "", "| " + " | ".join(head) + " |",
                      "|" + "---|" * len(head)]
        for r in rows:
            lines.append("| " + " | ".join(_row_cells(r, case, n)) + " |")
    targets = [r for r in data["rows"] if r.get("target")]
    if targets:
        lines += ["", "### Targets", ""]
        for r in targets:
            met = {True: "MET", False: "MISSED"}.get(_bool(r.get("target_met")), "n/a")
            lines.append("- %s %s / %s / n=%s / %s: %s (target %s)" % (
                met, r["suite"], r["case"], fmt_n(r["n"] or 0), r["impl"],
                "%.2fx" % r["ratio_vs_ref"] if r["ratio_vs_ref"] else "-", r["target"]))
    if data.get("notes"):
        lines += ["", "### Notes", ""] + ["- " + n for n in data["notes"]]
    return "\n".join(lines) + "\n"


def _bool(v):
    if isinstance(v, bool) or v is None:
        return v
    return {"True": True, "False": False}.get(str(v))


def _row_cells(r, case, n):
    def t(key):
        return fmt_time(_number(r.get(key)))
    ref = r.get("ref_impl") == r["impl"]
    impl = r["impl"] + (" [ref]" if ref else "")
    if r["kind"] == "reference" and not ref and r.get("ratio_vs_ref") is not None \
            and "serial" not in r["impl"] and "ctypes" not in r["impl"]:
        impl += " (C candidate)"
    ratio = "%.2f" % r["ratio_vs_ref"] if r["ratio_vs_ref"] is not None else "-"
    ratio_min = "%.2f" % r["ratio_min_vs_ref"] if r["ratio_min_vs_ref"] is not None else "-"
    check = (r.get("check") or "") + ((" " + r["note"]) if r.get("note") else "")
    iqr = "%s-%s" % (t("q1_s"), t("q3_s")) if r.get("q1_s") not in (None, "") else "-"
    mm = "%s-%s" % (t("min_s"), t("max_s")) if r.get("min_s") not in (None, "") else "-"
    target = r.get("target") or ""
    if target:
        target += " " + {True: "MET", False: "MISSED"}.get(_bool(r.get("target_met")), "n/a")
    return [case, fmt_n(n or 0), impl, t("median_s"), iqr, mm, ratio, ratio_min,
            t("first_call_s"), check.replace("|", "/"), target]


# --------------------------------------------------------------- splicing

def splice(text, markers, block, where):
    begin, end = markers
    if begin not in text or end not in text:
        raise SystemExit("%s: markers %r ... %r not found" % (where, begin, end))
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    return head + block + tail


def outputs(data):
    """{path: new text} for every file this writes."""
    return {
        README: splice(README.read_text(), README_MARKERS, readme_block(data), README),
        MD_DOC: splice(MD_DOC.read_text(), MD_MARKERS, md_doc_block(data), MD_DOC),
        LATEST_MD: latest_md(data),
    }


def _show(path):
    try:
        return str(path.relative_to(ROOT))
    except ValueError:
        return str(path)


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m benchmarks.publish",
                                description=__doc__.split("\n")[0])
    p.add_argument("run", nargs="?", type=Path,
                   help="a run's JSON to publish (default: the committed %s)"
                   % _show(PUBLISHED))
    p.add_argument("--check", action="store_true",
                   help="write nothing; exit 1 if a table differs from the results file")
    p.add_argument("--force", action="store_true",
                   help="publish a run although it is not a complete quick/full run "
                   "(the tables then say which sizes it measured)")
    args = p.parse_args(argv)
    if args.run and not args.check:
        data = load(args.run)
        if data.get("profile") is None or not data.get("rows"):
            raise SystemExit("%s holds no benchmark rows" % args.run)
        why_not = refusals(data)
        if why_not and not args.force:
            raise SystemExit("%s is not publishable: %s (--force publishes it anyway)"
                             % (args.run, "; ".join(why_not)))
        if args.run.resolve() != PUBLISHED.resolve():
            shutil.copyfile(args.run, PUBLISHED)
    data = load(args.run if args.check and args.run else PUBLISHED)
    stale = []
    for path, text in outputs(data).items():
        old = path.read_text() if path.exists() else None
        if old == text:
            continue
        if args.check:
            stale.append(_show(path))
        else:
            path.write_text(text)
            print("wrote %s" % _show(path))
    if stale:
        print("out of date with %s: %s (run python -m benchmarks.publish)"
              % (_show(PUBLISHED), ", ".join(stale)))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
