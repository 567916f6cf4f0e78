"""negviz.scorers.late_interaction: the MaxSim maths, token similarity matrices and token kinds,
shared by ColBERT (test_colbert.py) and MaxSim over encoder tokens (test_maxsim.py), which
import this file's texts and ``check_bookkeeping``."""

from __future__ import annotations

import numpy as np
import pytest

from negviz.scorers.late_interaction import (
    KINDS,
    TokenEmbeddings,
    is_punct_token,
    maxsim,
    pair_matrix,
    similarity_matrix,
    token_kinds,
)

QUERY = "who is not the king of the city?"
DOC = "The king, of the old city, was not a good king; he had no water."
OTHER_DOC = "a river, a war and a game."
LONG = " ".join(["the old king of the city was not good"] * 8)  # 72 words


def check_bookkeeping(emb: TokenEmbeddings) -> None:
    n = len(emb.tokens)
    assert emb.vectors.shape[0] == n == len(emb.mask) == len(emb.kinds)
    assert emb.vectors.dtype == np.float32 and emb.mask.dtype == bool
    assert set(emb.kinds) <= set(KINDS)


# ---------------------------------------------------------------- pure functions
def test_maxsim_by_hand():
    sim = np.array([[0.1, 0.9, 0.5], [0.7, 0.2, 0.95], [0.3, 0.3, 0.3]])
    score, argmax, row_max = maxsim(sim, np.array([True, True, False]), np.array([True, True, False]))
    # Row 1's 0.95 sits in a masked column; row 2 is outside the query mask.
    assert argmax.tolist() == [1, 0, -1]
    assert row_max.tolist() == [0.9, 0.7, 0.0]
    assert score == pytest.approx(1.6) and score == row_max.sum()


def test_maxsim_needs_a_document_token():
    with pytest.raises(ValueError, match="document mask is empty"):
        maxsim(np.zeros((2, 2)), np.ones(2, bool), np.zeros(2, bool))


def test_similarity_matrix_cosine_and_l2_by_hand():
    q = np.array([[3.0, 4.0]])
    d = np.array([[3.0, 4.0], [4.0, -3.0], [0.0, 0.0], [6.0, 8.0]])
    np.testing.assert_allclose(similarity_matrix(q, d, "cosine"), [[1.0, 0.0, 0.0, 1.0]], atol=1e-12)
    np.testing.assert_allclose(similarity_matrix(q, d, "l2"), [[0.0, -50.0, -25.0, -25.0]], atol=1e-9)
    with pytest.raises(ValueError, match="unknown similarity"):
        similarity_matrix(q, d, "dot")


def test_pair_matrix_row_maxima_add_up_to_the_score():
    rng = np.random.default_rng(0)
    vectors = rng.normal(size=(2, 3, 4)).astype(np.float32)
    q = TokenEmbeddings(["a", "b", "c"], vectors[0], np.array([1, 1, 0], bool), ["word"] * 3)
    d = TokenEmbeddings(["x", ",", "y"], vectors[1], np.array([1, 0, 1], bool), ["word", "punct", "word"])
    for similarity in ("cosine", "l2"):
        tm = pair_matrix(q, d, similarity)
        assert tm.sim.shape == (3, 3) and tm.sim.dtype == np.float64
        assert tm.row_max.sum() == tm.score
        assert 1 not in tm.argmax[:2] and tm.argmax[2] == -1


def test_token_kinds_and_punctuation():
    word_ids = [None, 0, 0, 1, 2, None]
    assert token_kinds(word_ids, [False, False, False, True, False, False]) == [
        "special",
        "word",
        "subword",
        "punct",
        "word",
        "special",
    ]
    assert all(map(is_punct_token, [",", ".", "##.", "Ġ(", "▁?", "..."]))
    assert not any(map(is_punct_token, ["not", "##n", "n't", "", "Ġ"]))


def test_token_embeddings_checks_lengths():
    with pytest.raises(ValueError, match="out of step"):
        TokenEmbeddings(["a", "b"], np.zeros((3, 2), np.float32), np.ones(2, bool), ["word"] * 2)
