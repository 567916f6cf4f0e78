"""The local back end reads a template's shared prompt prefix from cached keys and values
(negviz.scorers.llm.local): scores equal a full forward pass of every prompt, alone or in a batch, and a
prompt that does not start with the prefix takes the full path. Real tiny causal LM (tests/tiny)."""

from __future__ import annotations

import numpy as np
import pytest

from negviz.scorers.llm.local import LocalLM
from negviz.scorers.llm.prompts import TEMPLATES

QUERIES = ["who did not win the war?", "who won the war?", "the king", "what music does the old king like?"]
DOCS = [
    "The king won the war in 1914; his people did not.",
    "No river flows through the old city.",
    "Music.",
    "A new book about the king, the city and the river was written many years after the war.",
]


@pytest.fixture(scope="module")
def tiny_lm(tiny_model_dir):
    return str(tiny_model_dir("llm-pointwise"))


@pytest.mark.parametrize("template", ["true-false", "rank1"])
def test_prefix_reuse_gives_the_full_forward_scores(tiny_lm, template):
    lm = LocalLM(tiny_lm, "cpu", TEMPLATES[template])
    texts = [lm.prompt(q, d) for q, d in zip(QUERIES, DOCS)]
    prefix = list(lm.prefix_ids)
    assert len(prefix) >= 8 and all(
        lm.tokenizer(t, add_special_tokens=False)["input_ids"][: len(prefix)] == prefix for t in texts
    )
    batched = lm.answer_scores(texts)
    alone = np.concatenate([lm.answer_scores([t]) for t in texts])
    assert lm.prefix_tokens_reused == 2 * len(prefix) * len(texts)
    lm.prefix_ids = []  # the full forward pass of every prompt
    full = lm.answer_scores(texts)
    np.testing.assert_allclose(batched, full, atol=1e-5)
    np.testing.assert_allclose(alone, full, atol=1e-5)


def test_a_prompt_without_the_prefix_takes_the_full_path(tiny_lm):
    lm = LocalLM(tiny_lm, "cpu", TEMPLATES["true-false"])
    odd = ["Query: the king\nPassage: Music."]  # not the template's text
    score = lm.answer_scores(odd)
    assert lm.prefix_tokens_reused == 0
    lm.prefix_ids = []
    np.testing.assert_array_equal(score, lm.answer_scores(odd))
