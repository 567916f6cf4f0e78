"""TF-IDF exactly as the NevIR code scores it (``negations/tfidf.py``, docs/REFERENCE.md).

For every (query, doc) the NevIR code refits ``TfidfVectorizer(tokenizer=normalize,
stop_words="english")`` on just ``[query, doc]`` and takes the dot product of the two
L2-normalised rows. ``normalize`` is ``nltk.word_tokenize(text.lower().translate(<drop ASCII
punctuation>))``. scikit-learn's English stop list holds "not", "no", "never", "nor", ...,
so a query and its negated twin usually get the same score: ties, which the strict NevIR
rule counts as failures, are what gives TF-IDF its 2.0% paired accuracy.

nltk is not a dependency: once ASCII punctuation is gone, the only rules of nltk's
``word_tokenize`` that can still fire are the ones reproduced in ``nevir_tokens`` (unicode
quotes split off, "cannot"/"gonna"-style words split in two). Sentence splitting cannot
fire either, since it needs ".", "?" or "!". Unicode dashes stay inside words, as in the
nltk of 2023 that NevIR ran (nltk split "–"/"—" only from late 2025, PR nltk#3461); with
that split the NevIR test score drops from 27 to 26 pairs of 1,383.
"""

from __future__ import annotations

import math
import re
import string
from collections import Counter

import numpy as np

from negviz.core.heavy import heavy_import
from negviz.scorers.base import Progress, Scorer

_DROP_PUNCTUATION = {ord(c): None for c in string.punctuation}
# nltk NLTKWordTokenizer rules that survive punctuation removal: STARTING_QUOTES[0],
# ENDING_QUOTES[0] and the CONTRACTIONS2 entries without an apostrophe.
_PAD = [re.compile("([«“‘„])"), re.compile("([»”’])")]
_SPLIT_WORDS = [
    re.compile(p)
    for p in (
        r"\b(can)(not)\b",
        r"\b(gim)(me)\b",
        r"\b(gon)(na)\b",
        r"\b(got)(ta)\b",
        r"\b(lem)(me)\b",
        r"\b(wan)(na)(?=\s)",
    )
]
_BATCH = 500  # pairs per progress report
# idf of a term in one of the two texts: smooth idf, log((1 + n) / (1 + df)) + 1 with n=2,
# df=1, through numpy's log as scikit-learn computes it.
_IDF_ONCE = float(np.log(np.array([3.0]) / np.array([2.0]))[0] + 1.0)


def nevir_tokens(text: str) -> list[str]:
    """The NevIR ``normalize`` tokenizer: lowercase, drop ASCII punctuation, word_tokenize."""
    text = text.lower().translate(_DROP_PUNCTUATION)
    for pattern in _PAD:
        text = pattern.sub(r" \1 ", text)
    text = f" {text} "  # as nltk does, so the (?=\s) lookahead sees the end
    for pattern in _SPLIT_WORDS:
        text = pattern.sub(r" \1 \2 ", text)
    return text.split()


class TfIdf(Scorer):
    """Cosine of TF-IDF vectors fitted on the pair alone (the NevIR protocol)."""

    family = "tfidf"
    symmetric = True
    cpu_only = True
    checkpoint_every = None  # microseconds a pair: one cache write at the end

    def _load(self):
        ENGLISH_STOP_WORDS = heavy_import("sklearn.feature_extraction.text", "ENGLISH_STOP_WORDS")

        return frozenset(ENGLISH_STOP_WORDS)  # nothing to load: the stop list is the "model"

    def _score_pairs(self, queries: list[str], docs: list[str], progress: Progress) -> np.ndarray:
        stop = self.model
        # Tokenize each distinct text once; a query is often paired with several documents.
        tokens: dict[str, list[str]] = {}
        for text in (*queries, *docs):
            if text not in tokens:
                tokens[text] = [t for t in nevir_tokens(text) if t not in stop]
        out = np.zeros(len(queries))
        for i, (q, d) in enumerate(zip(queries, docs)):
            out[i] = pair_cosine(tokens[q], tokens[d])
            if (i + 1) % _BATCH == 0:
                progress(i + 1, len(queries), "tf-idf")
        return out


def pair_cosine(query_tokens: list[str], doc_tokens: list[str]) -> float:
    """Cosine of the two rows of ``TfidfVectorizer().fit_transform([query, doc])`` (tokens
    already stop-worded), bit for bit as scikit-learn and scipy compute it.

    Why not call scikit-learn: its per-fit overhead is ~1 ms, 6 s on NevIR test. Why bit for
    bit: mathematically tied scores (a word swapped for another that is absent from the
    query) differ by ~1e-17 in float arithmetic, and the strict ">" of NevIR counts such
    ties by their float noise (3 of the 2,766 NevIR test comparisons). So the
    operations run in scikit-learn's order:
    - ids by first occurrence over query then doc; each row's entries in id order;
    - idf = log(3 / (df + 1)) + 1: 1.0 for shared terms, log(1.5) + 1 for the others;
    - each row divided by the square root of its sequential sum of squares;
    - the dot product summed sequentially over the query row's entries (scipy's csr matmul).
    tests/scorers/test_tfidf.py checks this against TfidfVectorizer. An empty vocabulary (the
    NevIR code would raise) and no shared term both score 0.
    """
    q_counts, d_counts = Counter(query_tokens), Counter(doc_tokens)  # first-occurrence order
    shared = q_counts.keys() & d_counts.keys()
    if not shared:
        return 0.0
    q_vals = [c * (1.0 if t in shared else _IDF_ONCE) for t, c in q_counts.items()]
    d_order = [t for t in q_counts if t in shared] + [t for t in d_counts if t not in shared]
    d_vals = [d_counts[t] * (1.0 if t in shared else _IDF_ONCE) for t in d_order]
    q_norm, d_norm = _row_norm(q_vals), _row_norm(d_vals)
    d_by_term = dict(zip(d_order, d_vals))
    total = 0.0
    for t, v in zip(q_counts, q_vals):
        if t in shared:
            total += (v / q_norm) * (d_by_term[t] / d_norm)
    return total


def _row_norm(values: list[float]) -> float:
    total = 0.0
    for v in values:  # sequential, as sklearn's inplace_csr_row_normalize_l2
        total += v * v
    return math.sqrt(total)
