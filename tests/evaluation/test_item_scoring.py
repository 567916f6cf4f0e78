"""negviz.evaluation.item_scoring: every slot of every item of a dataset scored in one scorer call, and the
long scores pivoted back to the dataset's rows."""

import pandas as pd
import pytest

from negviz.evaluation.catalog import load_scorer
from negviz.evaluation.item_scoring import score_dataset, scoring_inputs, wide_scores
from negviz.core.kinds import EXCLUSION_KIND, PAIRS_KIND, PERTURBATION_KIND


def test_scoring_inputs_cover_every_slot_and_literal_empty_candidate():
    frame = pd.DataFrame(
        {
            "item_id": [1, 2],
            "perturbation": ["p", "p"],
            "severity": ["minor"] * 2,
            "reference": ["r1", "r2"],
            "candidate": ["c1", "c2"],
            "perturbed": ["x1", "x2"],
            "checked": [True, False],
        }
    )
    q, d, items, slots = scoring_inputs(PERTURBATION_KIND, frame)
    assert list(zip(q, d, items, slots)) == [
        ("r1", "c1", "p:1", "candidate"),
        ("r2", "c2", "p:2", "candidate"),
        ("r1", "x1", "p:1", "perturbed"),
        ("r2", "x2", "p:2", "perturbed"),
        ("r1", ".", "p:1", "empty"),
        ("r2", ".", "p:2", "empty"),
    ]


def test_wide_scores_keeps_dataset_order_and_rejects_missing_items():
    frame = pd.DataFrame({"pair_id": ["b", "a"], "q1": ["", ""], "d1": ["", ""], "q2": ["", ""], "d2": ["", ""]})
    long = pd.DataFrame(
        [(i, s, v) for i in "ab" for s, v in zip(["q1_d1", "q1_d2", "q2_d1", "q2_d2"], range(4))],
        columns=["item_id", "slot", "score"],
    )
    wide = wide_scores(PAIRS_KIND, frame, long)
    assert wide["item_id"].tolist() == ["b", "a"]
    assert wide.columns.tolist() == ["item_id", "q1_d1", "q1_d2", "q2_d1", "q2_d2"]
    with pytest.raises(ValueError, match="lack 1 items"):
        wide_scores(PAIRS_KIND, frame, long[long["item_id"] == "a"])


def test_item_ids_prefix_demetr_ids_with_their_perturbation():
    frame = pd.DataFrame({"item_id": [3, 3], "perturbation": ["negation", "antonym"]})
    assert PERTURBATION_KIND.item_ids(frame).tolist() == ["negation:3", "antonym:3"]
    assert EXCLUSION_KIND.item_ids(pd.DataFrame({"query_id": [5, "q"]})).tolist() == ["5", "q"]


def test_score_dataset_scores_every_slot_with_tfidf():
    # TF-IDF (the NevIR protocol) by hand: the same text scores 1, no shared term scores 0.
    frame = pd.DataFrame(
        {"query_id": ["a"], "query": ["black cat"], "pos_doc": ["black cat"], "neg_doc": ["white dog"]}
    )
    scores = score_dataset(EXCLUSION_KIND, frame, load_scorer("tfidf", device="cpu"))
    assert scores["item_id"].tolist() == ["a", "a"] and scores["slot"].tolist() == ["pos", "neg"]
    assert scores["score"].tolist() == pytest.approx([1.0, 0.0])
