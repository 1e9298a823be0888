"""The benchmark harness's own logic (no timing): the published tables come
from the committed results file, the strongest C version is each group's
reference, the LAMMPS row states what LAMMPS's log reports, and the MD
reference energies live in the repository."""
import json
import dataclasses
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks import publish, reference  # noqa: E402
from benchmarks.peers.lammps_md import label, verify_log  # noqa: E402
from benchmarks.context import Context, _Entry  # noqa: E402
from benchmarks.results import Recorder  # noqa: E402
from benchmarks.suites import sort as sort_suite  # noqa: E402
from benchmarks.timing import QUICK, SMOKE, Stats  # noqa: E402


def test_published_tables_match_the_results_file(capsys):
    assert publish.main(["--check"]) == 0, capsys.readouterr().out


def test_gpu_table_matches_its_results_file(capsys):
    from benchmarks import gpu_publish
    assert gpu_publish.main(["--check"]) == 0, capsys.readouterr().out


def test_gpu_table_check_catches_a_hand_edit(tmp_path, monkeypatch):
    from benchmarks import gpu_publish
    doc = tmp_path / "benchmarks.rst"
    doc.write_text(gpu_publish.DOC.read_text().replace("   * - sum", "   * - summ", 1))
    monkeypatch.setattr(gpu_publish, "DOC", doc)
    assert gpu_publish.main(["--check"]) == 1


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


def test_c_sort_candidates_include_the_narrowest_digits_of_the_fewest_passes():
    assert sort_suite.c_digit_widths(32) == [8, 11]
    assert sort_suite.c_digit_widths(20) == [7, 8, 11]       # 3 passes of 7 bits
    assert sort_suite.c_digit_widths(16) == [8, 11]
    assert sort_suite.c_digit_widths(10) == [5, 8, 11]


@pytest.mark.parametrize("key_bits", [32, 20])
def test_every_c_sort_candidate_sorts_like_numpy(key_bits):
    """Each C radix sort candidate (digit width) of the sort suite gives
    numpy's stable order, on 2 threads when OpenMP has them."""
    n = 100003
    low = -2 ** 31 if key_bits == 32 else 0
    keys = np.random.default_rng(key_bits).integers(low, 2 ** key_bits + low, n,
                                                    dtype=np.int32)
    vals = np.arange(n, dtype=np.int32)
    order = np.argsort(keys, kind="stable")
    cref = reference.load()
    for bits in sort_suite.c_digit_widths(key_bits):
        out = [np.zeros_like(keys) for _ in range(4)]
        cref.sort(keys, vals, *out, key_bits, 0, bits)
        assert (out[0] == keys[order]).all() and (out[1] == order).all(), bits


@pytest.mark.parametrize("profile, fast, slow", [(QUICK, 9, 3), (SMOKE, 2, 2)])
def test_group_min_samples_apply_to_fast_rows_only(profile, fast, slow, capsys):
    """With min_samples, the rows faster than SLOW_PEER get that many
    samples (at most max_reps), a slow peer the profile's min_reps; without,
    every row stops at min_reps once the budget (none here) is spent."""
    for min_samples, want in ((9, {"fast": fast, "slow": slow}),
                              (None, {"fast": profile.min_reps, "slow": profile.min_reps})):
        ctx = Context(dataclasses.replace(profile, budget=0.0), Recorder())
        with ctx.group("sort", "keys", 10, min_samples=min_samples) as g:
            for impl, seconds in (("fast", 0.01), ("slow", 1.0)):
                row = dict(impl=impl, kind="peer", is_ref=impl == "fast")
                g.entries.append(_Entry(row, lambda k, s=seconds: s, 1))
        assert {e.row_kw["impl"]: len(e.samples) for e in g.entries} == want
    capsys.readouterr()


