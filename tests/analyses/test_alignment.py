"""Token alignments: the matrix bookkeeping (row maxima = score), word-piece merging, hiding,
cue location and deltas (the figure builders: tests/charts/test_alignment.py). Hand-made matrices prove the definitions; the
tiny ColBERT proves [MASK]/marker plumbing; the bundled MiniLM proves behaviour on NevIR."""

from __future__ import annotations

import numpy as np
import pytest

from negviz.analyses import alignment as al
from negviz.scorers.late_interaction import TokenEmbeddings, pair_matrix


def emb(tokens, kinds, mask, vectors) -> TokenEmbeddings:
    vectors, mask = np.asarray(vectors, dtype=np.float32), np.asarray(mask, dtype=bool)
    return TokenEmbeddings(list(tokens), vectors, mask, list(kinds))


def hand_matrix():
    """Query [CLS] in ##s ##till [MASK] (4 query rows taking part) against [CLS] a ##b , c.
    Vectors are one-hot-ish so sim values are easy to read."""
    rng = np.random.default_rng(0)
    q = emb(
        ["[CLS]", "in", "##s", "##till", "[MASK]"],
        ["special", "word", "subword", "subword", "mask_aug"],
        [False, True, True, True, True],
        rng.normal(size=(5, 6)),
    )
    d = emb(
        ["[CLS]", "a", "##b", ",", "c"],
        ["special", "word", "subword", "punct", "word"],
        [False, True, True, False, True],
        rng.normal(size=(5, 6)),
    )
    return pair_matrix(q, d, "cosine")


# ---------------------------------------------------------------- unmerged bookkeeping
def test_unmerged_view_is_the_matrix_and_row_maxima_add_up():
    tm = hand_matrix()
    v = al.build_view(tm)
    np.testing.assert_array_equal(v.values, tm.sim)
    np.testing.assert_allclose(v.contribution, tm.row_max)
    assert v.contribution.sum() == pytest.approx(tm.score, abs=1e-12) and v.score == tm.score
    assert list(v.best) == [-1, *tm.argmax[1:]]  # [CLS] does not take part
    assert v.marks == [(i, int(j)) for i, j in enumerate(tm.argmax) if j >= 0]
    for r, c in v.marks:  # a mark is its row's maximum over the columns that take part
        assert v.values[r, c] == pytest.approx(v.values[r][v.cols.part].max())
    assert not v.cols.part[3] and v.cols.kinds[3] == "punct"  # masked punctuation stays drawn, marked


# ---------------------------------------------------------------- merging
def test_word_groups_and_labels():
    assert al.word_groups(["special", "word", "subword", "subword", "punct", "word"]) == [[0], [1, 2, 3], [4], [5]]
    assert al.merge_label(["ins", "##till"]) == "instill"
    assert al.merge_label(["Ġun", "known"]) == "unknown"


def test_merged_view_definition():
    tm = hand_matrix()
    v = al.build_view(tm, merge=True)
    assert v.rows.labels == ["[CLS]", "instill", "[MASK]"] and v.cols.labels == ["[CLS]", "ab", ",", "c"]
    # cell = max over pieces (taking part) of both words
    assert v.values[1, 1] == pytest.approx(tm.sim[1:4, 1:3].max())
    assert v.values[2, 3] == pytest.approx(tm.sim[4, 4])
    # a word row contributes the sum of its pieces' row maxima: the total is unchanged
    assert v.contribution[1] == pytest.approx(tm.row_max[1:4].sum())
    assert v.contribution.sum() == pytest.approx(tm.score)
    # its best cell holds the largest piece maximum, and that is the merged row's maximum
    assert v.values[1, v.best[1]] == pytest.approx(tm.row_max[1:4].max())
    assert v.values[1][v.cols.part].max() == pytest.approx(tm.row_max[1:4].max())
    # every piece's choice is marked (one merged row may carry several marks)
    group = {0: 0, 1: 1, 2: 1, 3: 2, 4: 3}
    assert v.marks == sorted({({1: 1, 2: 1, 3: 1, 4: 2}[i], group[int(j)]) for i, j in enumerate(tm.argmax) if j >= 0})
    assert any("merged" in n for n in v.notes)


def test_hiding_keeps_the_total_and_chosen_columns():
    tm = hand_matrix()
    v = al.build_view(tm, hide=["mask_aug", "special", "punct"])
    assert "[MASK]" not in v.rows.labels and "[CLS]" not in v.rows.labels and "," not in v.cols.labels
    assert v.hidden_contribution == pytest.approx(tm.row_max[4])
    assert v.contribution.sum() + v.hidden_contribution == pytest.approx(tm.score)
    assert any("still count" in n for n in v.notes)
    # a hidden kind of column stays when a shown row chose it (ColBERT's zero-vector punctuation can win)
    tm.argmax[1] = 3
    kept = al.build_view(tm, hide=["punct"])
    assert "," in kept.cols.labels
    with pytest.raises(ValueError, match="cannot hide"):
        al.build_view(tm, hide=["word"])


def test_row_deltas_add_up_to_the_score_difference():
    tm1 = hand_matrix()
    d2 = emb(
        ["[CLS]", "x", "y"],
        ["special", "word", "word"],
        [False, True, True],
        np.random.default_rng(1).normal(size=(3, 6)),
    )
    tm2 = pair_matrix(tm1.query, d2, "cosine")
    for merge in (False, True):
        deltas = al.row_deltas(al.build_view(tm1, merge=merge), al.build_view(tm2, merge=merge))
        assert deltas["delta"].sum() == pytest.approx(tm1.score - tm2.score)
    with pytest.raises(ValueError, match="different query rows"):
        al.row_deltas(al.build_view(tm1), al.build_view(tm2, merge=True))


