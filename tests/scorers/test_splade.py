"""SPLADE: representations and scores against a by-hand computation from the MLM logits."""

from __future__ import annotations

import numpy as np
import pytest

from negviz.core.schema import ModelSpec
from negviz.evaluation.catalog import load_scorer
from negviz.scorers import splade as splade_module
from tests.support.tiny.late import build_tiny_splade

TEXTS = ["the city is not old", "a good king", "the river, the water and the old city were not new."]


@pytest.fixture(scope="module")
def splade_dir(tmp_path_factory):
    return build_tiny_splade(tmp_path_factory.mktemp("splade") / "ckpt")


@pytest.fixture(scope="module")
def scorer(splade_dir):
    return load_scorer(ModelSpec.make(str(splade_dir), family="splade"), device="cpu")


def rep_by_hand(path, text: str) -> np.ndarray:
    """max over tokens of log(1 + relu(logits)), one text at a time (no padding)."""
    import torch
    from transformers import AutoModelForMaskedLM, AutoTokenizer

    tok, model = AutoTokenizer.from_pretrained(path), AutoModelForMaskedLM.from_pretrained(path).eval()
    with torch.no_grad():
        logits = model(**tok(text, return_tensors="pt")).logits[0].double()
    return torch.log(1 + torch.relu(logits)).max(dim=0).values.numpy()


def test_reps_are_sparse_and_non_negative(scorer):
    vocab = scorer.model[1].config.vocab_size
    for rep in scorer.encode(TEXTS):
        assert (rep.weights > 0).all() and np.all(np.diff(rep.ids) > 0)
        assert rep.dense(vocab).min() >= 0 and len(rep.ids) <= vocab


def test_score_is_the_dot_product_of_reps_from_the_logits(scorer, splade_dir):
    by_hand = {t: rep_by_hand(splade_dir, t) for t in TEXTS}
    # A batch of texts of different lengths, so padding must be masked out of the max.
    queries, docs = [TEXTS[0], TEXTS[1], TEXTS[2]], [TEXTS[2], TEXTS[0], TEXTS[1]]
    expected = [by_hand[q] @ by_hand[d] for q, d in zip(queries, docs)]
    np.testing.assert_allclose(scorer.score(queries, docs), expected, rtol=1e-5)
    dense = scorer.encode([TEXTS[2]])[0].dense(len(by_hand[TEXTS[2]]))
    np.testing.assert_allclose(dense, by_hand[TEXTS[2]], rtol=1e-5, atol=1e-6)


def test_symmetric_and_batched_in_small_pieces(scorer, monkeypatch):
    forward = scorer.score(TEXTS, TEXTS[::-1])
    np.testing.assert_allclose(forward, scorer.score(TEXTS[::-1], TEXTS), rtol=1e-6)
    # A tiny logits budget splits each batch into one-text forward passes: same scores.
    monkeypatch.setattr(splade_module, "LOGITS_BUDGET", 1)
    np.testing.assert_allclose(scorer.score(TEXTS, TEXTS[::-1]), forward, rtol=1e-5)


def test_top_terms(scorer, splade_dir):
    terms = scorer.top_terms(TEXTS[0], k=5)
    assert len(terms) == 5 and all(isinstance(t, str) for t, _ in terms)
    weights = [w for _, w in terms]
    assert weights == sorted(weights, reverse=True) and weights[-1] > 0
    by_hand = rep_by_hand(splade_dir, TEXTS[0])
    np.testing.assert_allclose(weights, np.sort(by_hand)[::-1][:5], rtol=1e-5)
