"""Group modules: several Cython module texts built as one
(pcompute/build/cython_merge.py, cython_group.py)."""
import textwrap

import numpy as np
import pytest

from pcompute.build import cache, cython_builder, cython_group, cython_merge

# Two modules with the same names everywhere (run, a helper, a module
# variable, a C helper of the same name with a different body, a struct)
# and a keyword name that equals a renamed name.
HEAD = ("# cython: language_level=3, boundscheck=False, wraparound=False\n"
        "from libc.math cimport sqrt\n")


def module(factor, offset):
    return HEAD + textwrap.dedent('''\
        cdef extern from *:
            """
            static double pc_shift(double v) { return v + %(offset)r; }
            """
            double pc_shift(double)

        cdef struct pair:
            double scale

        cdef double scale = %(factor)r

        cdef inline double helper(double v) noexcept nogil:
            return v * scale

        # run(n, address of x, address of y)
        def run(long long n, size_t pc_a_x, size_t pc_a_y):
            cdef double* x = <double*>pc_a_x
            cdef double* y = <double*>pc_a_y
            cdef pair p
            p.scale = 1.0
            cdef long long i
            for i in range(n):
                y[i] = pc_shift(helper(x[i])) * p.scale + sqrt(4.0)

        def names():
            return ('scale', "helper", run.__name__)
        ''') % {"factor": factor, "offset": offset}


A, B = module(2.0, 0.5), module(3.0, 0.25)
EXPECTED = {A: lambda x: x * 2.0 + 0.5 + 2.0, B: lambda x: x * 3.0 + 0.25 + 2.0}