def test_group_rows_record_the_load_before_and_after_their_samples(monkeypatch, capsys):
    """Every row of a group keeps the 1-minute load average read before and
    after the group's samples (as the MD groups do), and the group prints it."""
    from benchmarks import context
    loads = iter([1.25, 3.5])
    monkeypatch.setattr(context, "load_average", lambda: next(loads))
    ctx = Context(dataclasses.replace(SMOKE, budget=0.0), Recorder())
    with ctx.group("sort", "keys", 10) as g:
        for impl in ("a", "b"):
            g.entries.append(_Entry(dict(impl=impl, kind="peer", is_ref=impl == "a",
                                         extra={"kept": 1}), lambda k: 0.01, 1))
    assert [r.extra for r in ctx.rec.rows] == [{"kept": 1, "load": (1.25, 3.5)}] * 2
    assert "load average 1.25 before, 3.5 after the samples" in capsys.readouterr().out


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
    # 1.5 at the end is the run's own 2 threads: not a busy machine
    assert "busy machine" not in block
    for start, end in ((1.2, 1.5), (0.1, 2.6)):  # others at the start / at the end
        data["machine"].update(load_average=start, load_average_end=end)
        assert "busy machine" in publish.readme_block(data)


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


# ---------------------------------------------------------- publishing a run

def _run_data(**machine):
    from benchmarks.suites import SUITES
    m = {"suites": list(SUITES), "sizes": "default", "md_sizes": "default"}
    m.update(machine)
    return {"machine": m, "profile": machine.pop("profile", "quick"), "rows": []}


def test_a_complete_quick_run_is_publishable():
    assert publish.refusals(_run_data()) == []
    assert publish.refusals(dict(_run_data(), profile="full")) == []


def test_smoke_partial_and_resized_runs_are_refused():
    assert any("smoke" in why for why in publish.refusals(dict(_run_data(), profile="smoke")))
    why = publish.refusals(_run_data(suites=["axpy", "md"]))
    assert len(why) == 1 and "suites not run" in why[0] and "sum" in why[0]
    assert any("--md-n" in w for w in publish.refusals(_run_data(md_sizes=[1000])))
    assert any("--n" in w for w in publish.refusals(_run_data(sizes=[10**5])))
    assert any("--md-case" in w for w in publish.refusals(_run_data(md_cases=["skin"])))
    assert publish.refusals(_run_data(md_cases="all")) == []
    assert publish.refusals({"machine": {}, "profile": "quick"}) == [
        "the run does not say which suites it ran"]


def test_publish_refuses_a_smoke_run_and_writes_nothing(tmp_path, monkeypatch):
    run = tmp_path / "run.json"
    data = _run_data()
    data["profile"] = "smoke"
    data["rows"] = [{"suite": "axpy", "case": "float64", "n": 10, "impl": "x", "kind": "peer"}]
    run.write_text(json.dumps(data))
    target = tmp_path / "published.json"
    monkeypatch.setattr(publish, "PUBLISHED", target)
    with pytest.raises(SystemExit, match="not publishable.*smoke"):
        publish.main([str(run)])
    assert not target.exists()


def test_readme_names_the_configuration_of_best_of_columns():
    rows = []
    for impl, median, is_ref in (("C+OpenMP (in C)", 0.010, True),
                                 ("pcompute cython+omp", 0.011, False),
                                 ("compyle cython+omp", 0.030, False),
                                 ("compyle cython+omp static", 0.020, False),
                                 ("compyle cython", 0.025, False)):
        rows.append({"suite": "axpy", "case": "float64", "n": 10**7, "impl": impl,
                     "kind": "reference" if is_ref else "peer", "median_s": median,
                     "min_s": median, "ref_impl": "C+OpenMP (in C)",
                     "ratio_vs_ref": median / 0.010, "ratio_min_vs_ref": median / 0.010,
                     "check": "ok"})
    data = {"machine": {"cores": 2}, "profile": "quick", "notes": [], "rows": rows}
    block = publish.readme_block(data)
    # default schedule and best configuration side by side (no build column:
    # the run measured one pcompute build only)
    assert "| 1.10 / 1.10 | - | - | - | 3.00 / 3.00 | 2.00 / 2.00 |" in block
    assert "- Compyle best: compyle cython+omp static (1 cell)." in block


