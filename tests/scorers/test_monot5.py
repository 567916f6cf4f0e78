"""negviz.scorers.monot5: log P("true") against "false" after one decoder step, against a direct
forward pass of the same tiny T5 checkpoint, and how the answer words become token ids."""

from __future__ import annotations

import numpy as np

from negviz.core.schema import ModelSpec
from negviz.evaluation.catalog import load_scorer
from negviz.scorers.monot5 import token_id

PAIRS_Q = ["who won the war?", "the king", "is the city not old?"]
PAIRS_D = ["The king won the war.", "No river flows through the old city at all.", "city"]


def test_monot5_is_log_p_true_against_false(tiny_model_dir):
    import torch
    from transformers import AutoTokenizer, T5ForConditionalGeneration

    path = tiny_model_dir("monot5")
    scorer = load_scorer(ModelSpec.make(str(path), family="monot5"), device="cpu")
    long_doc = " ".join(["the old king of the city was not good"] * 80)  # > 512 tokens: truncated
    queries, docs = [*PAIRS_Q, "king"], [*PAIRS_D, long_doc]
    got = scorer.score(queries, docs)

    tok = AutoTokenizer.from_pretrained(path)
    model = T5ForConditionalGeneration.from_pretrained(path).eval()
    vocab = tok.get_vocab()
    want = []
    for q, d in zip(queries, docs):  # one pair at a time: no padding
        enc = tok(f"Query: {q} Document: {d} Relevant:", truncation=True, max_length=512, return_tensors="pt")
        with torch.inference_mode():
            logits = model(**enc, decoder_input_ids=torch.zeros((1, 1), dtype=torch.long)).logits[0, 0]
        false, true = logits[vocab["▁false"]].item(), logits[vocab["▁true"]].item()
        want.append(true - np.logaddexp(false, true))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    assert (got < 0).all()


def test_token_id_prefers_the_sentence_start_piece(tiny_model_dir):
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(tiny_model_dir("monot5"))
    vocab = tok.get_vocab()
    assert token_id(tok, "true") == vocab["▁true"]  # "▁true", not a bare "true" piece
    # A word with no piece of its own: its first sub-token, as the tokenizer splits it.
    word = "truefalsetrue"
    assert f"▁{word}" not in vocab and word not in vocab
    assert token_id(tok, word) == tok.encode(word, add_special_tokens=False)[0]


def test_swapped_answer_tokens_give_log_p_false(tiny_model_dir):
    path = str(tiny_model_dir("monot5"))
    true = load_scorer(ModelSpec.make(path, family="monot5"), device="cpu").score(PAIRS_Q, PAIRS_D)
    swapped = ModelSpec.make(path, family="monot5", true_token="false", false_token="true")
    false = load_scorer(swapped, device="cpu").score(PAIRS_Q, PAIRS_D)
    # log P(true) and log P(false) of a two-way softmax: their probabilities add up to one
    np.testing.assert_allclose(np.exp(true) + np.exp(false), 1.0, rtol=1e-5)
