"""Collected measurements, the ratio table, and the CSV / JSON / Markdown files."""
import csv
import json
from dataclasses import dataclass, field
from typing import Optional

from .timing import Stats

CSV_FIELDS = ["suite", "case", "n", "impl", "kind", "median_s", "q1_s", "q3_s", "min_s",
              "max_s", "reps", "inner", "first_call_s", "ref_impl", "ratio_vs_ref",
              "ratio_min_vs_ref",
              "target", "target_met", "check", "note"]


@dataclass
class Row:
    suite: str
    case: str
    n: int
    impl: str
    kind: str                       # 'pcompute', 'peer' or 'reference'
    stats: Optional[Stats] = None
    first_s: Optional[float] = None  # first call: build or cache load + one run
    check: str = ""                 # 'ok', or what was wrong
    note: str = ""
    # ('ratio', 1.15) vs the reference, ('time', s), ('vs', impl, 1.5): median over
    # the median of row ``impl`` of the same group; ('speedup', 4.0): at least this
    # factor, read from extra['target_value'] (a summary row); or a list of these.
    target: Optional[object] = None
    is_ref: bool = False            # a candidate reference (the fastest one is used)
    ref_impl: str = ""
    ratio: Optional[float] = None       # median / the reference's median
    ratio_min: Optional[float] = None   # min / the reference's min (best cases)
    target_met: Optional[bool] = None
    extra: dict = field(default_factory=dict)

    def targets(self):
        """The targets as a list of tuples."""
        if self.target is None:
            return []
        return list(self.target) if isinstance(self.target, list) else [self.target]

    def target_text(self):
        return "; ".join(_target_text(t) for t in self.targets())


def _target_text(t):
    if t[0] == "vs":
        return "<= %.3gx %s" % (t[2], t[1])
    if t[0] == "vs-min":
        return "<= %.3gx %s (best samples)" % (t[2], t[1])
    kind, value = t
    if kind == "speedup":
        return ">= %.3gx faster" % value
    return "<= %.3gx" % value if kind == "ratio" else "< %s" % fmt_time(value)


def reference_of(rows):
    """The group's reference: of the rows marked ``is_ref`` (the C
    baselines), the one with the smallest median, so every ratio is taken
    against the strongest C version measured in the same run."""
    refs = [r for r in rows if r.is_ref and r.stats]
    return min(refs, key=lambda r: r.stats.median) if refs else None


def fmt_time(s):
    if s is None:
        return "-"
    if s < 0.9995e-3:
        return "%.3g us" % (s * 1e6)
    if s < 0.9995:
        return "%.3g ms" % (s * 1e3)
    return "%.3g s" % s


def fmt_n(n):
    if n is None:
        return "-"
    if n >= 1000 and str(n).rstrip("0") == "1":
        return "10^%d" % (len(str(n)) - 1)
    return str(n)


