"""Why a model misses the cue (issue "token attributions"): occlusion against a hand computation,
integrated gradients' completeness on MiniLM, the per-layer curve against a direct computation
with transformers, the lexical measure on hand-built pairs, and cue-influence runs in the store.
The runs with the real MiniLM and NegMiniLM weights: tests/models/test_attribution.py."""

from __future__ import annotations

import json
import math
from collections import Counter

import numpy as np
import pandas as pd
import pytest

from negviz.analyses import attribution as A
from negviz.analyses import cue_influence as C
from negviz.analyses import layers as L
from negviz.analyses import lexical as X
from negviz.catalog import load_scorer
from negviz.datasets import load
from negviz.explain import run_cue_influence, run_layer_curves
from negviz.schema import PAIRS

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
    return A.contrasts(PAIRS, row)[0]


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
    first, second = A.contrasts(PAIRS, row)
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
    first = A.contrasts(PAIRS, _nevir_row("1230-2") | {"pair_id": "1230-2"})[0]
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
    words = A.word_table(A.contrasts(PAIRS, far)[0])
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


def test_the_layer_curve_equals_a_direct_computation_on_two_sentences():
    import torch
    from transformers import AutoModel, AutoTokenizer

    from negviz.scorers.maxsim import transformer_folder

    a, b = "The cat is on the mat.", "The cat is not on the mat."
    scorer = load_scorer("all-MiniLM-L6-v2")
    curve = L.cue_fade(scorer, a, b)
    folder = transformer_folder(scorer.source)
    tok, model = AutoTokenizer.from_pretrained(folder), AutoModel.from_pretrained(folder).eval()
    with torch.no_grad():
        ha = model(**tok(a, return_tensors="pt"), output_hidden_states=True).hidden_states
        hb = model(**tok(b, return_tensors="pt"), output_hidden_states=True).hidden_states
    ids_a, ids_b = tok(a)["input_ids"], tok(b)["input_ids"]
    cue = next(i for i, (x, y) in enumerate(zip(ids_a, ids_b)) if x != y)
    assert tok.convert_ids_to_tokens(ids_b)[cue] == "not"
    assert len(curve) == model.config.num_hidden_layers + 1
    for layer in range(len(curve)):
        xa, xb = ha[layer][0].numpy(), hb[layer][0].numpy()
        pa, pb = xa[1:-1].mean(0), xb[1:-1].mean(0)  # [CLS] and [SEP] left out
        pooled = 1 - pa @ pb / (np.linalg.norm(pa) * np.linalg.norm(pb))
        at_cue = 1 - xa[cue] @ xb[cue] / (np.linalg.norm(xa[cue]) * np.linalg.norm(xb[cue]))
        assert curve.loc[layer, "pooled_distance"] == pytest.approx(pooled, abs=1e-5)
        assert curve.loc[layer, "cue_distance"] == pytest.approx(at_cue, abs=1e-5)


def test_training_changes_the_top_layers_of_negminilm_only():
    """NegMiniLM is MiniLM with its top layers trained: the curves agree below and part above."""
    a, b = "The cat is on the mat.", "The cat is not on the mat."
    base = L.cue_fade(load_scorer("all-MiniLM-L6-v2"), a, b)
    trained = L.cue_fade(load_scorer("negminilm"), a, b)
    assert np.allclose(base.loc[:4, "pooled_distance"], trained.loc[:4, "pooled_distance"], atol=1e-5)
    assert trained.iloc[-1]["pooled_distance"] > 3 * base.iloc[-1]["pooled_distance"]


