"""The benchmark harness's own logic (no timing): the published tables come
from the committed results file, the strongest C version is each group's
reference, the LAMMPS row states what LAMMPS's log reports, and the MD
reference energies live in the repository."""
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks import publish  # noqa: E402
from benchmarks.peers.lammps_md import label, verify_log  # noqa: E402
from benchmarks.results import Recorder  # noqa: E402
from benchmarks.timing import Stats  # noqa: E402


def test_published_tables_match_the_results_file(capsys):
    assert publish.main(["--check"]) == 0, capsys.readouterr().out


def test_publish_check_catches_a_hand_edit(tmp_path, monkeypatch):
    readme = tmp_path / "README.md"
    text = publish.README.read_text()
    begin = text.index(publish.README_MARKERS[0])
    readme.write_text(text[:begin] + text[begin:].replace("|", "| 0.50 |", 1))
    monkeypatch.setattr(publish, "README", readme)
    assert publish.main(["--check"]) == 1


def _rows(*items):
    rec = Recorder()
    for impl, median, best, is_ref in items:
        rec.add("sort", "keys", 10**7, impl, "reference" if is_ref else "pcompute",
                Stats(median, median, median, best, median, 7, 1), is_ref=is_ref)
    rec.finish()
    return rec.rows


def test_fastest_c_candidate_is_the_reference():
    rows = _rows(("C 8-bit", 0.20, 0.19, True), ("C 11-bit", 0.10, 0.09, True),
                 ("pcompute", 0.12, 0.099, False))
    assert {r.ref_impl for r in rows} == {"C 11-bit"}
    mine = rows[2]
    assert mine.ratio == pytest.approx(1.2) and mine.ratio_min == pytest.approx(1.1)


def test_summary_cells_give_median_and_best_ratios():
    data = {"machine": {"cpu": "Test CPU", "cores": 2, "load_average": 0.1,
                        "load_average_end": 1.5, "pcompute": "0.1.0 @ abc1234"},
            "profile": "full", "notes": [], "rows": []}
    for r in _rows(("C+OpenMP (in C)", 0.010, 0.009, True),
                   ("pcompute cython+omp", 0.0105, 0.0099, False)):
        d = {"suite": "axpy", "case": "float64", "n": r.n, "impl": r.impl, "kind": r.kind,
             "median_s": r.stats.median, "min_s": r.stats.min, "ref_impl": r.ref_impl,
             "ratio_vs_ref": r.ratio, "ratio_min_vs_ref": r.ratio_min, "check": "ok"}
        data["rows"].append(d)
    block = publish.readme_block(data)
    assert "| axpy, float64, n = 10^7 | 10 ms (C+OpenMP (in C)) | 1.05 / 1.10 |" in block
    assert "abc1234" in block and "load average 0.1 at the start and 1.5 at the end" in block
    assert "busy machine" in block              # 1.5 > half of 2 cores


LOG_OMP = """\
package omp 2
  using 2 OpenMP thread(s) per MPI task
  (1) pair lj/cut/omp, perpetual
Loop time of 0.00123 on 2 procs for 0 steps with 1000 atoms
"""
LOG_SERIAL = """\
  (1) pair lj/cut, perpetual
Loop time of 0.00123 on 1 procs for 0 steps with 1000 atoms
"""


def test_lammps_label_states_what_the_log_reports(tmp_path):
    path = tmp_path / "log.lammps"
    path.write_text(LOG_OMP)
    info = verify_log(path)
    assert info == {"threads": 2, "procs": 2, "pair_style": "lj/cut/omp", "verified": True}
    assert label(info, 0.3) == "LAMMPS lj/cut/omp, 2 OpenMP threads (log), skin 0.3"
    path.write_text(LOG_SERIAL)
    info = verify_log(path)
    assert not info["verified"]
    assert "NOT in use" in label(info, 0.0) and "1 thread" in label(info, 0.0)


def test_md_reference_energies_are_in_the_repository():
    data = json.loads((ROOT / "benchmarks" / "reference" / "md_energies.json").read_text())
    assert "md.c" in data["source"] and "LAMMPS" in data["source"]
    import test_md
    assert data["energies"]["1000"] == {"E0": test_md.E0_N1000, "E25": test_md.E25_N1000}