class Recorder:
    """Rows in the order the suites add them, plus free-text notes."""

    def __init__(self):
        self.rows = []
        self.notes = []

    def add(self, suite, case, n, impl, kind, stats=None, **kw):
        row = Row(suite, case, n, impl, kind, stats, **kw)
        self.rows.append(row)
        return row

    def note(self, text):
        print("  note: " + text)
        self.notes.append(text)

    def groups(self):
        """{(suite, case, n): [rows]} in insertion order."""
        out = {}
        for row in self.rows:
            out.setdefault((row.suite, row.case, row.n), []).append(row)
        return out

    def finish(self):
        """Fill in ratios against each group's reference and the targets' verdicts."""
        for rows in self.groups().values():
            ref = reference_of(rows)
            for row in rows:
                if ref is not None and row.stats is not None:
                    row.ref_impl = ref.impl
                    row.ratio = row.stats.median / ref.stats.median
                    row.ratio_min = row.stats.min / ref.stats.min
                verdicts = []
                for t in row.targets():
                    got = self._target_value(row, rows, t)
                    met = None if got is None else bool(
                        got >= t[-1] if t[0] == "speedup" else got <= t[-1])
                    verdicts.append((t, got, met))
                row.extra["targets"] = [(_target_text(t), got, met) for t, got, met in
                                        verdicts] if len(verdicts) > 1 else \
                    row.extra.get("targets")
                if row.extra.get("targets") is None:
                    row.extra.pop("targets", None)
                mets = [met for _, _, met in verdicts]
                row.target_met = None if not mets or None in mets else all(mets)
                row._verdicts = verdicts

    @staticmethod
    def _target_value(row, rows, t):
        if t[0] == "ratio":
            return row.ratio
        if t[0] in ("vs", "vs-min"):
            other = next((r for r in rows if r.impl == t[1] and r.stats), None)
            if other is None or row.stats is None:
                return None
            if t[0] == "vs-min":
                return row.stats.min / other.stats.min
            return row.stats.median / other.stats.median
        return row.extra.get("target_value") or (row.stats and row.stats.median)

    # ------------------------------------------------------------- output
    def table_lines(self, markdown=False):
        head = ["case", "n", "impl", "median", "IQR", "min-max", "vs C", "vs C (min)",
                "first call", "check", "target"]
        lines = []
        suite = None
        for (s, case, n), rows in self.groups().items():
            if s != suite:
                suite = s
                lines.append("")
                lines.append(("### %s" if markdown else "== %s ==") % s)
                if markdown:
                    lines += ["", "| " + " | ".join(head) + " |",
                              "|" + "---|" * len(head)]
            for row in rows:
                cells = _cells(row, case, n)
                if markdown:
                    lines.append("| " + " | ".join(cells) + " |")
                else:
                    lines.append("  %-18s %-5s %-36s %9s %19s %19s %6s %6s %9s %-4s %s"
                                 % tuple(cells))
        return lines

    def targets_summary(self):
        out = []
        for row in self.rows:
            for t, got, met in getattr(row, "_verdicts", []):
                verdict = {True: "MET", False: "MISSED", None: "n/a"}[met]
                if got is None:
                    text = "-"
                elif t[0] in ("ratio", "vs", "vs-min", "speedup"):
                    text = "%.2fx" % got
                else:
                    text = fmt_time(got)
                where = " / n=%s" % fmt_n(row.n) if row.n and row.n > 1 else ""
                out.append("%-6s %s / %s%s / %s: %s (target %s)" % (
                    verdict, row.suite, row.case, where, row.impl, text, _target_text(t)))
        return out

    def write_csv(self, path):
        with open(path, "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=CSV_FIELDS + ["extra"])
            w.writeheader()
            for row in self.rows:
                w.writerow(_csv_dict(row))

    def write_json(self, path, machine, profile):
        data = {"machine": machine, "profile": profile, "notes": self.notes,
                "rows": [dict(_csv_dict(r), extra=r.extra) for r in self.rows]}
        with open(path, "w") as fh:
            json.dump(data, fh, indent=1, default=str)

    def write_markdown(self, path, machine, profile):
        lines = ["# pcompute benchmarks: latest run", "",
                 "Written by `python -m benchmarks` (profile `%s`, %s). Times are the "
                 "median per call; *vs C* is the median over the hand-written C+OpenMP "
                 "reference timed inside C in the same run (lower is better), *vs C "
                 "(min)* the same for the fastest samples (less sensitive to a busy "
                 "machine)." %
                 (profile, machine.get("date", "")), "",
                 "Machine: %s" % machine_line(machine)]
        lines += self.table_lines(markdown=True)
        summary = self.targets_summary()
        if summary:
            lines += ["", "### Targets", ""] + ["- " + s for s in summary]
        if self.notes:
            lines += ["", "### Notes", ""] + ["- " + s for s in self.notes]
        with open(path, "w") as fh:
            fh.write("\n".join(lines) + "\n")


def machine_line(m):
    return "; ".join("%s: %s" % (k, m.get(k, "?")) for k in
                     ("cpu", "cores", "load_average", "load_average_end", "python",
                      "numpy", "cython", "gcc", "pyopencl", "opencl_device", "numba",
                      "pcompute"))


def _cells(row, case, n):
    st = row.stats
    iqr = "%s-%s" % (fmt_time(st.q1), fmt_time(st.q3)) if st else "-"
    mm = "%s-%s" % (fmt_time(st.min), fmt_time(st.max)) if st else "-"
    ratio = "%.2f" % row.ratio if row.ratio is not None else "-"
    ratio_min = "%.2f" % row.ratio_min if row.ratio_min is not None else "-"
    verdicts = getattr(row, "_verdicts", None)
    if verdicts:
        target = "; ".join("%s %s" % (_target_text(t), {True: "MET", False: "MISSED",
                                                        None: "n/a"}[met])
                           for t, _, met in verdicts)
    else:
        target = row.target_text()
    impl = row.impl + (" [ref]" if row.is_ref and row.ref_impl == row.impl else
                       " (C candidate)" if row.is_ref else "")
    check = row.check + ((" " + row.note) if row.note else "")
    return [case, fmt_n(n), impl, fmt_time(st.median) if st else "-", iqr, mm, ratio,
            ratio_min, fmt_time(row.first_s), check, target]


def _csv_dict(row):
    st = row.stats
    d = {"suite": row.suite, "case": row.case, "n": row.n, "impl": row.impl,
         "kind": row.kind, "first_call_s": row.first_s, "ref_impl": row.ref_impl,
         "ratio_vs_ref": row.ratio, "ratio_min_vs_ref": row.ratio_min, "target": row.target_text(),
         "target_met": row.target_met, "check": row.check, "note": row.note,
         "extra": json.dumps(row.extra, default=str) if row.extra else ""}
    if st is not None:
        d.update(median_s=st.median, q1_s=st.q1, q3_s=st.q3, min_s=st.min,
                 max_s=st.max, reps=st.reps, inner=st.inner)
    return d