@pytest.mark.parametrize("suffix, header, says", [
    (" generic", "pcompute generic", "`pcompute OpenMP` is pcompute's default build, made "
     "for the CPU at hand"),
    (" -march=native", "pcompute -march=native", "`pcompute OpenMP` is the build that was "
     "pcompute's default at the commit measured (generic x86-64)")])
def test_the_second_pcompute_build_is_named_as_the_run_measured_it(suffix, header, says):
    """Runs since the default build is made for the host CPU have 'generic'
    rows; older runs '-march=native' rows: the summary shows the column the
    run has, and says what 'pcompute OpenMP' was."""
    rows = []
    for impl, median, is_ref in (("C+OpenMP (in C)", 0.010, True),
                                 ("pcompute cython+omp", 0.011, False),
                                 ("pcompute cython+omp" + suffix, 0.012, False)):
        rows.append({"suite": "axpy", "case": "float64", "n": 10**7, "impl": impl,
                     "kind": "reference" if is_ref else "pcompute", "median_s": median,
                     "min_s": median, "ref_impl": "C+OpenMP (in C)",
                     "ratio_vs_ref": median / 0.010, "ratio_min_vs_ref": median / 0.010,
                     "check": "ok"})
    block = publish.readme_block({"machine": {"cores": 2}, "profile": "quick", "notes": [],
                                  "rows": rows})
    assert "| best C (median) | pcompute OpenMP | %s | numpy |" % header in block
    assert "| 1.10 / 1.10 | 1.20 / 1.20 | - |" in block
    assert says in block
    other = ({"pcompute generic", "pcompute -march=native"} - {header}).pop()
    assert other not in block


def test_md_summary_keeps_small_systems_and_3d():
    rows = []
    for case, n in (("2-D cells", 1000), ("2-D cells", 10**4), ("3-D periodic cells", 10**4)):
        for impl, median in (("C+OpenMP cells", 0.001), ("pcompute cython+omp cells", 0.002)):
            rows.append({"suite": "md", "case": case, "n": n, "impl": impl,
                         "kind": "reference" if impl.startswith("C") else "pcompute",
                         "median_s": median, "min_s": median, "ref_impl": "C+OpenMP cells",
                         "ratio_vs_ref": median / 0.001, "ratio_min_vs_ref": median / 0.001,
                         "check": "ok"})
    block = publish.readme_block({"machine": {}, "profile": "quick", "notes": [],
                                  "rows": rows})
    for title in ("MD 2-D cells, N = 10^3", "MD 2-D cells, N = 10^4",
                  "MD 3-D periodic cells, N = 10^4"):
        assert "| %s, ms/step | 1 ms (C+OpenMP cells) | 2.00 / 2.00 |" % title in block
    doc = publish.md_doc_block({"machine": {}, "profile": "quick", "notes": [],
                                "rows": rows})
    assert "     - 10^3" in doc


# ------------------------------------------------------------ running a run

def test_a_failing_suite_is_recorded_and_the_run_goes_on(monkeypatch, capsys):
    from benchmarks import __main__ as bench
    from benchmarks.context import Context
    from benchmarks.timing import SMOKE
    ran = []

    class Broken:
        @staticmethod
        def run(ctx):
            raise RuntimeError("boom")

    class Fine:
        @staticmethod
        def run(ctx):
            ran.append(ctx.md_sizes)
    monkeypatch.setattr(bench, "SUITES", {"broken": Broken, "fine": Fine})
    rec = Recorder()
    elapsed = bench.run_suites(Context(SMOKE, rec), ["broken", "fine"])
    assert list(elapsed) == ["broken", "fine"] and ran == [(1000,)]
    assert rec.rows[0].check.startswith("FAILED RuntimeError: boom")
    assert any("suite broken stopped early" in n for n in rec.notes)


