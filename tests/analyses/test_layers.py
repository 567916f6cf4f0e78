"""negviz.analyses.layers: the per-layer distance of two texts (the cue fading, or not, through the
encoder): the curve by hand on made-up states, per type, stored as scores and read back, and on
MiniLM against a direct computation with transformers."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from negviz.analyses import layers as L
from negviz.evaluation.catalog import load_scorer
from negviz.core.kinds import EXCLUSION_KIND, PAIRS_KIND


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


def test_first_difference_is_the_first_differing_word_piece():
    assert L.first_difference([101, 7, 8, 102], [101, 7, 9, 102]) == 2
    assert L.first_difference([101, 7, 102], [101, 7, 102]) is None
    assert L.first_difference([101, 7, 102], [101, 7, 102, 5]) == 2  # one is longer: its last shared piece


def test_curve_of_made_up_states_by_hand():
    # word pieces [CLS] w [SEP]; the texts differ at piece 1
    special = np.array([True, False, True])
    a = {"ids": [1, 5, 2], "special": special, "states": np.array([[[1, 0], [1, 0], [0, 1]], [[1, 0], [1, 1], [0, 1]]])}
    b = {"ids": [1, 6, 2], "special": special, "states": np.array([[[1, 0], [0, 1], [0, 1]], [[1, 0], [1, 1], [0, 1]]])}
    curve = L.curve_of(a, b)
    # layer 0: w is (1, 0) vs (0, 1), orthogonal: distance 1; layer 1: the same (1, 1): distance 0
    assert curve["layer"].tolist() == [0, 1]
    assert curve["pooled_distance"].tolist() == pytest.approx([1.0, 0.0])
    assert curve["cue_distance"].tolist() == pytest.approx([1.0, 0.0])


CURVES = pd.DataFrame(
    {
        "item_id": ["a", "a", "b", "b", "c", "c"],
        "layer": [0, 1, 0, 1, 0, 1],
        "pooled_distance": [0.4, 0.2, 0.2, 0.2, 0.5, 0.1],
        "cue_distance": [0.8, 0.4, 0.4, 0.1, 1.0, 0.5],
    }
)


def test_by_type_averages_the_curves_and_divides_by_layer_0():
    types = pd.DataFrame({"item_id": ["a", "b"], "type": ["affixal", "affixal"]})  # c has no type
    got = L.by_type(CURVES, types).set_index(["type", "layer"])
    # affixal, layer 1: cue (0.4 + 0.1) / 2 = 0.25 of layer 0's (0.8 + 0.4) / 2 = 0.6
    assert got.loc[("affixal", 1), "cue_distance"] == pytest.approx(0.25)
    assert got.loc[("affixal", 1), "cue_distance_vs_layer0"] == pytest.approx(0.25 / 0.6)
    assert got.loc[("affixal", 1), "n"] == 2 and got.loc[("unknown", 1), "n"] == 1


def test_curve_scores_read_back_by_stored_curves():
    scores = L.curve_scores(CURVES)
    assert set(scores["slot"]) == {"L0:pooled_distance", "L0:cue_distance", "L1:pooled_distance", "L1:cue_distance"}
    wide = scores.pivot(index="item_id", columns="slot", values="score")
    pd.testing.assert_frame_equal(L.stored_curves(wide), CURVES, check_dtype=False, check_names=False)


def test_summarize_gives_the_median_last_to_first_cue_ratio():
    summary = L.summarize(CURVES, pd.DataFrame({"item_id": [], "type": []}), ["d1", "d2"])
    # cue ratios layer 1 / layer 0: a 0.5, b 0.25, c 0.5 -> median 0.5
    assert summary["cue_distance_last_vs_layer0"] == pytest.approx(0.5)
    assert (summary["n"], summary["columns"], summary["analysis"]) == (3, ["d1", "d2"], L.ANALYSIS)


def test_twins_are_the_edited_column_pairs_of_a_kind():
    assert L.twins(PAIRS_KIND) == [("d1", "d2"), ("q1", "q2")]
    assert L.twins(EXCLUSION_KIND) == []  # its texts are not an edit of one another