def test_the_lexical_measure_on_hand_built_pairs():
    frame = pd.DataFrame(
        {
            "pair_id": ["a", "b"],
            "q1": ["red apple pie", "blue sky"],
            "d1": ["red apple pie recipe", "grey clouds today"],
            "q2": ["green pear tart", "dark night"],
            "d2": ["green pear tart recipe", "blue sky above"],
        }
    )
    bm25 = load_scorer("bm25")
    from negviz.item_scoring import score_dataset, wide_scores

    wide = wide_scores(PAIRS, frame, score_dataset(PAIRS, frame, bm25)).set_index("item_id")
    lex = X.lexical_margins(PAIRS, frame, wide).set_index("item_id")
    assert lex.loc["a", "margin1"] > 0 and lex.loc["a", "margin2"] > 0  # each query shares words with its own doc
    assert lex.loc["b", "margin1"] < 0 and lex.loc["b", "margin2"] == 0  # q1 "blue sky" matches d2 only
    assert lex.loc["a", "margin1"] == pytest.approx(wide.loc["a", "q1_d1"] - wide.loc["a", "q1_d2"])
    leans = X.item_lean(lex.reset_index()).set_index("item_id")["lexical_lean"]
    assert leans.to_dict() == {"a": X.RIGHT, "b": X.WRONG}
    verdicts = pd.DataFrame({"model": "m", "item_id": ["a", "b"], "margin1": [0.5, -0.2], "margin2": [0.1, 0.0]})
    comps = X.comparisons(verdicts, lex.reset_index())
    table = X.confound_table(comps).set_index("lexical lean")
    assert table.loc[X.RIGHT, "n"] == 2 and table.loc[X.RIGHT, "wrong or tie"] == 0
    assert table.loc[X.WRONG, "wrong or tie"] == 1 and table.loc[X.NEITHER, "wrong or tie"] == 1  # a tie is not right
    follows = X.follows_lexicon(comps).iloc[0]
    assert follows["n"] == 3 and follows["follows BM25"] == 1.0
    # Each query is judged as its run judges it: under MTEB's tie rule b's tie on q2 is right.
    mteb = verdicts.assign(c1=[True, False], c2=[True, True])
    choices = X.comparisons(mteb, lex.reset_index()).set_index(["item_id", "comparison"])["choice"]
    assert choices[("b", "margin2")] == "right" and choices[("b", "margin1")] == "wrong"
    strict = X.comparisons(verdicts.assign(c1=[True, False], c2=[True, False]), lex.reset_index())
    assert strict.set_index(["item_id", "comparison"])["choice"][("b", "margin2")] == "tie"


def test_shaded_text_is_escaped():
    att = A.occlusion(load_scorer("tfidf"), _contrast("<b>cats</b> chase", "<script>cats</script> chase", "dogs"))
    html = A.shaded_html(att)
    assert "<script" not in html and "</b> chase" not in html and "&lt;" in html
    assert html.count('class="nv-att') == len(att.tokens) + 2  # each word once, and the legend's two


def test_a_cue_influence_run_is_stored_once_and_gives_verdicts_by_the_one_rule(tmp_path):
    from negviz import outcomes
    from negviz.item_scoring import score_dataset, wide_scores
    from negviz.schema import DatasetSpec
    from negviz.store import Store

    store = Store(f"sqlite:///{tmp_path / 's.sqlite'}")
    spec = DatasetSpec(name="nevir", limit=5)
    first = run_cue_influence("tfidf", spec, store=store, method="occlusion")
    again = run_cue_influence("tfidf", spec, store=store, method="occlusion")
    assert not first.reused and again.reused and again.record.run_id == first.record.run_id
    assert store.runs(kind="attribution")["run_id"].tolist() == [first.record.run_id]
    assert store.runs(kind="eval").empty  # pages that read evaluations never see it
    frame = C.influence_frame(PAIRS, store.scores_wide(first.record.run_id))
    ds = load(spec)
    wide = wide_scores(PAIRS, ds.frame, score_dataset(PAIRS, ds.frame, load_scorer("tfidf"))).set_index("item_id")
    expected = outcomes.item_outcomes(PAIRS, wide).set_index("item_id")["category"]
    assert (frame["category"] == frame["item_id"].map(expected)).all() and len(frame) == 10
    # every stored share is the occlusion of that comparison, recomputed here
    row = ds.frame.iloc[0].to_dict()
    att = A.occlusion(load_scorer("tfidf"), A.contrasts(PAIRS, row)[0])
    got = frame[(frame["item_id"] == row["pair_id"]) & (frame["comparison"] == "margin1")]["cue_share"].iloc[0]
    assert (math.isnan(got) and math.isnan(att.cue_share)) or got == pytest.approx(att.cue_share)
    s = first.record.summary
    assert s["method"] == "occlusion" and s["n_comparisons"] == 10 and "by_verdict" in s and "by_type" in s


def test_negviz_explain_prints_one_json_object(tmp_path, capsys):
    from negviz.cli import main

    assert (
        main(
            [
                "--db",
                f"sqlite:///{tmp_path / 's.sqlite'}",
                "explain",
                "--model",
                "tfidf",
                "--dataset",
                "nevir",
                "--limit",
                "3",
                "--json",
                "--quiet",
            ]
        )
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert out["n"] == 3 and out["options"]["method"] == "occlusion" and out["summary"]["n_comparisons"] == 6
    assert (
        main(
            [
                "--db",
                f"sqlite:///{tmp_path / 's.sqlite'}",
                "explain",
                "--model",
                "tfidf",
                "--dataset",
                "nevir",
                "--method",
                "integrated-gradients",
                "--limit",
                "1",
                "--quiet",
            ]
        )
        == 2
    )
    assert "use --method occlusion" in capsys.readouterr().err


def test_layer_curves_over_a_dataset_are_stored_and_read_back(tmp_path):
    from negviz.schema import DatasetSpec
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
    from negviz.schema import ModelSpec

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