# ---------------------------------------------------------------- tokens, characters and cues
def test_token_spans_follow_the_text():
    text = "Who didn't like the café? The café"
    tokens = ["[CLS]", "who", "didn", "'", "t", "like", "the", "cafe", "?", "the", "ca", "##fe", "[SEP]", "[MASK]"]
    kinds = [
        "special",
        "word",
        "word",
        "punct",
        "word",
        "word",
        "word",
        "word",
        "punct",
        "word",
        "word",
        "subword",
        "special",
        "mask_aug",
    ]
    spans = al.token_spans(text, tokens, kinds)
    assert spans[0] is None and spans[-1] is None and spans[-2] is None
    assert [text[a:b] for a, b in spans[1:12]] == [
        "Who",
        "didn",
        "'",
        "t",
        "like",
        "the",
        "café",
        "?",
        "The",
        "ca",
        "fé",
    ]
    assert al.token_spans("a [x] b", ["a", "[UNK]", "b"], ["word", "word", "word"])[1] is None


def test_cues_from_taxonomy_and_gold():
    text = "He did not enjoy it, which was unsuccessful; no one knew."
    spans = al.find_cue_spans(text, gold="unsuccessful")
    found = {text[s.start : s.end].lower() for s in spans}
    assert {"not", "unsuccessful"} <= found
    assert all(s.start < s.end for s in spans)
    gold_only = al.find_cue_spans("Unlike his brother, he stayed.", gold="unlike")
    assert [s.text for s in gold_only] == ["Unlike"]
    flags = al.flag_tokens([(0, 2), (3, 6), None, (7, 10)], [(3, 10)])
    assert list(flags) == [False, True, False, True]


# ---------------------------------------------------------------- real scorers
@pytest.fixture(scope="module")
def colbert(tmp_path_factory):
    from negviz.core.schema import ModelSpec
    from negviz.evaluation.catalog import load_scorer
    from tests.support.tiny.late import build_tiny_colbert

    path = build_tiny_colbert(tmp_path_factory.mktemp("colbert") / "ckpt")
    return lambda **o: load_scorer(ModelSpec.make(str(path), **o), device="cpu")


def test_colbert_grid_equals_score_for_both_similarities(colbert):
    queries, docs = ["who is not the king?", "who is the king?"], ["the king was not good.", "the king was good."]
    for similarity in ("cosine", "l2"):
        scorer = colbert(similarity=similarity)
        ex = al.explore(colbert(), queries, docs, shown=0, similarity=similarity, merge=True, gold_cue="not")
        want = scorer.score([q for q in queries for _ in docs], [d for _ in queries for d in docs])
        np.testing.assert_allclose(ex.grid.ravel(), want, rtol=1e-9)
        view = ex.views[0]
        assert view.contribution.sum() == pytest.approx(ex.grid[0, 0])
        assert {"marker", "mask_aug", "special"} <= set(view.rows.kinds)
        assert "[Q]" in view.rows.labels and "[D]" in view.cols.labels
        assert view.rows.cue[view.rows.labels.index("not")] and view.cols.cue[view.cols.labels.index("not")]
        hidden = al.build_view(al.token_matrix(scorer, queries[0], docs[0]), hide=["mask_aug"])
        assert hidden.hidden_contribution != 0 and "[MASK]" not in hidden.rows.labels


@pytest.fixture(scope="module")
def minilm():
    from negviz.evaluation.catalog import load_scorer

    return load_scorer("maxsim-all-MiniLM-L6-v2", device="cpu")


def test_minilm_on_a_nevir_pair_with_cue_not(minilm):
    from negviz.datasets import load

    row = load("nevir").frame.set_index("pair_id").loc["1230-2"]
    assert row["cue"] == "not"
    ex = al.explore(minilm, [row["q1"], row["q2"]], [row["d1"], row["d2"]], shown=1, gold_cue="not")
    want = minilm.score([row["q1"], row["q1"], row["q2"], row["q2"]], [row["d1"], row["d2"], row["d1"], row["d2"]])
    np.testing.assert_allclose(ex.grid.ravel(), want, rtol=1e-9)
    d = ex.deltas.set_index("token")
    assert d.loc["not", "cue"] and d.loc["not", "best_d1"] == "not"  # where "not" found its maximum
    assert ex.deltas["delta"].sum() == pytest.approx(ex.grid[1, 0] - ex.grid[1, 1])
    merged = al.build_view(al.token_matrix(minilm, row["q2"], row["d1"]), merge=True)
    assert "instill" in merged.cols.labels and merged.contribution.sum() == pytest.approx(ex.grid[1, 0])
    # l2 drawn from the same vectors equals the scorer configured for l2
    from negviz.evaluation.catalog import load_scorer

    l2 = load_scorer("maxsim-all-MiniLM-L6-v2[similarity=l2]", device="cpu")
    drawn = al.token_matrix(minilm, row["q1"], row["d1"], "l2").score
    assert drawn == pytest.approx(l2.score([row["q1"]], [row["d1"]])[0])


def test_long_documents_are_truncated_and_flagged(minilm):
    tm = al.token_matrix(minilm, "not a query", "word " * 2000)
    assert tm.doc.truncated and len(tm.doc.tokens) == al.max_tokens(minilm, "document") == 256


# ---------------------------------------------------------------- figures


def test_the_counterfactual_highlight_escapes_typed_text():
    from negviz.language.text.worddiff import CHANGED_CLASS, Span, render_html

    text = "<script>alert(1)</script> is not"
    out = render_html(text, [Span(text.index("not"), len(text))])
    assert "<script>" not in out and "&lt;script&gt;" in out
    assert f'<span class="{CHANGED_CLASS}">not</span>' in out
