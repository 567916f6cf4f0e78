"""Why a model misses the cue (issue "token attributions", negviz.analyses.attribution): occlusion
against a hand computation, integrated gradients' completeness, and cue-influence and layer-curve
runs in the store (`negviz explain`: tests/cli/test_explain_command.py). The layer curves alone: test_layers.py; the lexical measure: test_lexical.py.
The runs with the real MiniLM and NegMiniLM weights: tests/models/test_attribution.py."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pandas as pd
import pytest

from negviz.analyses import attribution as A
from negviz.analyses import layers as L
from negviz.datasets import load
from negviz.evaluation.catalog import load_scorer
from negviz.results.explain import run_layer_curves
from negviz.core.kinds import PAIRS_KIND

IDF_ONCE = math.log(3 / 2) + 1  # smooth idf of a term in one of the pair's two texts
IDF_BOTH = 1.0


def tfidf_cosine(a: str, b: str) -> float:
    """The NevIR TF-IDF protocol by hand, for lowercase words none of which is a stop word."""
    ta, tb = Counter(a.split()), Counter(b.split())
    idf = {t: IDF_BOTH if t in ta and t in tb else IDF_ONCE for t in set(ta) | set(tb)}
    va = {t: c * idf[t] for t, c in ta.items()}
    vb = {t: c * idf[t] for t, c in tb.items()}
    dot = sum(va[t] * vb.get(t, 0.0) for t in va)
    return dot / (math.sqrt(sum(v * v for v in va.values())) * math.sqrt(sum(v * v for v in vb.values())))


def _contrast(query: str, good: str, bad: str, cue: str = "") -> A.Contrast:
    row = {"q1": query, "d1": good, "q2": query + " twin", "d2": bad, "cue": cue}
    return A.contrasts(PAIRS_KIND, row)[0]


def _nevir_row(pair_id: str = "1230-2") -> dict:
    frame = load("nevir").frame
    return frame[frame["pair_id"] == pair_id].iloc[0].to_dict()


def test_occlusion_on_tfidf_equals_a_hand_computation():
    query, good, bad = "cats chase mice", "cats chase mice daily", "dogs chase cars"
    att = A.occlusion(load_scorer("tfidf"), _contrast(query, good, bad))
    margin = tfidf_cosine(query, good) - tfidf_cosine(query, bad)
    assert att.margin == pytest.approx(margin, abs=1e-12)
    assert tfidf_cosine(query, good) == pytest.approx(3 / math.sqrt(3 * (3 + IDF_ONCE**2)))  # 0.7765
    texts = {"query": query, "good": good, "bad": bad}
    for w in att.tokens.itertuples():
        words = texts[w.role].split()
        rest = " ".join(words[: w.position] + words[w.position + 1 :])
        q, g, b = (rest if r == w.role else texts[r] for r in ("query", "good", "bad"))
        expected = margin - (tfidf_cosine(q, g) - tfidf_cosine(q, b))
        assert w.attribution == pytest.approx(expected, abs=1e-12), (w.role, w.token)
    daily = att.tokens[(att.tokens["role"] == "good") & (att.tokens["token"] == "daily")].iloc[0]
    assert daily.attribution == pytest.approx(tfidf_cosine(query, good) - 1.0)  # without it d1 equals the query
    assert att.forward_passes == 2 + 2 * 3 + 4 + 3


def test_the_cue_is_the_negation_edit_and_its_share_is_of_the_absolute_attribution():
    row = {
        "q1": "Who did not go?",
        "d1": "Ann did not go home.",
        "q2": "Who went?",
        "d2": "Ann went home.",
        "cue": "not",
    }
    first, second = A.contrasts(PAIRS_KIND, row)
    assert (first.label, second.label) == ("s(q1,d1) - s(q1,d2)", "s(q2,d2) - s(q2,d1)")
    words = A.word_table(first)
    cues = words[words["is_cue"]].groupby("role")["token"].apply(set).to_dict()
    # the gold cue where the changed words hold it; in the affirmative text, the words of the edit
    assert cues == {"query": {"not"}, "good": {"not"}, "bad": {"went"}}
    tokens = words.assign(attribution=np.where(words["is_cue"], -0.3, 0.1))
    n_cue, n_other = int(words["is_cue"].sum()), int((~words["is_cue"]).sum())
    assert A.cue_share(tokens) == pytest.approx(0.3 * n_cue / (0.3 * n_cue + 0.1 * n_other))
    assert math.isnan(A.cue_share(words))  # nothing moved the score


def test_a_cue_the_edit_moved_still_counts():
    """NevIR 1230-2: "did not enjoy it" becomes "enjoyed it but not". The word diff aligns "not" as
    unchanged (it is in both documents), but it sits against the changed words: it is the cue in
    both documents, not the words around it."""
    first = A.contrasts(PAIRS_KIND, _nevir_row("1230-2") | {"pair_id": "1230-2"})[0]
    words = A.word_table(first)
    cues = words[words["is_cue"]].groupby("role")["token"].apply(list).to_dict()
    assert cues["good"] == ["not"] and cues["bad"] == ["not"]
    # a marked word with another word between it and the edit is not the cue
    far = {
        "q1": "Who?",
        "d1": "Not here: Ann did go home.",
        "q2": "Who?",
        "d2": "Not here: Ann went home.",
        "cue": "not",
    }
    words = A.word_table(A.contrasts(PAIRS_KIND, far)[0])
    assert set(words.loc[words["is_cue"], "token"]) == {"did", "go", "went"}


def test_a_word_removed_leaves_no_double_space():
    assert A.without("the cat is not here", 11, 14) == "the cat is here"
    assert A.without("not here", 0, 3) == "here"
    assert A.without("here, now", 4, 5) == "here now"


def test_gradients_and_layers_of_a_model_without_a_pytorch_encoder_are_refused_clearly():
    with pytest.raises(ValueError, match="use occlusion"):
        A.integrated_gradients(load_scorer("tfidf"), _contrast("a b", "a b c", "d"))
    with pytest.raises(ValueError, match="no encoder layers"):
        L.cue_fade(load_scorer("bm25"), "a b", "a not b")


def test_shaded_text_is_escaped():
    att = A.occlusion(load_scorer("tfidf"), _contrast("<b>cats</b> chase", "<script>cats</script> chase", "dogs"))
    html = A.shaded_html(att)
    assert "<script" not in html and "</b> chase" not in html and "&lt;" in html
    assert html.count('class="nv-att') == len(att.tokens) + 2  # each word once, and the legend's two


def test_layer_curves_over_a_dataset_are_stored_and_read_back(tmp_path):
    from negviz.core.schema import DatasetSpec
    from negviz.store import Store

    store = Store(f"sqlite:///{tmp_path / 's.sqlite'}")
    spec = DatasetSpec(name="nevir", limit=4)
    result = run_layer_curves("all-MiniLM-L6-v2", spec, store=store)
    assert not result.reused and run_layer_curves("all-MiniLM-L6-v2", spec, store=store).reused
    curves = L.stored_curves(store.scores_wide(result.record.run_id))
    assert curves["item_id"].nunique() == 4 and sorted(curves["layer"].unique()) == list(range(7))
    row = load("nevir").frame.iloc[2]
    direct = L.cue_fade(load_scorer("all-MiniLM-L6-v2"), row["d1"], row["d2"])
    mine = curves[curves["item_id"] == row["pair_id"]].reset_index(drop=True)
    np.testing.assert_allclose(
        mine[["pooled_distance", "cue_distance"]], direct[["pooled_distance", "cue_distance"]], atol=1e-5
    )  # batched with other items, padded: the same numbers
    by_type = pd.DataFrame(result.record.summary["by_type"])
    assert (
        set(by_type["layer"]) == set(range(7))
        and (by_type.loc[by_type["layer"] == 0, "cue_distance_vs_layer0"] == 1).all()
    )
    assert result.record.options == {"analysis": L.ANALYSIS, "columns": ["d1", "d2"]}
    with pytest.raises(ValueError, match="no two texts"):
        run_layer_curves("all-MiniLM-L6-v2", DatasetSpec(name="excluir", limit=2), store=store)


def test_integrated_gradients_of_a_pytorch_cross_encoder_are_complete(tiny_model_dir):
    """A cross-encoder reads (query, document) as one sequence: the margin of two logits, with the
    query's attribution summed over its two copies, sums to F(x) - F(x') within 1%."""
    from negviz.core.schema import ModelSpec

    path = tiny_model_dir("cross-encoder-1")
    scorer = load_scorer(ModelSpec.make(str(path), family="cross-encoder"), device="cpu")
    contrast = _contrast("who did not play the violin", "he did not play the violin", "he played the violin well")
    att = A.integrated_gradients(scorer, contrast, steps=64)
    s = scorer.score([contrast.texts["query"]] * 2, [contrast.texts["good"], contrast.texts["bad"]])
    assert att.margin == pytest.approx(s[0] - s[1], abs=1e-5)
    assert abs(att.completeness["gap"]) <= 0.01 * att.tokens["attribution"].abs().sum() + 1e-6
    assert set(att.tokens["role"]) == {"query", "good", "bad"} and (att.tokens["attribution"] != 0).any()
    assert not L.supports_layers(scorer)  # no document alone to compare layer by layer
    with pytest.raises(ValueError, match="integrated gradients"):
        A.integrated_gradients(scorer, contrast, at_input=True)
