"""negviz.scorers.tfidf: TF-IDF as the NevIR code scores it, against hand-computed values and
scikit-learn's TfidfVectorizer bit for bit, and its nltk-of-2023 tokenizer.

TF-IDF over the whole of NevIR: tests/models/test_tfidf_on_nevir.py."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from negviz.evaluation.catalog import load_scorer
from negviz.scorers.tfidf import nevir_tokens, pair_cosine

ROOT = Path(__file__).resolve().parents[2]
IDF_ONCE = 1 + math.log(3 / 2)  # smooth idf of a term in one of the two texts (n=2, df=1)


@pytest.fixture
def tfidf():
    return load_scorer("tfidf", device="cpu")


def test_tfidf_hand_computed_cosine_and_negation_tie(tfidf):
    doc = "The cat is not black; the cat is white."
    # query -> [cat, black]; doc -> [cat, black, cat, white] ("is", "the", "not" are stop words)
    expected = (1 * 2 + 1 * 1) / (math.sqrt(2) * math.sqrt(2**2 + 1**2 + IDF_ONCE**2))
    assert expected == pytest.approx(0.8032002, abs=1e-7)
    scores = tfidf.score(["Is the cat black?", "Is the cat NOT black?"], [doc, doc])
    assert scores[0] == pytest.approx(expected, abs=1e-12)
    assert scores[0] == scores[1]  # negation is a stop word: a tie, a failure under the strict NevIR rule


def test_tfidf_zero_without_shared_terms_or_vocabulary(tfidf):
    scores = tfidf.score(["Is the dog brown?", "Is it not?", "cat"], ["The cat is white.", "It is.", "Cat!"])
    assert scores[0] == 0.0  # nothing shared
    assert scores[1] == 0.0  # only stop words: the NevIR code would raise "empty vocabulary"
    assert scores[2] == pytest.approx(1.0)  # same single term, punctuation stripped


def test_tfidf_tokenizer_follows_nltk_of_2023():
    got = nevir_tokens("He said “it cannot be”—no, it wasn’t in 1914–1918; we're gonna go.")
    # unicode quotes split off, "cannot"/"gonna" split, dashes kept inside words, ASCII punctuation gone
    assert got == ["he", "said", "“", "it", "can", "not", "be", "”", "—no", "it", "wasn", "’", "t",
                   "in", "1914–1918", "were", "gon", "na", "go"]  # fmt: skip


def test_pair_cosine_of_hand_counted_tokens():
    # query [a, b, b] against doc [b, c]: b shared (idf 1), a and c once each (idf 1 + ln 1.5)
    # query row (a=IDF_ONCE, b=2), doc row (b=1, c=IDF_ONCE): dot = 2 * 1
    expected = 2 / (math.sqrt(IDF_ONCE**2 + 4) * math.sqrt(1 + IDF_ONCE**2))
    assert pair_cosine(["a", "b", "b"], ["b", "c"]) == pytest.approx(expected, rel=1e-12)
    assert pair_cosine(["a"], ["a", "a"]) == pytest.approx(1.0)  # one shared term: parallel rows
    assert pair_cosine([], ["a"]) == 0.0


def test_tfidf_matches_scikit_learn_bit_for_bit():
    """pair_cosine reorders nothing: equal to TfidfVectorizer + sparse product to the last bit,
    which decides float-noise ties (a word swapped for another absent from the query)."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(12)]
    cases = [(["a", "b"], ["a", "c", "b", "d"]), (["a", "b"], ["a", "e", "b", "d"]), (["x", "a", "a"], ["a", "b", "x"])]
    cases += [
        (list(rng.choice(words, rng.integers(1, 8))), list(rng.choice(words, rng.integers(1, 30)))) for _ in range(300)
    ]
    for q, d in cases:
        m = TfidfVectorizer(analyzer=lambda toks: toks).fit_transform([q, d])
        assert pair_cosine(q, d) == (m @ m.T).toarray()[0, 1], (q, d)