def test_profiles_choose_the_md_sizes():
    from benchmarks.context import Context
    from benchmarks.timing import FULL, QUICK
    assert Context(QUICK, Recorder()).md_sizes == (10**3, 10**4, 10**5)
    assert 10**6 in Context(FULL, Recorder()).md_sizes
    assert Context(QUICK, Recorder(), sizes=(10**5,)).md_sizes == (10**5,)
    assert Context(QUICK, Recorder(), sizes=(10**5,), md_sizes=(10**3,)).md_sizes == (10**3,)
    assert QUICK.md_samples >= 7 and FULL.md_samples >= 7


def test_a_missing_peer_is_a_loud_line_and_a_note(monkeypatch, capsys):
    from benchmarks import __main__ as bench

    class Gone:
        @staticmethod
        def why_missing():
            return "gone is not importable (ImportError: no module named gone)"

    class Here:
        @staticmethod
        def why_missing():
            return None
    monkeypatch.setattr(bench, "PEERS", (("gone", Gone), ("here", Here)))
    missing = bench.missing_peers()
    assert missing == [("gone", Gone.why_missing())]
    rec = Recorder()
    bench.peer_notes(rec, missing)
    out = capsys.readouterr().out
    assert "!!!!" in out and "MISSING PEER gone" in out and "here" not in out
    assert rec.notes == ["MISSING PEER gone: " + Gone.why_missing()]


def test_the_repository_cites_no_file_outside_it():
    """Figures and facts a page or test relies on live in the repository with
    their source named: nothing may point at the team's notes outside it."""
    outside = ("MEASURED" + ".md", "../" + "shared", "work/" + "shared")
    hits = []
    for path in ROOT.rglob("*"):
        rel = path.relative_to(ROOT)
        if rel.parts[0] in (".git", ".venv", "build", "_build") or not path.is_file() \
                or "egg-info" in rel.parts[0] or path.suffix not in (
                    ".py", ".md", ".rst", ".txt", ".toml", ".cfg", ".json", ".c", ".mako",
                    ".sh", ""):
            continue
        try:
            text = path.read_text()
        except (UnicodeDecodeError, OSError):
            continue
        hits += ["%s: %s" % (rel, s) for s in outside if s in text]
    assert not hits, hits


def test_a_forced_smoke_run_says_it_is_no_measurement():
    data = {"machine": {"cores": 2}, "profile": "smoke", "notes": [], "rows": []}
    assert "not a measurement" in publish.provenance(data)
    assert "not a measurement" not in publish.provenance(dict(data, profile="quick"))


# ---------------------------------------------------------- suites and A/B runs

def test_every_suite_is_found_under_its_name_and_imported_on_lookup():
    import subprocess
    from benchmarks.suites import ORDER, SUITES
    assert list(SUITES) == [name for name, _ in ORDER] and len(SUITES) == 16
    for name, module in ORDER:
        assert (ROOT / "benchmarks" / "suites" / (module + ".py")).exists()
    code = ("import sys, benchmarks.suites as s; s.SUITES['scan']; "
            "print(sorted(m for m in sys.modules if m.startswith('benchmarks.suites.')))")
    out = subprocess.run([sys.executable, "-c", code], cwd=str(ROOT), check=True,
                         capture_output=True, text=True).stdout
    assert out.strip() == "['benchmarks.suites.scan']"
    assert SUITES["segscan"].NAME == "segscan"
    with pytest.raises(KeyError):
        SUITES["nope"]


def test_ab_compares_rows_of_both_trees():
    from benchmarks import ab
    samples = {"A": {"sum/f/n=1/pc": [(2.0, 1.0, "ok"), (4.0, 1.5, "ok"), (3.0, 2.0, "ok")],
                     "only/A": [(1.0, 1.0, "ok")]},
               "B": {"sum/f/n=1/pc": [(3.0, 1.2, "ok"), (6.0, 2.0, "WRONG"),
                                      (4.5, 3.0, "ok")]}}
    (row,) = ab.compare(samples)
    assert row["row"] == "sum/f/n=1/pc" and row["rounds"] == 3
    assert row["ratio_median"] == pytest.approx(4.5 / 3.0)
    assert row["ratio_best"] == pytest.approx(1.2 / 1.0)
    assert row["checks"] == ["WRONG"]
    meta = dict(before="a", after="b", only="sum", n="1e6", rounds=3, cpu="X", cores=2,
                load_start=0.1, load_end=0.2, elapsed_s=5.0)
    text = "\n".join(ab.report([row], meta))
    assert "1.500" in text and "1.200" in text and "check: WRONG" in text
    assert "load average 0.1 at the start" in text


