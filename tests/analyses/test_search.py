"""The Search page's pure parts: exclusion removal, overlap, result roles, MaxSim links."""

from negviz.analyses import search as sa


def test_exceptor_becomes_including_and_negation_is_undone():
    r = sa.drop_exclusion("Which movie did Pat Patterson star in other than a 1936 romance film?")
    assert r.edited == "Which movie did Pat Patterson star in including a 1936 romance film?"
    assert "other than" in r.rule
    assert sa.drop_exclusion("Besides Spam, which brand was shipped?").edited.startswith("Including Spam")
    assert sa.drop_exclusion("films not directed by Steven Spielberg").edited == "films directed by Steven Spielberg"
    same = sa.drop_exclusion("films directed by Steven Spielberg")
    assert same.edited == same.original and same.rule == ""


def test_cue_html_escapes_and_underlines():
    out = sa.cue_html("<b>x</b> films not by him")
    assert "&lt;b&gt;" in out and '<span class="nv-cue">not</span>' in out


def test_overlap_by_hand():
    o = sa.overlap(["a", "b", "c", "d"], ["c", "a", "x"])
    assert o["shared"] == 2 and o["ids"] == ["a", "c"] and o["share"] == 0.5 and o["jaccard"] == 2 / 5
    assert sa.overlap([], [])["jaccard"] == 0.0


def test_results_roles_and_comparison_doc():
    t = sa.results_table(["n", "x", "p"], ["neg text", "other", "pos text"], ["", "", ""], [3, 2, 1], "p", "n")
    assert t["role"].tolist() == [sa.EXCLUDED, "", sa.POSITIVE]
    assert sa.role_rank(t, sa.POSITIVE) == 3 and sa.role_rank(t, sa.EXCLUDED) == 1
    assert sa.comparison_doc(t, 1, "neg text", "pos text") == "neg text"
    assert sa.comparison_doc(t, 0, "neg text", "pos text") == "pos text"  # d− itself: against d+
    assert sa.comparison_doc(t, 0, None, None) == "other"  # no gold: the top result, or the second
