"""negviz.scorers.cross_encoder: the raw logit of the right label, against a direct forward pass of
the same tiny checkpoint, and how that label is picked."""

from __future__ import annotations

import numpy as np
import pytest

from negviz.core.errors import ModelUnavailableError
from negviz.core.schema import ModelSpec
from negviz.evaluation.catalog import load_scorer
from negviz.scorers.cross_encoder import pick_label

PAIRS_Q = ["who won the war?", "the king", "is the city not old?"]
PAIRS_D = ["The king won the war.", "No river flows through the old city at all.", "city"]


def direct_logits(path, queries, docs):
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(path)
    model = AutoModelForSequenceClassification.from_pretrained(path).eval()
    with torch.inference_mode():
        return model(**tok(queries, docs, padding=True, truncation=True, return_tensors="pt")).logits.double().numpy()


@pytest.mark.parametrize("name, label, column", [("cross-encoder", None, 1), ("cross-encoder", "neutral", 2),
                                                 ("cross-encoder", 0, 0), ("cross-encoder-1", None, 0)])  # fmt: skip
def test_cross_encoder_scores_the_raw_logit_of_the_right_label(tiny_model_dir, name, label, column):
    path = tiny_model_dir(name)
    scorer = load_scorer(ModelSpec.make(str(path), family="cross-encoder", label=label), device="cpu")
    expected = direct_logits(path, PAIRS_Q, PAIRS_D)[:, column]  # entailment is column 1 of the NLI head
    np.testing.assert_allclose(scorer.score(PAIRS_Q, PAIRS_D), expected, rtol=1e-5, atol=1e-6)


def test_pick_label():
    assert pick_label({0: "CONTRADICTION", 1: "NEUTRAL", 2: "ENTAILMENT"}, 3) == 2
    assert pick_label({"0": "LABEL_0"}, 1) == 0
    assert pick_label({0: "no", 1: "yes"}, 2, "yes") == 1 and pick_label({0: "no", 1: "yes"}, 2, 1) == 1
    with pytest.raises(ValueError, match="label="):
        pick_label({0: "LABEL_0", 1: "LABEL_1"}, 2)
    with pytest.raises(ValueError, match="not one of"):
        pick_label({0: "no", 1: "yes"}, 2, "maybe")


def test_cross_encoder_unknown_label_is_a_clear_load_error(tiny_model_dir):
    spec = ModelSpec.make(str(tiny_model_dir("cross-encoder")), family="cross-encoder", label="relevant")
    with pytest.raises(ModelUnavailableError, match="relevant"):
        load_scorer(spec, device="cpu").score(["q"], ["d"])