@pytest.fixture
def group_cache(tmp_path, monkeypatch):
    """An empty cache, and a process memo without this test's modules."""
    monkeypatch.setenv("PCOMPUTE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(cython_builder, "_memo", {})
    return tmp_path / "cache"


def run(mod, source, n=7):
    x = np.arange(n, dtype=np.float64)
    y = np.zeros(n)
    mod.run(n, x.ctypes.data, y.ctypes.data)
    np.testing.assert_array_equal(y, EXPECTED[source](x))


def test_merge_renames_each_member_and_keeps_strings():
    text = cython_merge.merge([A, B])
    assert text.count("from libc.math cimport sqrt") == 1
    assert text.startswith("# cython: language_level=3")
    for k in (0, 1):
        for name in ("run", "helper", "scale", "pair", "names"):
            assert cython_merge.member_name(name, k) in text
    # the C helpers differ: member 1's is renamed; keyword strings, struct
    # fields reached through '.' and the C text of member 0 are not
    assert "pc_shift_pcm1" in text and "pc_shift_pcm0" not in text
    assert "('scale', \"helper\", run_pcm0.__name__)" in text
    assert "p.scale = 1.0" in text


def test_keyword_argument_names_are_not_renamed(group_cache):
    """A member's top-level name that is also the name of a keyword argument
    (a user helper called ``schedule`` in a module that calls
    ``prange(..., schedule=..., chunksize=...)``) is renamed where it is the
    helper, never where it names the argument; nor in an extern block
    (a C local of that name is not the helper), which two members then
    share."""
    text = HEAD + textwrap.dedent('''\
        from cython.parallel import prange
        cdef extern from *:
            """
            static long pc_count(long n) { long schedule; for (schedule = 0; schedule < n; schedule++) {} return schedule; }
            """
            long pc_count(long) nogil

        cdef inline double schedule(double v) noexcept nogil:
            return v * 2.0

        cdef double factor = 0.0

        def run(long long n, size_t pc_a_y):
            global factor
            cdef double* y = <double*>pc_a_y
            cdef long long i
            # prose with an open parenthesis (and an apostrophe: the helper's
            factor = 2.0
            for i in prange(n, nogil=True, schedule='dynamic', chunksize=4):
                y[i] = schedule(i * 1.0) * factor / 2.0 + pc_count(2)
            return dict(schedule=schedule(1.0), other=(schedule == schedule))
        ''')
    merged = cython_merge.merge([text, text.replace("v * 2.0", "v * 3.0")])
    for k in (0, 1):
        assert "    factor_pcm%d = 2.0" % k in merged    # after the comment's '('

        assert "y[i] = schedule_pcm%d(i * 1.0)" % k in merged
        assert "dict(schedule=schedule_pcm%d(1.0), other=(schedule_pcm%d == schedule_pcm%d))" \
            % (k, k, k) in merged
    assert merged.count("prange(n, nogil=True, schedule='dynamic', chunksize=4)") == 2
    # the C local named like the helper is not the helper: one copy of the block
    assert merged.count("static long pc_count") == 1 and "schedule_pcm" not in \
        merged[:merged.index("long pc_count(long) nogil")]
    # and the group compiles (once) and runs as the members alone would
    members = [text, text.replace("v * 2.0", "v * 3.0")]
    assert cython_group.build_group([(t, "kw", False, (), ()) for t in members]) == 1
    for factor, t in zip((2.0, 3.0), members):
        y = np.zeros(5)
        out = cython_builder.build_cython(t, "kw", False).run(5, y.ctypes.data)
        np.testing.assert_array_equal(y, np.arange(5) * factor + 2)
        assert out == {"schedule": factor, "other": True}


def test_every_golden_cython_text_merges():
    from pathlib import Path
    texts = [p.read_text() for p in
             sorted((Path(__file__).parents[1] / "golden" / "cython").glob("*.pyx"))]
    text = cython_merge.merge(texts)
    for k in range(len(texts)):
        assert "def run_pcm%d(" % k in text
    assert text.count("static int pc_fast_valid") == 1


def test_identical_extern_blocks_once():
    same = [module(2.0, 0.5), module(3.0, 0.5)]
    text = cython_merge.merge(same)
    assert text.count("static double pc_shift") == 1
    assert "pc_shift_pcm" not in text


def test_a_block_declaring_names_of_another_is_the_members_own_copy(group_cache):
    """Members 1 and 2 carry the same extern block, which defines pc_shift
    as member 0's other block does and pc_half, which member 0's does not:
    each of them renames both names (member 1 renaming only pc_shift gave
    two copies of the block, both defining pc_half: the group failed to
    build).  The group builds once and each member runs as alone."""
    def halved(text):
        return text.replace("    static double pc_shift", "    static double pc_half("
                            "double v) { return v / 2; }\n    static double pc_shift").replace(
            "    double pc_shift(double)", "    double pc_shift(double)\n"
            "    double pc_half(double)").replace("pc_shift(helper(x[i]))",
                                                 "pc_shift(helper(x[i])) + pc_half(0.0)")
    members = [A, halved(B), halved(B.replace("scale = 3.0", "scale = 4.0"))]
    text = cython_merge.merge(members)
    for k in (1, 2):
        assert text.count("static double pc_half_pcm%d(" % k) == 1
        assert text.count("static double pc_shift_pcm%d(" % k) == 1
    assert "pc_half(" not in text and text.count("static double pc_shift(") == 1
    assert cython_group.build_group([(t, "h", False, (), ()) for t in members]) == 1
    for factor, offset, t in zip((2.0, 3.0, 4.0), (0.5, 0.25, 0.25), members):
        x = np.arange(7, dtype=np.float64)
        y = np.zeros(7)
        cython_builder.build_cython(t, "h", False).run(7, x.ctypes.data, y.ctypes.data)
        np.testing.assert_array_equal(y, x * factor + offset + 2.0)


def test_merge_refuses_unknown_statements_and_other_headers():
    with pytest.raises(cython_merge.MergeError, match="top-level statement"):
        cython_merge.merge([A, A.replace("def names", "if True:\n    pass\ndef names")])
    with pytest.raises(cython_merge.MergeError, match="top-level statement"):
        cython_merge.merge([A, A.replace("def names", "cdef enum colour:\n    red\ndef names")])
    with pytest.raises(cython_merge.MergeError, match="headers differ"):
        cython_merge.merge([A, B.replace("wraparound=False", "wraparound=True")])


def test_group_members_run_as_alone_and_compile_once(group_cache):
    compiled = cython_builder.stats["compiled"]
    made = cython_group.build_group([(A, "a", False, (), ()), (B, "b", False, (), ())])
    assert made == 1 and cython_builder.stats["compiled"] == compiled + 1
    ma = cython_builder.build_cython(A, "a", False)
    mb = cython_builder.build_cython(B, "b", False)
    assert cython_builder.stats["compiled"] == compiled + 1
    assert isinstance(ma, cython_builder.MemberView)
    run(ma, A)
    run(mb, B)
    assert ma.names() == ("scale", "helper", "run" + ma._suffix)   # strings kept
    assert getattr(ma, "pc_fast", None) is None


def test_a_later_process_finds_the_group_through_the_index(group_cache, monkeypatch):
    cython_group.build_group([(A, "a", False, (), ()), (B, "b", False, (), ())])
    monkeypatch.setattr(cython_builder, "_memo", {})         # as a new process
    compiled = cython_builder.stats["compiled"]
    mb = cython_builder.build_cython(B, "b", False)
    assert isinstance(mb, cython_builder.MemberView)
    assert cython_builder.stats["compiled"] == compiled
    run(mb, B)
    kinds = sorted(e["kind"] for e in cache.list_entries())
    assert kinds == ["cython", "cython-index", "cython-index"]


def test_a_member_whose_group_is_gone_is_built_alone(group_cache, monkeypatch):
    cython_group.build_group([(A, "a", False, (), ()), (B, "b", False, (), ())])
    for entry in cache.list_entries("cython"):
        entry["path"].unlink()
    monkeypatch.setattr(cython_builder, "_memo", {})
    compiled = cython_builder.stats["compiled"]
    ma = cython_builder.build_cython(A, "a", False)
    assert not isinstance(ma, cython_builder.MemberView)
    assert cython_builder.stats["compiled"] == compiled + 1
    run(ma, A)


def test_members_built_with_other_flags_or_built_before_are_not_grouped(group_cache):
    compiled = cython_builder.stats["compiled"]
    made = cython_group.build_group([(A, "a", False, (), ()),
                                     (B, "b", False, ("-DPC_OTHER=1",), ())])
    assert made == 0 and cython_builder.stats["compiled"] == compiled
    alone = cython_builder.build_cython(A, "a", False)
    made = cython_group.build_group([(A, "a", False, (), ()), (B, "b", False, (), ())])
    assert made == 0 and cython_builder.build_cython(A, "a", False) is alone


def test_members_linking_other_libraries_share_a_group_linked_with_all(group_cache):
    compiled = cython_builder.stats["compiled"]
    made = cython_group.build_group([(A, "a", False, (), ("-lm",)),
                                     (B, "b", False, (), ())])
    assert made == 1 and cython_builder.stats["compiled"] == compiled + 1
    run(cython_builder.build_cython(A, "a", False, extra_link_args=("-lm",)), A)
    run(cython_builder.build_cython(B, "b", False), B)
    assert cython_builder.stats["compiled"] == compiled + 1
    assert cython_group.split_libraries(["-L/x", "-lm", "-fopenmp", "-lgomp"]) == (
        ["-L/x", "-fopenmp"], ["-lm", "-lgomp"])


def test_group_key_is_made_of_every_member_key(group_cache):
    ka = cython_builder.build_key(A, False)[0]
    kb = cython_builder.build_key(B, False)[0]
    kb_flags = cython_builder.build_key(B, False, "", ["-DPC_OTHER=1"])[0]
    assert len({cython_group.group_key([ka, kb]), cython_group.group_key([kb, ka]),
                cython_group.group_key([ka, kb_flags])}) == 3


def test_a_group_that_fails_to_build_is_counted_and_its_members_build_alone(group_cache,
                                                                            caplog):
    bad = B.replace("return v * scale", "return v * undefined_name")
    failed = cython_group.stats["failed"]
    with caplog.at_level("DEBUG", logger="pcompute.build.cython"):
        made = cython_group.build_group([(A, "a", False, (), ()), (bad, "b", False, (), ())],
                                        strict=False)
    assert made == 0 and cython_group.stats["failed"] == failed + 1
    # said in one line (no compiler log in a warning); the log at debug level
    warned = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert len(warned) == 1 and "\n" not in warned[0] and "built one by one" in warned[0]
    assert any("undefined_name" in r.getMessage() for r in caplog.records
               if r.levelname == "DEBUG")
    run(cython_builder.build_cython(A, "a", False), A)


def test_strict_groups_makes_a_failed_group_an_error_naming_group_and_cause(group_cache):
    from pcompute.config import use_config
    from pcompute.errors import BuildError, GroupBuildError
    bad = B.replace("return v * scale", "return v * undefined_name")
    failed = cython_group.stats["failed"]
    with use_config(strict_groups=True), pytest.raises(GroupBuildError) as info:
        cython_group.build_group([(A, "kern_a", False, (), ()), (bad, "kern_b", False, (), ())])
    assert cython_group.stats["failed"] == failed + 1
    message = str(info.value)
    assert isinstance(info.value, BuildError)
    assert sorted(m.split("_")[2] for m in info.value.members) == ["a", "b"]
    assert all(m in message for m in info.value.members) and "could not be built" in message
    assert "undefined_name" in message          # the compiler's first error line
    assert "undefined_name" in info.value.log and "PCOMPUTE_STRICT_GROUPS" in message
    # a text the merger refuses: an error too, with the merger's reason
    odd = A.replace("def names", "if True:\n    pass\ndef names")
    with use_config(strict_groups=True), pytest.raises(GroupBuildError) as info:
        cython_group.build_group([(odd, "kern_a", False, (), ()), (B, "kern_b", False, (), ())])
    assert "could not be merged" in str(info.value) and "top-level statement" in str(info.value)
    # off (explicitly, whatever the environment says): counted, no error
    unmerged = cython_group.stats["unmerged"]
    with use_config(strict_groups=False):
        assert cython_group.build_group([(odd, "a", False, (), ()), (B, "b", False, (), ())]) == 0
    assert cython_group.stats["unmerged"] == unmerged + 1


def test_saved_sources_of_the_members_and_the_group(group_cache, monkeypatch):
    monkeypatch.setenv("PCOMPUTE_SAVE_SOURCE", "1")
    from pcompute.config import use_config
    with use_config(save_source=True):
        cython_group.build_group([(A, "a", False, (), ()), (B, "b", False, (), ())])
        cython_builder.build_cython(A, "a", False)
    keys = [cython_builder.build_key(t, False)[0] for t in (A, B)]
    saved = {p.name: p.read_text() for p in group_cache.rglob("*.pyx")}
    assert saved["%s.pyx" % keys[0]] == A and saved["%s.pyx" % keys[1]] == B
    assert any("run_pcm1" in text for text in saved.values())    # the group's text
