"""negviz.scorers.bm25: Lucene BM25 over the call's documents against hand-computed values, its
options, the collection as part of the cache key, and tokens that keep negation words."""

from __future__ import annotations

import math

import numpy as np
import pytest

from negviz.core.schema import ModelSpec
from negviz.evaluation.catalog import load_scorer
from negviz.scorers.bm25 import bm25_tokens, stop_words

DOCS3 = ["The cat sat on the mat.", "The cat is not black.", "A dog."]


def bm25_by_hand(tf, dl, df, n=3, avgdl=7 / 3, k1=1.5, b=0.75):
    """Lucene BM25 of one term: idf = ln(1 + (N - df + .5)/(df + .5)), tf / (tf + k1(1 - b + b dl/avgdl))."""
    return math.log(1 + (n - df + 0.5) / (df + 0.5)) * tf / (tf + k1 * (1 - b + b * dl / avgdl))


def test_bm25_hand_computed_on_three_documents():
    # tokens: [cat, sat, mat], [cat, not, black], [dog]: N=3, avgdl=7/3; "not" is kept
    scorer = load_scorer("bm25", device="cpu")
    query = "Is the cat not black?"  # -> [cat, not, black]
    scores = scorer.score([query] * 3, DOCS3)
    cat = bm25_by_hand(tf=1, dl=3, df=2)
    rare = bm25_by_hand(tf=1, dl=3, df=1)
    assert cat == pytest.approx(math.log(1.6) / (1 + 1.5 * (0.25 + 0.75 * 9 / 7)))
    np.testing.assert_allclose(scores, [cat, cat + 2 * rare, 0.0], rtol=1e-12)
    # the negation cue counts: the affirmative query loses exactly the "not" term
    affirmative = scorer.score(["Is the cat black?"] * 3, DOCS3)
    assert scores[1] - affirmative[1] == pytest.approx(rare, rel=1e-12)


def test_bm25_options_change_the_scores():
    scorer = load_scorer(ModelSpec.make("bm25", k1=1.2, b=0.5), device="cpu")
    got = scorer.score(["cat"] * 3, DOCS3)
    np.testing.assert_allclose(got[:2], [bm25_by_hand(1, 3, 2, k1=1.2, b=0.5)] * 2, rtol=1e-12)


def test_bm25_collection_is_the_call_and_keys_the_cache(score_cache):
    alone = load_scorer("bm25", device="cpu", cache=score_cache).score(["cat"], [DOCS3[0]])
    # a one-document collection: N=1, df=1, dl = avgdl
    assert alone[0] == pytest.approx(math.log(1 + 0.5 / 1.5) / (1 + 1.5))
    # the same pair within a bigger collection is another score, not a stale cache hit
    within = load_scorer("bm25", device="cpu", cache=score_cache).score(["cat"] * 3, DOCS3)
    assert within[0] == pytest.approx(bm25_by_hand(tf=1, dl=3, df=2))
    again = load_scorer("bm25", device="cpu", cache=score_cache)
    assert again.score(["cat"], [DOCS3[0]])[0] == alone[0] and not again.loaded


def test_bm25_tokens_keep_negation_and_spell_out_contractions():
    stop = stop_words()
    assert {"not", "no", "never", "nor", "none", "nothing", "nobody", "neither", "without"}.isdisjoint(stop)
    assert bm25_tokens("He can't, she won't; they didn’t — CANNOT: none!", stop) == [
        "not", "not", "did", "not", "not", "none"]  # fmt: skip


def test_bm25_all_stop_words_score_zero():
    assert load_scorer("bm25", device="cpu").score(["the cat"], ["it is"]).tolist() == [0.0]
