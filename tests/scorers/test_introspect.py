"""negviz.scorers.introspect: integrated gradients of a score margin and every layer's hidden
states, on the tiny offline bi-encoder. Attributions add up to F(x) - F(x'), the batched
gradient x input equals the one-at-a-time one, and the last layer is the encoder's own output."""

from __future__ import annotations

import numpy as np
import pytest

from negviz.core.schema import ModelSpec
from negviz.evaluation.catalog import load_scorer
from negviz.scorers.introspect import gradient_x_input_many, hidden_states, integrated_gradients

QUERY, GOOD, BAD = "is the city not old?", "The city is not old.", "The city is old."


@pytest.fixture(scope="module")
def scorer(tiny_model_dir):
    return load_scorer(ModelSpec.make(str(tiny_model_dir("bi-encoder")), family="bi-encoder"), device="cpu")


@pytest.fixture(scope="module")
def parts(scorer):
    return scorer.encoder_parts()


def test_integrated_gradients_add_up_to_the_margin_and_f_of_x_is_the_score(scorer, parts):
    ig = integrated_gradients(parts, QUERY, GOOD, BAD, steps=64)
    total = sum(a.sum() for a in ig.attributions)
    # completeness: the midpoint rule with 64 steps leaves a small integration error
    assert total == pytest.approx(ig.margin - ig.baseline_margin, rel=0.05, abs=1e-3)
    good, bad = scorer.score([QUERY, QUERY], [GOOD, BAD])
    assert ig.margin == pytest.approx(good - bad, rel=1e-4, abs=1e-5)  # F(x): the dot-product margin
    # one value per piece, specials at (0, 0) with no attribution (their embedding is not moved)
    query_offsets, query_values = ig.offsets[0], ig.attributions[0]
    assert len(query_offsets) == len(query_values) and query_offsets[0] == (0, 0) and query_values[0] == 0
    start, end = query_offsets[1]
    assert QUERY[start:end] == "is"


def test_batched_gradient_x_input_equals_one_triple_at_a_time(parts):
    triples = [(QUERY, GOOD, BAD), ("who won?", "The king won the war.", "Nobody won.")]
    batched = gradient_x_input_many(parts, triples)
    for got, (q, g, b) in zip(batched, triples):
        alone = integrated_gradients(parts, q, g, b, at_input=True)
        assert got.margin == pytest.approx(alone.margin, rel=1e-5, abs=1e-6)
        for a, b_ in zip(got.attributions, alone.attributions):
            np.testing.assert_allclose(a, b_, rtol=1e-4, atol=1e-6)
        assert got.offsets == alone.offsets


def test_hidden_states_are_every_layer_without_padding(parts):
    import torch

    short, long = hidden_states(parts, ["old city", "the city is not old at all"])
    layers = parts.transformer.config.num_hidden_layers
    assert short["states"].shape[0] == layers + 1 and short["states"].shape[1] == len(short["ids"])
    assert len(long["ids"]) > len(short["ids"])  # padding of the batch dropped
    assert short["special"][0] and short["special"][-1] and not short["special"][1:-1].any()
    enc = parts.tokenizer(["old city"], return_tensors="pt")
    with torch.no_grad():
        alone = parts.transformer(**enc).last_hidden_state[0].numpy()
    np.testing.assert_allclose(short["states"][-1], alone, atol=1e-5)
