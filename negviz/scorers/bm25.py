"""BM25 (bm25s, Lucene variant) with the documents of one ``score()`` call as the collection.

BM25 needs a collection for its IDF and average document length. negviz scores datasets of
pairs, not a corpus, so the collection is the set of unique documents passed to one
``score()`` call (for an evaluation run: every document of the dataset). Scores therefore
depend on the whole call, so the score-cache namespace includes a hash of that collection:
a cached score is reused only when the same collection is scored again.

Tokens: lowercase, "n't"/"cannot" spelt out as "not", apostrophes deleted, then runs of
word characters (any other punctuation, ASCII or not, separates words); scikit-learn's
English stop words removed *except negation words*.
Why keep them: with "not", "no", "never", ... removed (as the TF-IDF protocol does), a NevIR
query and its negated twin become the same bag of words and every comparison that hinges on
the negation is a tie; keeping them lets a lexical model at least match the negation cue.
"""

from __future__ import annotations

import re
import threading
from typing import Sequence

import numpy as np

from negviz.core.heavy import heavy_import
from negviz.core.options import Option
from negviz.core.schema import spec_hash, text_hash
from negviz.scorers.base import Progress, Scorer, no_progress

NEGATION_WORDS = frozenset({"not", "no", "never", "nor", "none", "nothing", "nobody", "neither", "without", "cannot"})
_WORD = re.compile(r"\w+")
# Contractions first, while the apostrophe is still there ("can't" -> "can not").
_NEGATED = [
    (re.compile(r"\bcan[’']t\b"), "can not"),
    (re.compile(r"\bwon[’']t\b"), "will not"),
    (re.compile(r"n[’']t\b"), " not"),
    (re.compile(r"\bcannot\b"), "can not"),
]
_QUERIES_PER_REPORT = 200


def stop_words() -> frozenset[str]:
    ENGLISH_STOP_WORDS = heavy_import("sklearn.feature_extraction.text", "ENGLISH_STOP_WORDS")

    return frozenset(ENGLISH_STOP_WORDS) - NEGATION_WORDS


def bm25_tokens(text: str, stop: frozenset[str]) -> list[str]:
    text = text.lower()
    for pattern, replacement in _NEGATED:
        text = pattern.sub(replacement, text)
    return [t for t in _WORD.findall(text.replace("'", "").replace("’", "")) if t not in stop]


class BM25(Scorer):
    """Okapi BM25 (Lucene idf and tf), collection = the unique documents of the call."""

    family = "bm25"
    cpu_only = True
    checkpoint_every = None  # needs the whole collection of the call: one cache write at the end
    whole_call = True  # its IDF and average length come from the call's documents
    declared_options = (
        Option("k1", float, 1.5, "term-frequency saturation", gt=0, le=10),
        Option("b", float, 0.75, "document-length normalisation (0: none, 1: full)", ge=0, le=1),
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._collection: list[str] = []
        self._collection_key = ""
        # score() keeps the call's collection on the instance for _score_pairs; the lock keeps
        # two threads (e.g. two Streamlit sessions sharing a cached scorer) from mixing them.
        self._lock = threading.Lock()

    def _load(self):
        return stop_words()  # nothing to load: the stop list is the "model"

    @property
    def score_namespace(self) -> str:
        return spec_hash({"scorer": super().score_namespace, "collection": self._collection_key})

    def score(self, queries: Sequence[str], docs: Sequence[str], progress: Progress = no_progress) -> np.ndarray:
        with self._lock:
            self._collection = sorted(set(docs))  # sorted: the key must not depend on pair order
            self._collection_key = spec_hash({"docs": [text_hash(d) for d in self._collection]})
            return super().score(queries, docs, progress)

    def _score_pairs(self, queries: list[str], docs: list[str], progress: Progress) -> np.ndarray:
        stop = self.model
        doc_tokens = [bm25_tokens(d, stop) for d in self._collection]
        out = np.zeros(len(queries))
        if not any(doc_tokens):  # bm25s cannot index a collection without a single term
            return out
        import bm25s

        index = bm25s.BM25(k1=float(self.options["k1"]), b=float(self.options["b"]), method="lucene", dtype="float64")
        index.index(doc_tokens, show_progress=False)
        doc_row = {d: i for i, d in enumerate(self._collection)}
        # One pass over the collection per distinct query; pairs then pick their document.
        by_query: dict[str, list[int]] = {}
        for i, q in enumerate(queries):
            by_query.setdefault(q, []).append(i)
        done = 0
        for n, (q, rows) in enumerate(by_query.items(), 1):
            ids = index.get_tokens_ids(bm25_tokens(q, stop))  # terms outside the collection drop out
            if ids:
                all_docs = index.get_scores_from_ids(ids)
                out[rows] = all_docs[[doc_row[docs[i]] for i in rows]]
            done += len(rows)
            if n % _QUERIES_PER_REPORT == 0:
                progress(done, len(queries), "bm25")
        return out
