"""Draw a benchmark CSV: ``python -m benchmarks.plot [CSV] [--out DIR]``.

For every (suite, case): with several sizes, the time per call against n
for each implementation and the speed-up over the C reference against n;
with one size, bars of the ratio to the C reference (or of the time, where
there is no reference).  The MD suite also gets ``md-ms_per_step_vs_N.png``:
ms per step against N for every implementation, one panel per neighbour mode.  Needs matplotlib (``pip install matplotlib``).
"""
import argparse
import csv
import re
import sys
from collections import defaultdict
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


def load(path):
    """{(suite, case): [row dicts with a median]}, in file order."""
    groups = defaultdict(list)
    with open(path, newline="") as fh:
        for row in csv.DictReader(fh):
            if not row.get("median_s"):
                continue
            row["n"] = int(row["n"]) if row["n"] else None
            row["median_s"] = float(row["median_s"])
            row["ratio"] = float(row["ratio_vs_ref"]) if row.get("ratio_vs_ref") else None
            groups[(row["suite"], row["case"])].append(row)
    return groups


def by_impl(rows):
    out = defaultdict(list)
    for row in rows:
        out[row["impl"]].append(row)
    return out


def plot_sizes(plt, suite, case, rows, out):
    """Time vs n and speed-up over C vs n; returns the files written."""
    fig, (ax_t, ax_s) = plt.subplots(1, 2, figsize=(13, 5))
    for impl, rs in by_impl(rows).items():
        rs.sort(key=lambda r: r["n"])
        ax_t.loglog([r["n"] for r in rs], [r["median_s"] for r in rs], "o-", label=impl)
        pts = [(r["n"], 1 / r["ratio"]) for r in rs if r["ratio"]]
        if pts:
            ax_s.loglog(*zip(*pts), "o-", label=impl)
    ax_t.set(xlabel="n", ylabel="seconds per call (median)", title="%s %s" % (suite, case))
    ax_s.set(xlabel="n", ylabel="speed-up over the C reference (higher is better)",
             title="%s %s: C time / time" % (suite, case))
    ax_s.axhline(1.0, color="grey", lw=0.8)
    ax_t.legend(fontsize=7)
    ax_t.grid(True, which="both", alpha=0.3)
    ax_s.grid(True, which="both", alpha=0.3)
    return _save(plt, fig, out, suite, case)


def plot_bars(plt, suite, case, rows, out):
    """One size: bars of the ratio to C (or of the time without a reference)."""
    use_ratio = all(r["ratio"] for r in rows)
    values = [r["ratio"] if use_ratio else r["median_s"] for r in rows]
    fig, ax = plt.subplots(figsize=(9, 0.4 * len(rows) + 1.5))
    ax.barh([r["impl"] for r in rows], values)
    ax.invert_yaxis()
    ax.set_xscale("log")
    if use_ratio:
        ax.axvline(1.0, color="grey", lw=0.8)
    ax.set(xlabel="time / C reference time (lower is better)" if use_ratio
           else "seconds (median)", title="%s %s%s" % (
               suite, case, ", n = %d" % rows[0]["n"] if rows[0]["n"] else ""))
    fig.tight_layout()
    return _save(plt, fig, out, suite, case)


def plot_md(plt, rows, out):
    """MD: ms per step against N, one line per (implementation, case), a panel
    per neighbour mode (2-D rebuilding every step, 2-D with a skin, 3-D)."""
    panels = {}
    for row in rows:
        case = row["case"]
        key = "3-D" if case.startswith("3-D") else ("2-D, skin" if "skin" in case else
                                                   "2-D, rebuild every step")
        panels.setdefault(key, []).append(row)
    if not panels:
        return []
    fig, axes = plt.subplots(1, len(panels), figsize=(7 * len(panels), 5.5), squeeze=False)
    for ax, (title, prs) in zip(axes[0], panels.items()):
        series = defaultdict(list)
        for r in prs:
            label = r["impl"]
            if title == "3-D":
                label = "%s (%s)" % (r["impl"], r["case"].split()[1])
            series[label].append(r)
        for label, rs in series.items():
            rs.sort(key=lambda r: r["n"])
            style = "s--" if r_kind(rs) == "reference" else ("o-" if r_kind(rs) == "pcompute"
                                                           else "^:")
            ax.loglog([r["n"] for r in rs], [1e3 * r["median_s"] for r in rs], style,
                      label=label)
        ax.set(xlabel="N (particles)", ylabel="ms per step (median)", title="MD " + title)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    return _save(plt, fig, out, "md", "ms_per_step_vs_N")


def r_kind(rs):
    return rs[0].get("kind", "")


def _save(plt, fig, out, suite, case):
    path = out / ("%s-%s.png" % (suite, re.sub(r"[^\w.=-]+", "_", case)))
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return [path]


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m benchmarks.plot", description=__doc__)
    p.add_argument("csv", nargs="?", type=Path, default=RESULTS / "latest.csv")
    p.add_argument("--out", type=Path, default=RESULTS / "plots", metavar="DIR")
    args = p.parse_args(argv)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("error: matplotlib is not installed, so no plots were drawn; install it "
              "with: pip install matplotlib", file=sys.stderr)
        return 2
    if not args.csv.exists():
        print("error: %s does not exist; run python -m benchmarks first" % args.csv,
              file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    written = []
    groups = load(args.csv)
    for (suite, case), rows in groups.items():
        several = len({r["n"] for r in rows}) > 1
        draw = plot_sizes if several else plot_bars
        written += draw(plt, suite, case, rows, args.out)
    md_rows = [r for (suite, _), rows in groups.items() if suite == "md" for r in rows]
    written += plot_md(plt, md_rows, args.out)
    print("wrote %d plot(s) to %s" % (len(written), args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