def test_ab_times_the_tree_it_extracted(tmp_path):
    """The harness process imports pcompute from the extracted tree, not from
    this checkout or an editable install."""
    from benchmarks import ab
    tree = tmp_path / "tree"
    assert ab.extract("WORKTREE", tree).startswith("worktree of ")
    assert (tree / "examples" / "md" / "simulation.py").is_file()    # the MD suite's code
    work = tmp_path / "work"
    work.mkdir()
    ab.check_imports(tree, work)
    with pytest.raises(SystemExit, match="not the trees under test"):
        ab.check_imports(tmp_path / "missing", work)
    (tree / "examples" / "md" / "__init__.py").unlink()      # examples.md from this checkout
    with pytest.raises(SystemExit, match="not the trees under test"):
        ab.check_imports(tree, work)


def test_ab_hands_the_md_options_to_the_harness(tmp_path, monkeypatch):
    from benchmarks import ab
    commands = []

    def run(cmd, **kwargs):
        commands.append(cmd)
        return subprocess.CompletedProcess(cmd, 3, "", "stopped here")
    monkeypatch.setattr(ab.subprocess, "run", run)
    args = ab.parse(["--only", "md", "--n", "1e3", "--md-n", "1e3", "--md-case", "skin"])
    with pytest.raises(SystemExit, match="stopped here"):
        ab.run_harness(tmp_path, tmp_path, tmp_path / "out", args)
    assert commands[0][-4:] == ["--md-n", "1e3", "--md-case", "skin"]
    with pytest.raises(SystemExit):
        ab.run_harness(tmp_path, tmp_path, tmp_path / "out", ab.parse(["--only", "md"]))
    assert "--md-n" not in commands[1] and "--md-case" not in commands[1]


def test_the_benchmarks_refuse_the_test_suites_opt_level(capsys):
    """The suite builds at -O0 (PCOMPUTE_OPT_LEVEL, also in processes it
    starts): the benchmarks never time that build, and benchmarks.ab does
    not hand the variable to its harness processes."""
    from benchmarks import __main__ as bench
    from benchmarks import ab
    from pcompute.config import use_config
    with use_config(opt_level=0):
        assert bench.main(["--only", "sum"]) == 2
    assert "-O0" in capsys.readouterr().err
    assert "PCOMPUTE_OPT_LEVEL" not in ab.environment(Path("tree"))


class _FakeMD:
    """An MD implementation whose 25 steps take 10 microseconds."""

    def reset(self):
        pass

    def timed_steps(self, k):
        return 1e-5

    def energy(self):
        return -1.0


def _md_group(profile, case, cases=()):
    from benchmarks.context import Context
    from benchmarks.suites import md
    ctx = Context(profile, Recorder(), md_cases=cases)
    impls = [md.Impl("C", "reference", _FakeMD, is_ref=True),
             md.Impl("pcompute", "pcompute", _FakeMD)]
    md._group(ctx, case, 1000, impls, md.STEPS)
    return ctx.rec.rows


def test_md_cheap_groups_take_more_samples_while_the_budget_lasts(capsys):
    """A group whose samples are short takes up to MAX_SAMPLES (a median of 7
    one-millisecond samples is that of the disturbed ones on a busy machine);
    the smoke profile (no budget) keeps its md_samples."""
    from benchmarks.suites import md
    from benchmarks.timing import QUICK, SMOKE
    rows = _md_group(QUICK, "3-D walls count")
    assert [r.stats.reps for r in rows] == [md.MAX_SAMPLES] * 2
    assert md.MAX_SAMPLES > QUICK.md_samples
    assert [r.stats.reps for r in _md_group(SMOKE, "3-D walls count")] == [SMOKE.md_samples] * 2


class _LoggedMD(_FakeMD):
    """A fake MD whose runs last ``seconds`` and are logged in ``log``."""

    def __init__(self, name, log, seconds):
        self.name, self.log, self.seconds = name, log, seconds

    def timed_steps(self, k):
        self.log.append(self.name)
        return self.seconds


def test_md_samples_are_interleaved_runs_lasting_min_sample(capsys):
    """At N = 1000 a run of 25 steps lasts about a millisecond: a sample is
    as many runs as make the fastest implementation's last MIN_SAMPLE_S, the
    same count for every implementation, and the runs of the implementations
    alternate (A B, B A, ...), so a time slice lost to the OS is shared."""
    from benchmarks.context import Context
    from benchmarks.suites import md
    from benchmarks.timing import SMOKE
    log = []
    ctx = Context(SMOKE, Recorder())
    impls = [md.Impl("C", "reference", lambda: _LoggedMD("C", log, 1e-3), is_ref=True),
             md.Impl("pcompute", "pcompute", lambda: _LoggedMD("pc", log, 2e-3))]
    md._group(ctx, "2-D count/sort lists", 1000, impls, md.STEPS)
    runs = round(md.MIN_SAMPLE_S / 1e-3)
    assert 1 < runs < md.MAX_RUNS
    for row in ctx.rec.rows:
        assert row.extra["runs_per_sample"] == runs
        assert row.extra["steps_per_sample"] == runs * md.STEPS
        assert row.stats.reps == SMOKE.md_samples
    assert [r.stats.median for r in ctx.rec.rows] == pytest.approx([1e-3 / md.STEPS,
                                                                    2e-3 / md.STEPS])
    sampled = log[-2 * runs * SMOKE.md_samples:]
    assert sampled[:4] == ["C", "pc", "pc", "C"] and sampled.count("C") == len(sampled) / 2


def test_md_doc_says_how_samples_were_made():
    rows = [{"suite": "md", "extra": {"runs_per_sample": k}} for k in (1, 20, 3)]
    assert "1-20 run(s) of 25 steps" in publish._md_sampling({"rows": rows})
    old = [{"suite": "md", "extra": {"steps_per_sample": 25}}]
    assert publish._md_sampling({"rows": old}) == "25 steps from the lattice per sample"


def test_md_case_chooses_the_groups(capsys):
    from benchmarks.context import Context
    from benchmarks.timing import QUICK
    assert Context(QUICK, Recorder()).md_case_wanted("2-D cells")
    ctx = Context(QUICK, Recorder(), md_cases=("skin", "3-D walls count"))
    assert ctx.md_case_wanted("2-D count/sort lists, skin 0.3")
    assert ctx.md_case_wanted("3-D walls count") and not ctx.md_case_wanted("2-D cells")
    assert _md_group(QUICK, "2-D cells", cases=("skin",)) == []
    assert len(_md_group(QUICK, "2-D cells, skin 0.3", cases=("skin",))) == 2


def test_a_warm_group_starts_every_sample_with_an_untimed_call(monkeypatch, capsys):
    """``ctx.group(..., warm=True)`` (the autopar suite's groups): one call
    of the implementation, then its sync, before each sample of every row;
    without it the samples follow each other directly."""
    from benchmarks import context
    from benchmarks.timing import SMOKE
    log = []
    monkeypatch.setattr(context, "sample", lambda fn, sync, k: log.append("sample") or 1e-3)
    for warm, want in ((False, ["sample"] * 4),
                       (True, ["a", "sample", "b", "sync", "sample"] * 2)):
        ctx = context.Context(SMOKE, Recorder())
        g = ctx.group("suite", "case", 1, warm=warm)
        g.time("a", "pcompute", lambda: log.append("a"))
        g.time("b", "peer", lambda: log.append("b"), sync=lambda: log.append("sync"))
        del log[:]
        g.run()
        assert log == want
        assert [r.stats.reps for r in ctx.rec.rows] == [2, 2]
